package api

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/auditd/auditd/db"
)

// pageParams are the task list's parameters that place a page in it
// rather than choose and order its tasks: a saved view leaves them out.
var pageParams = []string{"cursor", "skip", "limit"}

// taskQueryParam is one parameter of the task list (GET /tasks) that a
// saved view or a bulk action's filter keeps.
type taskQueryParam struct {
	name string
	// index is its field in listTasksInput.
	index []int
	// schema is what Huma checks it against in GET /tasks.
	schema *huma.Schema
	// def is its default, which a canonical query leaves out.
	def string
}

// taskQuery reads the task list's query as text (a saved view's, a bulk
// action's filter), by the rules of GET /tasks itself: the parameters of
// listTasksInput, each checked against the schema Huma builds from its
// tags, then the list's own filter (dates, scores, the agent). Stricter
// than a request, as text kept for later should be: an unknown or repeated
// parameter is refused rather than ignored or read once.
type taskQuery struct {
	registry huma.Registry
	// params are in the order of listTasksInput, a canonical query's.
	params []taskQueryParam
	byName map[string]*taskQueryParam
	// who keeps the query, as the refusal of another parameter says it ("a
	// view keeps status, …").
	who string
	// perParameter locates a problem at its parameter (body.filter.status)
	// rather than at the query (body.query).
	perParameter bool
}

// newTaskQuery reads the parameters of the task list from listTasksInput
// with the schemas of registry, the API's, but for the page's and those
// left out.
func newTaskQuery(registry huma.Registry, who string, perParameter bool, leftOut ...string) *taskQuery {
	q := &taskQuery{registry: registry, byName: map[string]*taskQueryParam{}, who: who, perParameter: perParameter}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[listTasksInput]()) {
		name, _, _ := strings.Cut(f.Tag.Get("query"), ",")
		if f.Anonymous || name == "" || slices.Contains(pageParams, name) || slices.Contains(leftOut, name) {
			continue
		}
		if f.Type.Kind() != reflect.String {
			panic("task query: " + name + " is not text; a kept query reads only text parameters")
		}
		q.params = append(q.params, taskQueryParam{name: name, index: f.Index,
			schema: huma.SchemaFromField(registry, f, ""), def: f.Tag.Get("default")})
	}
	for i := range q.params {
		q.byName[q.params[i].name] = &q.params[i]
	}
	return q
}

// names lists the parameters kept, in their order.
func (q *taskQuery) names() string {
	names := make([]string, len(q.params))
	for i, p := range q.params {
		names[i] = p.name
	}
	return strings.Join(names, ", ")
}

// canonical checks raw, a query string of the task list (a leading "?"
// allowed), and returns it canonically: its parameters in the list's
// order, each once, empty ones and defaults left out, URL-encoded one way.
// What is wrong is a VALIDATION_ERROR located at field (body.query) that
// names the parameter and why.
func (q *taskQuery) canonical(ctx context.Context, pool *pgxpool.Pool, field, raw string) (db.TaskFilter, string, error) {
	values, err := url.ParseQuery(strings.TrimPrefix(raw, "?"))
	if err != nil {
		msg := "the query string is not URL-encoded name=value pairs joined by &"
		return db.TaskFilter{}, "", Errorf(CodeValidation, "the task list's query is not valid: "+msg).WithDetail(field, msg, nil)
	}
	var in listTasksInput
	fields := reflect.ValueOf(&in).Elem()
	res := &huma.ValidateResult{}
	for _, name := range slices.Sorted(maps.Keys(values)) {
		given := values[name]
		p, known := q.byName[name]
		switch {
		case badText(name):
			return db.TaskFilter{}, "", q.problem(field, "", "a parameter's name holds a NUL, a control character or invalid UTF-8", nil)
		case slices.Contains(pageParams, name):
			return db.TaskFilter{}, "", q.problem(field, name, "places a page of the list, which "+q.who+" does not keep; leave out cursor, skip and limit", given[0])
		case !known:
			return db.TaskFilter{}, "", q.problem(field, name, "is not a parameter of the task list that "+q.who+" keeps; it keeps "+q.names(), nil)
		case len(given) > 1:
			return db.TaskFilter{}, "", q.problem(field, name, fmt.Sprintf("is given %d times; give it once", len(given)), nil)
		case badText(given[0]):
			return db.TaskFilter{}, "", q.problem(field, name, "holds a NUL, a control character or invalid UTF-8", nil)
		case given[0] == "":
			continue // as in GET /tasks: an empty parameter is no filter
		}
		huma.Validate(q.registry, p.schema, huma.NewPathBuffer([]byte{}, 0), huma.ModeWriteToServer, given[0], res)
		if len(res.Errors) > 0 {
			why := res.Errors[0].Error()
			if d, ok := errors.AsType[*huma.ErrorDetail](res.Errors[0]); ok {
				why = d.Message
			}
			return db.TaskFilter{}, "", q.problem(field, name, why, given[0])
		}
		fields.FieldByIndex(p.index).SetString(given[0])
	}
	f, _, err := in.filter(ctx, pool)
	if err != nil {
		return db.TaskFilter{}, "", q.asProblem(field, err)
	}
	var b strings.Builder
	for _, p := range q.params {
		v := fields.FieldByIndex(p.index).String()
		if v == "" || v == p.def {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(p.name) + "=" + url.QueryEscape(v))
	}
	return f, b.String(), nil
}

// problem is a VALIDATION_ERROR of the parameter name of the query in
// field: why it is wrong, with the value sent when it is short.
func (q *taskQuery) problem(field, name, why string, value any) *Error {
	if s, ok := value.(string); ok && len(s) > maxEchoedValue {
		value = nil
	}
	msg, at, detail := "the task list's query is not valid: "+why, field, why
	switch {
	case name != "" && q.perParameter:
		msg, at = fmt.Sprintf("the task list's query is not valid: parameter %q: %s", name, why), field+"."+name
	case name != "":
		msg, detail = fmt.Sprintf("the task list's query is not valid: parameter %q: %s", name, why), name+": "+why
	}
	return Errorf(CodeValidation, msg).WithDetail(at, detail, value)
}

// asProblem relocates an error of the list's filter, which names the
// query parameter (query.from), to the parameter of the query in field.
func (q *taskQuery) asProblem(field string, err error) error {
	e, ok := errors.AsType[*Error](err)
	if !ok {
		return err
	}
	details, _ := e.Details.([]*huma.ErrorDetail)
	if len(details) != 1 || !strings.HasPrefix(details[0].Location, "query.") {
		return err
	}
	d := details[0]
	return q.problem(field, strings.TrimPrefix(d.Location, "query."), d.Message, d.Value)
}
