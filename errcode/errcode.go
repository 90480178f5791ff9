// Package errcode is the error of the domain: what went wrong, said as a
// code the edges translate (the API into an HTTP status, a worker into a
// retry or a failed task) and a message a person can act on.
//
// The database layer maps its own errors into it once (a missing row is
// NotFound, a taken unique name Conflict); any error without a code is
// Internal, and its text is never shown to anyone.
package errcode

import (
	"errors"
	"fmt"
)

// Code says what kind of failure an Error is.
type Code string

// The codes of the domain.
const (
	// Invalid: the input breaks a rule of the business.
	Invalid Code = "invalid"
	// NotFound: what the request names does not exist.
	NotFound Code = "not_found"
	// Conflict: the current state forbids it (a taken name, a stale revision).
	Conflict Code = "conflict"
	// Forbidden: this caller may not do it, whatever their role (a
	// supervisor resolving a dispute of their own evaluation).
	Forbidden Code = "forbidden"
	// TooLarge: the input is over a limit.
	TooLarge Code = "too_large"
	// Unsupported: the input is of a kind the service does not take.
	Unsupported Code = "unsupported"
	// Unavailable: it cannot be done now; trying again later may work.
	Unavailable Code = "unavailable"
	// Internal: anything unexpected; its message is for the log only.
	Internal Code = "internal"
)

// Error is an error with a code and a message for a person. Problems
// locate the input at fault, one per field; Details say more for a program
// (the file at fault, the limit); Err, the cause, is for the log.
type Error struct {
	Code     Code
	Message  string
	Problems []Problem
	Details  map[string]any
	Err      error
}

// Problem is one thing wrong with a request's input: where, located as the
// API locates a request's fields ("body.items[2].criterion_id",
// "query.operator"), what is wrong there, and the value sent (nil for none).
// At, for a text, is the character (from 1) of the value at Location where
// the problem is (a phrase's syntax); 0 when it is the whole value.
type Problem struct {
	Location string
	Message  string
	Value    any
	At       int
}

// Problems gathers the problems of an input.
type Problems []Problem

// Add adds the problem of the value at location.
func (p *Problems) Add(location, message string, value any) {
	*p = append(*p, Problem{Location: location, Message: message, Value: value})
}

// Err is p as one Invalid error saying what has them and that nothing was
// changed, or nil when p is empty.
func (p Problems) Err(what string) error {
	if len(p) == 0 {
		return nil
	}
	return &Error{Code: Invalid, Message: fmt.Sprintf("%s has %d problem(s); nothing was changed", what, len(p)), Problems: p}
}

// New returns an Error with code and a message formatted as fmt.Sprintf does.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// With returns e with details added.
func (e *Error) With(details map[string]any) *Error {
	e.Details = details
	return e
}

// WithProblems returns e with problems added.
func (e *Error) WithProblems(problems ...Problem) *Error {
	e.Problems = append(e.Problems, problems...)
	return e
}

// Wrap returns an Error with code and message whose cause is err.
func Wrap(code Code, err error, message string) *Error {
	return &Error{Code: code, Message: message, Err: err}
}

// Error implements error: the message, then the cause.
func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Of returns the code of the outermost Error in err's chain, Internal when
// there is none, and "" for nil.
func Of(err error) Code {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return Internal
}

// Message returns the message of the outermost Error in err's chain, and
// err's text when there is none ("" for nil).
func Message(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Message
	}
	return err.Error()
}

// Is reports whether err's code is code.
func Is(err error, code Code) bool { return Of(err) == code }
