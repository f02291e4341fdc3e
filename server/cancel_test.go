package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/worker"
)

// loopCode makes a sticky note, then loops forever: only a cancel (or the
// script's timeout, 30 s) ends it.
const loopCode = `{"code":"await tools.createStickyNote({text: 'half', x: 0, y: 0}); for (;;) {}"}`

// startLoop posts loopCode to board id as a stream and returns the stream,
// once its run_start has come, and the run's id.
func startLoop(t *testing.T, c *http.Client, url, id, body string) (*sseReader, string) {
	t.Helper()
	res := post(t, c, url+"/v1/boards/"+id+"/execute", body, "Accept", "text/event-stream")
	t.Cleanup(func() { res.Body.Close() })
	sr := newSSEReader(res.Body)
	start := next(t, sr)
	if start.Type != "run_start" {
		t.Fatalf("first event %s", start.Type)
	}
	runID, _ := start.decode(t)["runId"].(string)
	if runID == "" || res.Header.Get("Codemode-Run-Id") != runID {
		t.Fatalf("run_start %s, header %q", start.Data, res.Header.Get("Codemode-Run-Id"))
	}
	return sr, runID
}

// endOf reads a stream up to its run_end and returns it, decoded.
func endOf(t *testing.T, sr *sseReader) map[string]any {
	t.Helper()
	for {
		ev := next(t, sr)
		if ev.Type == "run_end" {
			return ev.decode(t)
		}
	}
}

// TestCancelRun: a script in an endless loop is stopped by a cancel from
// another client, in the worker runner and in process: the cancel answers
// once the run is over, the run's own stream ends with canceled, the board
// is as before (atomic), its watchers are told, and the run is no longer
// there to cancel.
func TestCancelRun(t *testing.T) {
	pool, err := worker.New(worker.Config{Warm: 1, Max: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	for _, tc := range []struct {
		name string
		opts Options
	}{{"worker", Options{Runner: pool}}, {"inprocess", Options{}}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t, tc.opts)
			ts, c := serveHTTP(t, s)
			createBoard(t, s, "b")
			_, watcher := watchBoard(t, c, ts.URL, "b")
			next(t, watcher) // the board
			sr, runID := startLoop(t, c, ts.URL, "b", loopCode)
			for ev := next(t, sr); ev.Type != "tool_call_end"; ev = next(t, sr) {
			}
			began := time.Now()
			res, body := do(t, s, "POST", "/v1/runs/"+runID+"/cancel", "")
			if res.StatusCode != 200 || strings.Join(strings.Fields(string(body)), "") != `{"runId":"`+runID+`","status":"canceled"}` {
				t.Fatalf("cancel: %d %s", res.StatusCode, body)
			}
			if d := time.Since(began); d > 5*time.Second {
				t.Errorf("the cancel took %v", d)
			}
			end := endOf(t, sr)
			if e, _ := end["error"].(map[string]any); end["success"] != false || e["code"] != "canceled" || !strings.Contains(e["message"].(string), "a client asked to stop the run") {
				t.Errorf("run_end: %v", end)
			}
			if b, _ := end["board"].(map[string]any); b["committed"] != false {
				t.Errorf("run_end's board: %v", end["board"])
			}
			var seen []string
			for ev := next(t, watcher); ; ev = next(t, watcher) {
				seen = append(seen, ev.Type)
				if ev.Type == "board" { // the rollback, sent whole
					if strings.Contains(ev.Data, `"half"`) {
						t.Errorf("the watcher's board after the cancel: %s", ev.Data)
					}
					break
				}
			}
			if !slices.Contains(seen, "run_end") {
				t.Errorf("the watcher saw %q: want the run's run_end", seen)
			}
			if got := getTexts(t, s, "b"); len(got) != 0 {
				t.Errorf("board after the cancel: %q", got)
			}
			if res, body := do(t, s, "POST", "/v1/runs/"+runID+"/cancel", ""); res.StatusCode != 404 {
				t.Errorf("cancel of a run that ended: %d %s", res.StatusCode, body)
			}
			// The board is free for the next run.
			if res, body := do(t, s, "POST", "/v1/boards/b/batch", batchOf(sticky("after", 0))); res.StatusCode != 200 {
				t.Errorf("a run after: %d %s", res.StatusCode, body)
			}
		})
	}
}

// TestCancelKeepsNonAtomic: a canceled run that is not atomic keeps what it
// did before; a JSON run's client gets its answer, canceled.
func TestCancelKeepsNonAtomic(t *testing.T) {
	s := newTestServer(t, Options{})
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	type answer struct {
		res  *http.Response
		body []byte
	}
	// The run's id: from the board's watchers' run_start.
	_, watcher := watchBoard(t, c, ts.URL, "b")
	next(t, watcher) // the board
	done := make(chan answer, 1)
	go func() {
		res, body := do(t, s, "POST", "/v1/boards/b/execute", `{"atomic": false, "code":"await tools.createStickyNote({text: 'kept', x: 0, y: 0}); for (;;) {}"}`)
		done <- answer{res, body}
	}()
	var runID string
	for ev := next(t, watcher); ev.Type != "tool_call_end"; ev = next(t, watcher) { // the sticky is made: the loop is next
		if ev.Type == "run_start" {
			runID, _ = ev.decode(t)["runId"].(string)
		}
	}
	if res, body := do(t, s, "POST", "/v1/runs/"+runID+"/cancel", "{}"); res.StatusCode != 200 {
		t.Fatalf("cancel: %d %s", res.StatusCode, body)
	}
	a := <-done
	var got struct {
		Success bool
		Error   struct{ Code string }
	}
	json.Unmarshal(a.body, &got)
	if a.res.StatusCode != 200 || got.Success || got.Error.Code != "canceled" || a.res.Trailer.Get("Codemode-Board-Committed") == "false" {
		t.Errorf("the run's answer: %d %s %v", a.res.StatusCode, a.body, a.res.Trailer)
	}
	if texts := getTexts(t, s, "b"); !slices.Equal(texts, []string{"kept"}) {
		t.Errorf("board %q", texts)
	}
}

// The cancel endpoint's bad input: no such run, a malformed id, a body
// with parameters, another method, no JSON content type.
func TestCancelBadInput(t *testing.T) {
	s := newTestServer(t, Options{})
	for _, tc := range []struct {
		method, path, body string
		header             []string
		status             int
		want               string
	}{
		{"POST", "/v1/runs/run_nope/cancel", "", nil, 404, `no run \"run_nope\" is running`},
		{"POST", "/v1/runs/bad%20id/cancel", "", nil, 404, `is running`},
		{"POST", "/v1/runs/run_x/cancel", `{"force": true}`, nil, 400, `cancel takes no parameters`},
		{"POST", "/v1/runs/run_x/cancel", "", []string{"Content-Type", "text/plain"}, 400, `Content-Type must be application/json`},
		{"GET", "/v1/runs/run_x/cancel", "", nil, 405, ``},
	} {
		res, body := do(t, s, tc.method, tc.path, tc.body, tc.header...)
		if res.StatusCode != tc.status || !strings.Contains(string(body), tc.want) {
			t.Errorf("%s %s %s: %d %s; want %d and %q", tc.method, tc.path, tc.body, res.StatusCode, body, tc.status, tc.want)
		}
	}
}

// blockingCommits is a store whose commits wait for release, once entered
// is told.
type blockingCommits struct {
	Store
	entered chan struct{}
	release chan struct{}
}

func (b *blockingCommits) Commit(ctx context.Context, id string, c Commit) (BoardState, error) {
	b.entered <- struct{}{}
	<-b.release
	return b.Store.Commit(ctx, id, c)
}

// TestCancelTooLate: a cancel that comes while the run commits (its
// script is done) does not say the run was canceled: 404, and the run
// commits.
func TestCancelTooLate(t *testing.T) {
	store := &blockingCommits{Store: NewMemoryStore(), entered: make(chan struct{}, 1), release: make(chan struct{})}
	s := newTestServer(t, Options{Store: store})
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	sr, runID := startLoop(t, c, ts.URL, "b", `{"code":"await tools.createStickyNote({text: 'kept', x: 0, y: 0}); return 1"}`)
	<-store.entered
	res, body := do(t, s, "POST", "/v1/runs/"+runID+"/cancel", "")
	close(store.release)
	if res.StatusCode != 404 {
		t.Errorf("a cancel during the commit: %d %s, want 404", res.StatusCode, body)
	}
	if end := endOf(t, sr); end["success"] != true {
		t.Errorf("run_end: %v", end)
	}
	if texts := getTexts(t, s, "b"); !slices.Equal(texts, []string{"kept"}) {
		t.Errorf("board %q", texts)
	}
}

// TestLateWatcherLearnsTheRun: a watcher that comes while a run is under
// way is told its id in the board it is sent first (runUnderWay), so that
// a view can stop it; a watcher when nothing runs is not.
func TestLateWatcherLearnsTheRun(t *testing.T) {
	s := newTestServer(t, Options{})
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	_, idle := watchBoard(t, c, ts.URL, "b")
	if first := next(t, idle).decode(t); first["runUnderWay"] != nil {
		t.Errorf("a board with no run under way: %v", first["runUnderWay"])
	}
	sr, runID := startLoop(t, c, ts.URL, "b", loopCode)
	for ev := next(t, sr); ev.Type != "tool_call_end"; ev = next(t, sr) {
	}
	_, late := watchBoard(t, c, ts.URL, "b")
	if first := next(t, late).decode(t); first["runUnderWay"] != runID {
		t.Errorf("the late watcher's board: runUnderWay %v, want %s", first["runUnderWay"], runID)
	}
	if res, body := do(t, s, "POST", "/v1/runs/"+runID+"/cancel", ""); res.StatusCode != 200 {
		t.Fatalf("cancel: %d %s", res.StatusCode, body)
	}
	endOf(t, sr)
}

// TestCancelToolIgnoresContext: a run whose tool call does not stop when
// its context ends is still stopped at once (the engine abandons the
// call); the tool, let go later, changes nothing, and the server stays
// whole for the next run.
func TestCancelToolIgnoresContext(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	deaf := engine.Tool{
		Name: "test.deaf", Description: "Wait for the test, whatever the context says.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: engine.Annotations{ReadOnlyHint: true},
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			entered <- struct{}{}
			<-release
			return json.RawMessage(`{}`), nil
		},
	}
	s := newTestServer(t, Options{Tools: []engine.Tool{deaf}})
	t.Cleanup(func() { close(release) }) // before the server's shutdown (cleanups run last first)
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	sr, runID := startLoop(t, c, ts.URL, "b", `{"code":"await tools.createStickyNote({text: 'half', x: 0, y: 0}); await tools['test.deaf']({}); return 1"}`)
	<-entered
	began := time.Now()
	res, body := do(t, s, "POST", "/v1/runs/"+runID+"/cancel", "")
	if res.StatusCode != 200 || time.Since(began) > cancelWait {
		t.Fatalf("cancel of a run in a deaf tool call: %d %s after %v", res.StatusCode, body, time.Since(began))
	}
	if end := endOf(t, sr); end["success"] != false {
		t.Errorf("run_end: %v", end)
	}
	if texts := getTexts(t, s, "b"); len(texts) != 0 {
		t.Errorf("board %q", texts)
	}
	if res, body := do(t, s, "POST", "/v1/boards/b/batch", batchOf(sticky("next", 0))); res.StatusCode != 200 {
		t.Errorf("the next run: %d %s", res.StatusCode, body)
	}
}

// TestHostileCancelStorm: many cancels at once, of one looping run and of
// runs that do not exist: the run ends canceled once, every cancel is
// answered 200 or 404 (none hangs, none is a 500), and the server runs
// the next run (goleak, in TestMain, checks nothing is left behind).
func TestHostileCancelStorm(t *testing.T) {
	s := newTestServer(t, Options{})
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	sr, runID := startLoop(t, c, ts.URL, "b", loopCode)
	for ev := next(t, sr); ev.Type != "tool_call_end"; ev = next(t, sr) {
	}
	var wg sync.WaitGroup
	codes := make(chan int, 300)
	for i := range 300 {
		id := runID
		if i%3 != 0 {
			id = fmt.Sprintf("run_nope%d", i)
		}
		wg.Go(func() {
			res, _ := do(t, s, "POST", "/v1/runs/"+id+"/cancel", "")
			codes <- res.StatusCode
		})
	}
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != 200 && code != 404 {
			t.Errorf("a cancel answered %d", code)
		}
	}
	if end := endOf(t, sr); end["success"] != false {
		t.Errorf("run_end: %v", end)
	}
	if res, body := do(t, s, "POST", "/v1/boards/b/batch", batchOf(sticky("next", 0))); res.StatusCode != 200 {
		t.Errorf("the next run: %d %s", res.StatusCode, body)
	}
}
