package server

import (
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// parked is how many runs wait for approval out of the count MaxRuns caps.
func parked(s *Server) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.parked
}

// TestHostileParkedRuns: runs waiting for a client's approval used to hold
// every run slot (MaxRuns of them: every other run 503 for the approval
// timeout). Now a run gives its slot up while it waits, up to MaxRuns such
// runs; past that a parked run keeps its slot, so the server still holds at
// most 2 × MaxRuns runs. Approved, a parked run comes back and finishes even
// over MaxRuns; hung up, every count goes back to 0.
func TestHostileParkedRuns(t *testing.T) {
	const maxRuns = 2
	s := newTestServer(t, Options{MaxRuns: maxRuns})
	ts, c := serveHTTP(t, s)
	type parkedRun struct {
		res   *http.Response
		sr    *sseReader
		runID string
		calls []string
	}
	park := func(id string) parkedRun {
		t.Helper()
		twoStickies(t, s, id)
		res := post(t, c, ts.URL+"/v1/boards/"+id+"/batch", deleteBoth, "Accept", "text/event-stream")
		if res.StatusCode != 200 {
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			t.Fatalf("parking on %s: %d %s", id, res.StatusCode, body)
		}
		sr := newSSEReader(res.Body)
		runID, calls := askedSet(t, untilEvent(t, sr, "approval_required"))
		return parkedRun{res, sr, runID, calls}
	}
	var runs []parkedRun
	for i := range maxRuns {
		runs = append(runs, park(fmt.Sprint("p", i)))
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: running %d, parked %d", what, running(s), parked(s))
			}
		}
	}
	waitFor("two runs parked", func() bool { return parked(s) == maxRuns && running(s) == 0 })

	createBoard(t, s, "free")
	if res, body := do(t, s, "POST", "/v1/boards/free/batch", batchOf(sticky("x", 0))); res.StatusCode != 200 {
		t.Fatalf("a run with %d runs parked on approvals and MaxRuns %d: %d %s", maxRuns, maxRuns, res.StatusCode, body)
	}

	// MaxRuns more park keeping their slots: then the server is full.
	for i := range maxRuns {
		runs = append(runs, park(fmt.Sprint("q", i)))
	}
	waitFor("two more runs waiting in their slots", func() bool { return parked(s) == maxRuns && running(s) == maxRuns })
	if res, body := do(t, s, "POST", "/v1/boards/free/batch", batchOf(sticky("y", 0))); res.StatusCode != 503 {
		t.Errorf("a run with 2 × MaxRuns runs waiting for approval: %d %s, want 503", res.StatusCode, body)
	}

	// The first parked run is approved: it comes back over MaxRuns and
	// finishes.
	first := runs[0]
	if code, body := decide(t, c, ts.URL, first.runID, `{"decisions":[{"callId":"`+first.calls[0]+`","approved":true},{"callId":"`+first.calls[1]+`","approved":true}]}`); code != 200 {
		t.Fatalf("approving: %d %v", code, body)
	}
	if got := runResults(t, untilEvent(t, first.sr, "run_end")); len(got) != 2 || got[0] != "ok" || got[1] != "ok" {
		t.Errorf("the approved run: %q", got)
	}
	// The others hang up: every count goes back to 0.
	for _, r := range runs {
		r.res.Body.Close()
	}
	waitFor("all runs over", func() bool { return parked(s) == 0 && running(s) == 0 })
	if res, body := do(t, s, "POST", "/v1/boards/free/batch", batchOf(sticky("z", 0))); res.StatusCode != 200 {
		t.Errorf("after the runs: %d %s", res.StatusCode, body)
	}
}
