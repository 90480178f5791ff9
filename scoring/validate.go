package scoring

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/language"

	"github.com/auditd/auditd/errcode"
)

// Problem is one reason a scorecard cannot be published, located precisely
// enough for a person, or a form, to fix it.
type Problem struct {
	// Index is the criterion's position in Scorecard.Criteria (from 0), or
	// -1 for a problem with the scorecard as a whole.
	Index int `json:"index"`
	// ID is the criterion's id as given (possibly empty).
	ID string `json:"id,omitempty"`
	// Field is the JSON path of the offending value within the criterion:
	// "weight", "rule.any[2]".
	Field   string `json:"field"`
	Message string `json:"message"`
	// At is the character (from 1) of the value at Field where the
	// problem is, for a phrase whose syntax is wrong there; 0 when the
	// problem is the whole value.
	At int `json:"at,omitempty"`
}

// String reads "criterion 2 (greeting): weight: must be a number greater than 0, not 0".
func (p Problem) String() string {
	where := "scorecard"
	if p.Index >= 0 {
		where = fmt.Sprintf("criterion %d", p.Index)
		if p.ID != "" {
			where += fmt.Sprintf(" (%s)", p.ID)
		}
	}
	return where + ": " + p.Field + ": " + p.Message
}

// ValidationError lists every problem Validate found.
type ValidationError struct {
	Problems []Problem `json:"problems"`
}

// Error lists every problem in one line.
func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.String()
	}
	return "scorecard is not valid: " + strings.Join(msgs, "; ")
}

// RuleCheck checks the syntax of one criterion's rule and returns its
// problems, with Field relative to the rule ("any[2]") and Message set;
// Validate fills in the rest. The rules engine provides it (rules.CheckRule):
// rule syntax belongs to that engine, which depends on this package.
type RuleCheck func(rule json.RawMessage) []Problem

// Validate checks card before it is published and returns an Invalid
// error (errcode) locating every problem, whose cause is a
// *ValidationError listing them, or nil: there must be at least one
// criterion; ids and questions must be non-empty and unique (ignoring case
// and spacing, in every language: a question names one criterion);
// translations under known BCP 47 tags, each with a question; categories
// non-empty; weights positive and finite;
// applies_to one of call, chat, both; a rule present and accepted by
// checkRule. The version is not checked: it is assigned on publishing.
func Validate(card Scorecard, checkRule RuleCheck) error {
	var problems []Problem
	if len(card.Criteria) == 0 {
		problems = append(problems, Problem{Index: -1, Field: "criteria", Message: "a scorecard needs at least one criterion"})
	}
	ids := map[string]int{}
	questions := map[string]int{}
	for i, c := range card.Criteria {
		add := func(field, format string, args ...any) {
			problems = append(problems, Problem{Index: i, ID: c.ID, Field: field, Message: fmt.Sprintf(format, args...)})
		}
		switch key := strings.ToLower(strings.TrimSpace(c.ID)); {
		case key == "":
			add("id", "is required")
		case key != strings.ToLower(c.ID):
			add("id", "must not start or end with spaces")
		default:
			if j, dup := ids[key]; dup {
				add("id", "%q is already the id of criterion %d", c.ID, j)
			} else {
				ids[key] = i
			}
		}
		if strings.TrimSpace(c.Category) == "" {
			add("category", "is required")
		}
		for _, text := range []struct {
			field, s string
			max      int
		}{{"id", c.ID, maxIDLength}, {"category", c.Category, maxCategoryLength}, {"question", c.Question, maxQuestionLength},
			{"guidance", c.Guidance, maxGuidanceLength}} {
			checkLength(text.field, text.s, text.max, add)
		}
		uniqueQuestion(questions, i, "question", c.Question, add)
		checkTranslations(c, i, questions, add)
		if !(c.Weight > 0) || math.IsInf(c.Weight, 0) {
			add("weight", "must be a number greater than 0, not %v", c.Weight)
		}
		if c.AppliesTo != Call && c.AppliesTo != Chat && c.AppliesTo != Both {
			add("applies_to", "must be %q, %q or %q, not %q", Call, Chat, Both, c.AppliesTo)
		}
		// Only JSON's own white space: a rule is JSON, and the engine parses
		// exactly what is checked here.
		if raw := bytes.Trim(c.Rule, " \t\r\n"); len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			add("rule", "is required")
		} else {
			for _, p := range checkRule(raw) {
				field := "rule"
				if p.Field != "" {
					field += "." + p.Field
				}
				add(field, "%s", p.Message)
				problems[len(problems)-1].At = p.At
			}
		}
	}
	if n := IDBytes(card.Criteria); n > MaxIDBytes {
		problems = append(problems, Problem{Index: -1, Field: "criteria", Message: fmt.Sprintf(
			"the %d criteria's ids take %d bytes together, more than the %d an audit can keep for statistics: use shorter ids or fewer criteria",
			len(card.Criteria), n, MaxIDBytes)})
	}
	if len(problems) > 0 {
		return invalid(problems)
	}
	return nil
}

// invalid is Validate's Invalid error for problems: each located as a
// request locates a scorecard's criteria (body.criteria[i].field), its
// cause the *ValidationError that lists them.
func invalid(problems []Problem) error {
	located := make([]errcode.Problem, len(problems))
	for i, p := range problems {
		loc := "body.criteria"
		if p.Index >= 0 {
			loc = fmt.Sprintf("body.criteria[%d].%s", p.Index, p.Field)
		}
		located[i] = errcode.Problem{Location: loc, Message: p.String(), At: p.At}
	}
	return errcode.Wrap(errcode.Invalid, &ValidationError{Problems: problems},
		fmt.Sprintf("the scorecard has %d problem(s); nothing was published", len(problems))).WithProblems(located...)
}

// uniqueQuestion checks that criterion i's question at field is given and
// is no other criterion's, in any language, and records it in questions.
func uniqueQuestion(questions map[string]int, i int, field, question string, add func(field, format string, args ...any)) {
	key := questionKey(question)
	switch j, dup := questions[key]; {
	case key == "":
		add(field, "is required")
	case dup && j != i:
		add(field, "%q is already the question of criterion %d", question, j)
	default:
		questions[key] = i
	}
}

// checkTranslations checks criterion i's translations: each under a known
// language tag given once, with a unique question and texts within their
// lengths.
func checkTranslations(c Criterion, i int, questions map[string]int, add func(field, format string, args ...any)) {
	tags := map[string]string{}
	for _, tag := range slices.Sorted(maps.Keys(c.Translations)) {
		w, field := c.Translations[tag], "translations."+tag
		if _, err := language.Parse(tag); err != nil || strings.TrimSpace(tag) != tag {
			add(field, "%q is not a known language tag (BCP 47, such as \"en\" or \"es-MX\")", tag)
			continue
		}
		if first, dup := tags[tagKey(tag)]; dup {
			add(field, "is the same language as translations.%s", first)
			continue
		}
		tags[tagKey(tag)] = tag
		checkLength(field+".question", w.Question, maxQuestionLength, add)
		checkLength(field+".guidance", w.Guidance, maxGuidanceLength, add)
		uniqueQuestion(questions, i, field+".question", w.Question, add)
	}
}

// checkLength reports the text s at field when it has more than limit
// characters.
func checkLength(field, s string, limit int, add func(field, format string, args ...any)) {
	if n := utf8.RuneCountInString(s); n > limit {
		add(field, "must be at most %d characters (it has %d)", limit, n)
	}
}

// Lengths of a criterion's texts, in characters.
const (
	maxIDLength       = 64
	maxCategoryLength = 100
	maxQuestionLength = 500
	maxGuidanceLength = 4000
)

// MaxIDBytes bounds IDBytes of a scorecard: an audit keeps the ids of the
// criteria it judged and of those not met on its task, in the index the
// dashboard reads, and Postgres caps an index row at 2704 bytes (with
// room left for the row's other columns, a 200-character operator id
// among them).
const MaxIDBytes = 1100

// IDBytes is what the ids of criteria take in one of those lists: each id
// with its 4-byte length, padded to 4 bytes.
func IDBytes(criteria []Criterion) int {
	n := 0
	for _, c := range criteria {
		n += (4 + len(c.ID) + 3) / 4 * 4
	}
	return n
}
