package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/codemode-dev/codemode/internal/strictjson"
)

// handlerFunc serves one endpoint; id is the path's board or run id. It
// writes its answer itself and returns nil, or returns the error to send
// (when it has written nothing yet).
type handlerFunc func(w http.ResponseWriter, r *http.Request, id string) *httpError

// endpoint is one path's handlers by method; HEAD is served where GET is.
type endpoint struct {
	get, post, delete handlerFunc
}

func (e endpoint) allow() []string {
	var m []string
	if e.get != nil {
		m = append(m, http.MethodGet, http.MethodHead)
	}
	if e.post != nil {
		m = append(m, http.MethodPost)
	}
	if e.delete != nil {
		m = append(m, http.MethodDelete)
	}
	return append(m, http.MethodOptions)
}

func (e endpoint) handler(method string) handlerFunc {
	switch method {
	case http.MethodGet, http.MethodHead:
		return e.get
	case http.MethodPost:
		return e.post
	case http.MethodDelete:
		return e.delete
	}
	return nil
}

// route finds the endpoint of an API path (under /v1/, or /healthz) and the
// id in it.
func (s *Server) route(path string) (endpoint, string, *httpError) {
	if path == "/healthz" {
		return endpoint{get: s.healthz}, "", nil
	}
	rest, _ := strings.CutPrefix(path, "/v1/")
	parts := strings.Split(rest, "/")
	switch {
	case len(parts) == 1 && parts[0] == "tools":
		return endpoint{get: s.handleTools}, "", nil
	case len(parts) == 1 && parts[0] == "batch":
		return endpoint{post: s.handleStatelessBatch}, "", nil
	case len(parts) == 1 && parts[0] == "execute":
		return endpoint{post: s.handleStatelessExecute}, "", nil
	case len(parts) == 1 && parts[0] == "boards":
		return endpoint{get: s.handleListBoards, post: s.handleCreateBoard}, "", nil
	case len(parts) == 3 && parts[0] == "runs" && parts[2] == "cancel":
		if !validBoardID(parts[1]) {
			return endpoint{}, "", notFound("no run %s is running", quoteID(parts[1]))
		}
		return endpoint{post: s.handleCancelRun}, parts[1], nil
	case len(parts) == 3 && parts[0] == "runs" && parts[2] == "approvals":
		if !validBoardID(parts[1]) {
			return endpoint{}, "", notFound("no run %s has calls waiting for approval", quoteID(parts[1]))
		}
		return endpoint{get: s.handleGetApprovals, post: s.handlePostApprovals}, parts[1], nil
	case len(parts) >= 2 && len(parts) <= 5 && parts[0] == "boards" && parts[1] != "":
		e, ok := s.boardEndpoint(parts[2:])
		if !ok {
			break
		}
		if !validBoardID(parts[1]) {
			return endpoint{}, "", badRequest("board id %s: want 1 to 64 of A-Z a-z 0-9 _ -", quoteID(parts[1]))
		}
		return e, parts[1], nil
	}
	return endpoint{}, "", notFound("no such endpoint: %s (see docs/http.md)", quoteID(path))
}

// boardEndpoint is the endpoint of /v1/boards/{id} and what follows it.
func (s *Server) boardEndpoint(sub []string) (endpoint, bool) {
	if len(sub) == 0 {
		return endpoint{get: s.handleGetBoard, delete: s.handleDeleteBoard}, true
	}
	if len(sub) > 1 && sub[0] != "previews" {
		return endpoint{}, false
	}
	switch sub[0] {
	case "svg":
		return endpoint{get: s.handleBoardSVG}, true
	case "events":
		return endpoint{get: s.handleBoardEvents}, true
	case "batch":
		return endpoint{post: s.handleBoardBatch}, true
	case "execute":
		return endpoint{post: s.handleBoardExecute}, true
	case "undo":
		return endpoint{post: s.handleUndo}, true
	case "redo":
		return endpoint{post: s.handleRedo}, true
	case "previews":
		if len(sub) > 1 {
			return s.previewEndpoint(sub[1:])
		}
	}
	return endpoint{}, false
}

// ServeHTTP serves the API under /v1/, /healthz, and the web app at /.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rw := &responseWriter{ResponseWriter: w}
	if r.ContentLength != 0 { // a body, of a declared length or chunked (-1)
		// Whatever the path: a handler that reads the body waits for it
		// at most this long, and net/http's reading of what a handler left
		// unread (before the answer, or after it) is bounded too. Without
		// it, a client that declares a body and stops holds the connection
		// and its goroutine for good, before any token is checked. Once the
		// body is read to its end net/http clears the deadline, so it never
		// cuts a long run short.
		http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyReadTimeout)) // not every ResponseWriter can
		body := &trackedBody{ReadCloser: r.Body}
		r = r.WithContext(r.Context()) // a shallow copy: the http.Server's own Request keeps its Body
		r.Body = body
		rw.body = body
	}
	defer s.recoverPanic(rw, r)
	if herr := s.hosts.refuse(r); herr != nil {
		writeError(rw, herr)
		return
	}
	if !strings.HasPrefix(r.URL.Path, "/v1/") && r.URL.Path != "/v1" && r.URL.Path != "/healthz" {
		s.serveWeb(rw, r)
		return
	}
	e, id, herr := s.route(r.URL.Path)
	if herr == nil {
		herr = s.dispatch(rw, r, e, id)
	} else {
		// An unknown path's answer is readable by an allowed page, and
		// a client without the token learns only that it needs one.
		s.cors(rw, r, nil)
		if aerr := s.authorize(r); aerr != nil {
			herr = aerr
		}
	}
	if herr != nil {
		writeError(rw, herr)
	}
}

// dispatch applies what every API request goes through — CORS, OPTIONS,
// the token, the method — and calls the endpoint's handler.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, e endpoint, id string) *httpError {
	if s.cors(w, r, e.allow()) {
		return nil // a preflight, answered; it carries no token by design
	}
	if r.Method == http.MethodOptions {
		w.Header().Set("Allow", strings.Join(e.allow(), ", "))
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if r.URL.Path != "/healthz" {
		if herr := s.authorize(r); herr != nil {
			return herr
		}
	}
	h := e.handler(r.Method)
	if h == nil {
		return methodNotAllowed(r.Method, e.allow())
	}
	return h(w, r, id)
}

// serveWeb serves the web app's files.
func (s *Server) serveWeb(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, methodNotAllowed(r.Method, []string{http.MethodGet, http.MethodHead}))
		return
	}
	s.web.ServeHTTP(w, r)
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request, _ string) *httpError {
	if s.shuttingDown() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "shutting_down"})
		return nil
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// recoverPanic turns a handler's panic into a 500 with the error object
// (when nothing was written yet) and a log line with the stack: a bug must
// not take the process down, nor go unnoticed.
func (s *Server) recoverPanic(w *responseWriter, r *http.Request) {
	p := recover()
	if p == nil {
		return
	}
	if p == http.ErrAbortHandler {
		panic(p) // the http.Server's way to abort a response quietly
	}
	s.log.Error("server: panic in a handler", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	if !w.wrote {
		writeError(w, internal(errors.New("the handler failed; the server's log has the details")))
		return
	}
	panic(http.ErrAbortHandler) // mid-answer: cut the connection so the client sees it fail
}

// responseWriter notes whether the answer has begun, for recoverPanic, and
// closes the connection after an answer that begins before the request's
// body was read to its end. Unwrap lets http.ResponseController reach the
// connection (flushes, write deadlines) through it.
type responseWriter struct {
	http.ResponseWriter
	wrote bool
	body  *trackedBody // the request's body, if it has one
}

// begin is called before the answer's first byte. net/http would read
// what is left of an unread body (up to 256 KiB) before writing the
// answer, to keep the connection; "Connection: close" makes it answer at
// once and drop the connection instead: a client that stopped sending
// gets its answer, not a wait.
func (w *responseWriter) begin() {
	if !w.wrote && w.body != nil && !w.body.done.Load() {
		w.Header().Set("Connection", "close")
	}
	w.wrote = true
}

func (w *responseWriter) WriteHeader(code int) {
	w.begin()
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(b []byte) (int, error) {
	w.begin()
	return w.ResponseWriter.Write(b)
}

// FlushError flushes through http.ResponseController; a flush begins the
// answer too.
func (w *responseWriter) FlushError() error {
	w.begin()
	return http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// trackedBody is a request's body that notes when it was read to its end.
type trackedBody struct {
	io.ReadCloser
	done atomic.Bool
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.done.Store(true)
	}
	return n, err
}

// quoteID quotes an id or path from a URL for a message, cut short.
func quoteID(s string) string { return strictjson.Quote(s) }
