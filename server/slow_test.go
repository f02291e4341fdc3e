package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// stalledClient sends a request over a raw connection with a small receive
// buffer and then never reads: a client that stopped reading.
func stalledClient(t *testing.T, base, method, path, body string, header ...string) net.Conn {
	t.Helper()
	u, _ := url.Parse(base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	conn.(*net.TCPConn).SetReadBuffer(4096)
	t.Cleanup(func() { conn.Close() })
	req := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", method, path, u.Host, len(body))
	for i := 0; i+1 < len(header); i += 2 {
		req += header[i] + ": " + header[i+1] + "\r\n"
	}
	if _, err := io.WriteString(conn, req+"\r\n"+body); err != nil {
		t.Fatal(err)
	}
	return conn
}

// smallBuffers makes the server's side of every connection buffer little,
// so that a client that stops reading blocks the server's writes after a
// few kilobytes, not after the megabytes a loopback socket takes.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(4096)
	}
	return c, err
}

// serveSmall is serveHTTP with smallBuffers.
func serveSmall(t *testing.T, s *Server) string {
	t.Helper()
	ts := httptest.NewUnstartedServer(s)
	ts.Listener = smallBuffers{ts.Listener}
	ts.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		ts.Close()
	})
	return ts.URL
}

// bigBatch creates n stickies with long texts: events worth about n × 6 KB.
func bigBatch(n int) string {
	ops := make([]string, n)
	for i := range ops {
		ops[i] = sticky(strings.Repeat(fmt.Sprintf("%d ", i), 400), i*10)
	}
	return batchOf(ops...)
}

// TestSlowWatcher: a watcher that stops reading is dropped; runs go on at
// full speed, and another watcher gets every event.
//
// Nothing in it depends on how fast the machine is. The stalled watcher is
// dropped by its queue, which the runs overflow whatever the timing: 12
// runs of about 300 KB of events each, against a queue of 1 MiB, one write
// in flight and two 4 KiB socket buffers. The reading watcher reads each
// run's events before the next run starts, so it is never more than one run
// (a third of its queue) behind; and the write timeout is the server's own,
// not shrunk. (The test used to post all the runs at once against a
// 256 KiB queue and a 300 ms write timeout: on a busy machine the reading
// watcher fell that far behind and was dropped too, 927 events of 1,224.)
func TestSlowWatcher(t *testing.T) {
	s := newTestServer(t, Options{})
	s.queueBytes = 1 << 20
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	stalledClient(t, serveSmall(t, s), "GET", "/v1/boards/b/events", "")
	_, fast := watchBoard(t, c, ts.URL, "b")
	next(t, fast)
	var running time.Duration // the runs' own time, the reading apart
	events := 0
	for i := range 12 {
		start := time.Now()
		res, body := do(t, s, "POST", "/v1/boards/b/batch", bigBatch(50))
		running += time.Since(start)
		if res.StatusCode != 200 {
			t.Fatalf("run %d: %d %.300s", i, res.StatusCode, body)
		}
		for {
			ev, err := fast.next()
			if err != nil {
				t.Fatalf("run %d: the reading watcher's stream ended after %d events: %v", i, events, err)
			}
			events++
			if ev.Type == "run_end" {
				break
			}
		}
	}
	if running > 20*time.Second {
		t.Errorf("12 runs took %v", running)
	}
	if events != 12*(2+2*50) {
		t.Errorf("the reading watcher got %d events, want %d", events, 12*(2+2*50))
	}
	// The stalled watcher is gone: its queue overflowed.
	h := s.boards.boards["b"].hub
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		h.mu.Lock()
		subs := len(h.subs)
		h.mu.Unlock()
		if subs == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d watchers left 5 s after the runs, want only the reading one", subs)
		}
	}
}

// TestSlowRunStream: a client that starts a run with a stream and stops
// reading does not hold the run: it ends and is committed.
func TestSlowRunStream(t *testing.T) {
	s := newTestServer(t, Options{})
	s.queueBytes, s.writeTimeout = 256<<10, 300*time.Millisecond
	createBoard(t, s, "b")
	stalledClient(t, serveSmall(t, s), "POST", "/v1/boards/b/batch", bigBatch(100),
		"Content-Type", "application/json", "Accept", "text/event-stream")
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, body := do(t, s, "GET", "/v1/boards/b", "")
		if decode(t, body)["version"] == 2.0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run was not committed within 20 s: %.300s", body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(getTexts(t, s, "b")); n != 100 {
		t.Errorf("%d objects, want 100", n)
	}
}
