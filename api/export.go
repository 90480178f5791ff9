package api

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/xuri/excelize/v2"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/role"
)

// Export formats and shapes (GET /tasks/export).
const (
	exportCSV  = "csv"
	exportXLSX = "xlsx"
	// exportWide is one row per task, a column per criterion; exportLong
	// one row per criterion of each audited task.
	exportWide = "wide"
	exportLong = "long"
)

// exportTypes are the media types of the formats.
var exportTypes = map[string]string{
	exportCSV:  "text/csv; charset=utf-8",
	exportXLSX: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}

// The columns every export starts with, one task's fields; a wide export
// follows them with a column per criterion, a long one with the item's.
var (
	exportTaskColumns = []string{"uuid", "file_name", "kind", "status", "campaign", "operator_id", "language",
		"created_at", "audited_at", "score", "passed", "review_items", "audit_revision", "review_state",
		"stereo", "agent_talk_seconds", "customer_talk_seconds", "agent_talk_ratio", "silence_share",
		"longest_silence_seconds", "dead_air_count", "overtalk_count", "overtalk_seconds", "hold_count",
		"call_id", "queue", "direction", "started_at", "caller", "called", "customer_ref", "metadata"}
	exportItemColumns = []string{"criterion_id", "category", "critical", "weight", "complies", "not_applicable", "basis",
		"confidence", "needs_review", "explanation", "evidence"}
)

func (t *tasksResource) registerExport(api huma.API) {
	op := operation(http.MethodGet, "/tasks/export", "export-tasks", "Export tasks with their audits", role.Operator,
		http.StatusBadRequest)
	op.Description += " The tasks the list's filters select, newest first, as a spreadsheet: CSV (UTF-8 with a byte " +
		"order mark, so that spreadsheet programs read accents right) or XLSX (one sheet: an export that could exceed its " +
		"1,048,575 rows is refused before anything is written, naming CSV). `shape=wide` (default) is one row per task " +
		"with a column per criterion of the campaigns' scorecards (`true`, `false`, or empty where the audit did not " +
		"judge it, a criterion it found not applicable included); `shape=long` is one row per criterion of each audited " +
		"task, with its verdict (`complies`, and `not_applicable` true where the criterion does not apply), basis, " +
		"confidence and explanation. Times are ISO 8601 in UTC. The file is written as it is read, a few hundred tasks at a time, " +
		"whatever its size; a failure half way aborts the download rather than end it early. Operators export only " +
		"the tasks where they are the audited agent. A text cell that a spreadsheet would run as a formula (starting " +
		"with =, +, -, @) is written with a leading apostrophe in CSV. Every export is in the access record, with its " +
		"query and how many tasks it held."
	op.Tags = []string{"tasks"}
	huma.Register(api, op, t.export)
	binaryResponse(api, "/tasks/export", "200", "The spreadsheet, as an attachment", exportTypes[exportCSV], exportTypes[exportXLSX])
}

type exportInput struct {
	TaskFilterInput
	Format string `query:"format" enum:"csv,xlsx" default:"csv" doc:"csv (UTF-8 with BOM) or xlsx"`
	Shape  string `query:"shape" enum:"wide,long" default:"wide" doc:"wide: one row per task, a column per criterion; long: one row per criterion of each audited task"`
}

func (t *tasksResource) export(ctx context.Context, in *exportInput) (*huma.StreamResponse, error) {
	f, mine, err := in.filter(ctx, t.pool)
	if err != nil {
		return nil, err
	}
	v, err := viewerOf(ctx, t.pool)
	if err != nil {
		return nil, err
	}
	// The criteria are the wide shape's columns, and bound the long
	// shape's rows in a workbook.
	var criteria []string
	if in.Shape == exportWide || in.Format == exportXLSX {
		if criteria, err = db.ExportCriteria(ctx, t.pool, f); err != nil {
			return nil, err
		}
	}
	columns := append([]string{}, exportTaskColumns...)
	if in.Shape == exportWide {
		columns = append(columns, criteria...)
	} else {
		columns = append(columns, exportItemColumns...)
	}
	if in.Format == exportXLSX && mine {
		if err := t.fitsXLSX(ctx, f, in.Shape, len(criteria)); err != nil {
			return nil, err
		}
	}
	name := "tasks-" + time.Now().UTC().Format("20060102-150405") + "." + in.Format
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		r, w := unwrap(hctx)
		h := w.Header()
		h.Set("Content-Type", exportTypes[in.Format])
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
		sent := &countingWriter{w: w}
		var out sheet = newCSVSheet(sent)
		if in.Format == exportXLSX {
			out = newXLSXSheet(sent)
		}
		// Recorded before anything is written; its rows once they are.
		detail := map[string]any{"query": r.URL.RawQuery}
		record, err := recordAccess(ctx, t.pool, db.AccessExport, "", detail)
		if err == nil {
			err = out.row(strings2any(columns))
		}
		tasks := 0
		if err == nil && mine {
			parties := principal(ctx).Is(role.Quality)
			err = db.TaskExport(r.Context(), t.pool, v, f, in.Shape == exportLong, parties, func(e db.ExportRow) error {
				tasks++
				for _, row := range exportRows(e, in.Shape, criteria) {
					if err := out.row(row); err != nil {
						return err
					}
				}
				return nil
			})
		}
		if err == nil {
			detail["tasks"] = tasks
			err = db.AccessRecordSetDetail(r.Context(), t.pool, record, detail)
		}
		if err == nil {
			err = out.close()
		}
		endDownload(w, r, sent, err)
	}}, nil
}

// endDownload ends a download written through sent that failed with err
// (nil: it succeeded): before anything was sent, with an error answer;
// after, by aborting the connection, so that the download fails rather
// than end short.
func endDownload(w http.ResponseWriter, r *http.Request, sent *countingWriter, err error) {
	if err == nil {
		return
	}
	if sent.n == 0 {
		w.Header().Del("Content-Disposition")
		writeError(w, r, translate(r.Context(), fmt.Errorf("download: %w", err)))
		return
	}
	logger(r.Context()).ErrorContext(r.Context(), "download failed", "error", err)
	panic(http.ErrAbortHandler)
}

// xlsxMaxRows is the most rows an XLSX export may hold: what a spreadsheet
// program opens in one sheet, under the header. A larger export is CSV.
var xlsxMaxRows int64 = excelize.TotalRows - 1

// fitsXLSX refuses an XLSX export of the tasks f selects that could hold
// more than xlsxMaxRows rows (at most one per criterion a task, in the
// long shape), before anything is written: such a workbook would not open
// whole, and would be built on the server's disk for nothing.
func (t *tasksResource) fitsXLSX(ctx context.Context, f db.TaskFilter, shape string, criteria int) error {
	n, _, err := db.TaskCount(ctx, t.pool, f)
	if err != nil {
		return err
	}
	rows, what := n, "tasks"
	if shape == exportLong {
		rows, what = n*int64(max(criteria, 1)), "criteria of tasks"
	}
	if rows <= xlsxMaxRows {
		return nil
	}
	msg := fmt.Sprintf("an XLSX export holds at most %d rows, and this one could have %d (%s); export it as format=csv, "+
		"or narrow the filters", xlsxMaxRows, rows, what)
	return Errorf(CodeValidation, msg).WithDetail("query.format", "too many rows for XLSX", exportXLSX)
}

// countingWriter counts what passes through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// exportRows returns e's rows in shape: one for a wide export, with the
// verdict of each of criteria; one per item of its audit for a long one.
func exportRows(e db.ExportRow, shape string, criteria []string) [][]any {
	task := append([]any{e.UUID, e.FileName, e.Kind, e.Status, e.Campaign, e.OperatorID, e.Language, e.CreatedAt, e.AuditedAt,
		e.Score, e.Passed, intCell(e.ReviewItems), intCell(e.AuditRevision), e.ReviewState}, slices.Concat(channelCells(e.Channels), callCells(e.Call))...)
	if shape == exportWide {
		row := task
		for _, id := range criteria {
			if slices.Contains(e.Judged, id) {
				row = append(row, !slices.Contains(e.Failed, id))
			} else {
				row = append(row, nil)
			}
		}
		return [][]any{row}
	}
	rows := make([][]any, 0, len(e.Items))
	for _, it := range e.Items {
		var basis, confidence any
		if it.Basis != "" { // an analyst's verdict has neither
			basis, confidence = it.Basis, it.Confidence
		}
		rows = append(rows, append(append([]any{}, task...), it.CriterionID, it.Category, it.Critical, it.Weight,
			it.Complies, it.NotApplicable, basis, confidence, it.NeedsReview, it.Explanation, it.Evidence))
	}
	return rows
}

// channelCells are the cells of what a call's channels tell: empty for a
// chat and a call not analysed, and those of one side for a mono call.
func channelCells(c *db.ExportChannels) []any {
	if c == nil {
		return make([]any, 10)
	}
	return []any{c.Stereo, c.AgentTalkSeconds, c.CustomerTalkSeconds, c.AgentTalkRatio, c.SilenceShare,
		c.LongestSilenceSeconds, c.DeadAir, intCell(c.Overtalk), c.OvertalkSeconds, intCell(c.Holds)}
}

// callCells are the cells of what the platform said of the interaction:
// empty where it said nothing (and the personal data where the viewer does
// not see it); the metadata as its JSON object.
func callCells(c db.ExportCall) []any {
	var metadata any
	if c.Metadata != nil {
		metadata = string(c.Metadata)
	}
	var started any
	if c.StartedAt != nil {
		started = *c.StartedAt
	}
	return []any{c.CallID, c.Queue, c.Direction, started, c.Caller, c.Called, c.CustomerRef, metadata}
}

// intCell is a cell of n: empty when nil (left out).
func intCell(n *int) any {
	if n == nil {
		return nil
	}
	return *n
}

func strings2any(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// sheet writes an export's rows in one format.
type sheet interface {
	row(values []any) error
	close() error
}

// csvSheet writes CSV as it goes, after a UTF-8 byte order mark.
type csvSheet struct {
	bw    *bufio.Writer
	cw    *csv.Writer
	cells []string
	err   error
}

func newCSVSheet(w io.Writer) *csvSheet {
	bw := bufio.NewWriterSize(w, 64<<10)
	_, err := bw.WriteString("\ufeff")
	return &csvSheet{bw: bw, cw: csv.NewWriter(bw), err: err}
}

func (s *csvSheet) row(values []any) error {
	if s.err != nil {
		return s.err
	}
	s.cells = s.cells[:0]
	for _, v := range values {
		s.cells = append(s.cells, csvCell(v))
	}
	s.err = s.cw.Write(s.cells)
	return s.err
}

func (s *csvSheet) close() error {
	if s.err != nil {
		return s.err
	}
	s.cw.Flush()
	if err := s.cw.Error(); err != nil {
		return err
	}
	return s.bw.Flush()
}

// csvCell formats v for CSV: times in ISO 8601 (UTC), nothing for nil, and
// text that a spreadsheet would take for a formula behind an apostrophe.
func csvCell(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
			return "'" + v
		}
		return v
	case time.Time:
		return v.UTC().Format(time.RFC3339)
	case *time.Time:
		if v == nil {
			return ""
		}
		return v.UTC().Format(time.RFC3339)
	case *float64:
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'f', -1, 64)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case *bool:
		if v == nil {
			return ""
		}
		return strconv.FormatBool(*v)
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	}
	panic(fmt.Sprintf("export: no CSV form for %T", v))
}

// xlsxSheet writes an XLSX workbook through excelize's stream writer,
// which keeps rows beyond its buffer in a temporary file; the workbook is
// zipped into the response when it closes. A sheet holds excelize.TotalRows
// rows: past that the rows go on in a new sheet, under the same header.
type xlsxSheet struct {
	w      io.Writer
	f      *excelize.File
	sw     *excelize.StreamWriter
	header []any
	sheets int
	rows   int
	err    error
}

func newXLSXSheet(w io.Writer) *xlsxSheet {
	return &xlsxSheet{w: w, f: excelize.NewFile()}
}

// next starts the next sheet, "tasks", then "tasks 2"…
func (s *xlsxSheet) next() error {
	if s.sw != nil {
		if err := s.sw.Flush(); err != nil {
			return err
		}
	}
	s.sheets++
	name := "tasks"
	if s.sheets == 1 {
		if err := s.f.SetSheetName("Sheet1", name); err != nil {
			return err
		}
	} else {
		name = fmt.Sprintf("tasks %d", s.sheets)
		if _, err := s.f.NewSheet(name); err != nil {
			return err
		}
	}
	sw, err := s.f.NewStreamWriter(name)
	if err != nil {
		return err
	}
	s.sw, s.rows = sw, 0
	return s.put(s.header)
}

func (s *xlsxSheet) put(values []any) error {
	s.rows++
	cell, err := excelize.CoordinatesToCellName(1, s.rows)
	if err != nil {
		return err
	}
	return s.sw.SetRow(cell, values)
}

func (s *xlsxSheet) row(values []any) error {
	if s.err != nil {
		return s.err
	}
	if s.header == nil {
		s.header = values
		s.err = s.next()
		return s.err
	}
	if s.rows == excelize.TotalRows {
		if s.err = s.next(); s.err != nil {
			return s.err
		}
	}
	cells := make([]any, len(values))
	for i, v := range values {
		cells[i] = xlsxCell(v)
	}
	s.err = s.put(cells)
	return s.err
}

func (s *xlsxSheet) close() error {
	defer s.f.Close()
	if s.err != nil {
		return s.err
	}
	if err := s.sw.Flush(); err != nil {
		return err
	}
	return s.f.Write(s.w)
}

// xlsxCell is v as a cell: numbers and booleans as such, times as ISO 8601
// text (UTC), nothing for nil.
func xlsxCell(v any) any {
	switch v := v.(type) {
	case time.Time, *time.Time:
		if s := csvCell(v); s != "" {
			return s
		}
		return nil
	case *float64:
		if v == nil {
			return nil
		}
		return *v
	case *bool:
		if v == nil {
			return nil
		}
		return *v
	}
	return v
}
