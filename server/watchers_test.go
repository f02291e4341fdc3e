package server

// Regression tests of attacks through a board's watchers: many clients
// opening its event stream at once, or over and over.

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// createBigBoard makes a board of n stickies with long texts: a board whose
// drawing costs something.
func createBigBoard(t *testing.T, h http.Handler, id string, n int) {
	t.Helper()
	objs := make([]string, n)
	for i := range objs {
		objs[i] = fmt.Sprintf(`{"type":"sticky","id":"s%d","x":%d,"y":0,"width":200,"height":200,"text":%q}`, i, i*10, strings.Repeat("word ", 100))
	}
	res, body := do(t, h, "POST", "/v1/boards", `{"id":"`+id+`","objects":[`+strings.Join(objs, ",")+`]}`)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("creating board %s: %d %.300s", id, res.StatusCode, body)
	}
}

// countDraws makes s count the boards it draws for `board` events.
func countDraws(s *Server) *atomic.Int64 {
	var n atomic.Int64
	draw := s.drawBoard
	s.drawBoard = func(id string, st BoardState, b *whiteboard.Board) []byte {
		n.Add(1)
		return draw(id, st, b)
	}
	return &n
}

// TestHostileWatchersDrawOnce: many clients opening a big board's stream at
// once, and more after them, cost one drawing of the board, not one each;
// each gets the whole board.
func TestHostileWatchersDrawOnce(t *testing.T) {
	s := newTestServer(t, Options{})
	draws := countDraws(s)
	ts, c := serveHTTP(t, s)
	const objects = 500
	createBigBoard(t, s, "big", objects)
	watch := func(objects int) error {
		res := get(t, c, ts.URL+"/v1/boards/big/events")
		defer res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("watching: %d", res.StatusCode)
		}
		ev, err := newSSEReader(res.Body).next()
		if err != nil {
			return err
		}
		var b boardEvent
		if err := json.Unmarshal([]byte(ev.Data), &b); err != nil || ev.Type != "board" || len(b.Objects) != objects || !strings.HasPrefix(b.SVG, "<svg") {
			return fmt.Errorf("first event %s (%v): %d objects, want %d", ev.Type, err, len(b.Objects), objects)
		}
		return nil
	}
	for round := range 2 {
		var wg sync.WaitGroup
		errs := make(chan error, 20)
		for range 20 {
			wg.Go(func() { errs <- watch(objects) })
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
	if n := draws.Load(); n != 1 {
		t.Errorf("40 watchers of one version of the board: %d drawings, want 1", n)
	}
	// A new version is drawn once more.
	if res, body := do(t, s, "POST", "/v1/boards/big/batch", batchOf(sticky("one more", 0))); res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	for range 3 {
		if err := watch(objects + 1); err != nil {
			t.Fatal(err)
		}
	}
	if n := draws.Load(); n != 2 {
		t.Errorf("after a commit and 3 more watchers: %d drawings, want 2", n)
	}
}

// TestHostileWatcherDrawDoesNotStallRuns: while a joining watcher's board
// is being drawn, a run on the board goes on and ends; the watcher then gets
// the board as it was when it came, followed by every event of the run.
func TestHostileWatcherDrawDoesNotStallRuns(t *testing.T) {
	s := newTestServer(t, Options{})
	ts, c := serveHTTP(t, s)
	createBigBoard(t, s, "big", 100)
	drawing, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	draw := s.drawBoard
	s.drawBoard = func(id string, st BoardState, b *whiteboard.Board) []byte {
		once.Do(func() {
			close(drawing)
			<-release
		})
		return draw(id, st, b)
	}
	released := sync.OnceFunc(func() { close(release) })
	defer released()
	type watched struct {
		res *http.Response
		sr  *sseReader
	}
	watcher := make(chan watched, 1)
	go func() {
		res := get(t, c, ts.URL+"/v1/boards/big/events")
		watcher <- watched{res, newSSEReader(res.Body)}
	}()
	select {
	case <-drawing:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher's board was not drawn within 10 s")
	}
	ran := make(chan int, 1)
	go func() {
		res, _ := do(t, s, "POST", "/v1/boards/big/batch", batchOf(sticky("during", 0)))
		ran <- res.StatusCode
	}()
	select {
	case code := <-ran:
		if code != 200 {
			t.Errorf("the run: %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Error("a run on the board did not end within 10 s while a watcher's board was drawn")
		released()
		<-ran
	}
	released()
	w := <-watcher
	defer w.res.Body.Close()
	if w.res.StatusCode != 200 {
		t.Fatalf("watching: %d", w.res.StatusCode)
	}
	first := next(t, w.sr)
	var b boardEvent
	if err := json.Unmarshal([]byte(first.Data), &b); err != nil || first.Type != "board" || len(b.Objects) != 100 {
		t.Fatalf("first event %s (%v): %d objects, want the board before the run (100)", first.Type, err, len(b.Objects))
	}
	got := []string{}
	for ev := next(t, w.sr); ; ev = next(t, w.sr) {
		got = append(got, ev.Type)
		if ev.Type == "run_end" {
			break
		}
	}
	if want := "run_start tool_call_start tool_call_end run_end"; strings.Join(got, " ") != want {
		t.Errorf("after the board: %q, want %q", got, want)
	}
}

// TestHostileWatcherCaps: past the watchers a board takes, or the server
// serves, a new stream gets 503 with Retry-After and the error JSON; a
// place freed is taken again.
func TestHostileWatcherCaps(t *testing.T) {
	s := newTestServer(t, Options{MaxWatchersPerBoard: 2, MaxWatchers: 3})
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "a")
	createBoard(t, s, "b")
	refused := func(id, says string) {
		t.Helper()
		res := get(t, c, ts.URL+"/v1/boards/"+id+"/events")
		defer res.Body.Close()
		if res.StatusCode != 503 || res.Header.Get("Retry-After") != "1" {
			t.Fatalf("watcher of %s over the cap: %d, Retry-After %q", id, res.StatusCode, res.Header.Get("Retry-After"))
		}
		body, _ := io.ReadAll(res.Body)
		if code, msg := errorOf(t, body); code != "limit_exceeded" || !strings.Contains(msg, says) {
			t.Errorf("watcher of %s over the cap: %s: %s", id, code, msg)
		}
	}
	first, sr := watchBoard(t, c, ts.URL, "a")
	next(t, sr)
	watchBoard(t, c, ts.URL, "a")
	refused("a", "board \"a\" has 2 watchers")
	watchBoard(t, c, ts.URL, "b")
	refused("b", "3 event streams are open")
	first.Body.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		res := get(t, c, ts.URL+"/v1/boards/b/events")
		if res.StatusCode == 200 {
			t.Cleanup(func() { res.Body.Close() })
			break
		}
		res.Body.Close()
		if time.Now().After(deadline) {
			t.Fatalf("a watcher that left did not free its place within 10 s: %d", res.StatusCode)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHostileDrawPanic: a board whose drawing panics (a bug) answers its
// watcher 500 and leaves nothing behind: not the watcher in the board's
// hub, nor its place among the server's streams.
func TestHostileDrawPanic(t *testing.T) {
	s := newTestServer(t, Options{MaxWatchers: 1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	s.drawBoard = func(string, BoardState, *whiteboard.Board) []byte { panic("boom in the drawing") }
	createBoard(t, s, "b")
	for range 2 { // the second would be over MaxWatchers if the first had kept its place
		if res, body := do(t, s, "GET", "/v1/boards/b/events", ""); res.StatusCode != 500 {
			t.Fatalf("a drawing that panics: %d %s", res.StatusCode, body)
		}
	}
	s.boards.mu.Lock()
	h := s.boards.boards["b"].hub
	s.boards.mu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.subs) != 0 {
		t.Errorf("%d watchers left in the hub", len(h.subs))
	}
}
