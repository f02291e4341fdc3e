package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// watchBoard opens a board's event stream.
func watchBoard(t *testing.T, c *http.Client, url, id string, header ...string) (*http.Response, *sseReader) {
	t.Helper()
	res := get(t, c, url+"/v1/boards/"+id+"/events", header...)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		res.Body.Close()
		t.Fatalf("watch %s: %d %s", id, res.StatusCode, res.Header.Get("Content-Type"))
	}
	t.Cleanup(func() { res.Body.Close() })
	return res, newSSEReader(res.Body)
}

func next(t *testing.T, sr *sseReader) sseEvent {
	t.Helper()
	ev, err := sr.next()
	if err != nil {
		t.Fatalf("reading an event: %v", err)
	}
	return ev
}

// TestBoardStream: a watcher gets the board, then every run's events with
// the board's id and an id of their own, each change with its objects and
// SVG fragments, and a board event after a rollback, an undo and a redo.
func TestBoardStream(t *testing.T) {
	s := newTestServer(t, Options{})
	ts, c := serveHTTP(t, s)
	twoStickies(t, s, "b")
	_, sr := watchBoard(t, c, ts.URL, "b")
	first := next(t, sr)
	b := first.decode(t)
	if first.Type != "board" || b["boardId"] != "b" || b["version"] != 2.0 || len(b["objects"].([]any)) != 2 ||
		!strings.HasPrefix(b["svg"].(string), "<svg") || !regexp.MustCompile(`^[0-9a-z]+-6$`).MatchString(first.ID) {
		// -6: the id of the board's latest event, the last of the run
		// that made the two stickies.
		t.Fatalf("first event: %+v", first)
	}
	epoch, _, _ := strings.Cut(first.ID, "-")
	seq := 6
	// A run by another client: its events reach the watcher.
	res, body := do(t, s, "POST", "/v1/boards/b/batch", batchOf(sticky("three", 600)))
	if res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	var got []string
	for ev := next(t, sr); ; ev = next(t, sr) {
		got = append(got, ev.Type)
		d := ev.decode(t)
		if d["boardId"] != "b" {
			t.Errorf("%s without boardId", ev.Type)
		}
		if seq++; ev.ID != fmt.Sprintf("%s-%d", epoch, seq) {
			t.Errorf("%s id %q, want %s-%d", ev.Type, ev.ID, epoch, seq)
		}
		if ev.Type == "tool_call_end" {
			var ch struct {
				Change struct {
					Objects []struct{ ID, Text string }
					SVG     map[string]string
				}
			}
			json.Unmarshal([]byte(ev.Data), &ch)
			if len(ch.Change.Objects) != 1 || ch.Change.Objects[0].Text != "three" ||
				!strings.HasPrefix(ch.Change.SVG[ch.Change.Objects[0].ID], `<g data-id="sticky-3"`) {
				t.Errorf("change %s", ev.Data)
			}
		}
		if ev.Type == "run_end" {
			if br := d["board"].(map[string]any); br["version"] != 3.0 || br["committed"] != true {
				t.Errorf("run_end board %v", br)
			}
			break
		}
	}
	if want := []string{"run_start", "tool_call_start", "tool_call_end", "run_end"}; !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	// A failed run: its changes were drawn live, so a board event follows.
	do(t, s, "POST", "/v1/boards/b/execute", `{"code":"await tools.createStickyNote({text:'gone',x:0,y:900}); throw new Error('no')"}`)
	untilEvent(t, sr, "run_end")
	if ev := next(t, sr); ev.Type != "board" || len(ev.decode(t)["objects"].([]any)) != 3 {
		t.Errorf("after a rollback: %s %s", ev.Type, ev.Data)
	}
	for _, op := range []string{"undo", "redo"} {
		do(t, s, "POST", "/v1/boards/b/"+op, "")
		ev := next(t, sr)
		if n := len(ev.decode(t)["objects"].([]any)); ev.Type != "board" || (op == "undo") != (n == 2) {
			t.Errorf("after %s: %s with %d objects", op, ev.Type, n)
		}
	}
}

// TestResume: Last-Event-ID of an event still kept replays what followed;
// an unknown, foreign or too old id gets the board whole.
func TestResume(t *testing.T) {
	s := newTestServer(t, Options{})
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	res, sr := watchBoard(t, c, ts.URL, "b")
	next(t, sr) // board
	do(t, s, "POST", "/v1/boards/b/batch", batchOf(sticky("a", 0)))
	start := next(t, sr)
	rest := []sseEvent{next(t, sr), next(t, sr), next(t, sr)}
	res.Body.Close()
	do(t, s, "POST", "/v1/boards/b/batch", batchOf(sticky("b", 300)))

	_, sr2 := watchBoard(t, c, ts.URL, "b", "Last-Event-ID", start.ID)
	var replay []sseEvent
	for range 3 + 4 {
		replay = append(replay, next(t, sr2))
	}
	if !slices.Equal(replay[:3], rest) {
		t.Errorf("replay:\n%v\nwant\n%v", replay[:3], rest)
	}
	if got := types(replay[3:]); !slices.Equal(got, []string{"run_start", "tool_call_start", "tool_call_end", "run_end"}) {
		t.Errorf("then %q", got)
	}
	// Up to date: nothing to replay, and nothing sent until something happens.
	_, sr3 := watchBoard(t, c, ts.URL, "b", "Last-Event-ID", replay[6].ID)
	do(t, s, "POST", "/v1/boards/b/undo", "")
	if ev := next(t, sr3); ev.Type != "board" || ev.decode(t)["version"] != 4.0 {
		t.Errorf("up to date, then undo: %s %s", ev.Type, ev.Data)
	}
	epoch, _, _ := strings.Cut(start.ID, "-")
	for _, id := range []string{"nonsense", "0-1", epoch + "-99", epoch + "-x"} {
		_, sr := watchBoard(t, c, ts.URL, "b", "Last-Event-ID", id)
		if ev := next(t, sr); ev.Type != "board" {
			t.Errorf("Last-Event-ID %q: %s", id, ev.Type)
		}
	}
	// Past the ring: the board whole.
	h := s.boards.boards["b"].hub
	h.mu.Lock()
	h.ring = h.ring[len(h.ring)-2:] // as if ringBytes had let the rest go
	h.mu.Unlock()
	_, sr4 := watchBoard(t, c, ts.URL, "b", "Last-Event-ID", start.ID)
	if ev := next(t, sr4); ev.Type != "board" {
		t.Errorf("an id past the ring: %s", ev.Type)
	}
}

// TestBoardDeleted: watchers get board_deleted, then their stream ends.
func TestBoardDeleted(t *testing.T) {
	s := newTestServer(t, Options{})
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	_, sr := watchBoard(t, c, ts.URL, "b")
	next(t, sr)
	if res, _ := do(t, s, "DELETE", "/v1/boards/b", ""); res.StatusCode != 204 {
		t.Fatal(res.StatusCode)
	}
	if ev := next(t, sr); ev.Type != "board_deleted" || ev.Data != `{"boardId":"b"}` {
		t.Errorf("%s %s", ev.Type, ev.Data)
	}
	if ev, err := sr.next(); err == nil {
		t.Errorf("the stream goes on: %v", ev)
	}
}

// TestHeartbeat: an idle stream gets a comment now and then.
func TestHeartbeat(t *testing.T) {
	s := newTestServer(t, Options{})
	s.heartbeat = 20 * time.Millisecond
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	_, sr := watchBoard(t, c, ts.URL, "b")
	next(t, sr)
	time.Sleep(150 * time.Millisecond)
	do(t, s, "POST", "/v1/boards/b/batch", batchOf(sticky("a", 0)))
	if ev := next(t, sr); ev.Type != "run_start" {
		t.Errorf("%s", ev.Type)
	}
	if sr.comments < 2 {
		t.Errorf("%d heartbeats in 150 ms at a 20 ms interval", sr.comments)
	}
}
