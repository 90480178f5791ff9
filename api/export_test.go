package api

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"

	"github.com/auditd/auditd/workers"
)

// TestExportTasks exports audited chats in both formats and shapes, with
// the list's filters and its visibility, and refuses bad parameters in the
// error model.
func TestExportTasks(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{jobWait: 20 * time.Second})
	b.startWorkers(t, workers.Deps{})
	quality := b.issuer.token(t, "qa", "quality")
	olga := b.issuer.token(t, "olga", "operator")
	pepe := b.issuer.token(t, "pepe", "operator")
	tasks := b.audited(t, quality, file("good.txt", []byte(goodChat)), file("=HYPERLINK(1).txt", []byte(rudeChat)))
	tasks = append(tasks, b.audited(t, quality, field("operator", "olga"), file("olga.txt", []byte(goodChat+"\nCliente: ok\n")))...)
	byName := map[string]map[string]any{}
	for _, task := range tasks {
		byName[task["file_name"].(string)] = task
	}

	export := func(token, query string) (response, [][]string) {
		t.Helper()
		r := b.do(t, http.MethodGet, "/tasks/export?"+query, token, nil)
		require.Equal(t, http.StatusOK, r.Status, r.RawBody)
		require.Equal(t, "text/csv; charset=utf-8", r.Header.Get("Content-Type"))
		require.Regexp(t, `^attachment; filename=tasks-\d{8}-\d{6}\.csv$`, r.Header.Get("Content-Disposition"))
		require.True(t, strings.HasPrefix(r.RawBody, "\ufeff"), "a byte order mark for spreadsheet programs")
		rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(r.RawBody, "\ufeff"))).ReadAll()
		require.NoError(t, err)
		return r, rows
	}
	column := func(header []string, name string) int {
		t.Helper()
		for i, h := range header {
			if h == name {
				return i
			}
		}
		require.Failf(t, "no column", "%s in %v", name, header)
		return -1
	}

	// Wide: a row per task, a column per criterion.
	_, rows := export(quality, "")
	header := rows[0]
	require.Equal(t, exportTaskColumns, header[:len(exportTaskColumns)])
	require.Equal(t, []string{"greeting", "recording_notice", "verification", "no_forbidden_phrases", "empathy",
		"resolution", "further_help", "farewell"}, header[len(exportTaskColumns):], "the default scorecard's criteria, in order")
	require.Len(t, rows, 4)
	name, created := column(header, "file_name"), column(header, "created_at")
	got := map[string][]string{}
	for _, row := range rows[1:] {
		got[row[name]] = row
		_, err := time.Parse(time.RFC3339, row[created])
		require.NoError(t, err, "ISO 8601")
	}
	require.Contains(t, got, "'=HYPERLINK(1).txt", "a formula is written as text")
	rude := got["'=HYPERLINK(1).txt"]
	require.Equal(t, "false", rude[column(header, "no_forbidden_phrases")])
	require.Equal(t, "0", rude[column(header, "score")], "a critical failure")
	require.Equal(t, "false", rude[column(header, "passed")])
	require.Empty(t, rude[column(header, "recording_notice")], "not judged in a chat")
	good := got["good.txt"]
	for _, it := range byName["good.txt"]["audit"].(map[string]any)["items"].([]any) {
		item := it.(map[string]any)
		want := "false"
		if item["complies"].(bool) {
			want = "true"
		}
		require.Equal(t, want, good[column(header, item["criterion_id"].(string))], item["criterion_id"])
	}
	require.Equal(t, "audited", good[column(header, "status")])

	// Long: a row per criterion of each audit.
	_, rows = export(quality, "shape=long&operator=olga")
	header = rows[0]
	require.Equal(t, append(append([]string{}, exportTaskColumns...), exportItemColumns...), header)
	items := byName["olga.txt"]["audit"].(map[string]any)["items"].([]any)
	require.Len(t, rows, 1+len(items))
	for i, it := range items {
		item, row := it.(map[string]any), rows[1+i]
		require.Equal(t, "olga.txt", row[column(header, "file_name")])
		require.Equal(t, item["criterion_id"], row[column(header, "criterion_id")])
		require.Equal(t, item["explanation"], row[column(header, "explanation")])
		require.Equal(t, item["basis"], row[column(header, "basis")])
		require.NotEmpty(t, row[column(header, "confidence")])
	}

	// The list's filters and visibility, the failed criterion among them.
	_, rows = export(quality, "file_name=good")
	require.Len(t, rows, 2)
	_, rows = export(quality, "failed_criterion=no_forbidden_phrases")
	require.Len(t, rows, 2)
	require.Equal(t, "'=HYPERLINK(1).txt", rows[1][column(rows[0], "file_name")])
	list := b.do(t, http.MethodGet, "/tasks?failed_criterion=no_forbidden_phrases", quality, nil)
	require.Equal(t, http.StatusOK, list.Status, list.RawBody)
	require.Equal(t, float64(1), list.Body["details"].(map[string]any)["total"])
	_, rows = export(quality, "failed_criterion=nope")
	require.Len(t, rows, 1)
	_, rows = export(quality, "campaign=nope")
	require.Len(t, rows, 1, "the header alone")
	_, rows = export(olga, "")
	require.Len(t, rows, 2, "an operator exports their own tasks")
	require.Equal(t, "olga.txt", rows[1][column(rows[0], "file_name")])
	_, rows = export(pepe, "")
	require.Len(t, rows, 1)
	_, rows = export(olga, "operator=qa")
	require.Len(t, rows, 1, "and nobody else's")

	// XLSX.
	r := b.do(t, http.MethodGet, "/tasks/export?format=xlsx&shape=long", quality, nil)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	require.Equal(t, exportTypes[exportXLSX], r.Header.Get("Content-Type"))
	f, err := excelize.OpenReader(bytes.NewReader([]byte(r.RawBody)))
	require.NoError(t, err)
	defer f.Close()
	require.Equal(t, []string{"tasks"}, f.GetSheetList())
	sheet, err := f.GetRows("tasks")
	require.NoError(t, err)
	require.Equal(t, header, sheet[0])
	require.Len(t, sheet, 1+3*7, "three chats, seven criteria each")
	names := map[string]bool{}
	for _, row := range sheet[1:] {
		names[row[column(header, "file_name")]] = true
	}
	require.Equal(t, map[string]bool{"good.txt": true, "=HYPERLINK(1).txt": true, "olga.txt": true}, names,
		"a cell holds text, never a formula")
	kind, err := f.GetCellType("tasks", "J2")
	require.NoError(t, err)
	require.Contains(t, []excelize.CellType{excelize.CellTypeUnset, excelize.CellTypeNumber}, kind,
		"a score is a number (the default type), not text")
	score, err := f.GetCellValue("tasks", "J2")
	require.NoError(t, err)
	require.Contains(t, []string{"0", "100"}, score)
	kind, err = f.GetCellType("tasks", "B2")
	require.NoError(t, err)
	require.Equal(t, excelize.CellTypeInlineString, kind, "a file name is text")

	for _, bad := range []string{"format=pdf", "shape=tall", "status=lost", "from=yesterday", "min_score=101",
		"passed=maybe", "campaign=" + strings.Repeat("x", 201), "failed_criterion=" + strings.Repeat("x", 65)} {
		requireError(t, b.do(t, http.MethodGet, "/tasks/export?"+bad, quality, nil), http.StatusBadRequest, CodeValidation)
	}
	requireError(t, b.do(t, http.MethodGet, "/tasks/export", "", nil), http.StatusUnauthorized, CodeMissingAuthHeader)
	requireError(t, b.do(t, http.MethodGet, "/tasks/export", b.issuer.token(t, "nobody"), nil), http.StatusForbidden, CodeForbidden)

	// A criterion not applicable: an empty cell in a wide export, not_applicable
	// in a long one, and no longer a failed criterion the list finds.
	rudeTask := byName["=HYPERLINK(1).txt"]
	edit := editOf(t, rudeTask, nil)
	edit["audit"] = []map[string]any{naItem(t, rudeTask, "no_forbidden_phrases")}
	r = b.edit(t, quality, edit)
	require.Equal(t, http.StatusOK, r.Status, r.RawBody)
	_, rows = export(quality, "file_name=HYPERLINK")
	require.Empty(t, rows[1][column(rows[0], "no_forbidden_phrases")], "not judged: not applicable")
	_, rows = export(quality, "file_name=HYPERLINK&shape=long")
	var notApplicable []string
	for _, row := range rows[1:] {
		if row[column(rows[0], "not_applicable")] == "true" {
			notApplicable = append(notApplicable, row[column(rows[0], "criterion_id")])
			require.Equal(t, "true", row[column(rows[0], "complies")], "met as not applicable")
		} else {
			require.Equal(t, "false", row[column(rows[0], "not_applicable")])
		}
	}
	require.Equal(t, []string{"verification", "no_forbidden_phrases"}, notApplicable,
		"the analyst's, and the engine's: nothing in the chat makes verification apply")
	_, rows = export(quality, "failed_criterion=no_forbidden_phrases")
	require.Len(t, rows, 1, "the header alone")
}

// An XLSX export that could not open whole in one sheet is refused before
// anything is written, naming CSV. Not parallel: it lowers the limit the
// parallel tests read.
func TestExportRefusesAnOversizedWorkbook(t *testing.T) {
	defer func(n int64) { xlsxMaxRows = n }(xlsxMaxRows)
	xlsxMaxRows = 2
	b := setup(t)
	quality := b.issuer.token(t, "qa", "quality")
	for i := range 3 {
		uploaded(t, b.upload(t, quality, file(fmt.Sprintf("chat-%d.txt", i), fmt.Appendf(nil, "Agent: hello %d\nCustomer: bye\n", i))))
	}
	r := b.do(t, http.MethodGet, "/tasks/export?format=xlsx", quality, nil)
	requireError(t, r, http.StatusBadRequest, CodeValidation)
	require.Contains(t, r.Body["message"], "format=csv")
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/tasks/export?format=xlsx&file_name=chat-1", quality, nil).Status)
	require.Equal(t, http.StatusOK, b.do(t, http.MethodGet, "/tasks/export?format=csv", quality, nil).Status)
	requireError(t, b.do(t, http.MethodGet, "/tasks/export?format=xlsx&shape=long&file_name=chat-1", quality, nil),
		http.StatusBadRequest, CodeValidation)
}
