package server

// Regression tests of attacks on the server's HTTP plumbing: clients that
// stop sending or stop reading, and requests for another Host.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// shorten sets *v to d for the test.
func shorten(t *testing.T, v *time.Duration, d time.Duration) {
	t.Helper()
	old := *v
	*v = d
	t.Cleanup(func() { *v = old })
}

// dial opens a raw connection to a live test server, closed with the test.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestHostileStalledBody: a request that declares a body and stops sending
// it is answered, and its connection closed, on every path — a JSON POST
// (whose handler waits for the body), a POST of the wrong type, /healthz,
// an unknown path, the web app — with a token (answered before it is
// checked) or without. Before, net/http read what the handler left unread
// before answering, with no deadline: nothing came back, ever, and every
// such connection held a goroutine.
func TestHostileStalledBody(t *testing.T) {
	shorten(t, &bodyReadTimeout, 150*time.Millisecond)
	const bound = 10 * time.Second // generous: the body's deadline is 0.15 s
	requests := []struct{ name, method, path, contentType string }{
		{"JSON POST", "POST", "/v1/boards", "application/json"},
		{"text/plain POST", "POST", "/v1/boards/b/execute", "text/plain"},
		{"healthz", "GET", "/healthz", ""},
		{"unknown path", "GET", "/v1/nope", ""},
		{"web app", "GET", "/", ""},
		{"chunked JSON POST", "POST", "/v1/execute", "application/json"},
	}
	for _, token := range []string{"", "a-token-of-16-chars"} {
		ts, _ := serveHTTP(t, newTestServer(t, Options{Token: token}))
		addr := strings.TrimPrefix(ts.URL, "http://")
		for _, rq := range requests {
			t.Run(fmt.Sprintf("%s/token=%v", rq.name, token != ""), func(t *testing.T) {
				conn := dial(t, addr)
				head := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\n", rq.method, rq.path, addr)
				if rq.contentType != "" {
					head += "Content-Type: " + rq.contentType + "\r\n"
				}
				body := "{"
				if strings.HasPrefix(rq.name, "chunked") {
					head += "Transfer-Encoding: chunked\r\n"
					body = "1\r\n{\r\n" // one chunk, then nothing
				} else {
					head += "Content-Length: 1000\r\n"
				}
				if _, err := io.WriteString(conn, head+"\r\n"+body); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				conn.SetReadDeadline(start.Add(bound))
				br := bufio.NewReader(conn)
				res, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("no answer within %v: %v", bound, err)
				}
				data, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if rq.name == "JSON POST" && token == "" && !strings.Contains(string(data), "the request body did not come within 150ms") {
					t.Errorf("status %d:\n%s", res.StatusCode, data)
				}
				if res.StatusCode == http.StatusOK && rq.method == "POST" {
					t.Errorf("status %d for a body that never came", res.StatusCode)
				}
				if !res.Close {
					t.Errorf("no Connection: close (the rest of the body never comes)")
				}
				// Then the server lets the connection go.
				if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
					t.Errorf("after the answer: %v, want the connection closed (EOF) within %v", err, bound)
				}
				if d := time.Since(start); d > bound {
					t.Errorf("took %v", d)
				}
			})
		}
	}
}

// TestHostileBodyDeadlineGoes: the body's deadline does not outlive the
// body: a run that takes longer than it, on a connection kept alive,
// answers, and the connection serves the next request.
func TestHostileBodyDeadlineGoes(t *testing.T) {
	shorten(t, &bodyReadTimeout, 200*time.Millisecond)
	ts, _ := serveHTTP(t, newTestServer(t, Options{}))
	c := &http.Client{Timeout: 20 * time.Second} // keeps its connection alive
	defer c.CloseIdleConnections()
	script := `{"code":"const end = Date.now() + 600; while (Date.now() < end) {} return 1"}`
	for i := range 2 {
		res := post(t, c, ts.URL+"/v1/execute", script)
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.Contains(string(data), `"success": true`) {
			t.Fatalf("run %d: status %d:\n%s", i, res.StatusCode, data)
		}
		if res.Close {
			t.Errorf("run %d: Connection: close after a body read whole", i)
		}
	}
}

// TestHostileUnreadAnswer: a client that asks for a large answer (a big
// board as JSON, or as SVG) and never reads it holds its handler at most
// answerWriteTimeout. Before, the handler's write waited for good once the
// socket buffers were full, and the handler with it.
func TestHostileUnreadAnswer(t *testing.T) {
	shorten(t, &answerWriteTimeout, 200*time.Millisecond)
	const bound = 10 * time.Second // generous: the deadline is 0.2 s
	store := NewMemoryStore()
	var objs []string
	text := strings.Repeat("x", 9000)
	for i := range 1000 { // ≈ 9 MB, more than loopback's socket buffers hold
		objs = append(objs, fmt.Sprintf(`{"id":"sticky-%d","type":"sticky","x":%d,"y":0,"width":100,"height":100,"text":%q}`, i+1, i*120, text))
	}
	if _, err := store.CreateBoard(t.Context(), BoardInfo{ID: "big"}, []byte(`{"objects":[`+strings.Join(objs, ",")+`]}`)); err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t, Options{Store: store})
	handled := make(chan struct{}, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { handled <- struct{}{} }()
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	for _, path := range []string{"/v1/boards/big", "/v1/boards/big/svg"} {
		t.Run(path, func(t *testing.T) {
			conn := dial(t, strings.TrimPrefix(ts.URL, "http://"))
			conn.(*net.TCPConn).SetReadBuffer(4096)
			if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n", path); err != nil {
				t.Fatal(err)
			}
			select { // and never read
			case <-handled:
			case <-time.After(bound):
				t.Fatalf("the handler still writes after %v to a client that does not read", bound)
			}
		})
	}
}
