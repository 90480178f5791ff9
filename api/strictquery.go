package api

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// strictQuery refuses a request whose query string names a parameter its
// operation does not declare: a misspelt filter (external_id for call_id,
// Status for status) ignored would answer a list of everything as if it
// were the one asked for. The answer is a VALIDATION_ERROR naming each
// unknown parameter, located at it, and the parameters the operation
// takes. It runs after authentication, so the operation's parameters are
// told only to a signed-in caller.
func strictQuery(hctx huma.Context, next func(huma.Context)) {
	op := hctx.Operation()
	u := hctx.URL()
	query := u.Query()
	if len(query) == 0 {
		next(hctx)
		return
	}
	var known []string
	for _, p := range op.Parameters {
		if p.In == "query" {
			known = append(known, p.Name)
		}
	}
	var unknown []string
	for _, name := range slices.Sorted(maps.Keys(query)) {
		if !slices.Contains(known, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		next(hctx)
		return
	}
	takes := "takes no query parameter"
	if len(known) > 0 {
		takes = "takes " + strings.Join(known, ", ")
	}
	quoted := make([]string, len(unknown))
	details := make([]*huma.ErrorDetail, len(unknown))
	for i, name := range unknown {
		quoted[i] = fmt.Sprintf("%q", printable(name, maxEchoedValue))
		details[i] = &huma.ErrorDetail{Location: "query." + printable(name, maxEchoedValue),
			Message: "is not a parameter of " + op.Method + " " + op.Path}
	}
	noun := "parameter"
	if len(unknown) > 1 {
		noun = "parameters"
	}
	r, w := unwrap(hctx)
	writeError(w, r, Errorf(CodeValidation, fmt.Sprintf("unknown query %s %s: %s %s %s", noun, strings.Join(quoted, ", "),
		op.Method, op.Path, takes)).WithDetails(details))
}
