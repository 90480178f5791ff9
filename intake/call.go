package intake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/auditd/auditd/errcode"
	"github.com/auditd/auditd/redact"
	"github.com/auditd/auditd/transcript"
)

// Bounds of what an upload says of its interaction (Settings).
const (
	// MaxReferenceLength bounds call_id, queue, customer_ref and an
	// operator's reference, in characters.
	MaxReferenceLength = 200
	// MaxMetadataKeys bounds the keys of the metadata object.
	MaxMetadataKeys = 32
	// MaxMetadataKeyLength and MaxMetadataValueLength bound a key and a
	// string value, in characters.
	MaxMetadataKeyLength   = 64
	MaxMetadataValueLength = 500
	// MaxMetadataBytes bounds the metadata object as JSON.
	MaxMetadataBytes = 8 << 10
)

// RedactedPhone is what a caller or called number becomes in a campaign
// that redacts phone numbers, as in its transcripts.
const RedactedPhone = "[PHONE]"

// Directions of a call.
var Directions = []string{"inbound", "outbound"}

// Check checks and normalises what s says of the interaction: direction,
// the references (call id, queue, customer reference), the phone numbers
// (written as PhoneNumber writes them) and the metadata. Each problem is
// located at prefix followed by the field's name ("body.caller"). It
// returns an Invalid error with every problem, or nil.
func (s *Settings) Check(prefix string) error {
	var p errcode.Problems
	if s.Direction != "" && !slices.Contains(Directions, s.Direction) {
		p.Add(prefix+"direction", "must be inbound or outbound", s.Direction)
	}
	for _, r := range []struct {
		name string
		v    *string
	}{{"call_id", &s.CallID}, {"queue", &s.Queue}, {"customer_ref", &s.CustomerRef}} {
		*r.v = strings.TrimSpace(*r.v)
		if msg := referenceProblem(*r.v); msg != "" {
			p.Add(prefix+r.name, msg, echo(*r.v))
		}
	}
	for _, n := range []struct {
		name string
		v    *string
	}{{"caller", &s.Caller}, {"called", &s.Called}} {
		if *n.v == "" {
			continue
		}
		number, ok := PhoneNumber(*n.v)
		if !ok {
			p.Add(prefix+n.name, "must be a phone number: digits, with an optional leading + (spaces, dots, dashes, "+
				"parentheses and a tel: prefix are allowed and left out); leave it out when the number was withheld", echo(*n.v))
		}
		*n.v = number
	}
	if err := CheckMetadata(s.Metadata); err != nil {
		p.Add(prefix+"metadata", err.Error(), nil)
	}
	return p.Err("what the upload says of its interactions")
}

// echo is v as a problem may quote it: nil when long.
func echo(v string) any {
	if len(v) > 200 {
		return nil
	}
	return v
}

// referenceProblem is what is wrong with a reference, "" when nothing.
func referenceProblem(v string) string {
	switch {
	case utf8.RuneCountInString(v) > MaxReferenceLength:
		return fmt.Sprintf("must be at most %d characters", MaxReferenceLength)
	case !printable(v):
		return "must be one line of text, without NUL or other control characters"
	}
	return ""
}

// printable reports whether v is valid UTF-8 without control characters.
func printable(v string) bool {
	return utf8.ValidString(v) && !strings.ContainsFunc(v, unicode.IsControl)
}

// PhoneNumber returns number as stored and compared: its digits, after a
// + when it has one, without the spaces, dots, dashes, parentheses and
// tel: prefix people and platforms write around them. It reports false
// for what is not a phone number (2 to 20 digits).
func PhoneNumber(number string) (string, bool) {
	v := strings.TrimSpace(number)
	v = strings.TrimPrefix(strings.TrimPrefix(v, "tel:"), "TEL:")
	var b strings.Builder
	for i, r := range v {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '+' && i == 0:
			b.WriteRune(r)
		case r == ' ' || r == '.' || r == '-' || r == '(' || r == ')':
		default:
			return "", false
		}
	}
	digits := strings.TrimPrefix(b.String(), "+")
	if len(digits) < 2 || len(digits) > 20 {
		return "", false
	}
	return b.String(), true
}

// CheckMetadata returns what is wrong with m as an interaction's metadata,
// nil when nothing: at most MaxMetadataKeys keys of 1 to
// MaxMetadataKeyLength characters without "=" or control characters, each
// a string (at most MaxMetadataValueLength characters, one line), a finite
// number or a boolean, MaxMetadataBytes at most as JSON. Its message names
// the key at fault.
func CheckMetadata(m map[string]any) error {
	if len(m) > MaxMetadataKeys {
		return fmt.Errorf("has %d keys; at most %d", len(m), MaxMetadataKeys)
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}) {
		if err := checkMetadataEntry(k, m[k]); err != nil {
			return err
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return errors.New("is not a JSON object of scalars")
	}
	if len(b) > MaxMetadataBytes {
		return fmt.Errorf("is %d bytes as JSON; at most %d", len(b), MaxMetadataBytes)
	}
	return nil
}

// checkMetadataEntry returns what is wrong with the key k and its value v.
func checkMetadataEntry(k string, v any) error {
	switch n := utf8.RuneCountInString(k); {
	case strings.TrimSpace(k) == "":
		return errors.New("has an empty key")
	case n > MaxMetadataKeyLength:
		return fmt.Errorf("key %.20q…: a key is at most %d characters, not %d", k, MaxMetadataKeyLength, n)
	case !printable(k) || strings.Contains(k, "="):
		return fmt.Errorf("key %q: a key holds no =, NUL or other control characters", k)
	}
	switch v := v.(type) {
	case string:
		if n := utf8.RuneCountInString(v); n > MaxMetadataValueLength {
			return fmt.Errorf("key %q: a text value is at most %d characters, not %d", k, MaxMetadataValueLength, n)
		}
		if !printable(v) {
			return fmt.Errorf("key %q: a text value is one line, without NUL or other control characters", k)
		}
	case bool:
	case json.Number:
		if f, err := v.Float64(); err != nil || math.IsInf(f, 0) {
			return fmt.Errorf("key %q: %s is not a number a JSON reader keeps", k, v)
		}
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("key %q: the number is not finite", k)
		}
	case int, int64:
	case nil:
		return fmt.Errorf("key %q: null; leave the key out instead", k)
	default:
		return fmt.Errorf("key %q: the value is an object or a list; a value is a string, a number or true/false", k)
	}
	return nil
}

// ParseMetadata reads b, a JSON object of scalars, as an interaction's
// metadata, numbers as written. Its error says what is wrong: not an
// object, a key given twice, a value that is not a scalar, a bound
// exceeded (CheckMetadata).
func ParseMetadata(b []byte) (map[string]any, error) {
	if len(b) > MaxMetadataBytes {
		return nil, fmt.Errorf("is %d bytes; at most %d", len(b), MaxMetadataBytes)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	notObject := errors.New(`must be a JSON object of keys and scalar values, such as {"tier": "gold", "attempt": 2}`)
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, notObject
	}
	m := map[string]any{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, notObject
		}
		k := t.(string) // an object's key is a string
		if _, seen := m[k]; seen {
			return nil, fmt.Errorf("key %q is given twice", k)
		}
		var v any
		if err := d.Decode(&v); err != nil {
			return nil, notObject
		}
		if err := checkMetadataEntry(k, v); err != nil {
			return nil, err
		}
		m[k] = v
		if len(m) > MaxMetadataKeys {
			return nil, fmt.Errorf("has more than %d keys", MaxMetadataKeys)
		}
	}
	if _, err := d.Token(); err != nil {
		return nil, notObject
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, notObject
	}
	return m, CheckMetadata(m)
}

// redacted is s as the campaign whose redactor is r and whose redacted
// types are types keeps it: the phone numbers as RedactedPhone where it
// redacts phone numbers, and the metadata's text values redacted as its
// transcripts are.
func (s Settings) redacted(r *redact.Redactor, types []string) Settings {
	if slices.Contains(types, redact.Phone) {
		for _, n := range []*string{&s.Caller, &s.Called} {
			if *n != "" {
				*n = RedactedPhone
			}
		}
	}
	if len(s.Metadata) == 0 {
		return s
	}
	m := make(map[string]any, len(s.Metadata))
	for k, v := range s.Metadata {
		if text, ok := v.(string); ok {
			tr, _ := r.Transcript(transcript.Transcript{Segments: []transcript.Segment{{Text: text}}})
			v = tr.Segments[0].Text
		}
		m[k] = v
	}
	s.Metadata = m
	return s
}
