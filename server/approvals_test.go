package server

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
)

// twoStickies makes a board with sticky-1 and sticky-2.
func twoStickies(t *testing.T, h http.Handler, id string) {
	t.Helper()
	createBoard(t, h, id)
	if res, body := do(t, h, "POST", "/v1/boards/"+id+"/batch", `{"operations":[`+sticky("one", 0)+`,`+sticky("two", 300)+`],"executionMode":"sequential"}`); res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
}

// deleteBoth asks to delete both stickies, keeping what is approved (a
// denied call fails the batch, which would otherwise be rolled back).
const deleteBoth = `{"operations":[{"tool":"deleteObject","args":{"objectId":"sticky-1"}},{"tool":"deleteObject","args":{"objectId":"sticky-2"}}],"atomic":false}`

// untilEvent reads events until one of type typ.
func untilEvent(t *testing.T, sr *sseReader, typ string) sseEvent {
	t.Helper()
	for {
		ev, err := sr.next()
		if err != nil {
			t.Fatalf("waiting for %s: %v", typ, err)
		}
		if ev.Type == typ {
			return ev
		}
	}
}

// askedSet reads an approval_required event's run id and call ids.
func askedSet(t *testing.T, ev sseEvent) (runID string, callIDs []string) {
	t.Helper()
	var v struct {
		RunID     string                   `json:"runId"`
		Approvals []engine.ApprovalRequest `json:"approvals"`
	}
	if err := json.Unmarshal([]byte(ev.Data), &v); err != nil {
		t.Fatal(err)
	}
	for _, a := range v.Approvals {
		callIDs = append(callIDs, a.CallID)
	}
	return v.RunID, callIDs
}

// runResults reads a run_end's batch result: each operation's success and
// error code.
func runResults(t *testing.T, ev sseEvent) []string {
	t.Helper()
	var v struct {
		Result engine.BatchResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(ev.Data), &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range v.Result.Results {
		if r.Success {
			out = append(out, "ok")
		} else {
			out = append(out, string(r.Error.Code)+": "+r.Error.Message)
		}
	}
	return out
}

func decide(t *testing.T, c *http.Client, url, runID, body string) (int, map[string]any) {
	t.Helper()
	res := post(t, c, url+"/v1/runs/"+runID+"/approvals", body)
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var v map[string]any
	json.Unmarshal(data, &v)
	return res.StatusCode, v
}

func TestApprovals(t *testing.T) {
	tests := []struct {
		name      string
		decisions []string // posts, in order
		pending   [][]any  // "pending" after each post
		want      []string // each operation's outcome
		left      []string // the board's objects after
	}{
		{"approve both at once", []string{`{"decisions":[{"callId":"0","approved":true},{"callId":"1","approved":true}]}`},
			[][]any{{}}, []string{"ok", "ok"}, []string{}},
		{"deny one with a reason", []string{`{"decisions":[{"callId":"0","approved":true},{"callId":"1","approved":false,"reason":"keep two"}]}`},
			[][]any{{}}, []string{"ok", `denied: call of "deleteObject" was denied: keep two`}, []string{"two"}},
		{"partial answers", []string{`{"decisions":[{"callId":"1","approved":false}]}`, `{"decisions":[{"callId":"0","approved":true}]}`},
			[][]any{{"0"}, {}}, []string{"ok", `denied: call of "deleteObject" was denied`}, []string{"two"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, Options{})
			ts, c := serveHTTP(t, s)
			twoStickies(t, s, "b")
			res := post(t, c, ts.URL+"/v1/boards/b/batch", deleteBoth, "Accept", "text/event-stream")
			defer res.Body.Close()
			sr := newSSEReader(res.Body)
			runID, calls := askedSet(t, untilEvent(t, sr, "approval_required"))
			if !slices.Equal(calls, []string{"0", "1"}) {
				t.Fatalf("set %q", calls)
			}
			// A client that joined late sees the set.
			g := get(t, c, ts.URL+"/v1/runs/"+runID+"/approvals")
			var listed struct {
				RunID     string
				Approvals []engine.ApprovalRequest
			}
			json.NewDecoder(g.Body).Decode(&listed)
			g.Body.Close()
			if g.StatusCode != 200 || listed.RunID != runID || len(listed.Approvals) != 2 || listed.Approvals[1].Tool != "deleteObject" {
				t.Fatalf("GET approvals: %d %+v", g.StatusCode, listed)
			}
			for i, d := range tt.decisions {
				status, v := decide(t, c, ts.URL, runID, d)
				if status != 200 || v["runId"] != runID {
					t.Fatalf("post %d: %d %v", i, status, v)
				}
				if got, _ := v["pending"].([]any); !slices.Equal(got, tt.pending[i]) {
					t.Errorf("post %d: pending %v, want %v", i, got, tt.pending[i])
				}
			}
			end := untilEvent(t, sr, "run_end")
			if got := runResults(t, end); !slices.Equal(got, tt.want) {
				t.Errorf("results %q, want %q", got, tt.want)
			}
			if got := getTexts(t, s, "b"); !slices.Equal(got, tt.left) && !(len(got) == 0 && len(tt.left) == 0) {
				t.Errorf("board %q, want %q", got, tt.left)
			}
			// Decided: nothing waits any more.
			if status, _ := decide(t, c, ts.URL, runID, tt.decisions[0]); status != 404 {
				t.Errorf("deciding again: %d, want 404", status)
			}
		})
	}
}

// TestApprovalProblems: decisions naming calls that are not waiting, given
// twice or incomplete are refused together, and nothing is decided.
func TestApprovalProblems(t *testing.T) {
	s := newTestServer(t, Options{})
	ts, c := serveHTTP(t, s)
	twoStickies(t, s, "b")
	res := post(t, c, ts.URL+"/v1/boards/b/batch", deleteBoth, "Accept", "text/event-stream")
	defer res.Body.Close()
	sr := newSSEReader(res.Body)
	runID, _ := askedSet(t, untilEvent(t, sr, "approval_required"))
	bad := []struct{ body, want string }{
		{`{"decisions":[{"callId":"0","approved":true},{"callId":"7","approved":true},{"callId":"0","approved":false},{"callId":"1"}]}`,
			`decisions[3].approved: missing: true to run the call, false to deny it; decisions[1].callId: call "7" of run ` + runID + ` is not waiting for approval; decisions[2].callId: "0" is decided twice in this request`},
		{`{"decisions":[]}`, "decisions: empty"},
		{`{}`, "decisions: missing"},
		{`{"decisions":[{"approved":true,"why":1}]}`, `decisions[0].why: unknown field`},
		{`[1]`, "want an object"},
	}
	for _, b := range bad {
		status, v := decide(t, c, ts.URL, runID, b.body)
		msg, _ := v["error"].(map[string]any)["message"].(string)
		if status != 400 || !strings.Contains(msg, b.want) {
			t.Errorf("%s: %d %q, want 400 with %q", b.body, status, msg, b.want)
		}
	}
	pending, _ := s.approvals.pending(runID)
	if len(pending) != 2 {
		t.Fatalf("refused posts decided calls: %d pending", len(pending))
	}
	if status, _ := decide(t, c, ts.URL, runID, `{"decisions":[{"callId":"0","approved":true},{"callId":"1","approved":true}]}`); status != 200 {
		t.Fatal(status)
	}
	untilEvent(t, sr, "run_end")
}

// TestApprovalBrokenBody: a body that is not JSON, or not an object, is a
// 400 whatever the run, even one that does not exist: the request is wrong
// before there is a run to look up.
func TestApprovalBrokenBody(t *testing.T) {
	ts, c := serveHTTP(t, newTestServer(t, Options{}))
	for _, body := range []string{`{"decisions":`, `[1]`, `"yes"`} {
		status, v := decide(t, c, ts.URL, "no-such-run", body)
		if status != 400 {
			t.Errorf("%s: %d %v, want 400", body, status, v)
		}
	}
	if status, _ := decide(t, c, ts.URL, "no-such-run", `{"decisions":[{"callId":"0","approved":true}]}`); status != 404 {
		t.Errorf("a good body for no run: %d, want 404", status)
	}
}

// TestApprovalTimeout: a set nobody answers is denied when the engine's
// approval timeout passes, and is no longer listed.
func TestApprovalTimeout(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.ApprovalTimeout = engine.Duration(300 * time.Millisecond)
	s := newTestServer(t, Options{Config: cfg})
	ts, c := serveHTTP(t, s)
	twoStickies(t, s, "b")
	res := post(t, c, ts.URL+"/v1/boards/b/batch", deleteBoth, "Accept", "text/event-stream")
	defer res.Body.Close()
	sr := newSSEReader(res.Body)
	runID, _ := askedSet(t, untilEvent(t, sr, "approval_required"))
	end := untilEvent(t, sr, "run_end")
	for _, r := range runResults(t, end) {
		if !strings.HasPrefix(r, "denied: ") || !strings.Contains(r, "approval timed out after 300ms") {
			t.Errorf("result %q", r)
		}
	}
	g := get(t, c, ts.URL+"/v1/runs/"+runID+"/approvals")
	g.Body.Close()
	if g.StatusCode != 404 {
		t.Errorf("GET approvals after the timeout: %d", g.StatusCode)
	}
	if got := getTexts(t, s, "b"); !slices.Equal(got, []string{"one", "two"}) {
		t.Errorf("board %q", got)
	}
}

// TestApprovalOfAJSONRun: a client waiting for a JSON answer has its run's
// calls approved by another, which learned the run id from the board's
// events.
func TestApprovalOfAJSONRun(t *testing.T) {
	s := newTestServer(t, Options{Approve: engine.GateWrites})
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	watch := get(t, c, ts.URL+"/v1/boards/b/events")
	defer watch.Body.Close()
	sr := newSSEReader(watch.Body)
	answer := make(chan *http.Response, 1)
	go func() { answer <- post(t, c, ts.URL+"/v1/boards/b/batch", batchOf(sticky("gated", 0))) }()
	ev := untilEvent(t, sr, "approval_required")
	if ev.decode(t)["boardId"] != "b" {
		t.Errorf("event without the board's id: %s", ev.Data)
	}
	runID, _ := askedSet(t, ev)
	if status, v := decide(t, c, ts.URL, runID, `{"decisions":[{"callId":"0","approved":true}]}`); status != 200 {
		t.Fatalf("%d %v", status, v)
	}
	res := <-answer
	defer res.Body.Close()
	io.ReadAll(res.Body)
	// The answer began while the run waited, so its commit is a trailer —
	// unless the decision (made from the watcher's event) ended the run
	// before its handler looked: then it is answered whole, as usual.
	committed := res.Trailer.Get("Codemode-Board-Committed")
	if committed != "" && res.Header.Get("X-Accel-Buffering") != "no" {
		t.Errorf("an answer begun early without X-Accel-Buffering: no (a buffering proxy would hold its headers back): %v", res.Header)
	}
	if committed == "" {
		committed = res.Header.Get("Codemode-Board-Committed")
	}
	if res.StatusCode != 200 || res.Header.Get("Codemode-Run-Id") != runID || committed != "true" {
		t.Fatalf("%d %v %v", res.StatusCode, res.Header, res.Trailer)
	}
	if got := getTexts(t, s, "b"); !slices.Equal(got, []string{"gated"}) {
		t.Errorf("board %q", got)
	}
}

// TestEngineRunsAreDenied: a run started on Engine() directly has nobody to
// ask, so its gated calls are denied at once instead of waiting.
func TestEngineRunsAreDenied(t *testing.T) {
	s := newTestServer(t, Options{Approve: engine.GateWrites})
	start := time.Now()
	_, err := s.Engine().Call(t.Context(), "createStickyNote", json.RawMessage(`{"text":"x","x":0,"y":0}`))
	if err == nil || !strings.Contains(err.Error(), "not started through the HTTP API") {
		t.Errorf("err %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("waited %v", time.Since(start))
	}
}
