package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// previewScript adds a note, moves sticky-1 and deletes sticky-2.
const previewScript = `{"code":"await tools.createStickyNote({text: 'three', x: 600, y: 0}); await tools.moveObject({objectId: 'sticky-1', x: 50, y: 50}); await tools.deleteObject({objectId: 'sticky-2'}); return 'done'","preview":true}`

// previewOf posts a preview run to board id and returns its answer's
// "preview", decoded; the run must succeed and the board stay as it was.
func previewOf(t *testing.T, h http.Handler, id, body string) map[string]any {
	t.Helper()
	_, before := do(t, h, "GET", "/v1/boards/"+id, "")
	res, data := do(t, h, "POST", "/v1/boards/"+id+"/execute", body)
	if res.StatusCode != 200 {
		t.Fatalf("preview: %d %s", res.StatusCode, data)
	}
	if res.Header.Get("Codemode-Board-Committed") != "false" {
		t.Errorf("Codemode-Board-Committed: %q", res.Header.Get("Codemode-Board-Committed"))
	}
	a := decode(t, data)
	if a["success"] != true {
		t.Fatalf("preview run failed: %s", data)
	}
	p, _ := a["preview"].(map[string]any)
	if p == nil {
		t.Fatalf("no preview in %s", data)
	}
	if _, after := do(t, h, "GET", "/v1/boards/"+id, ""); string(after) != string(before) {
		t.Errorf("a preview changed the board:\nbefore %s\nafter %s", before, after)
	}
	return p
}

// TestPreviewApply: a preview reports what it would change and the board
// as it would be, changes nothing (the board's watchers see none of it),
// and its apply commits exactly that as one undo step, once.
func TestPreviewApply(t *testing.T) {
	s := newTestServer(t, Options{})
	ts, c := serveHTTP(t, s)
	twoStickies(t, s, "b")
	_, sr := watchBoard(t, c, ts.URL, "b")
	if first := next(t, sr); first.Type != "board" {
		t.Fatalf("first event %s", first.Type)
	}
	p := previewOf(t, s, "b", previewScript)
	id, _ := p["previewId"].(string)
	runID, _ := p["runId"].(string)
	if !strings.HasPrefix(id, "pv_") || runID == "" || p["baseVersion"] != 2.0 {
		t.Fatalf("preview %v", p)
	}
	wantChanges := map[string]any{"added": []any{"sticky-3"}, "updated": []any{"sticky-1"}, "deleted": []any{"sticky-2"}}
	if diff := cmp.Diff(wantChanges, p["changes"]); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if svg, _ := p["svg"].(string); !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "three") || strings.Contains(svg, ">two<") {
		t.Errorf("svg: %.300s", svg)
	}
	if _, err := time.Parse(time.RFC3339, p["expiresAt"].(string)); err != nil {
		t.Errorf("expiresAt: %v", err)
	}
	// Fetched again, it is the same.
	res, data := do(t, s, "GET", "/v1/boards/b/previews/"+id, "")
	if res.StatusCode != 200 || decode(t, data)["previewId"] != id {
		t.Fatalf("GET preview: %d %s", res.StatusCode, data)
	}

	res, data = do(t, s, "POST", "/v1/boards/b/previews/"+id+"/apply", "")
	if res.StatusCode != 200 {
		t.Fatalf("apply: %d %s", res.StatusCode, data)
	}
	a := decode(t, data)
	if a["version"] != 3.0 || a["appliedPreview"] != id || a["runId"] != runID || len(a["objects"].([]any)) != 2 {
		t.Errorf("apply answered %s", data)
	}
	// The watcher saw nothing of the preview: its next event is the apply.
	ev := next(t, sr)
	if b := ev.decode(t); ev.Type != "board" || b["appliedPreview"] != id || b["appliedRun"] != runID || b["version"] != 3.0 {
		t.Errorf("watcher got %s %.300s", ev.Type, ev.Data)
	}
	// Once.
	if res, data := do(t, s, "POST", "/v1/boards/b/previews/"+id+"/apply", "{}"); res.StatusCode != 404 || !strings.Contains(string(data), "applied, discarded or has expired") {
		t.Errorf("second apply: %d %s", res.StatusCode, data)
	}
	// One undo step, named by the preview's run.
	res, data = do(t, s, "POST", "/v1/boards/b/undo", "")
	if u := decode(t, data); res.StatusCode != 200 || u["undoneRun"] != runID || u["version"] != 4.0 || len(u["objects"].([]any)) != 2 {
		t.Errorf("undo: %d %s", res.StatusCode, data)
	}
}

// TestPreviewStale: a preview whose board moved is not applied (409, the
// board as the other change left it, the preview still there to discard);
// DELETE discards, once.
func TestPreviewStale(t *testing.T) {
	s := newTestServer(t, Options{})
	twoStickies(t, s, "b")
	id := previewOf(t, s, "b", previewScript)["previewId"].(string)
	if res, data := do(t, s, "POST", "/v1/boards/b/batch", batchOf(sticky("other", 900))); res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, data)
	}
	for range 2 {
		res, data := do(t, s, "POST", "/v1/boards/b/previews/"+id+"/apply", "{}")
		if code, msg := errorOf(t, data); res.StatusCode != 409 || code != "bad_request" || !strings.Contains(msg, "at version 3, not 2") {
			t.Errorf("stale apply: %d %s", res.StatusCode, data)
		}
	}
	_, data := do(t, s, "GET", "/v1/boards/b", "")
	if b := decode(t, data); b["version"] != 3.0 || len(b["objects"].([]any)) != 3 {
		t.Errorf("board after a refused apply: %s", data)
	}
	if res, data := do(t, s, "DELETE", "/v1/boards/b/previews/"+id, ""); res.StatusCode != 204 || len(data) != 0 {
		t.Errorf("discard: %d %s", res.StatusCode, data)
	}
	for _, m := range []string{"DELETE", "GET"} {
		if res, _ := do(t, s, m, "/v1/boards/b/previews/"+id, ""); res.StatusCode != 404 {
			t.Errorf("%s after discard: %d", m, res.StatusCode)
		}
	}
	if s.previews.count() != 0 {
		t.Errorf("%d previews kept", s.previews.count())
	}
}

// TestPreviewStream: a streamed preview ends with run_end carrying the
// preview and the board's outcome (not committed).
func TestPreviewStream(t *testing.T) {
	s := newTestServer(t, Options{})
	ts, c := serveHTTP(t, s)
	twoStickies(t, s, "b")
	res := post(t, c, ts.URL+"/v1/boards/b/batch", `{"operations":[`+sticky("s", 0)+`],"preview":true}`, "Accept", "text/event-stream")
	defer res.Body.Close()
	end := endOf(t, newSSEReader(res.Body))
	p, _ := end["preview"].(map[string]any)
	board, _ := end["board"].(map[string]any)
	if p == nil || p["changes"].(map[string]any)["added"].([]any)[0] != "sticky-3" || board["committed"] != false || board["version"] != 2.0 {
		t.Errorf("run_end %v", end)
	}
}

// TestPreviewNothingToApply: a failed atomic run previews nothing
// ("preview": null); with "atomic": false its partial work is previewed.
// A preview that changes nothing applies without an undo step.
func TestPreviewNothingToApply(t *testing.T) {
	s := newTestServer(t, Options{})
	twoStickies(t, s, "b")
	failing := `await tools.createStickyNote({text: 'x', x: 0, y: 0}); throw new Error('late')`
	res, data := do(t, s, "POST", "/v1/boards/b/execute", `{"code":"`+failing+`","preview":true}`)
	if a := decode(t, data); res.StatusCode != 200 || a["success"] != false || a["preview"] != nil || !strings.Contains(string(data), `"preview": null`) {
		t.Errorf("failed atomic preview: %d %s", res.StatusCode, data)
	}
	res, data = do(t, s, "POST", "/v1/boards/b/execute", `{"code":"`+failing+`","preview":true,"atomic":false}`)
	if p, _ := decode(t, data)["preview"].(map[string]any); res.StatusCode != 200 || p == nil || len(p["changes"].(map[string]any)["added"].([]any)) != 1 {
		t.Errorf("non-atomic preview: %d %s", res.StatusCode, data)
	}
	id := previewOf(t, s, "b", `{"code":"return (await tools.getBoardState({})).count","preview":true}`)["previewId"].(string)
	res, data = do(t, s, "POST", "/v1/boards/b/previews/"+id+"/apply", "")
	if a := decode(t, data); res.StatusCode != 200 || a["version"] != 2.0 {
		t.Errorf("empty apply: %d %s", res.StatusCode, data)
	}
	_, data = do(t, s, "GET", "/v1/boards/b", "")
	if b := decode(t, data); b["undoSteps"] != 1.0 {
		t.Errorf("the empty apply made an undo step: %s", data)
	}
}

// TestPreviewApprovals: in a preview nothing waits for a person: a gated
// whiteboard call runs on the copy without approval_required, and a tool
// that is not read-only is denied without being called, whatever the
// policy.
func TestPreviewApprovals(t *testing.T) {
	var called atomic.Int32
	mail := engine.Tool{
		Name: "mail.send", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: engine.Annotations{DestructiveHint: engine.Bool(false)},
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			called.Add(1)
			return json.RawMessage(`{}`), nil
		},
	}
	// By the default policy deleteObject waits for a person, and
	// mail.send (not destructive) does not.
	s := newTestServer(t, Options{Tools: []engine.Tool{mail}})
	ts, c := serveHTTP(t, s)
	twoStickies(t, s, "b")
	code := `await tools.deleteObject({objectId: 'sticky-1'}); try { await tools.mail.send({}) } catch (e) { return e.code + ': ' + e.message }`
	res := post(t, c, ts.URL+"/v1/boards/b/execute", `{"code":"`+code+`","preview":true}`, "Accept", "text/event-stream")
	defer res.Body.Close()
	sr := newSSEReader(res.Body)
	var end map[string]any
	for end == nil {
		switch ev := next(t, sr); ev.Type {
		case "approval_required":
			t.Fatalf("a preview asked for approval: %s", ev.Data)
		case "run_end":
			end = ev.decode(t)
		}
	}
	result, _ := end["result"].(map[string]any)["result"].(string)
	if !strings.HasPrefix(result, "denied: mail.send was not called: a preview changes nothing") || called.Load() != 0 {
		t.Errorf("result %q, mail.send called %d times", result, called.Load())
	}
	if got := end["preview"].(map[string]any)["changes"].(map[string]any)["deleted"]; !cmp.Equal(got, []any{"sticky-1"}) {
		t.Errorf("deleted %v", got)
	}
	// Outside a preview the same tool runs: the guard is the preview's.
	if res, data := do(t, s, "POST", "/v1/boards/b/batch", `{"operations":[{"tool":"mail.send","args":{}}]}`); res.StatusCode != 200 || called.Load() != 1 {
		t.Errorf("mail.send outside a preview: %d %s, called %d times", res.StatusCode, data, called.Load())
	}
}

// TestPreviewBounds: past MaxPreviews on a board the oldest preview goes;
// previews of a deleted board go with it.
func TestPreviewBounds(t *testing.T) {
	s := newTestServer(t, Options{MaxPreviews: 2})
	twoStickies(t, s, "b")
	twoStickies(t, s, "c")
	body := `{"code":"await tools.createStickyNote({text: 'p', x: 0, y: 0})","preview":true}`
	var ids []string
	for range 3 {
		ids = append(ids, previewOf(t, s, "b", body)["previewId"].(string))
	}
	other := previewOf(t, s, "c", body)["previewId"].(string)
	want := map[string]int{ids[0]: 404, ids[1]: 200, ids[2]: 200}
	for id, status := range want {
		if res, _ := do(t, s, "GET", "/v1/boards/b/previews/"+id, ""); res.StatusCode != status {
			t.Errorf("preview %s: %d, want %d", id, res.StatusCode, status)
		}
	}
	// A preview is found only under its own board.
	if res, _ := do(t, s, "GET", "/v1/boards/b/previews/"+other, ""); res.StatusCode != 404 {
		t.Errorf("board c's preview under b: %d", res.StatusCode)
	}
	if res, _ := do(t, s, "DELETE", "/v1/boards/b", ""); res.StatusCode != 204 {
		t.Fatal(res.StatusCode)
	}
	if n := s.previews.count(); n != 1 {
		t.Errorf("%d previews kept after deleting board b, want c's", n)
	}
}

// TestPreviewBadRequests: a preview only on a board, ids that cannot be,
// the wrong method, a body for apply.
func TestPreviewBadRequests(t *testing.T) {
	s := newTestServer(t, Options{})
	twoStickies(t, s, "b")
	tests := []struct {
		method, path, body string
		status             int
		says               string
	}{
		{"POST", "/v1/execute", `{"code":"return 1","preview":true}`, 400, "preview"},
		{"POST", "/v1/boards/b/execute", `{"code":"return 1","preview":1}`, 400, "preview: want true or false"},
		{"GET", "/v1/boards/b/previews/pv_nope", "", 404, "has no preview"},
		{"GET", "/v1/boards/b/previews/" + strings.Repeat("x", 65), "", 404, "has no preview"},
		{"POST", "/v1/boards/b/previews/pv_nope/apply", `{"force":true}`, 400, "apply takes no parameters"},
		{"POST", "/v1/boards/b/previews/pv_nope/apply", ``, 404, "has no preview"},
		{"POST", "/v1/boards/b/previews/pv_nope", ``, 405, ""},
		{"GET", "/v1/boards/b/previews", ``, 404, "no such endpoint"},
		{"GET", "/v1/boards/b/previews/pv_nope/apply/x", ``, 404, "no such endpoint"},
		{"GET", "/v1/boards/b/svg/x", ``, 404, "no such endpoint"},
		{"POST", "/v1/boards/nope/execute", `{"code":"return 1","preview":true}`, 404, "no board"},
	}
	for _, tt := range tests {
		res, data := do(t, s, tt.method, tt.path, tt.body)
		if res.StatusCode != tt.status || !strings.Contains(string(data), tt.says) {
			t.Errorf("%s %s %s: %d %s", tt.method, tt.path, tt.body, res.StatusCode, data)
		}
	}
}

// TestPreviewsExpire: a preview goes at its TTL, and with it its
// ownership.
func TestPreviewsExpire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ps := newPreviews(time.Minute, 4, 1<<20, 1<<20)
		released := 0
		p := &preview{id: "pv_a", boardID: "b", doc: []byte("{}"), expires: time.Now().Add(time.Minute), release: func() { released++ }}
		ps.add(p)
		time.Sleep(59 * time.Second)
		synctest.Wait()
		if ps.get("b", "pv_a") != p {
			t.Fatal("gone before its TTL")
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if ps.get("b", "pv_a") != nil || released != 1 || ps.count() != 0 {
			t.Fatalf("after its TTL: kept %d, released %d", ps.count(), released)
		}
	})
}

// TestPreviewsBytes: previews weigh their documents and previewOverhead;
// past a board's or the server's bound the oldest go, and close drops
// every one.
func TestPreviewsBytes(t *testing.T) {
	const w = 10 + previewOverhead // what each preview below weighs
	ps := newPreviews(time.Hour, 100, 2*w+5, 3*w+5)
	mk := func(id, board string) *preview {
		return &preview{id: id, boardID: board, doc: make([]byte, 10), expires: time.Now().Add(time.Hour)}
	}
	ps.add(mk("a1", "a"))
	ps.add(mk("a2", "a"))
	ps.add(mk("a3", "a")) // a's bound is two: a1 goes
	if ps.get("a", "a1") != nil || ps.get("a", "a2") == nil {
		t.Fatal("board bound")
	}
	ps.add(mk("b1", "b"))
	ps.add(mk("b2", "b")) // four would pass the server's bound: the oldest (a2) goes
	if ps.get("a", "a2") != nil || ps.get("a", "a3") == nil || ps.count() != 3 {
		t.Fatalf("server bound: %d kept", ps.count())
	}
	ps.forgetBoard("b")
	if ps.count() != 1 || ps.get("a", "a3") == nil {
		t.Fatalf("forgetBoard: %d kept", ps.count())
	}
	ps.close()
	if ps.count() != 0 || ps.add(mk("c", "c")) {
		t.Fatal("close")
	}
}

// BenchmarkPreviewAdd: adding a preview costs the same however many other
// boards keep previews (it once walked them all, under the lock every
// preview request takes).
func BenchmarkPreviewAdd(b *testing.B) {
	board := whiteboard.NewBoard()
	doc, _ := board.MarshalJSON()
	for _, kept := range []int{3000, 30000} {
		b.Run(fmt.Sprintf("kept=%d", kept), func(b *testing.B) {
			ps := newPreviews(time.Hour, 16, 64<<20, 1<<40)
			defer ps.close()
			for i := range kept {
				ps.add(&preview{id: newPreviewID(), boardID: fmt.Sprint("b", i/16), board: board, doc: doc, expires: time.Now().Add(time.Hour)})
			}
			i := 0
			for b.Loop() {
				ps.add(&preview{id: newPreviewID(), boardID: fmt.Sprint("x", i/16), board: board, doc: doc, expires: time.Now().Add(time.Hour)})
				i++
			}
		})
	}
}
