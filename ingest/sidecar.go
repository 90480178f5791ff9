package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/language"

	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/intake"
)

// MaxSidecarBytes caps a sidecar file.
const MaxSidecarBytes = 64 << 10

// Sidecar is what the JSON file beside a recording (call123.wav and
// call123.json) says of the call. Every field is optional.
type Sidecar struct {
	// Agent is the agent as the platform names them: a user id or
	// username of ours, or an id the source's agents mapping translates.
	Agent string
	// Campaign names the campaign, instead of the source's.
	Campaign string
	// Language is BCP 47, instead of the source's.
	Language string
	// Direction is inbound or outbound.
	Direction string
	// Queue is the queue or skill the call came through.
	Queue string
	// Caller and Called are the numbers (or addresses) of both ends.
	Caller, Called string
	// CallID is the platform's id of the call.
	CallID string
	// CustomerRef is the customer's reference in another system (a CRM's
	// id), which an erasure finds their tasks by; "external_id", its
	// former name, is read too.
	CustomerRef string
	// StartedAt is when the call started.
	StartedAt *time.Time
	// Custom are the other fields: those of "metadata", and any other
	// top-level field, each a string, number or boolean.
	Custom map[string]any
}

// sidecarText are the sidecar's text fields, with their maximum length.
var sidecarText = map[string]int{
	"agent": 200, "campaign": 200, "language": 35, "direction": 8, "queue": 200,
	"caller": 64, "called": 64, "call_id": 200, "customer_ref": 200, "external_id": 200,
}

// ParseSidecar reads the sidecar called name from b. A malformed sidecar is
// an Invalid error that names the file and the field at fault.
func ParseSidecar(name string, b []byte) (Sidecar, error) {
	var s Sidecar
	bad := func(field, format string, args ...any) error {
		msg := fmt.Sprintf("the sidecar %s: ", name)
		if field != "" {
			msg += fmt.Sprintf("the field %q ", field)
		}
		return errcode.New(errcode.Invalid, "%s", msg+fmt.Sprintf(format, args...)).
			With(map[string]any{"sidecar": name, "field": field})
	}
	if len(b) > MaxSidecarBytes {
		return s, bad("", "is larger than %d KiB", MaxSidecarBytes>>10)
	}
	if !utf8.Valid(b) {
		return s, bad("", "is not UTF-8 text")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var fields map[string]json.RawMessage
	if err := dec.Decode(&fields); err != nil || fields == nil {
		return s, bad("", "is not a JSON object {\"agent\": …, \"started_at\": …}%s", jsonWhere(b, err))
	}
	if dec.More() {
		return s, bad("", "holds more than one JSON value")
	}
	text := map[string]*string{"agent": &s.Agent, "campaign": &s.Campaign, "language": &s.Language,
		"direction": &s.Direction, "queue": &s.Queue, "caller": &s.Caller, "called": &s.Called,
		"call_id": &s.CallID, "customer_ref": &s.CustomerRef, "external_id": &s.CustomerRef}
	s.Custom = map[string]any{}
	for _, key := range slices.Sorted(maps.Keys(fields)) {
		raw := fields[key]
		if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			continue
		}
		switch {
		case text[key] != nil:
			var v string
			if json.Unmarshal(raw, &v) != nil {
				return s, bad(key, "must be a string")
			}
			v = strings.TrimSpace(v)
			if utf8.RuneCountInString(v) > sidecarText[key] || !printable(v) {
				return s, bad(key, "must be one line of text of at most %d characters", sidecarText[key])
			}
			*text[key] = v
		case key == "started_at":
			var v string
			if json.Unmarshal(raw, &v) != nil {
				return s, bad(key, "must be an RFC 3339 time such as \"2024-05-02T10:00:00Z\"")
			}
			at, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return s, bad(key, "must be an RFC 3339 time such as \"2024-05-02T10:00:00Z\", not %q", v)
			}
			s.StartedAt = &at
		case key == "metadata":
			var m map[string]json.RawMessage
			if json.Unmarshal(raw, &m) != nil {
				return s, bad(key, "must be an object of custom fields")
			}
			for k, v := range m {
				if err := s.custom(k, "metadata."+k, v, bad); err != nil {
					return s, err
				}
			}
		default:
			if err := s.custom(key, key, raw, bad); err != nil {
				return s, err
			}
		}
	}
	return s, s.check(bad)
}

// custom adds the custom field key (at field) of value raw.
func (s *Sidecar) custom(key, field string, raw json.RawMessage, bad func(string, string, ...any) error) error {
	if key == "" || utf8.RuneCountInString(key) > intake.MaxMetadataKeyLength || !printable(key) {
		return bad(field, "is not a field name: at most %d characters of one line", intake.MaxMetadataKeyLength)
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return bad(field, "cannot be read")
	}
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) > intake.MaxMetadataValueLength {
			return bad(field, "must be at most %d characters", intake.MaxMetadataValueLength)
		}
	case json.Number, bool, nil:
	default:
		return bad(field, "must be a string, a number or a boolean (a custom field is one value)")
	}
	if _, dup := s.Custom[key]; dup {
		return bad(field, "is given twice (at the top and in metadata)")
	}
	s.Custom[key] = v
	if len(s.Custom) > intake.MaxMetadataKeys {
		return bad(field, "is one custom field too many: at most %d", intake.MaxMetadataKeys)
	}
	return nil
}

// check checks the values of the fields that have a vocabulary.
func (s *Sidecar) check(bad func(string, string, ...any) error) error {
	if s.Direction != "" && s.Direction != "inbound" && s.Direction != "outbound" {
		return bad("direction", "must be inbound or outbound, not %q", s.Direction)
	}
	if s.Language != "" {
		if _, err := language.Parse(s.Language); err != nil || !languageTag(s.Language) {
			return bad("language", "must be a BCP 47 language tag such as es or en-US, not %q", s.Language)
		}
	}
	return nil
}

// languageTag reports whether v has the shape of a language tag: letters,
// digits and hyphens, starting with 2 or 3 letters.
func languageTag(v string) bool {
	head, _, _ := strings.Cut(v, "-")
	if len(head) < 2 || len(head) > 3 {
		return false
	}
	for _, r := range v {
		if r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) || r > unicode.MaxASCII {
			return false
		}
	}
	return true
}

// printable reports whether v is one line without control characters.
func printable(v string) bool {
	return !strings.ContainsFunc(v, unicode.IsControl)
}

// jsonWhere says where the JSON error err is in b, as a line and column.
func jsonWhere(b []byte, err error) string {
	se, ok := err.(*json.SyntaxError)
	if !ok {
		return ""
	}
	line := 1 + bytes.Count(b[:se.Offset], []byte("\n"))
	col := int(se.Offset) - bytes.LastIndexByte(b[:se.Offset], '\n') - 1
	return fmt.Sprintf(" (line %d, column %d)", line, col)
}
