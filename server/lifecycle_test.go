package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
)

// waitRun is a batch of one gated call tagged tag.
func waitRun(tag string) string {
	return `{"operations":[{"tool":"test.wait","args":{"tag":"` + tag + `"}},` + sticky(tag, 0) + `],"executionMode":"sequential"}`
}

// running is how many runs the server counts as under way.
func running(s *Server) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

// TestShutdown: a run under way finishes and is committed; new runs and
// streams are refused; board streams end; Shutdown returns once the commit
// is in the store.
func TestShutdown(t *testing.T) {
	g := newGate()
	store := NewMemoryStore()
	s := newTestServer(t, Options{Store: store, Tools: []engine.Tool{g.tool()}})
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	watch, sr := watchBoard(t, c, ts.URL, "b")
	next(t, sr)
	answer := make(chan int, 1)
	go func() {
		res := post(t, c, ts.URL+"/v1/boards/b/batch", waitRun("late"))
		res.Body.Close()
		answer <- res.StatusCode
	}()
	g.waitEntered(t)
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(context.Background()) }()
	for !s.shuttingDown() {
		time.Sleep(time.Millisecond)
	}
	if res, body := do(t, s, "POST", "/v1/boards/b/batch", batchOf(sticky("x", 0))); res.StatusCode != 503 {
		t.Errorf("a new run while shutting down: %d %s", res.StatusCode, body)
	}
	if res, _ := do(t, s, "GET", "/v1/boards/b/events", ""); res.StatusCode != 503 {
		t.Errorf("a new stream while shutting down: %d", res.StatusCode)
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned (%v) with a run under way", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(g.open)
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if code := <-answer; code != 200 {
		t.Errorf("the run under way: %d", code)
	}
	st, err := store.LoadBoard(t.Context(), "b")
	if err != nil || st.Version != 2 || !bytes.Contains(st.Doc, []byte(`"late"`)) {
		t.Errorf("the store after Shutdown: version %d, %s (%v)", st.Version, st.Doc, err)
	}
	// The watcher saw the run end, then its stream ended.
	untilEvent(t, sr, "run_end")
	if ev, err := sr.next(); err == nil {
		t.Errorf("the stream goes on after Shutdown: %v", ev)
	}
	watch.Body.Close()
}

// TestShutdownDeadline: runs still under way when Shutdown's context ends
// are canceled, rolled back, and Shutdown says so.
func TestShutdownDeadline(t *testing.T) {
	g := newGate()
	s := newTestServer(t, Options{Tools: []engine.Tool{g.tool()}})
	createBoard(t, s, "b")
	answer := make(chan []byte, 1)
	go func() {
		_, body := do(t, s, "POST", "/v1/boards/b/batch", waitRun("stuck"))
		answer <- body
	}()
	g.waitEntered(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown: %v", err)
	}
	if body := <-answer; !strings.Contains(string(body), `"canceled"`) {
		t.Errorf("answer %s", body)
	}
	if got := getTexts(t, s, "b"); len(got) != 0 {
		t.Errorf("board %q", got)
	}
}

// TestHangUp: a client that goes away while it waits for its answer
// cancels its run.
func TestHangUp(t *testing.T) {
	for _, stream := range []bool{false, true} {
		g := newGate()
		s := newTestServer(t, Options{Tools: []engine.Tool{g.tool()}})
		ts, c := serveHTTP(t, s)
		createBoard(t, s, "b")
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/boards/b/batch", strings.NewReader(waitRun("bye")))
		req.Header.Set("Content-Type", "application/json")
		if stream {
			req.Header.Set("Accept", "text/event-stream")
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			if res, err := c.Do(req); err == nil {
				if stream {
					newSSEReader(res.Body).next() // run_start, then wait
				}
				<-ctx.Done()
				res.Body.Close()
			}
		}()
		g.waitEntered(t)
		cancel()
		<-done
		for deadline := time.Now().Add(10 * time.Second); running(s) > 0; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("stream %v: the run goes on after its client hung up", stream)
			}
		}
		if got := getTexts(t, s, "b"); len(got) != 0 {
			t.Errorf("stream %v: board %q", stream, got)
		}
	}
}

// TestMaxRuns: runs beyond MaxRuns, queued ones counted, get 503 and
// Retry-After; once one ends, a run is taken again.
func TestMaxRuns(t *testing.T) {
	g := newGate()
	s := newTestServer(t, Options{MaxRuns: 2, Tools: []engine.Tool{g.tool()}})
	createBoard(t, s, "b")
	var wg sync.WaitGroup
	codes := make(chan int, 2)
	for i := range 2 {
		wg.Go(func() {
			res, _ := do(t, s, "POST", "/v1/boards/b/batch", waitRun(string(rune('a'+i))))
			codes <- res.StatusCode
		})
	}
	g.waitEntered(t) // one runs; the other waits for the board
	for running(s) < 2 {
		time.Sleep(time.Millisecond)
	}
	for _, p := range []string{"/v1/batch", "/v1/boards/b/batch"} {
		res, body := do(t, s, "POST", p, batchOf(sticky("x", 0)))
		if res.StatusCode != 503 || res.Header.Get("Retry-After") != "1" {
			t.Fatalf("%s over MaxRuns: %d %s", p, res.StatusCode, body)
		}
		if code, msg := errorOf(t, body); code != "limit_exceeded" || !strings.Contains(msg, "2 runs are under way") {
			t.Errorf("%s: %s", code, msg)
		}
	}
	close(g.open)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != 200 {
			t.Errorf("a run within MaxRuns: %d", c)
		}
	}
	if res, _ := do(t, s, "POST", "/v1/batch", batchOf(sticky("x", 0))); res.StatusCode != 200 {
		t.Errorf("after the runs: %d", res.StatusCode)
	}
}

// TestBoardBusy: a run that cannot get its board within its own timeout
// gets 503 without running.
func TestBoardBusy(t *testing.T) {
	g := newGate()
	s := newTestServer(t, Options{Tools: []engine.Tool{g.tool()}})
	createBoard(t, s, "b")
	done := make(chan struct{})
	go func() {
		defer close(done)
		do(t, s, "POST", "/v1/boards/b/batch", waitRun("first"))
	}()
	g.waitEntered(t)
	res, body := do(t, s, "POST", "/v1/boards/b/execute", `{"code":"await tools.createStickyNote({text:'late',x:0,y:0})","timeout":100}`)
	if res.StatusCode != 503 || res.Header.Get("Retry-After") != "1" || !strings.Contains(string(body), "is busy") {
		t.Errorf("%d %s", res.StatusCode, body)
	}
	close(g.open)
	<-done
	if got := getTexts(t, s, "b"); !slices.Equal(got, []string{"first"}) {
		t.Errorf("board %q", got)
	}
}

// panicStore is a store whose ListBoards panics: a bug in the server's
// path, for TestPanic.
type panicStore struct{ Store }

func (panicStore) ListBoards(context.Context, string, int) ([]BoardInfo, error) {
	panic("boom in the store")
}

// TestPanic: a handler's panic is a 500 with the error object and a log
// line with the stack; the server goes on serving.
func TestPanic(t *testing.T) {
	var logs bytes.Buffer
	s := newTestServer(t, Options{Store: panicStore{NewMemoryStore()}, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	res, body := do(t, s, "GET", "/v1/boards", "")
	if res.StatusCode != 500 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if code, msg := errorOf(t, body); code != "tool_error" || !strings.Contains(msg, "internal server error") || strings.Contains(msg, "boom") {
		t.Errorf("%s: %s", code, msg)
	}
	var line struct {
		Msg, Panic, Stack, Path string
	}
	if err := json.Unmarshal(logs.Bytes(), &line); err != nil || line.Panic != "boom in the store" || !strings.Contains(line.Stack, "ListBoards") || line.Path != "/v1/boards" {
		t.Errorf("log line (%v): %s", err, logs.Bytes())
	}
	if res, _ := do(t, s, "GET", "/healthz", ""); res.StatusCode != 200 {
		t.Errorf("after the panic: %d", res.StatusCode)
	}
}

// commitPanicStore is a store whose Commit panics: a bug met while a run
// holds its board, for TestPanicInARunPutsWatchersRight.
type commitPanicStore struct{ Store }

func (commitPanicStore) Commit(context.Context, string, Commit) (BoardState, error) {
	panic("boom in the commit")
}

// TestPanicInARunPutsWatchersRight: a run that panics after its calls
// changed the board is a 500, and the board's watchers, who drew its
// changes live, get the board as it was — none was kept.
func TestPanicInARunPutsWatchersRight(t *testing.T) {
	s := newTestServer(t, Options{Store: commitPanicStore{NewMemoryStore()}, Logger: slog.New(slog.DiscardHandler)})
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	wres, sr := watchBoard(t, c, ts.URL, "b")
	stop := time.AfterFunc(10*time.Second, func() { wres.Body.Close() }) // bounds the reads below
	defer stop.Stop()
	if ev := next(t, sr); ev.Type != "board" {
		t.Fatalf("first event %s", ev.Type)
	}
	if res, body := do(t, s, "POST", "/v1/boards/b/batch", batchOf(sticky("lost", 0))); res.StatusCode != 500 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	var seen []string
	for {
		ev := next(t, sr)
		seen = append(seen, ev.Type)
		if ev.Type == "board" {
			if strings.Contains(ev.Data, "lost") {
				t.Errorf("the board sent after the panic holds the run's sticky: %s", ev.Data)
			}
			break
		}
		if len(seen) > 10 {
			t.Fatalf("no board event after the run panicked: %q", seen)
		}
	}
	if res, _ := do(t, s, "GET", "/healthz", ""); res.StatusCode != 200 {
		t.Errorf("after the panic: %d", res.StatusCode)
	}
}
