package server

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestErrors sends every endpoint the client mistakes it must answer with a
// 4xx and the error object — never a 500 — and checks status, code, message
// and headers.
func TestErrors(t *testing.T) {
	s := newTestServer(t, Options{MaxBodyBytes: 1000})
	createBoard(t, s, "b1")
	big := `{"operations":[` + strings.Repeat(sticky("x", 1)+",", 40) + sticky("x", 1) + `]}`
	tests := []struct {
		name, method, path, body string
		header                   []string
		status                   int
		code                     string
		message                  []string // substrings of the message
		wantHeader               map[string]string
	}{
		{"unknown route", "GET", "/v1/nothing", "", nil, 404, "bad_request", []string{`no such endpoint: "/v1/nothing"`}, nil},
		{"the API's root", "GET", "/v1", "", nil, 404, "bad_request", []string{`no such endpoint: "/v1"`}, nil},
		{"unknown board route", "GET", "/v1/boards/b1/nothing", "", nil, 404, "bad_request", []string{"no such endpoint"}, nil},
		{"trailing slash", "GET", "/v1/boards/", "", nil, 404, "bad_request", []string{"no such endpoint"}, nil},
		{"method on tools", "POST", "/v1/tools", "{}", nil, 405, "bad_request", []string{"method POST is not allowed here; allowed: GET, HEAD, OPTIONS"}, map[string]string{"Allow": "GET, HEAD, OPTIONS"}},
		{"method on batch", "GET", "/v1/batch", "", nil, 405, "bad_request", []string{"method GET"}, map[string]string{"Allow": "POST, OPTIONS"}},
		{"method on board", "PUT", "/v1/boards/b1", "", nil, 405, "bad_request", nil, map[string]string{"Allow": "GET, HEAD, DELETE, OPTIONS"}},
		{"method on web app", "POST", "/", "{}", nil, 405, "bad_request", nil, map[string]string{"Allow": "GET, HEAD"}},
		{"no content type", "POST", "/v1/batch", batchOf(sticky("a", 0)), []string{"Content-Type", ""}, 400, "bad_request", []string{"Content-Type must be application/json (got none)"}, nil},
		{"form content type", "POST", "/v1/execute", "code=1", []string{"Content-Type", "application/x-www-form-urlencoded"}, 400, "bad_request", []string{`got "application/x-www-form-urlencoded"`}, nil},
		{"text content type on undo", "POST", "/v1/boards/b1/undo", "", []string{"Content-Type", "text/plain"}, 400, "bad_request", []string{"Content-Type must be application/json"}, nil},
		{"too large", "POST", "/v1/batch", big, nil, 413, "limit_exceeded", []string{"larger than this server's limit of 1000 bytes"}, nil},
		{"bad JSON", "POST", "/v1/batch", `{"operations":`, nil, 400, "bad_request", []string{"malformed JSON"}, nil},
		{"operations alone", "POST", "/v1/batch", `[` + sticky("a", 0) + `]`, nil, 400, "bad_request", []string{`a batch request is an object`}, nil},
		{"every problem at once", "POST", "/v1/batch", `{"operations":[],"executionMode":"fast","bogus":1}`, nil, 400, "bad_request", []string{"bogus", "executionMode", "operations"}, nil},
		{"atomic on a stateless batch", "POST", "/v1/batch", `{"operations":[` + sticky("a", 0) + `],"atomic":false}`, nil, 400, "bad_request", []string{"atomic"}, nil},
		{"atomic not a boolean, with other problems", "POST", "/v1/boards/b1/batch", `{"operations":[` + sticky("a", 0) + `],"atomic":"no","bogus":1}`, nil, 400, "bad_request", []string{`atomic: want true or false, got the string "no"; bogus: unknown field (the fields here are operations, executionMode, stopOnError, timeout, safetyLimits, atomic, preview)`}, nil},
		{"near atomic", "POST", "/v1/boards/b1/batch", `{"operations":[` + sticky("a", 0) + `],"atomc":false}`, nil, 400, "bad_request", []string{`atomc: unknown field (did you mean "atomic"?)`}, nil},
		{"atomic twice", "POST", "/v1/boards/b1/execute", `{"code":"return 1","atomic":true,"atomic":false}`, nil, 400, "bad_request", []string{"atomic: given twice"}, nil},
		{"no code", "POST", "/v1/execute", `{}`, nil, 400, "bad_request", []string{"code"}, nil},
		{"unknown $ref label", "POST", "/v1/batch", `{"operations":[{"tool":"createStickyNote","args":{"text":{"$ref":"nope"},"x":0,"y":0}}]}`, nil, 400, "bad_request", []string{"nope"}, nil},
		{"bad board id", "GET", "/v1/boards/" + strings.Repeat("x", 65), "", nil, 400, "bad_request", []string{"board id"}, nil},
		{"bad board id chars", "POST", "/v1/boards/a.b/batch", batchOf(sticky("a", 0)), nil, 400, "bad_request", []string{"want 1 to 64 of A-Z a-z 0-9 _ -"}, nil},
		{"unknown board get", "GET", "/v1/boards/nope", "", nil, 404, "bad_request", []string{`no board "nope"`}, nil},
		{"unknown board svg", "GET", "/v1/boards/nope/svg", "", nil, 404, "bad_request", nil, nil},
		{"unknown board events", "GET", "/v1/boards/nope/events", "", nil, 404, "bad_request", nil, nil},
		{"unknown board batch", "POST", "/v1/boards/nope/batch", batchOf(sticky("a", 0)), nil, 404, "bad_request", nil, nil},
		{"unknown board execute", "POST", "/v1/boards/nope/execute", `{"code":"return 1"}`, nil, 404, "bad_request", nil, nil},
		{"unknown board undo", "POST", "/v1/boards/nope/undo", "", nil, 404, "bad_request", nil, nil},
		{"unknown board redo", "POST", "/v1/boards/nope/redo", "", nil, 404, "bad_request", nil, nil},
		{"unknown board delete", "DELETE", "/v1/boards/nope", "", nil, 404, "bad_request", nil, nil},
		{"nothing to undo", "POST", "/v1/boards/b1/undo", "", nil, 409, "bad_request", []string{`board "b1": nothing to undo`}, nil},
		{"nothing to redo", "POST", "/v1/boards/b1/redo", "{}", nil, 409, "bad_request", []string{"nothing to redo"}, nil},
		{"undo with a parameter", "POST", "/v1/boards/b1/undo", `{"steps":2}`, nil, 400, "bad_request", []string{"steps", "undo takes no parameters"}, nil},
		{"board id taken", "POST", "/v1/boards", `{"id":"b1"}`, nil, 409, "bad_request", []string{`board "b1" exists`}, nil},
		{"create: every problem", "POST", "/v1/boards", `{"id":"a b","name":7,"objects":[{"id":"s","type":"sticky","x":0,"y":0,"width":-1,"height":1,"color":"mauve"}],"x":1}`, nil, 400, "bad_request", []string{"id:", "name:", "objects[0].width", "objects[0].color", "x:"}, nil},
		{"unknown tool format", "GET", "/v1/tools?format=xml", "", nil, 400, "bad_request", []string{`unknown format "xml"; known: json, ts, openai, anthropic, mcp, index`}, nil},
		{"unknown tools parameter", "GET", "/v1/tools?fmt=ts", "", nil, 400, "bad_request", []string{`unknown query parameter "fmt"`}, nil},
		{"approvals of an unknown run", "GET", "/v1/runs/run_nope/approvals", "", nil, 404, "bad_request", []string{`run "run_nope" has no calls waiting`}, nil},
		{"decisions for an unknown run", "POST", "/v1/runs/run_nope/approvals", `{"decisions":[{"callId":"0","approved":true}]}`, nil, 404, "bad_request", nil, nil},
		{"method on approvals", "DELETE", "/v1/runs/run_x/approvals", "", nil, 405, "bad_request", nil, map[string]string{"Allow": "GET, HEAD, POST, OPTIONS"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := do(t, s, tt.method, tt.path, tt.body, tt.header...)
			if res.StatusCode != tt.status {
				t.Fatalf("status %d, want %d\n%s", res.StatusCode, tt.status, body)
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			code, msg := errorOf(t, body)
			if code != tt.code {
				t.Errorf("code %q, want %q", code, tt.code)
			}
			for _, m := range tt.message {
				if !strings.Contains(msg, m) {
					t.Errorf("message %q lacks %q", msg, m)
				}
			}
			for k, v := range tt.wantHeader {
				if got := res.Header.Get(k); got != v {
					t.Errorf("%s: %q, want %q", k, got, v)
				}
			}
		})
	}
}

// TestToken: with a token every /v1 request needs it; /healthz, the web app
// and CORS preflights do not.
func TestToken(t *testing.T) {
	s := newTestServer(t, Options{Token: "s3cret", AllowOrigins: []string{"http://app.example"}})
	tests := []struct {
		name, method, path string
		header             []string
		status             int
	}{
		{"no token", "GET", "/v1/tools", nil, 401},
		{"wrong token", "GET", "/v1/boards", []string{"Authorization", "Bearer s3cre"}, 401},
		{"longer token", "GET", "/v1/boards", []string{"Authorization", "Bearer s3cret2"}, 401},
		{"not bearer", "GET", "/v1/boards", []string{"Authorization", "Basic s3cret"}, 401},
		{"unknown route, no token", "GET", "/v1/nothing", nil, 401},
		{"right token", "GET", "/v1/boards", []string{"Authorization", "Bearer s3cret"}, 200},
		{"scheme in any case", "GET", "/v1/boards", []string{"Authorization", "bearer s3cret"}, 200},
		{"healthz", "GET", "/healthz", nil, 200},
		{"web app", "GET", "/", nil, 200},
		{"preflight", "OPTIONS", "/v1/boards", []string{"Origin", "http://app.example", "Access-Control-Request-Method", "POST"}, 204},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := do(t, s, tt.method, tt.path, "", tt.header...)
			if res.StatusCode != tt.status {
				t.Fatalf("status %d, want %d\n%s", res.StatusCode, tt.status, body)
			}
			if tt.status != 401 {
				return
			}
			if got := res.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
				t.Errorf("WWW-Authenticate %q", got)
			}
			if code, msg := errorOf(t, body); code != "bad_request" || !strings.Contains(msg, "Authorization: Bearer TOKEN") {
				t.Errorf("error %s: %s", code, msg)
			}
		})
	}
}

// TestCORS: headers only for the listed origins, preflights answered.
func TestCORS(t *testing.T) {
	s := newTestServer(t, Options{AllowOrigins: []string{"http://app.example"}})
	t.Run("allowed origin", func(t *testing.T) {
		res, _ := do(t, s, "GET", "/v1/boards", "", "Origin", "http://app.example")
		if got := res.Header.Get("Access-Control-Allow-Origin"); got != "http://app.example" {
			t.Errorf("Allow-Origin %q", got)
		}
		if got := res.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(got, "Codemode-Run-Id") {
			t.Errorf("Expose-Headers %q", got)
		}
	})
	t.Run("preflight", func(t *testing.T) {
		res, _ := do(t, s, "OPTIONS", "/v1/boards/b/batch", "", "Origin", "http://app.example", "Access-Control-Request-Method", "POST")
		if res.StatusCode != 204 {
			t.Fatalf("status %d", res.StatusCode)
		}
		for k, want := range map[string]string{
			"Access-Control-Allow-Origin":  "http://app.example",
			"Access-Control-Allow-Methods": "POST, OPTIONS",
			"Access-Control-Allow-Headers": "Authorization, Content-Type, Last-Event-ID",
		} {
			if got := res.Header.Get(k); got != want {
				t.Errorf("%s: %q, want %q", k, got, want)
			}
		}
	})
	for _, origin := range []string{"http://evil.example", "http://app.example:8080", ""} {
		t.Run("other origin "+origin, func(t *testing.T) {
			for _, m := range []string{"GET", "OPTIONS"} {
				res, _ := do(t, s, m, "/v1/boards", "", "Origin", origin, "Access-Control-Request-Method", "POST")
				for k := range res.Header {
					if strings.HasPrefix(k, "Access-Control-") {
						t.Errorf("%s: CORS header %s", m, k)
					}
				}
				// A cache between must not give this answer to the allowed origin.
				if got := res.Header.Values("Vary"); !slices.Contains(got, "Origin") {
					t.Errorf("%s: Vary %q, want Origin", m, got)
				}
			}
		})
	}
	t.Run("no origins configured", func(t *testing.T) {
		s := newTestServer(t, Options{})
		res, _ := do(t, s, "OPTIONS", "/v1/boards", "", "Origin", "http://app.example", "Access-Control-Request-Method", "POST")
		if res.StatusCode != 204 || res.Header.Get("Allow") != "GET, HEAD, POST, OPTIONS" || res.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%d %v", res.StatusCode, res.Header)
		}
	})
}

// TestHealthz: ok, then shutting_down with 503 once Shutdown began.
func TestHealthz(t *testing.T) {
	s := newTestServer(t, Options{})
	res, body := do(t, s, "GET", "/healthz", "")
	if res.StatusCode != 200 || decode(t, body)["status"] != "ok" {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if err := s.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	res, body = do(t, s, "GET", "/healthz", "")
	if res.StatusCode != 503 || decode(t, body)["status"] != "shutting_down" {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	for _, req := range [][2]string{{"POST", "/v1/batch"}, {"POST", "/v1/boards"}, {"POST", "/v1/boards/b/undo"}, {"DELETE", "/v1/boards/b"}} {
		res, body := do(t, s, req[0], req[1], batchOf(sticky("a", 0)))
		if res.StatusCode != 503 || res.Header.Get("Retry-After") != "1" {
			t.Errorf("%s %s while shutting down: %d %s", req[0], req[1], res.StatusCode, body)
		}
	}
	if res, _ := do(t, s, "GET", "/v1/boards", ""); res.StatusCode != 200 {
		t.Errorf("reading boards while shutting down: %d", res.StatusCode)
	}
}

// TestMethodsAndHead: HEAD is served wherever GET is.
func TestHead(t *testing.T) {
	s := newTestServer(t, Options{})
	for _, p := range []string{"/healthz", "/v1/tools", "/v1/boards", "/"} {
		res, _ := do(t, s, "HEAD", p, "")
		if res.StatusCode != http.StatusOK {
			t.Errorf("HEAD %s: %d", p, res.StatusCode)
		}
	}
}

// TestHeadStream: HEAD of a board's stream answers its headers and ends.
func TestHeadStream(t *testing.T) {
	s := newTestServer(t, Options{})
	createBoard(t, s, "b")
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, _ := do(t, s, "HEAD", "/v1/boards/b/events", "")
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
			t.Errorf("%d %v", res.StatusCode, res.Header)
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("HEAD of a stream does not end")
	}
}
