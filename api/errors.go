package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/validation"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/errcode"
)

// Error codes of the error model. Each maps to one HTTP status in codeStatus.
const (
	CodeMissingAuthHeader    = "MISSING_AUTH_HEADER"
	CodeUnauthorized         = "UNAUTHORIZED"
	CodeForbidden            = "FORBIDDEN"
	CodeMissingFields        = "MISSING_FIELDS"
	CodeValidation           = "VALIDATION_ERROR"
	CodeNotFound             = "NOT_FOUND"
	CodeMethodNotAllowed     = "METHOD_NOT_ALLOWED"
	CodeConflict             = "CONFLICT"
	CodePayloadTooLarge      = "PAYLOAD_TOO_LARGE"
	CodeUnsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE"
	CodePreconditionFailed   = "PRECONDITION_FAILED"
	CodeRangeNotSatisfiable  = "RANGE_NOT_SATISFIABLE"
	CodeHeadersTooLarge      = "HEADERS_TOO_LARGE"
	CodeRateLimited          = "RATE_LIMITED"
	CodeRequestTimeout       = "REQUEST_TIMEOUT"
	CodeInternal             = "INTERNAL_ERROR"
	CodeEmailSendError       = "EMAIL_SEND_ERROR"
	CodeServiceUnavailable   = "SERVICE_UNAVAILABLE"
	CodeGone                 = "GONE"
)

// codeStatus is the one table from error code to HTTP status.
var codeStatus = map[string]int{
	CodeMissingAuthHeader:    http.StatusUnauthorized,
	CodeUnauthorized:         http.StatusUnauthorized,
	CodeForbidden:            http.StatusForbidden,
	CodeMissingFields:        http.StatusBadRequest,
	CodeValidation:           http.StatusBadRequest,
	CodeNotFound:             http.StatusNotFound,
	CodeMethodNotAllowed:     http.StatusMethodNotAllowed,
	CodeConflict:             http.StatusConflict,
	CodePayloadTooLarge:      http.StatusRequestEntityTooLarge,
	CodeUnsupportedMediaType: http.StatusUnsupportedMediaType,
	CodePreconditionFailed:   http.StatusPreconditionFailed,
	CodeRangeNotSatisfiable:  http.StatusRequestedRangeNotSatisfiable,
	CodeHeadersTooLarge:      http.StatusRequestHeaderFieldsTooLarge,
	CodeRateLimited:          http.StatusTooManyRequests,
	CodeRequestTimeout:       http.StatusRequestTimeout,
	CodeInternal:             http.StatusInternalServerError,
	CodeEmailSendError:       http.StatusBadGateway,
	CodeServiceUnavailable:   http.StatusServiceUnavailable,
	CodeGone:                 http.StatusGone,
}

// domainCode is the one table from the domain's error codes
// (errcode.Code) to the error model's; a domain error's message is shown
// as it is. Internal is not in it: its message is for the log.
var domainCode = map[errcode.Code]string{
	errcode.Invalid:     CodeValidation,
	errcode.NotFound:    CodeNotFound,
	errcode.Conflict:    CodeConflict,
	errcode.Forbidden:   CodeForbidden,
	errcode.TooLarge:    CodePayloadTooLarge,
	errcode.Unsupported: CodeUnsupportedMediaType,
	errcode.Unavailable: CodeServiceUnavailable,
}

// statusCode names the code for the other statuses Huma itself reports.
var statusCode = map[int]string{
	http.StatusUnauthorized:          CodeUnauthorized,
	http.StatusForbidden:             CodeForbidden,
	http.StatusNotFound:              CodeNotFound,
	http.StatusMethodNotAllowed:      CodeMethodNotAllowed,
	http.StatusConflict:              CodeConflict,
	http.StatusRequestEntityTooLarge: CodePayloadTooLarge,
	http.StatusUnsupportedMediaType:  CodeUnsupportedMediaType,
	http.StatusTooManyRequests:       CodeRateLimited,
	http.StatusRequestTimeout:        CodeRequestTimeout,
}

// internalMessage is all a client ever learns of an unexpected error.
const internalMessage = "internal error; quote the request id when reporting it"

// Error is the body of every error response.
type Error struct {
	status int

	Success   bool   `json:"success" doc:"Always false for an error"`
	Code      string `json:"code" doc:"Machine-readable error code" enum:"MISSING_AUTH_HEADER,UNAUTHORIZED,FORBIDDEN,MISSING_FIELDS,VALIDATION_ERROR,NOT_FOUND,METHOD_NOT_ALLOWED,CONFLICT,PAYLOAD_TOO_LARGE,UNSUPPORTED_MEDIA_TYPE,PRECONDITION_FAILED,RANGE_NOT_SATISFIABLE,HEADERS_TOO_LARGE,RATE_LIMITED,REQUEST_TIMEOUT,INTERNAL_ERROR,EMAIL_SEND_ERROR,SERVICE_UNAVAILABLE,GONE"`
	Message   string `json:"message" doc:"What went wrong, for a person"`
	Details   any    `json:"details,omitempty" doc:"The offending fields (a list of {location, message, value}, with at, the character from 1 of a text value where the problem is, when it is one character of it) or more about the error"`
	RequestID string `json:"request_id,omitempty" doc:"The X-Request-Id of the request, to quote when reporting a problem"`
}

// Error implements error.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// GetStatus implements huma.StatusError.
func (e *Error) GetStatus() int { return e.status }

// Errorf returns an Error with code and message; its status comes from codeStatus.
func Errorf(code, message string) *Error {
	status, ok := codeStatus[code]
	if !ok {
		status = http.StatusInternalServerError
	}
	return &Error{status: status, Code: code, Message: message}
}

// WithDetails returns e with details attached.
func (e *Error) WithDetails(details any) *Error {
	e.Details = details
	return e
}

// WithDetail returns e with the one detail that locates its cause: where
// (body.name, query.name, header.Name), what is wrong there, and the value
// sent (nil for none), as Huma's own validation errors say it.
func (e *Error) WithDetail(location, message string, value any) *Error {
	return e.WithDetails([]*huma.ErrorDetail{{Location: location, Message: message, Value: value}})
}

func init() {
	// A key differing only in case from a property is an unknown key: what
	// Huma validates is then exactly what the decoder reads (strictjson.go).
	huma.ValidateStrictCasing = true
	// Huma builds every error it reports (validation, body size, content
	// type, handler errors) through these two hooks; the OpenAPI error
	// schema is derived from NewError too, so they are set before any
	// operation is registered.
	huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
		return fromHuma(context.Background(), status, msg, errs)
	}
	huma.NewErrorWithContext = func(ctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
		var c context.Context = context.Background()
		if ctx != nil {
			c = ctx.Context()
		}
		return fromHuma(c, status, msg, errs)
	}
}

// fromHuma is where errors crossing the API boundary are translated into
// the error model: Huma's own validation errors, and whatever a handler
// returns (Huma reports an error that is not an *Error as a 500 with it).
func fromHuma(ctx context.Context, status int, msg string, errs []error) *Error {
	if status >= 500 || status == 0 {
		if status == 0 && len(errs) == 0 {
			return Errorf(CodeInternal, internalMessage)
		}
		return translate(ctx, errors.Join(slices.Concat(errs, []error{errors.New(msg)})...))
	}
	for _, err := range errs {
		if e, ok := errors.AsType[*Error](err); ok {
			return e
		}
	}
	var details []*huma.ErrorDetail
	// A key that is not a property (often a property in another case) is
	// the cause when both it and a missing property are reported.
	missing, unexpected := false, false
	for _, err := range errs {
		var d huma.ErrorDetailer
		if errors.As(err, &d) {
			detail := scrub(d.ErrorDetail())
			if slices.ContainsFunc(details, func(o *huma.ErrorDetail) bool { return *o == *detail }) {
				continue // one detail per problem, however often it occurs
			}
			if name, ok := missingProperty(detail.Message); ok {
				detail.Location += "." + name
				detail.Value = nil
			}
			details = append(details, detail)
			missing = missing || isMissing(detail.Message)
			unexpected = unexpected || detail.Message == validation.MsgUnexpectedProperty
		}
	}
	var e *Error
	switch code, known := statusCode[status]; {
	case status == http.StatusBadRequest || status == http.StatusUnprocessableEntity:
		if missing && !unexpected || msg == "request body is required" {
			e = Errorf(CodeMissingFields, "required fields are missing")
		} else {
			e = Errorf(CodeValidation, "the request is not valid")
			if msg != "validation failed" && msg != "" {
				e.Message = msg
			}
		}
	case known:
		e = Errorf(code, msg)
	default:
		e = Errorf(CodeValidation, msg)
		e.status = status
	}
	if len(details) > 0 {
		e.Details = details
	}
	return e
}

// scrub keeps a detail's value only when it is a short scalar the client
// sent: Huma puts the whole object (or the whole body) in the value of some
// errors, and a response never echoes a request back. A body that could
// not be decoded is located where strictUnmarshal found the problem.
func scrub(d *huma.ErrorDetail) *huma.ErrorDetail {
	if d.Location == "body" {
		if at, msg, ok := strings.Cut(d.Message, ": "); ok && strings.HasPrefix(at, "body") {
			d.Location, d.Message = at, msg
		}
		d.Value = nil
	}
	d.Message = ownFormatMessage(d.Message)
	if d.Location == "query.cursor" {
		d.Value = nil // a cursor is opaque: never quoted back
	}
	switch v := d.Value.(type) {
	case string:
		if len(v) > maxEchoedValue || !plainText(v) {
			d.Value = nil
		}
	case nil, bool, float64, int, int64, json.Number:
	default:
		d.Value = nil
	}
	return d
}

// maxEchoedValue is the longest text value an error repeats back.
const maxEchoedValue = 200

// formatMessages are our words for Huma's format checks whose message ends
// with the parser's own error, which quotes the request back.
var formatMessages = map[string]string{
	validation.MsgExpectedRFC5322Email: "must be an e-mail address such as name@example.com",
	validation.MsgExpectedRFC4122UUID:  "must be a UUID such as 0b3c6f4e-5a1d-4c2b-9e8f-7a6b5c4d3e2f",
	validation.MsgExpectedRFC3986URI:   "must be a URI such as https://example.com/page",
	validation.MsgExpectedRegexp:       "must be a regular expression",
	validation.MsgExpectedDuration:     "must be a duration such as 90s or 1h30m",
}

// ownFormatMessage replaces Huma's message for a failed format check with
// ours; any other message is returned as it is.
func ownFormatMessage(msg string) string {
	for tmpl, own := range formatMessages {
		if prefix, _, _ := strings.Cut(tmpl, "%v"); strings.HasPrefix(msg, prefix) {
			return own
		}
	}
	return msg
}

// translate is the one translation of an error into the error model: an
// *Error is kept, a domain error gets its code from domainCode and keeps
// its message, its problems becoming the details (else its details), a database that cannot be reached is SERVICE_UNAVAILABLE,
// and anything else (a domain Internal error, an error without a code) is
// logged with its detail and shown as a plain INTERNAL_ERROR.
func translate(ctx context.Context, err error) *Error {
	if e, ok := errors.AsType[*Error](err); ok {
		return e
	}
	if code, ok := domainCode[errcode.Of(err)]; ok {
		d, _ := errors.AsType[*errcode.Error](err)
		e := Errorf(code, d.Message)
		switch {
		case len(d.Problems) > 0:
			details := make([]locatedDetail, len(d.Problems))
			for i, p := range d.Problems {
				details[i] = locatedDetail{ErrorDetail: &huma.ErrorDetail{Location: p.Location, Message: p.Message, Value: p.Value},
					At: p.At}
			}
			e.Details = details
		case len(d.Details) > 0:
			e.Details = d.Details
		}
		return e
	}
	if db.Unavailable(err) {
		logger(ctx).WarnContext(ctx, "database unavailable", "error", err)
		return Errorf(CodeServiceUnavailable, "the database is unavailable; try again shortly")
	}
	if errors.Is(err, context.Canceled) && errors.Is(ctx.Err(), context.Canceled) {
		logger(ctx).InfoContext(ctx, "request canceled by the client", "error", err)
	} else {
		logger(ctx).ErrorContext(ctx, "internal error", "error", err)
	}
	return Errorf(CodeInternal, internalMessage)
}

// locatedDetail is a domain problem as a detail of the error model: where,
// what, the value sent and, for a text, the character of it at fault.
type locatedDetail struct {
	*huma.ErrorDetail
	At int `json:"at,omitempty"`
}

// requiredBefore and requiredAfter surround the name in Huma's message for
// a missing body property (validation.MsgExpectedRequiredProperty).
var requiredBefore, requiredAfter, _ = strings.Cut(validation.MsgExpectedRequiredProperty, "%s")

// missingProperty extracts the name from Huma's message for a missing body
// property, so the detail's location names the missing field.
func missingProperty(msg string) (string, bool) {
	rest, ok := strings.CutPrefix(msg, requiredBefore)
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, requiredAfter)
}

// isMissing reports whether msg is Huma's for a missing body property or
// parameter ("required query parameter is missing").
func isMissing(msg string) bool {
	return strings.HasPrefix(msg, requiredBefore) || strings.HasPrefix(msg, "required ")
}

// writeError writes e as the response, echoing the request id.
func writeError(w http.ResponseWriter, r *http.Request, e *Error) {
	e.RequestID = requestID(r.Context())
	w.Header().Set("Content-Type", "application/json")
	// Set again: what answered before the error may have dropped it
	// (http.ServeContent deletes Cache-Control when it refuses a range).
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(e.status)
	_ = json.NewEncoder(w).Encode(e)
}
