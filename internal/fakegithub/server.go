// Package fakegithub is a deterministic in-memory fake of the part of
// GitHub's REST API that codemode's catalog tests and benchmark use: a
// repository, its issues (pull requests included, as GitHub lists them), their
// comments and labels, the repository's labels, and its pull requests. The
// paths, parameter names, request bodies, status codes and JSON field names
// are those of GitHub's OpenAPI description (npm @octokit/openapi 23.0.2), so
// that bindings/openapi can bind the real description and call the fake; a
// test checks every route against that description when it is installed.
//
// Every other request answers 501 with a JSON body naming the method and
// path: a model that wanders off the tasks' operations learns so at once
// instead of getting made-up data.
//
// A Server holds one run's state. Default builds the standard fixture (see
// fixture.go) afresh on each call, so runs never share state. Writes are
// stamped by a fake clock that starts at Start and advances one second per
// successful write, so that a run's results do not depend on the wall clock.
//
// Objects carry every field that the description's schema of their answer
// requires (TestAnswersMatchSpec checks them against it), filled with
// consistent values; optional fields beyond those mostly left out. Their url
// and html_url fields point at api.github.com and github.com, as GitHub's
// do, whatever address the fake is served on; Link headers point at the
// address the request was sent to, so that they can be followed.
package fakegithub

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/codemode-dev/codemode/internal/strictjson"
)

const (
	// Owner owns the standard fixture's repositories.
	Owner = "codemode-dev"
	// Agent is the login of the authenticated user: the author of the
	// comments a client posts.
	Agent = "codemode-agent"

	apiURL = "https://api.github.com"
	webURL = "https://github.com"

	// maxBody caps a request's body; a larger one answers 413.
	maxBody = 1 << 20
)

// Start is the fake clock's time at the first write of a fresh Server: that
// write is stamped Start, the next one Start plus a second, and so on.
var Start = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// Server is one fake GitHub: its repositories and a log of the requests it
// served. It is safe for concurrent use (one mutex guards it all) and serves
// HTTP as an http.Handler, or in process through Transport.
type Server struct {
	mu     sync.Mutex
	repos  map[string]*repo // by strings.ToLower(owner + "/" + name)
	users  map[string]user  // by strings.ToLower(login)
	now    time.Time        // the stamp of the next write
	nextID int64            // of the next label or comment created
	log    []string
}

// tick returns the fake time of a write and advances the clock.
func (s *Server) tick() time.Time {
	t := s.now
	s.now = s.now.Add(time.Second)
	return t
}

// newID returns a fresh id for a label or a comment.
func (s *Server) newID() int64 {
	s.nextID++
	return s.nextID
}

// Requests returns the requests served so far, oldest first, each as its
// method and request URI ("GET /repos/codemode-dev/engine/issues?state=all"),
// the ones answered with an error included.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

// call is one request being served: its route's parameters, query, body,
// and the repository it names.
type call struct {
	route  *route
	params map[string]string
	query  url.Values
	body   []byte
	repo   *repo
	self   string // the request's scheme, host and escaped path, for Link headers
}

// reply is a handler's answer: a status, a body marshalled as JSON (none for
// 204), and the headers GitHub sends with it.
type reply struct {
	status   int
	body     any
	link     string
	location string
}

// ServeHTTP serves one request of GitHub's REST API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	write(w, s.serve(r))
}

func (s *Server) serve(r *http.Request) reply {
	s.mu.Lock()
	s.log = append(s.log, r.Method+" "+r.URL.RequestURI())
	s.mu.Unlock()

	rt, params := match(r.Method, r.URL.EscapedPath())
	if rt == nil {
		return reply{status: http.StatusNotImplemented, body: apiError{
			Message: fmt.Sprintf("the fake GitHub does not implement %s %s: only the operations of codemode's catalog tests and benchmark are served (see internal/fakegithub)", strictjson.Excerpt(r.Method), strictjson.Excerpt(r.URL.Path)),
			Status:  "501",
		}}
	}
	c := &call{route: rt, params: params, query: r.URL.Query(), self: selfURL(r)}
	if r.Body != nil {
		b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		switch {
		case err != nil:
			return c.fail(http.StatusBadRequest, "Problems reading the request body: "+err.Error())
		case len(b) > maxBody:
			return c.fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("Request body too large: the fake GitHub accepts at most %d bytes", maxBody))
		}
		c.body = b
	}
	if un, ok := c.unsupported(); ok {
		return reply{status: http.StatusNotImplemented, body: apiError{
			Message: fmt.Sprintf("the fake GitHub does not implement the query parameter %s of %s %s: only the operations of codemode's catalog tests and benchmark are served (see internal/fakegithub)", strconv.Quote(un), rt.method, rt.path),
			Status:  "501",
		}}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	c.repo = s.repos[strings.ToLower(params["owner"]+"/"+params["repo"])]
	if c.repo == nil {
		return c.notFound()
	}
	return rt.handle(s, c)
}

// unsupported reports a query parameter the description gives the route that
// the fake does not implement: ignoring it would answer wrongly.
func (c *call) unsupported() (string, bool) {
	for _, p := range c.route.unsupported {
		if c.query.Has(p) {
			return p, true
		}
	}
	return "", false
}

// selfURL is the address r was sent to, without its query.
func selfURL(r *http.Request) string {
	if r.URL.Host != "" { // a client's request, served in process
		scheme := r.URL.Scheme
		if scheme == "" {
			scheme = "http"
		}
		return scheme + "://" + r.URL.Host + r.URL.EscapedPath()
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + r.URL.EscapedPath()
}

func write(w http.ResponseWriter, rp reply) {
	h := w.Header()
	if rp.link != "" {
		h.Set("Link", rp.link)
	}
	if rp.location != "" {
		h.Set("Location", rp.location)
	}
	if rp.status == http.StatusNoContent {
		w.WriteHeader(rp.status)
		return
	}
	b, err := json.Marshal(rp.body)
	if err != nil { // a bug of the fake's own types, not the client's
		rp.status = http.StatusInternalServerError
		b, _ = json.Marshal(apiError{Message: "the fake GitHub could not encode its answer: " + err.Error(), Status: "500"})
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(rp.status)
	w.Write(append(b, '\n'))
}

// serverKey is the context key of the Server Transport serves with.
type serverKey struct{}

// NewContext returns a context whose requests Transport serves with s. One
// HTTP client (and the tool engine around it) can be built once and each run
// given a fresh Server this way, so that runs never share state.
func NewContext(ctx context.Context, s *Server) context.Context {
	return context.WithValue(ctx, serverKey{}, s)
}

// FromContext returns the Server NewContext put into ctx, if any (a nil
// Server counts as none).
func FromContext(ctx context.Context) (*Server, bool) {
	s, _ := ctx.Value(serverKey{}).(*Server)
	return s, s != nil
}

// Transport is an http.RoundTripper that serves each request in process with
// the Server of the request's context (see NewContext), whatever its URL's
// host. A request whose context holds no Server answers 502 with a body
// saying so, as a gateway with nothing behind it would.
type Transport struct{}

// RoundTrip serves req with the Server of its context.
func (Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		defer req.Body.Close()
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	rec := httptest.NewRecorder()
	if s, ok := FromContext(req.Context()); ok {
		s.ServeHTTP(rec, req)
	} else {
		write(rec, reply{status: http.StatusBadGateway, body: apiError{
			Message: fmt.Sprintf("no fake GitHub in the request's context for %s %s: put one there with fakegithub.NewContext", strictjson.Excerpt(req.Method), strictjson.Excerpt(req.URL.Path)),
			Status:  "502",
		}})
	}
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}
