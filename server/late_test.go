package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/worker"
)

// nextSoon is next, failing (instead of waiting for ever) when no event
// comes within 10 s.
func nextSoon(t *testing.T, sr *sseReader) sseEvent {
	t.Helper()
	type read struct {
		ev  sseEvent
		err error
	}
	ch := make(chan read, 1)
	go func() {
		ev, err := sr.next()
		ch <- read{ev, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("reading an event: %v", r.err)
		}
		return r.ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
		return sseEvent{}
	}
}

// TestLateWatcherSeesPendingApprovals: a watcher that subscribes while a
// run on the board waits for approvals gets the set right after its first
// board event, with only the calls still undecided; a watcher resuming gets
// the sets announced before its Last-Event-ID ahead of the replay, and the
// later ones in the replay only, never twice. Once every call is decided, a
// new watcher gets none.
func TestLateWatcherSeesPendingApprovals(t *testing.T) {
	s := newTestServer(t, Options{})
	ts, c := serveHTTP(t, s)
	twoStickies(t, s, "b")
	_, early := watchBoard(t, c, ts.URL, "b")
	before := nextSoon(t, early) // the board, before the run
	res := post(t, c, ts.URL+"/v1/boards/b/batch", deleteBoth, "Accept", "text/event-stream")
	defer res.Body.Close()
	sr := newSSEReader(res.Body)
	runID, _ := askedSet(t, untilEvent(t, sr, "approval_required"))

	// A new watcher: the board, then the set.
	_, late := watchBoard(t, c, ts.URL, "b")
	first := nextSoon(t, late)
	if first.Type != "board" {
		t.Fatalf("first event %s", first.Type)
	}
	ev := nextSoon(t, late)
	gotRun, calls := askedSet(t, ev)
	if ev.Type != "approval_required" || gotRun != runID || !slices.Equal(calls, []string{"0", "1"}) || ev.ID != first.ID || ev.decode(t)["boardId"] != "b" {
		t.Fatalf("after the board event: %+v", ev)
	}

	// Call 1 decided: a watcher coming now is asked about call 0 only.
	if status, v := decide(t, c, ts.URL, runID, `{"decisions":[{"callId":"1","approved":false}]}`); status != 200 {
		t.Fatalf("%d %v", status, v)
	}
	_, later := watchBoard(t, c, ts.URL, "b")
	nextSoon(t, later)
	if _, calls := askedSet(t, nextSoon(t, later)); !slices.Equal(calls, []string{"0"}) {
		t.Errorf("after call 1 was decided, a new watcher is asked about %q, want [0]", calls)
	}

	// Resuming after the announcement: the set comes first, with the
	// resumed id.
	_, resumed := watchBoard(t, c, ts.URL, "b", "Last-Event-ID", first.ID)
	ev = nextSoon(t, resumed)
	if _, calls := askedSet(t, ev); ev.Type != "approval_required" || ev.ID != first.ID || !slices.Equal(calls, []string{"0"}) {
		t.Errorf("resuming from %s: %+v", first.ID, ev)
	}
	// Resuming from before the run: the replay has the announcement (both
	// calls, as it went out), and nothing is sent twice.
	_, replay := watchBoard(t, c, ts.URL, "b", "Last-Event-ID", before.ID)
	var types []string
	for {
		ev := nextSoon(t, replay)
		types = append(types, ev.Type)
		if ev.Type == "approval_required" {
			if _, calls := askedSet(t, ev); !slices.Equal(calls, []string{"0", "1"}) {
				t.Errorf("replayed set %q", calls)
			}
			break
		}
	}
	if !slices.Equal(types, []string{"run_start", "approval_required"}) {
		t.Errorf("resuming from before the run: %q", types)
	}

	if status, v := decide(t, c, ts.URL, runID, `{"decisions":[{"callId":"0","approved":true}]}`); status != 200 {
		t.Fatalf("%d %v", status, v)
	}
	untilEvent(t, sr, "run_end")
	untilEvent(t, replay, "run_end")
	// Nothing waits: a new watcher gets the board and then the next run's
	// events only.
	_, after := watchBoard(t, c, ts.URL, "b")
	nextSoon(t, after)
	if res, body := do(t, s, "POST", "/v1/boards/b/batch", batchOf(sticky("three", 600))); res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if ev := nextSoon(t, after); ev.Type != "run_start" {
		t.Errorf("after the run, a new watcher's second event is %s %s", ev.Type, ev.Data)
	}
}

// TestJSONRunAnswersEarly: a JSON client's run that waits for approvals
// gets its answer's status and Codemode-Run-Id while it waits, so the
// client can approve the calls itself; the result follows when the run
// ends, the board's version and commit as trailers. A run that asks nobody
// is answered whole, headers and all, at its end.
func TestJSONRunAnswersEarly(t *testing.T) {
	s := newTestServer(t, Options{})
	ts, c := serveHTTP(t, s)
	twoStickies(t, s, "b")
	answered := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequest("POST", ts.URL+"/v1/boards/b/batch", strings.NewReader(`{"operations":[{"tool":"deleteObject","args":{"objectId":"sticky-1"}}]}`))
		req.Header.Set("Content-Type", "application/json")
		res, err := c.Do(req)
		if err != nil {
			t.Error(err)
			res = nil
		}
		answered <- res
	}()
	var res *http.Response
	select {
	case res = <-answered:
	case <-time.After(10 * time.Second):
		t.Fatal("no answer's headers while the run waits for its approval")
	}
	if res == nil {
		t.FailNow()
	}
	defer res.Body.Close()
	runID := res.Header.Get("Codemode-Run-Id")
	if res.StatusCode != 200 || !strings.HasPrefix(runID, "run_") || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("early answer: %d %v", res.StatusCode, res.Header)
	}
	// Declared trailers (Go's client lists them in Trailer, values to come).
	if _, ok := res.Trailer["Codemode-Board-Version"]; !ok {
		t.Errorf("trailers declared: %v", res.Trailer)
	}
	if _, ok := res.Trailer["Codemode-Board-Committed"]; !ok {
		t.Errorf("trailers declared: %v", res.Trailer)
	}
	if status, v := decide(t, c, ts.URL, runID, `{"decisions":[{"callId":"0","approved":true}]}`); status != 200 {
		t.Fatalf("%d %v", status, v)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	var result engine.BatchResult
	if err := json.Unmarshal(body, &result); err != nil || result.Summary.Successful != 1 {
		t.Errorf("result %s (%v)", body, err)
	}
	if res.Trailer.Get("Codemode-Board-Version") != "3" || res.Trailer.Get("Codemode-Board-Committed") != "true" {
		t.Errorf("trailers %v", res.Trailer)
	}
	if got := getTexts(t, s, "b"); !slices.Equal(got, []string{"two"}) {
		t.Errorf("board %q", got)
	}

	// No approval: the whole answer at the end, headers as usual.
	r2 := post(t, c, ts.URL+"/v1/boards/b/batch", batchOf(sticky("three", 600)))
	io.ReadAll(r2.Body)
	r2.Body.Close()
	if r2.Header.Get("Codemode-Board-Version") != "4" || r2.Header.Get("Codemode-Board-Committed") != "true" || len(r2.Trailer) != 0 || r2.ContentLength <= 0 {
		t.Errorf("a run without approvals: %v (length %d)", r2.Header, r2.ContentLength)
	}
}

// TestShutdownCancelSays: a run that Shutdown cancels (its deadline passed)
// says the server is shutting down, for a batch's call and a script alike,
// in-process or in a worker process.
func TestShutdownCancelSays(t *testing.T) {
	pool, err := worker.New(worker.Config{Warm: 1, Max: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	const script = `{"code": "await tools['test.wait']({tag: 'stuck'})"}`
	for _, tc := range []struct {
		name, path, body string
		runner           engine.ScriptRunner
	}{
		{"batch", "/v1/boards/b/batch", waitRun("stuck"), nil},
		{"script", "/v1/boards/b/execute", script, nil},
		{"script in a worker", "/v1/boards/b/execute", script, pool},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGate()
			s := newTestServer(t, Options{Tools: []engine.Tool{g.tool()}, Runner: tc.runner})
			createBoard(t, s, "b")
			answer := make(chan []byte, 1)
			go func() {
				_, body := do(t, s, "POST", tc.path, tc.body)
				answer <- body
			}()
			g.waitEntered(t)
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			s.Shutdown(ctx)
			body := <-answer
			if !strings.Contains(string(body), `"code": "canceled"`) || !strings.Contains(string(body), `"message": "the server is shutting down"`) || strings.Contains(string(body), "caller") {
				t.Errorf("answer %s", body)
			}
		})
	}
}

// TestShutdownWhileWaitingForBoard: a run that waits for its busy board
// when Shutdown cancels it says why it ended.
func TestShutdownWhileWaitingForBoard(t *testing.T) {
	s := newTestServer(t, Options{})
	createBoard(t, s, "b")
	lb, herr := s.boards.acquire(t.Context(), "b")
	if herr != nil {
		t.Fatal(herr)
	}
	defer s.boards.release(lb)
	lb.lock <- struct{}{} // busy, as with another run's
	defer func() { <-lb.lock }()
	answer := make(chan []byte, 1)
	go func() {
		_, body := do(t, s, "POST", "/v1/boards/b/batch", waitRun("behind"))
		answer <- body
	}()
	for deadline := time.Now().Add(10 * time.Second); running(s) < 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the run did not start")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	s.Shutdown(ctx)
	if body := <-answer; !strings.Contains(string(body), `the server is shutting down: board \"b\" was still busy`) {
		t.Errorf("the waiting run's answer: %s", body)
	}
}

// TestBadBatchOnABusyBoard: a batch the engine rejects before running (a
// $ref cycle, too many operations) is a 400 at once, also while its board
// is busy — not a wait for the board ending in a 503 to try again.
func TestBadBatchOnABusyBoard(t *testing.T) {
	s := newTestServer(t, Options{})
	createBoard(t, s, "b")
	lb, herr := s.boards.acquire(t.Context(), "b")
	if herr != nil {
		t.Fatal(herr)
	}
	defer s.boards.release(lb)
	lb.lock <- struct{}{} // busy, as with another run's
	defer func() { <-lb.lock }()
	cycle := `{"timeout": 300, "operations": [
	  {"tool": "createStickyNote", "label": "a", "args": {"text": {"$ref": "b.id"}, "x": 0, "y": 0}},
	  {"tool": "createStickyNote", "label": "b", "args": {"text": {"$ref": "a.id"}, "x": 0, "y": 0}}]}`
	res, body := do(t, s, "POST", "/v1/boards/b/batch", cycle)
	if code, msg := errorOf(t, body); res.StatusCode != 400 || code != "bad_request" || !strings.Contains(msg, "cycle") {
		t.Errorf("a $ref cycle on a busy board: %d %s %s", res.StatusCode, code, msg)
	}
}
