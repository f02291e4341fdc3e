package server

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
)

// TestTokenMessages: a missing token and a wrong one get their own 401
// message; a wrong token's challenge says invalid_token (RFC 6750).
func TestTokenMessages(t *testing.T) {
	s := newTestServer(t, Options{Token: "s3cret-token-0123"})
	for _, tc := range []struct {
		name      string
		header    []string
		msg, auth string
	}{
		{"none", nil, `this server needs a token: send "Authorization: Bearer TOKEN"`, `Bearer realm="codemode"`},
		{"not bearer", []string{"Authorization", "Basic abc"}, `this server needs a token: send "Authorization: Bearer TOKEN"`, `Bearer realm="codemode"`},
		{"empty", []string{"Authorization", "Bearer  "}, `this server needs a token: send "Authorization: Bearer TOKEN"`, `Bearer realm="codemode"`},
		{"wrong", []string{"Authorization", "Bearer s3cret-token-0124"}, `the token does not match this server's: send "Authorization: Bearer TOKEN" with the token the server was started with`, `Bearer realm="codemode", error="invalid_token"`},
	} {
		for _, path := range []string{"/v1/boards", "/v1/nothing"} {
			res, body := do(t, s, "GET", path, "", tc.header...)
			if _, msg := errorOf(t, body); res.StatusCode != 401 || msg != tc.msg || res.Header.Get("WWW-Authenticate") != tc.auth {
				t.Errorf("%s, %s: %d %q %q", tc.name, path, res.StatusCode, msg, res.Header.Get("WWW-Authenticate"))
			}
		}
	}
}

// TestNullBody: null is not an object: every POST that takes one says so,
// instead of reading it as {}.
func TestNullBody(t *testing.T) {
	s := newTestServer(t, Options{})
	createBoard(t, s, "b")
	for _, p := range []string{"/v1/boards", "/v1/boards/b/batch", "/v1/boards/b/execute", "/v1/batch", "/v1/execute", "/v1/boards/b/undo", "/v1/boards/b/redo", "/v1/runs/run_x/approvals"} {
		res, body := do(t, s, "POST", p, " null\n")
		if code, msg := errorOf(t, body); res.StatusCode != 400 || code != "bad_request" || msg != "want an object, got null" {
			t.Errorf("%s: %d %s %q", p, res.StatusCode, code, msg)
		}
	}
	if res, body := do(t, s, "GET", "/v1/boards", ""); !strings.Contains(string(body), `"id": "b"`) || strings.Count(string(body), `"id"`) != 1 {
		t.Errorf("boards after the null posts: %d %s", res.StatusCode, body)
	}
}

// TestMaxRunsOne: the 503 of a server that runs one run at once says "1
// run is under way".
func TestMaxRunsOne(t *testing.T) {
	g := newGate()
	s := newTestServer(t, Options{MaxRuns: 1, Tools: []engine.Tool{g.tool()}})
	var wg sync.WaitGroup
	wg.Go(func() { do(t, s, "POST", "/v1/batch", waitRun("a")) })
	g.waitEntered(t)
	res, body := do(t, s, "POST", "/v1/batch", batchOf(sticky("x", 0)))
	if _, msg := errorOf(t, body); res.StatusCode != 503 || msg != "1 run is under way, the most this server runs at once: try again shortly" {
		t.Errorf("%d %q", res.StatusCode, msg)
	}
	close(g.open)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end")
	}
}
