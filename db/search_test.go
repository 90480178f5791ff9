package db_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/db/dbtest"
	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/pipeline"
	"github.com/auditd/auditd/role"
	"github.com/auditd/auditd/scoring"
	"github.com/auditd/auditd/transcript"
	"github.com/auditd/auditd/visibility"
)

// TestSearch finds tasks by what was said, what their audit and validation
// say and their file names, in Spanish and English, as analysts type
// searches.
func TestSearch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTasks(t)
	say := func(name, language, text string) db.NewTask {
		t.Helper()
		n := b.newTask(name)
		n.Language = language
		_, _, err := db.TaskInsert(ctx, b.pool, n)
		require.NoError(t, err)
		require.NoError(t, db.TranscriptSave(ctx, b.pool, n.UUID, transcript.Transcript{Text: text, Engine: "test", Language: language}))
		return n
	}
	refund := say("llamada_reembolso", "es", "Agente: Le he tramitado el reembolsó de 49,99 euros.\nCliente: ¿Y la tarjeta bloqueada?\nAgente: «Desbloqueada» mañana.")
	card := say("chat-0453", "es", "Agente: Su tarjeta está bloqueada por seguridad.\nCliente: vale")
	english := say("call-7", "en", "Agent: I've issued a full refund, reference RF-2201.\nCustomer: Thanks, the card was blocked.")
	quiet := say("silence", "es", "Agente: Buenos días.\nCliente: Adiós.")
	brushOff := say("brush-off", "es", "Agente: No es mi problema, llame a su banco.")
	say("no-problem", "en", "Agent: No problem at all, happy to help.")
	say("any-problem", "es", "Agente: Dígame si hay algún problema.")

	// The audit's explanations and the validation's notes are searched too.
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		_, err := db.AuditAppend(ctx, tx, db.AuditRevision{TaskUUID: quiet.UUID, Source: db.AuditByEngine, Result: scoring.Result{
			Items: []scoring.Item{{CriterionID: "empathy", Category: "C", Question: "?", Weight: 10,
				Explanation: "El agente no mostró comprensión alguna."}}}}, 0)
		return err
	}))
	_, err := b.pool.Exec(ctx, `INSERT INTO users (id, username) VALUES ('validator', 'validator');
		UPDATE tasks SET status = 'audited' WHERE uuid = '`+quiet.UUID+`'`)
	require.NoError(t, err)
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		_, err := db.ValidationInsert(ctx, tx, db.NewValidation{TaskUUID: quiet.UUID, Notes: "Revisar con el supervisor",
			ValidatorID: "validator", ValidatorName: "V", IsCall: true, SentTo: []string{"a@example.com"},
			RequestHash: strings.Repeat("a", 64)})
		return err
	}))

	find := func(search string) []string {
		t.Helper()
		text, err := db.SearchQuery(ctx, b.pool, search)
		require.NoError(t, err, search)
		tasks, total, estimated, err := db.TaskListTotal(ctx, b.pool, db.TaskFilter{Text: text},
			db.TaskPage{Sort: db.TaskSortCreatedAt, Limit: 10})
		require.NoError(t, err, search)
		require.False(t, estimated)
		names := []string{}
		for _, task := range tasks {
			names = append(names, strings.TrimSuffix(task.FileName, ".wav"))
		}
		sort.Strings(names)
		require.EqualValues(t, len(names), total, search)
		return names
	}
	for search, want := range map[string][]string{
		"reembolso":                     {"llamada_reembolso"}, // said «reembolsó»: accents do not count
		"REEMBOLSOS":                    {"llamada_reembolso"}, // nor case, and the plural is the word
		"tarjeta":                       {"chat-0453", "llamada_reembolso"},
		`"tarjeta bloqueada"`:           {"llamada_reembolso"}, // «tarjeta está bloqueada» is not the phrase…
		`"tarjeta está bloqueada"`:      {"chat-0453"},         // …this is
		"reembols*":                     {"llamada_reembolso"},
		"refund":                        {"call-7"},
		"refunds":                       {"call-7"}, // English words in English
		"blocked card":                  {"call-7"},
		"reembolso OR refund":           {"call-7", "llamada_reembolso"},
		"tarjeta -reembolso":            {"chat-0453"},
		"tarjeta reembolso OR refund":   {"llamada_reembolso"},
		"comprensión":                   {"silence"}, // the audit's explanation
		"supervisor":                    {"silence"}, // the validation's notes
		"0453":                          {"chat-0453"},
		"chat-0453":                     {"chat-0453"}, // the file name's words
		"llamada reembolso":             {"llamada_reembolso"},
		"hipoteca":                      {},
		"el reembolso de":               {"llamada_reembolso"}, // common words are left out, not required
		`"de 49,99 euros" tramitado`:    {"llamada_reembolso"},
		"tarjeta OR hipoteca -vale":     {"llamada_reembolso"},
		"Tarjeta   bloqueada  ":         {"chat-0453", "llamada_reembolso"},
		"desbloqueada":                  {"llamada_reembolso"}, // said «Desbloqueada», quoted
		"¿reembolso?":                   {"llamada_reembolso"},
		`reembolso "tarjeta bloqueada"`: {"llamada_reembolso"},
		// A quoted phrase is that phrase, as written but for case and
		// accents: no stemming, no words left out, in any language.
		`"no es mi problema"`:                  {"brush-off"},
		`"NO ES MÍ PROBLEMA"`:                  {"brush-off"},
		`"problema"`:                           {"any-problem", "brush-off"},
		`"problemas"`:                          {},
		"problemas":                            {"any-problem", "brush-off", "no-problem"}, // unquoted: its forms, in either language
		`"no problem"`:                         {"no-problem"},
		`problema -"no es mi problema"`:        {"any-problem", "no-problem"},
		`"mi problema" OR "tarjeta bloqueada"`: {"brush-off", "llamada_reembolso"},
	} {
		require.Equal(t, want, find(search), search)
	}

	// Snippets quote where the words are, marked; none for a match of the
	// file name alone.
	text, err := db.SearchQuery(ctx, b.pool, "bloqueada")
	require.NoError(t, err)
	snippets, err := db.TaskSnippets(ctx, b.pool, visibility.Viewer{}, text, []string{card.UUID, refund.UUID, english.UUID})
	require.NoError(t, err)
	require.Equal(t, []db.SnippetPart{{Text: "Agente: Su tarjeta está "}, {Text: "bloqueada", Match: true},
		{Text: " por seguridad.\nCliente: vale"}}, snippets[card.UUID])
	require.Contains(t, snippets, refund.UUID)
	require.NotContains(t, snippets, english.UUID, "English «blocked» is not the Spanish word")
	text, err = db.SearchQuery(ctx, b.pool, "0453")
	require.NoError(t, err)
	snippets, err = db.TaskSnippets(ctx, b.pool, visibility.Viewer{}, text, []string{card.UUID})
	require.NoError(t, err)
	require.Empty(t, snippets)

	// A quoted phrase's snippet marks the phrase's words as written, the
	// ones its language would leave out too.
	text, err = db.SearchQuery(ctx, b.pool, `"no es mi problema"`)
	require.NoError(t, err)
	snippets, err = db.TaskSnippets(ctx, b.pool, visibility.Viewer{}, text, []string{brushOff.UUID})
	require.NoError(t, err)
	require.Equal(t, []db.SnippetPart{{Text: "Agente: "}, {Text: "No", Match: true}, {Text: " "}, {Text: "es", Match: true},
		{Text: " "}, {Text: "mi", Match: true}, {Text: " "}, {Text: "problema", Match: true}, {Text: ", llame a su banco"}},
		snippets[brushOff.UUID])

	// A mark in the text cannot forge a highlight.
	forged := say("forged", "es", "Agente: \uE000falso\uE001 reembolso")
	text, err = db.SearchQuery(ctx, b.pool, "reembolso")
	require.NoError(t, err)
	snippets, err = db.TaskSnippets(ctx, b.pool, visibility.Viewer{}, text, []string{forged.UUID})
	require.NoError(t, err)
	require.Equal(t, []db.SnippetPart{{Text: "Agente: falso "}, {Text: "reembolso", Match: true}}, snippets[forged.UUID])
}

// TestSearchReadsNoFoldedDigits: characters that Postgres's unaccent
// makes digits (full-width, parenthesised, ideographic zero) are no number
// to a search, in a transcript or a validation's notes: the redactor did
// not read them as digits, so a search must not either. A search typed in
// them is read as transcripts are stored.
func TestSearchReadsNoFoldedDigits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTasks(t)
	n := b.newTask("folded")
	_, _, err := db.TaskInsert(ctx, b.pool, n)
	require.NoError(t, err)
	require.NoError(t, db.TranscriptSave(ctx, b.pool, n.UUID, transcript.Transcript{Engine: "test", Language: "es",
		Text: "Cliente: la tarjeta ４１１１１１１１１１１１１１１１ y 〇〇⑴ 4000056655665556"}))
	require.NoError(t, db.TaskSearchRefresh(ctx, b.pool, n.UUID))
	find := func(search string) int {
		t.Helper()
		text, err := db.SearchQuery(ctx, b.pool, search)
		require.NoError(t, err, search)
		_, total, _, err := db.TaskListTotal(ctx, b.pool, db.TaskFilter{Text: text}, db.TaskPage{Sort: db.TaskSortCreatedAt, Limit: 10})
		require.NoError(t, err, search)
		return int(total)
	}
	require.Equal(t, 0, find("4111111111111111"))
	require.Equal(t, 0, find("001"))
	require.Equal(t, 1, find("tarjeta"))
	require.Equal(t, 1, find("４００００５６６５５６６５５５６"), "a full-width search is read as ASCII digits")
	text, err := db.SearchQuery(ctx, b.pool, "tarjeta")
	require.NoError(t, err)
	snippets, err := db.TaskSnippets(ctx, b.pool, visibility.Viewer{}, text, []string{n.UUID})
	require.NoError(t, err)
	for _, p := range snippets[n.UUID] {
		require.NotContains(t, p.Text, "４")
	}
}

// TestSearchErrors: a search the service cannot run says why, in words a
// person can act on.
func TestSearchErrors(t *testing.T) {
	t.Parallel()
	b := setupTasks(t)
	for search, want := range map[string]string{
		`"tarjeta bloqueada`:           "has a quotation mark that opens a phrase and does not close it; close it or remove it",
		"OR reembolso":                 "has OR where it cannot go: OR goes between two words or phrases, as in «reembolso OR devolución»",
		"reembolso OR":                 "has OR where it cannot go: OR goes between two words or phrases, as in «reembolso OR devolución»",
		"reembolso OR OR refund":       "has OR where it cannot go: OR goes between two words or phrases, as in «reembolso OR devolución»",
		"re-emb*":                      `has "re-emb*": a prefix is letters or digits followed by *, as in reembols*`,
		"*":                            `has "*": a prefix is letters or digits followed by *, as in reembols*`,
		"-reembolso":                   "only leaves words out (-word); say what to find too",
		"a":                            "has only words too common to search for (such as «el», «de», «the»); add a more telling one",
		"A -reembolso":                 "has only words too common to search for (such as «el», «de», «the»); add a more telling one",
		"?? !!":                        `has no words to search for: type words, a "phrase" or a prefix*`,
		strings.Repeat("palabra ", 17): "has more than 16 words or phrases; search for at most 16 at once",
	} {
		_, err := db.SearchQuery(context.Background(), b.pool, search)
		require.True(t, errcode.Is(err, errcode.Invalid), "%q: %v", search, err)
		require.Equal(t, want, errcode.Message(err), search)
	}
}

// TestSearchPages pages through a search as GET /tasks does, reading the
// tasks found at once and, when too many are found, walking the list in
// order: the same pages either way.
func TestSearchPages(t *testing.T) {
	ctx := context.Background()
	b := setupTasks(t)
	for i := range 5 {
		n := b.insertTask(t, fmt.Sprintf("found-%d", i))
		require.NoError(t, db.TranscriptSave(ctx, b.pool, n.UUID, transcript.Transcript{Text: "la tarjeta", Engine: "test", Language: "es"}))
	}
	other := b.insertTask(t, "other")
	require.NoError(t, db.TranscriptSave(ctx, b.pool, other.UUID, transcript.Transcript{Text: "la factura", Engine: "test", Language: "es"}))
	text, err := db.SearchQuery(ctx, b.pool, "tarjeta")
	require.NoError(t, err)
	pages := func() (names [][]string, totals []int64) {
		t.Helper()
		p := db.TaskPage{Sort: db.TaskSortFileName, Limit: 2}
		for {
			tasks, total, _, err := db.TaskListTotal(ctx, b.pool, db.TaskFilter{Text: text}, p)
			require.NoError(t, err)
			var page []string
			for _, task := range tasks {
				page = append(page, task.FileName)
			}
			names, totals = append(names, page), append(totals, total)
			if len(tasks) < 2 {
				return names, totals
			}
			c := tasks[len(tasks)-1].Cursor(db.TaskSortFileName)
			p.After = &c
		}
	}
	want := [][]string{{"found-0.wav", "found-1.wav"}, {"found-2.wav", "found-3.wav"}, {"found-4.wav"}}
	names, totals := pages()
	require.Equal(t, want, names)
	require.Equal(t, []int64{5, 5, 5}, totals)
	restore := db.SetSearchExactly(2)
	defer restore()
	names, totals = pages()
	require.Equal(t, want, names, "walking the list")
	require.Len(t, totals, 3)
	for _, total := range totals {
		require.Positive(t, total)
	}
}

// TestSearchSpans pages through a search by words found in too many tasks
// to read them all, newest and oldest first and by score, within dates or
// scores or not, from a page number or not, as GET /tasks does: the pages
// read span by span, and walking the list, are those read from every task
// found, also where tasks were created at the same time or have the same
// score.
func TestSearchSpans(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.Pool(t)
	dbtest.SeedTasks(t, pool, 600)
	for _, sql := range []string{
		`UPDATE tasks SET created_at = date_trunc('week', created_at), score = round(score / 10) * 10`,
		`INSERT INTO transcripts (task_uuid, text, segments, engine, language)
			SELECT uuid, CASE WHEN extract(week FROM created_at)::int % 5 = 0 OR abs(hashtext(uuid::text)) % 16 = 0
				OR created_at < now() - interval '300 days' THEN 'la tarjeta' ELSE 'la factura' END, '[]', 'test', 'es' FROM tasks`,
		`INSERT INTO task_search (task_uuid, created_at, document, operator_id, status, score)
		SELECT uuid, created_at, task_search_document(uuid), operator_id, status, score FROM tasks`,
		`VACUUM ANALYZE tasks, task_search`,
	} {
		_, err := pool.Exec(ctx, sql)
		require.NoError(t, err)
	}
	text, err := db.SearchQuery(ctx, pool, "tarjeta")
	require.NoError(t, err)
	var from, to time.Time
	require.NoError(t, pool.QueryRow(ctx, `SELECT min(created_at) + interval '90 days', max(created_at) - interval '90 days' FROM tasks`).Scan(&from, &to))
	passed, low, high := true, 20.0, 60.0
	var agent string // the agent the words are found in most
	require.NoError(t, pool.QueryRow(ctx, `SELECT t.operator_id FROM tasks t JOIN task_search s ON s.task_uuid = t.uuid
		WHERE s.document @@ $1::tsquery GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`, text).Scan(&agent))
	agentView, err := db.ViewerOf(ctx, pool, agent, role.Operator)
	require.NoError(t, err)
	pages := func(f db.TaskFilter, p db.TaskPage) (uuids [][]string) {
		t.Helper()
		for {
			tasks, total, _, err := db.TaskListTotal(ctx, pool, f, p)
			require.NoError(t, err)
			require.GreaterOrEqual(t, total, int64(p.Skip+len(tasks)))
			var page []string
			for _, task := range tasks {
				page = append(page, task.UUID)
			}
			if uuids = append(uuids, page); len(tasks) < p.Limit {
				return uuids
			}
			c := tasks[len(tasks)-1].Cursor(p.Sort)
			p.After, p.Skip = &c, 0
		}
	}
	for _, tc := range []struct {
		name string
		f    db.TaskFilter
		p    db.TaskPage
	}{
		{"newest first", db.TaskFilter{Text: text}, db.TaskPage{Sort: db.TaskSortCreatedAt, Desc: true, Limit: 3}},
		{"oldest first", db.TaskFilter{Text: text}, db.TaskPage{Sort: db.TaskSortCreatedAt, Limit: 4}},
		{"within dates", db.TaskFilter{Text: text, From: from, To: to}, db.TaskPage{Sort: db.TaskSortCreatedAt, Desc: true, Limit: 3}},
		{"from a page number", db.TaskFilter{Text: text, From: from}, db.TaskPage{Sort: db.TaskSortCreatedAt, Skip: 9, Limit: 6}},
		{"with a status", db.TaskFilter{Text: text, Status: pipeline.Validated}, db.TaskPage{Sort: db.TaskSortCreatedAt, Desc: true, Limit: 2}},
		{"with an agent", db.TaskFilter{Text: text, OperatorID: agent}, db.TaskPage{Sort: db.TaskSortCreatedAt, Limit: 1}},
		{"with another filter", db.TaskFilter{Text: text, Passed: &passed}, db.TaskPage{Sort: db.TaskSortCreatedAt, Desc: true, Limit: 2}},
		{"by score", db.TaskFilter{Text: text}, db.TaskPage{Sort: db.TaskSortScore, Desc: true, Limit: 7}},
		{"lowest score first", db.TaskFilter{Text: text}, db.TaskPage{Sort: db.TaskSortScore, Limit: 6}},
		{"by score within a range", db.TaskFilter{Text: text, MinScore: &low, MaxScore: &high}, db.TaskPage{Sort: db.TaskSortScore, Skip: 2, Limit: 5}},
		{"by score in an agent's list", db.TaskFilter{Text: text, MinScore: &low, Viewer: agentView}, db.TaskPage{Sort: db.TaskSortScore, Limit: 2}},
	} {
		want := pages(tc.f, tc.p)
		require.Greater(t, len(want), 3, tc.name)
		restore := db.SetSearchSpans(2)
		require.Equal(t, want, pages(tc.f, tc.p), tc.name+", span by span")
		restore()
		restore = db.SetSearchExactly(2)
		require.Equal(t, want, pages(tc.f, tc.p), tc.name+", walking the list")
		restore()
	}
}

// TestSearchFollowsTasks keeps the agent, status and score a search
// filters by, copied in each task's document, equal to the task's whatever
// changes them, and leaves the document alone when nothing it copies
// changes.
func TestSearchFollowsTasks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.Pool(t)
	dbtest.SeedTasks(t, pool, 50)
	dbtest.SeedSearch(t, pool)
	differ := func() int {
		t.Helper()
		var n int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM tasks t JOIN task_search s ON s.task_uuid = t.uuid
			WHERE (s.operator_id, s.status, s.score) IS DISTINCT FROM (t.operator_id, t.status, t.score)`).Scan(&n))
		return n
	}
	require.Zero(t, differ(), "as seeded")
	var uuid string
	var before uint32
	require.NoError(t, pool.QueryRow(ctx, `SELECT t.uuid, s.xmin::text::int FROM tasks t JOIN task_search s ON s.task_uuid = t.uuid
		WHERE t.status = 'audited' LIMIT 1`).Scan(&uuid, &before))
	_, err := pool.Exec(ctx, `UPDATE tasks SET updated_at = now(), duration_seconds = 1 WHERE uuid = $1`, uuid)
	require.NoError(t, err)
	var after uint32
	require.NoError(t, pool.QueryRow(ctx, `SELECT xmin::text::int FROM task_search WHERE task_uuid = $1`, uuid).Scan(&after))
	require.Equal(t, before, after, "a change of nothing the document copies leaves it alone")
	for _, sql := range []string{
		`UPDATE tasks SET status = 'validated' WHERE uuid = $1`,
		`UPDATE tasks SET score = 12.5, passed = false WHERE uuid = $1`,
		`UPDATE tasks SET operator_id = 'agent-999' WHERE uuid = $1`,
		`UPDATE tasks SET operator_id = NULL, score = NULL WHERE uuid = $1`,
		`UPDATE tasks SET status = 'queued', score = 99 WHERE uuid <> $1`,
	} {
		_, err := pool.Exec(ctx, sql, uuid)
		require.NoError(t, err)
		require.Zero(t, differ(), sql)
	}
	// A document written again copies the task as it is then.
	_, err = pool.Exec(ctx, `UPDATE task_search SET status = 'failed', operator_id = 'x', score = 1 WHERE task_uuid = $1`, uuid)
	require.NoError(t, err)
	require.NoError(t, db.TaskSearchRefresh(ctx, pool, uuid))
	require.Zero(t, differ())
}

// TestTaskFilterValidatorAndLanguage keeps the tasks a user validated, and
// those in a language or any of its regions.
func TestTaskFilterValidatorAndLanguage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupTasks(t)
	insert := func(name, language string) db.NewTask {
		t.Helper()
		n := b.newTask(name)
		n.Language = language
		_, _, err := db.TaskInsert(ctx, b.pool, n)
		require.NoError(t, err)
		return n
	}
	spain, mexico, english := insert("spain", "es"), insert("mexico", "es-MX"), insert("english", "en-GB")
	insert("spanglish", "esx")
	_, err := b.pool.Exec(ctx, `INSERT INTO users (id, username) VALUES ('vera', 'vera'), ('otto', 'otto')`)
	require.NoError(t, err)
	for validator, task := range map[string]db.NewTask{"vera": mexico, "otto": english} {
		require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
			if _, err := db.AuditAppend(ctx, tx, db.AuditRevision{TaskUUID: task.UUID, Source: db.AuditByEngine,
				Result: scoring.Result{Items: []scoring.Item{{CriterionID: "greeting", Complies: true}}}}, 0); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE tasks SET status = 'audited' WHERE uuid = $1`, task.UUID); err != nil {
				return err
			}
			_, err := db.ValidationInsert(ctx, tx, db.NewValidation{TaskUUID: task.UUID, Notes: "ok", ValidatorID: validator,
				ValidatorName: validator, SentTo: []string{"a@example.com"}, RequestHash: strings.Repeat("b", 64)})
			return err
		}))
	}
	names := func(f db.TaskFilter) []string {
		t.Helper()
		tasks, total, _, err := db.TaskListTotal(ctx, b.pool, f, db.TaskPage{Sort: db.TaskSortFileName, Limit: 10})
		require.NoError(t, err)
		var got []string
		for _, task := range tasks {
			got = append(got, strings.TrimSuffix(task.FileName, ".wav"))
		}
		require.EqualValues(t, len(got), total)
		return got
	}
	require.Equal(t, []string{"mexico"}, names(db.TaskFilter{ValidatedBy: "vera"}))
	require.Equal(t, []string{"english"}, names(db.TaskFilter{ValidatedBy: "otto"}))
	require.Empty(t, names(db.TaskFilter{ValidatedBy: "nobody"}))
	require.Equal(t, []string{"mexico", "spain"}, names(db.TaskFilter{Language: "es"}))
	require.Equal(t, []string{"mexico"}, names(db.TaskFilter{Language: "ES-mx"}))
	require.Equal(t, []string{"english"}, names(db.TaskFilter{Language: "en"}))
	require.Empty(t, names(db.TaskFilter{Language: "en", ValidatedBy: "vera"}))
	_ = spain
}
