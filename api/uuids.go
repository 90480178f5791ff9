package api

import (
	"regexp"

	"github.com/danielgtaylor/huma/v2"
)

// canonicalUUID is the one notation of an id the API accepts. Huma's uuid
// format also takes "urn:uuid:…", "{…}" and 32 bare hexadecimal digits,
// which Postgres does not all read (urn:uuid is a 500 there) and which
// would name one object in several ways.
const canonicalUUID = `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`

// canonicalUUIDRe checks canonicalUUID where Huma does not (a cursor, a
// multipart field).
var canonicalUUIDRe = regexp.MustCompile(canonicalUUID)

// canonicalUUIDs gives every uuid-formatted parameter and property of the
// registered operations the canonical pattern, so that any other notation
// is a 400 naming the field. It runs once every operation is registered.
func canonicalUUIDs(oapi *huma.OpenAPI) {
	seen := map[*huma.Schema]bool{}
	var visit func(s *huma.Schema)
	visit = func(s *huma.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if s.Format == "uuid" && s.Pattern == "" {
			s.Pattern = canonicalUUID
			// The description words the error; it is not an OpenAPI field,
			// so it leaves the document once the message is made.
			s.PatternDescription = "a UUID written as 8-4-4-4-12 hexadecimal digits, such as 3f2a9c1e-7b4d-4e8a-9f10-2c5d6e7f8a9b"
			s.PrecomputeMessages()
			s.PatternDescription = ""
		}
		visit(s.Items)
		for _, p := range s.Properties {
			visit(p)
		}
		for _, group := range [][]*huma.Schema{s.OneOf, s.AnyOf, s.AllOf} {
			for _, sub := range group {
				visit(sub)
			}
		}
	}
	for _, s := range oapi.Components.Schemas.Map() {
		visit(s)
	}
	for _, item := range oapi.Paths {
		for _, op := range []*huma.Operation{item.Get, item.Put, item.Post, item.Delete, item.Patch} {
			if op == nil {
				continue
			}
			for _, p := range op.Parameters {
				visit(p.Schema)
			}
		}
	}
}
