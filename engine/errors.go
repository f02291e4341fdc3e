package engine

import (
	"context"
	"errors"
	"fmt"
)

// Code is a machine-readable error code, shared by every front end.
type Code string

// The error codes (docs/errors.md), one list for every front end. A host may switch on them; a model reads
// them as part of a failed result.
const (
	CodeBadRequest       Code = "bad_request"       // the request itself is malformed
	CodeUnknownTool      Code = "unknown_tool"      // no tool has that name; see Suggestions
	CodeInvalidArgs      Code = "invalid_args"      // args do not match the tool's schema; see Details
	CodeToolError        Code = "tool_error"        // the tool ran and failed
	CodeTimeout          Code = "timeout"           // a per-call or whole-run deadline passed
	CodeCanceled         Code = "canceled"          // the caller canceled
	CodeLimitExceeded    Code = "limit_exceeded"    // a count limit (operations, tool calls) was hit
	CodeDenied           Code = "denied"            // the Approver refused the call
	CodeSkipped          Code = "skipped"           // not run because an earlier operation failed (stopOnError)
	CodeDependencyFailed Code = "dependency_failed" // a $ref points at a failed or skipped operation
	CodeRecursion        Code = "recursion"         // a batch or script tried to nest batch/execute_code
	CodeSyntaxError      Code = "syntax_error"      // code mode: the script does not parse
	CodeRuntimeError     Code = "runtime_error"     // code mode: the script threw
	CodeMemoryLimit      Code = "memory_limit"      // a memory budget was exceeded
	CodeOutputLimit      Code = "output_limit"      // an output budget was exceeded
)

// Budget reports whether errors of this code end a whole run rather than one
// call. In code mode, budget errors cannot be caught by the script; all other
// codes arrive as catchable JavaScript errors.
func (c Code) Budget() bool {
	switch c {
	case CodeTimeout, CodeCanceled, CodeLimitExceeded, CodeMemoryLimit:
		return true
	}
	return false
}

// Violation is one failed schema constraint of a call's arguments.
type Violation struct {
	// Path is a JSON pointer into the arguments ("/points/0/x"; "" for the root).
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Error is the single error type of codemode. It is data: it serialises as the
// "error" object of the wire formats, and it works with errors.Is (matching by
// code, and timeout and canceled also match the context errors; see
// [Error.Is]) and errors.As.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	// Suggestions are near-miss tool names, for CodeUnknownTool.
	Suggestions []string `json:"suggestions,omitempty"`
	// Details lists every violated constraint, for CodeInvalidArgs.
	Details []Violation `json:"details,omitempty"`
	// Line and Column locate a code-mode error in the code as sent (1-based).
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Truncated marks an error cut to the engine's bounds (a message over
	// MaxErrorMessageChars, too many or too long details or suggestions).
	Truncated bool `json:"truncated,omitempty"`

	cause error
}

// Errorf returns an *Error with the given code and formatted message, cut to
// MaxErrorMessageChars.
func Errorf(code Code, format string, args ...any) *Error {
	return (&Error{Code: code, Message: fmt.Sprintf(format, args...)}).bounded()
}

// WrapError returns an *Error with the given code whose message is err's (cut
// to MaxErrorMessageChars) and which unwraps to err.
func WrapError(code Code, err error) *Error {
	return (&Error{Code: code, Message: err.Error(), cause: err}).bounded()
}

func (e *Error) Error() string {
	if e.Message == "" {
		return string(e.Code)
	}
	return string(e.Code) + ": " + e.Message
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.cause }

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, engine.ErrTimeout) matches any timeout whatever its message.
// A timeout also matches context.DeadlineExceeded, and canceled matches
// context.Canceled, as the context errors they stand for would.
func (e *Error) Is(target error) bool {
	switch target {
	case context.DeadlineExceeded:
		return e.Code == CodeTimeout
	case context.Canceled:
		return e.Code == CodeCanceled
	}
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Sentinels for errors.Is. Compare codes with them; do not return them.
var (
	ErrBadRequest       = &Error{Code: CodeBadRequest}
	ErrUnknownTool      = &Error{Code: CodeUnknownTool}
	ErrInvalidArgs      = &Error{Code: CodeInvalidArgs}
	ErrToolError        = &Error{Code: CodeToolError}
	ErrTimeout          = &Error{Code: CodeTimeout}
	ErrCanceled         = &Error{Code: CodeCanceled}
	ErrLimitExceeded    = &Error{Code: CodeLimitExceeded}
	ErrDenied           = &Error{Code: CodeDenied}
	ErrSkipped          = &Error{Code: CodeSkipped}
	ErrDependencyFailed = &Error{Code: CodeDependencyFailed}
	ErrRecursion        = &Error{Code: CodeRecursion}
	ErrSyntaxError      = &Error{Code: CodeSyntaxError}
	ErrRuntimeError     = &Error{Code: CodeRuntimeError}
	ErrMemoryLimit      = &Error{Code: CodeMemoryLimit}
	ErrOutputLimit      = &Error{Code: CodeOutputLimit}
)

// AsError converts any error into an *Error: an *Error (anywhere in the chain)
// is returned as is, context errors become timeout or canceled, and anything
// else becomes fallback with the error's text as message.
func AsError(err error, fallback Code) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return WrapError(CodeTimeout, err)
	case errors.Is(err, context.Canceled):
		return WrapError(CodeCanceled, err)
	}
	return WrapError(fallback, err)
}
