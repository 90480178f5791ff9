package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
)

// jsonFormat is the only JSON every operation reads: Huma validates what
// strictUnmarshal decodes and then decodes it again into the operation's
// input, so both see exactly the same keys.
var jsonFormat = huma.Format{Marshal: huma.DefaultJSONFormat.Marshal, Unmarshal: strictUnmarshal}

// strictUnmarshal decodes data into v after checkJSON, and reports what is
// wrong with data as a *jsonError naming where, never in the decoder's
// words (Go type names, byte offsets of a library's choosing).
func strictUnmarshal(data []byte, v any) error {
	if err := checkJSON(data); err != nil {
		return err
	}
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		at := "body"
		if te.Field != "" {
			at += "." + te.Field
		}
		if strings.HasPrefix(te.Value, "number") {
			return &jsonError{at: at, msg: "the number " + strings.TrimPrefix(te.Value, "number ") + " is out of range or not of the kind expected here"}
		}
		return &jsonError{at: at, msg: "expected a value of another type here, not a " + te.Value}
	}
	return &jsonError{at: "body", msg: "the body is not valid JSON"}
}

// jsonError is a body that is not what an operation reads: at names the
// place (body, body.criteria[0].weight) and msg what is wrong there.
type jsonError struct{ at, msg string }

func (e *jsonError) Error() string { return e.at + ": " + e.msg }

// checkJSON walks data once and refuses what json.Unmarshal would take
// silently: a key given twice in one object, exactly or differing only in
// case (Go's decoder matches keys case-insensitively and keeps the last,
// so a validator seeing one copy and a decoder keeping the other would
// disagree); invalid UTF-8, which the decoder replaces; and a NUL in a key
// or a string, which Postgres cannot store. Syntax errors are reported
// too, as not valid JSON.
func checkJSON(data []byte) error {
	if !utf8.Valid(data) {
		return &jsonError{at: "body", msg: "the body is not valid UTF-8 text"}
	}
	type frame struct {
		object bool
		keys   map[string]string // lower-cased key → the key as sent
		key    string            // the current key (objects)
		value  bool              // the next string is a value, not a key
		index  int               // the current element (arrays)
	}
	var stack []*frame
	where := func() string {
		var b strings.Builder
		b.WriteString("body")
		for _, f := range stack {
			if f.object {
				if f.value {
					b.WriteString("." + f.key)
				}
			} else {
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
			}
		}
		return b.String()
	}
	// value is called after each complete value, to advance the enclosing
	// array's index or mark the object as waiting for its next key.
	value := func() {
		if len(stack) == 0 {
			return
		}
		if top := stack[len(stack)-1]; top.object {
			top.value = false
		} else {
			top.index++
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if len(stack) > 0 {
				return &jsonError{at: "body", msg: "the body is not valid JSON: it ends early"}
			}
			return nil
		}
		if err != nil {
			return &jsonError{at: where(), msg: "the body is not valid JSON here"}
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, &frame{object: true, keys: map[string]string{}})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				value()
			}
		case string:
			if top != nil && top.object && !top.value {
				if strings.ContainsRune(t, 0) {
					return &jsonError{at: where(), msg: "a key holds a NUL character"}
				}
				lower := strings.ToLower(t)
				top.key, top.value = t, true
				if first, ok := top.keys[lower]; ok {
					if first == t {
						return &jsonError{at: where(), msg: fmt.Sprintf("the key %q is given twice; give it once", t)}
					}
					return &jsonError{at: where(), msg: fmt.Sprintf("the key %q is given twice, as %q and %q; keys are case-sensitive, give it once", lower, first, t)}
				}
				top.keys[lower] = t
				continue
			}
			if strings.ContainsRune(t, 0) {
				return &jsonError{at: where(), msg: "the text holds a NUL character (\\u0000), which is not allowed"}
			}
			value()
		default:
			value()
		}
	}
}
