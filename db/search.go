package db

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/redact"
	"github.com/auditd/auditd/visibility"
)

// TaskSearchRefresh writes task uuid's search document again from what it
// is made of (task_search_document: the file name, the transcript, the
// current audit's explanations and the validation's notes), with the
// task's columns a search filters and sorts by. Whatever changes one of
// those calls it in the same transaction. (Changes of the columns alone
// are followed by a trigger on tasks; the task's row is read locked, so
// that one committed meanwhile is not missed.)
func TaskSearchRefresh(ctx context.Context, q DBTX, uuid string) error {
	_, err := q.Exec(ctx, `
		INSERT INTO task_search (task_uuid, created_at, document, operator_id, status, score)
		SELECT uuid, created_at, task_search_document(uuid), operator_id, status, score FROM tasks WHERE uuid = $1 FOR SHARE
		ON CONFLICT (task_uuid) DO UPDATE SET document = excluded.document, operator_id = excluded.operator_id,
			status = excluded.status, score = excluded.score`, uuid)
	return err
}

// searchConfigs are the text search configurations a query is read in:
// each task's document is in its language's, and a query matches a task
// when it matches as read in that language. Reading it in all of them and
// joining the readings with OR is the same, without knowing the tasks.
var searchConfigs = []string{"auditd_es", "auditd_en", exactConfig} // Spanish and English first

// exactConfig reads words as written (lower case, accents ignored, no
// stemming, no stop words): a quoted phrase's reading, and the second part
// of every document (task_search_vector).
const exactConfig = "auditd_simple"

// maxSearchTerms bounds the words and phrases of a search.
const maxSearchTerms = 16

// searchErrorf is the Invalid error of a search the service cannot run:
// what is wrong with it, in words a user can act on, to follow "the
// search".
func searchErrorf(format string, args ...any) error {
	return errcode.New(errcode.Invalid, format, args...)
}

// searchTerm is a word, a prefix (refund*) or a quoted phrase of a search,
// possibly excluded (-word) or joined to the term before by OR.
type searchTerm struct {
	text                   string
	phrase, prefix, negate bool
	or                     bool // joined to the previous term by OR rather than AND
}

// parseSearch reads a search as people type it in a search box: words
// (all of them must be found), "quoted phrases", prefixes (reembols*),
// -excluded words and OR between two terms.
func parseSearch(s string) ([]searchTerm, error) {
	var terms []searchTerm
	or := false
	for rest := strings.TrimSpace(s); rest != ""; rest = strings.TrimLeftFunc(rest, unicode.IsSpace) {
		var t searchTerm
		if rest[0] == '-' {
			t.negate, rest = true, rest[1:]
		}
		if rest != "" && rest[0] == '"' {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return nil, searchErrorf("has a quotation mark that opens a phrase and does not close it; close it or remove it")
			}
			t.text, t.phrase, rest = rest[1:end+1], true, rest[end+2:]
		} else {
			end := strings.IndexFunc(rest, unicode.IsSpace)
			if end < 0 {
				end = len(rest)
			}
			t.text, rest = rest[:end], rest[end:]
			if t.text == "OR" && !t.negate {
				if len(terms) == 0 || or {
					return nil, searchErrorf("has OR where it cannot go: OR goes between two words or phrases, as in «reembolso OR devolución»")
				}
				or = true
				continue
			}
			if stem, ok := strings.CutSuffix(t.text, "*"); ok {
				t.text, t.prefix = stem, true
				if stem == "" || strings.ContainsFunc(stem, func(r rune) bool { return !isSearchable(r) }) {
					return nil, searchErrorf("has %q: a prefix is letters or digits followed by *, as in reembols*", t.text+"*")
				}
			}
		}
		if !strings.ContainsFunc(t.text, isSearchable) {
			continue
		}
		t.or, or = or, false
		terms = append(terms, t)
	}
	if or {
		return nil, searchErrorf("has OR where it cannot go: OR goes between two words or phrases, as in «reembolso OR devolución»")
	}
	if len(terms) > maxSearchTerms {
		return nil, searchErrorf("has more than %d words or phrases; search for at most %[1]d at once", maxSearchTerms)
	}
	if len(terms) == 0 {
		return nil, searchErrorf("has no words to search for: type words, a \"phrase\" or a prefix*")
	}
	if !slices.ContainsFunc(terms, func(t searchTerm) bool { return !t.negate }) {
		return nil, searchErrorf("only leaves words out (-word); say what to find too")
	}
	return terms, nil
}

// fileWordBreaks are the characters that task_search_document reads as
// spaces in a file name, read so in a search too: «seed-4242» finds
// seed-4242.wav.
var fileWordBreaks = strings.NewReplacer("_", " ", "-", " ")

func isSearchable(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

// SearchQuery turns a search (parseSearch) into the text of a tsquery that
// finds it in tasks of any language; an error for a search it cannot
// run (an Invalid error, searchErrorf's), such as one made only of words
// too common to be indexed ("el", "the"). The search is read as
// transcripts are stored (redact.Normalize): "４１１１" is "4111".
func SearchQuery(ctx context.Context, q DBTX, search string) (string, error) {
	terms, err := parseSearch(redact.Normalize(search))
	if err != nil {
		return "", err
	}
	// Terms joined by OR bind first, then the rest are all required:
	// «tarjeta reembolso OR devolución» is tarjeta AND (reembolso OR devolución).
	var groups [][]searchTerm
	for _, t := range terms {
		if t.or {
			groups[len(groups)-1] = append(groups[len(groups)-1], t)
		} else {
			groups = append(groups, []searchTerm{t})
		}
	}
	// Each term is one parameter, read in every configuration.
	args := make([]any, len(terms))
	for i, t := range terms {
		switch {
		case t.prefix:
			args[i] = t.text + ":*"
		case t.phrase:
			args[i] = t.text
		default:
			args[i] = fileWordBreaks.Replace(t.text) // as in a file name's words (task_search_document)
		}
	}
	reading := func(config string, positive bool) string {
		var ands []string
		n := 0
		for _, g := range groups {
			var ors []string
			for _, t := range g {
				n++
				if positive && t.negate {
					continue
				}
				fn, in := "plainto_tsquery", config
				switch {
				case t.phrase:
					// A quoted phrase is read as written, in every reading:
					// the words its language would stem or leave out are the
					// phrase's own (task_search_vector).
					fn, in = "phraseto_tsquery", exactConfig
				case t.prefix:
					fn = "to_tsquery"
				}
				term := fmt.Sprintf("%s('%s', task_search_plain($%d))", fn, in, n)
				if t.negate {
					term = "!!" + term
				}
				ors = append(ors, term)
			}
			if ors != nil {
				ands = append(ands, "("+strings.Join(ors, " || ")+")")
			}
		}
		return "(" + strings.Join(ands, " && ") + ")"
	}
	readings := make([]string, len(searchConfigs))
	for i, config := range searchConfigs {
		readings[i] = reading(config, false)
	}
	// What is to be found must be words Spanish or English index: not only
	// words too common to be (stop words), even if the reading without
	// stop words keeps them.
	var tsquery string
	var words bool
	err = q.QueryRow(ctx, `SELECT `+strings.Join(readings, " || ")+`, numnode(`+reading(searchConfigs[0], true)+` || `+
		reading(searchConfigs[1], true)+`) > 0`, args...).Scan(&tsquery, &words)
	if err != nil {
		return "", err
	}
	if !words {
		return "", searchErrorf("has only words too common to search for (such as «el», «de», «the»); add a more telling one")
	}
	return tsquery, nil
}

// SnippetPart is a piece of a search result's snippet: text as it was
// written, and whether it is one of the words searched for.
type SnippetPart struct {
	Text  string
	Match bool
}

// Marks around the words ts_headline found: characters of Unicode's
// private use area, taken out of the text first, so no text can forge one.
// The text is quoted as it was searched (task_search_plain: without ¿, ¡,
// « or »).
const (
	snippetStart = "\uE000"
	snippetStop  = "\uE001"
)

// TaskSnippets returns, for each of the tasks uuids, the passages of its
// search text (task_search_text) where tsquery (SearchQuery's) finds the
// most, with the words found marked, as v may read them: of a task whose
// audit is hidden from v, its transcript's only (not the audit's
// explanations nor the validation's notes). Nothing for a task whose text
// does not have them (a match of its file name). A snippet quotes the
// transcript: the caller records the read before serving it.
func TaskSnippets(ctx context.Context, q DBTX, v visibility.Viewer, tsquery string, uuids []string) (map[string][]SnippetPart, error) {
	// The passages as the task's language reads them and as written (a
	// quoted phrase's words, which the language may stem or leave out);
	// the one that marks more of what was searched is quoted.
	const options = `'StartSel="` + snippetStart + `", StopSel="` + snippetStop +
		`", MaxWords=24, MinWords=10, MaxFragments=2, FragmentDelimiter=" … "'`
	rows, err := q.Query(ctx, `
		SELECT t.uuid::text, ts_headline(task_search_config(t.language), x.text, $1::tsquery, `+options+`),
			ts_headline('`+exactConfig+`', x.text, $1::tsquery, `+options+`)
		FROM tasks t, task_search_plain(translate(CASE WHEN `+v.AuditHiddenSQL("t")+`
			THEN COALESCE((SELECT tr.text FROM transcripts tr WHERE tr.task_uuid = t.uuid), '')
			ELSE task_search_text(t.uuid) END, '`+snippetStart+snippetStop+`', '')) AS x (text)
		WHERE t.uuid = ANY($2::uuid[])`, tsquery, uuids)
	if err != nil {
		return nil, err
	}
	snippets := map[string][]SnippetPart{}
	var uuid, read, written string
	_, err = pgx.ForEachRow(rows, []any{&uuid, &read, &written}, func() error {
		parts := snippetParts(read)
		if exact := snippetParts(written); marks(exact) > marks(parts) {
			parts = exact
		}
		if parts != nil {
			snippets[uuid] = parts
		}
		return nil
	})
	return snippets, err
}

// snippetParts splits a headline at its marks; nil when nothing is marked.
func snippetParts(headline string) []SnippetPart {
	var parts []SnippetPart
	marked := false
	for rest := headline; rest != ""; {
		before, after, found := strings.Cut(rest, snippetStart)
		if before != "" {
			parts = append(parts, SnippetPart{Text: before})
		}
		if !found {
			break
		}
		word, tail, _ := strings.Cut(after, snippetStop)
		parts = append(parts, SnippetPart{Text: word, Match: true})
		marked, rest = true, tail
	}
	if !marked {
		return nil
	}
	return parts
}

// marks counts the marked parts of a snippet.
func marks(parts []SnippetPart) int {
	n := 0
	for _, p := range parts {
		if p.Match {
			n++
		}
	}
	return n
}
