package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
)

// newTestServer returns a server over a memory store, shut down (with its
// runs given 10 s) when the test ends.
func newTestServer(t *testing.T, opts Options) *Server {
	t.Helper()
	if opts.Store == nil {
		opts.Store = NewMemoryStore()
	}
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return s
}

// do sends a request to h and returns the response, its body read. Its
// Host is localhost unless a "Host" header says otherwise.
func do(t *testing.T, h http.Handler, method, path, body string, header ...string) (*http.Response, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	req.Host = "localhost" // a server without a token answers only its own names
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
		} else if header[i+1] == "" {
			req.Header.Del(header[i])
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := rec.Result()
	data, _ := io.ReadAll(res.Body)
	return res, data
}

// decode decodes a JSON body into a generic value.
func decode(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, data)
	}
	return v
}

// errorOf returns the code and message of an error answer.
func errorOf(t *testing.T, data []byte) (code, message string) {
	t.Helper()
	var v struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil || v.Error.Code == "" {
		t.Fatalf("not an error answer (%v):\n%s", err, data)
	}
	return v.Error.Code, v.Error.Message
}

// serveHTTP serves s on a loopback port for tests that stream, closed with
// the test (after the server's own shutdown, which ends its streams).
func serveHTTP(t *testing.T, s *Server) (*httptest.Server, *http.Client) {
	t.Helper()
	ts := httptest.NewServer(s)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		ts.Close()
		client.CloseIdleConnections()
	})
	return ts, client
}

// post sends a JSON POST to a live server.
func post(t *testing.T, c *http.Client, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// get sends a GET to a live server.
func get(t *testing.T, c *http.Client, url string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// gate is a tool that blocks until the test opens it (or its call is
// canceled), to hold a run under way; entered reports each call that is
// waiting.
type gate struct {
	open    chan struct{}
	entered chan string
}

func newGate() *gate { return &gate{open: make(chan struct{}), entered: make(chan string, 100)} }

func (g *gate) tool() engine.Tool {
	return engine.Tool{
		Name:        "test.wait",
		Description: "Wait until the test lets the call go.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"tag":{"type":"string"}}}`),
		Annotations: engine.Annotations{ReadOnlyHint: true},
		Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			var a struct{ Tag string }
			json.Unmarshal(args, &a)
			g.entered <- a.Tag
			select {
			case <-g.open:
				return json.RawMessage(`{"ok":true}`), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	}
}

// waitEntered waits for a call of the gate tool.
func (g *gate) waitEntered(t *testing.T) string {
	t.Helper()
	select {
	case tag := <-g.entered:
		return tag
	case <-time.After(10 * time.Second):
		t.Fatal("no call reached the gate within 10 s")
		return ""
	}
}

// createBoard makes a board through the API.
func createBoard(t *testing.T, h http.Handler, id string) {
	t.Helper()
	res, body := do(t, h, "POST", "/v1/boards", `{"id":"`+id+`"}`)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("creating board %s: %d %s", id, res.StatusCode, body)
	}
}

// sticky is a batch operation creating a sticky note.
func sticky(text string, x int) string {
	return fmt.Sprintf(`{"tool":"createStickyNote","args":{"text":%q,"x":%d,"y":0}}`, text, x)
}

// batchOf is a batch request of operations.
func batchOf(ops ...string) string {
	return `{"operations":[` + strings.Join(ops, ",") + `]}`
}
