package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/engine"
)

// httpError is a request's failure: the HTTP status and the engine's one
// error object, so that every client reads failures the same way whatever
// front end it talks to. Statuses (docs/http.md): 400, 401, 404, 405 and 409
// carry bad_request, 413 and 503 limit_exceeded (and 409 when the server has
// its most boards), 500 is the server's own fault.
type httpError struct {
	status int
	err    *engine.Error
	header http.Header // extra headers: Allow, Retry-After, WWW-Authenticate
}

func (e *httpError) Error() string { return e.err.Error() }

func newHTTPError(status int, code engine.Code, format string, args ...any) *httpError {
	return &httpError{status: status, err: engine.Errorf(code, format, args...)}
}

func badRequest(format string, args ...any) *httpError {
	return newHTTPError(http.StatusBadRequest, engine.CodeBadRequest, format, args...)
}

func notFound(format string, args ...any) *httpError {
	return newHTTPError(http.StatusNotFound, engine.CodeBadRequest, format, args...)
}

func conflict(format string, args ...any) *httpError {
	return newHTTPError(http.StatusConflict, engine.CodeBadRequest, format, args...)
}

// unavailable is a 503 a client may retry: the server is busy.
func unavailable(format string, args ...any) *httpError {
	e := newHTTPError(http.StatusServiceUnavailable, engine.CodeLimitExceeded, format, args...)
	e.header = http.Header{"Retry-After": {"1"}}
	return e
}

func errShuttingDown() *httpError {
	return unavailable("the server is shutting down")
}

func methodNotAllowed(method string, allow []string) *httpError {
	e := newHTTPError(http.StatusMethodNotAllowed, engine.CodeBadRequest, "method %s is not allowed here; allowed: %s", method, strings.Join(allow, ", "))
	e.header = http.Header{"Allow": {strings.Join(allow, ", ")}}
	return e
}

// internal is a 500: the server's own fault, never a client's mistake.
func internal(err error) *httpError {
	return newHTTPError(http.StatusInternalServerError, engine.CodeToolError, "internal server error: %v", err)
}

// fromEngine maps an error the engine returned for a request it rejected
// before running it (bad_request, or limit_exceeded for too many
// operations): the client's request, so 400 with the engine's error as is.
func fromEngine(err error) *httpError {
	return &httpError{status: http.StatusBadRequest, err: engine.AsError(err, engine.CodeBadRequest)}
}

// writeError sends e as {"error": {...}}.
func writeError(w http.ResponseWriter, e *httpError) {
	h := w.Header()
	for k, v := range e.header {
		h[k] = v
	}
	writeJSON(w, e.status, errorBody(e))
}

// errorBody is the body of an error answer, {"error": {...}}.
func errorBody(e *httpError) any {
	return struct {
		Error *engine.Error `json:"error"`
	}{e.err}
}

// writeJSON sends v indented, with a final newline, the way the CLI prints
// results: a curl session shows what `codemode run` shows.
func writeJSON(w http.ResponseWriter, status int, v any) {
	writeBody(w, status, "application/json", indented(v))
}

// indented is v as JSON, indented, with a final newline.
func indented(v any) []byte {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		// Every value sent is made of plain structs and valid raw JSON.
		panic(fmt.Sprintf("server: encoding a response: %v", err))
	}
	return append(data, '\n')
}

// answerWriteTimeout bounds writing one answer: a client that stops reading
// a large one (a board, its SVG) holds its handler, and what the handler
// holds, at most this long. A variable so that tests can shorten it.
var answerWriteTimeout = 30 * time.Second

// writeBody sends an answer whole, within answerWriteTimeout; the deadline
// goes after it, so that it never cuts the connection's next answer short.
func writeBody(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", fmt.Sprint(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	rc := http.NewResponseController(w)
	if rc.SetWriteDeadline(time.Now().Add(answerWriteTimeout)) == nil { // not every ResponseWriter can
		defer rc.SetWriteDeadline(time.Time{})
	}
	w.WriteHeader(status)
	w.Write(body)
}
