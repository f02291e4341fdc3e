package server

import (
	"slices"
	"testing"
	"time"
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
