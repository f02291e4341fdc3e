package server

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func liveIDs(s *Server) []string {
	s.boards.mu.Lock()
	defer s.boards.mu.Unlock()
	var ids []string
	for id := range s.boards.boards {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// TestEvict: idle boards beyond the cap leave memory, least recently used
// first; a watched board stays; a board that left is loaded again, and ids
// of its events from before do not resume.
func TestEvict(t *testing.T) {
	s := newTestServer(t, Options{})
	s.boards.maxIdle = 2
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "watched")
	_, sr := watchBoard(t, c, ts.URL, "watched")
	next(t, sr)
	for i := range 4 {
		id := fmt.Sprintf("b%d", i)
		createBoard(t, s, id)
		if res, body := do(t, s, "POST", "/v1/boards/"+id+"/batch", batchOf(sticky(id, 0))); res.StatusCode != 200 {
			t.Fatalf("%d %s", res.StatusCode, body)
		}
	}
	if got, want := liveIDs(s), []string{"b2", "b3", "watched"}; !slices.Equal(got, want) {
		t.Errorf("in memory %q, want %q", got, want)
	}
	// b0 comes back from the store as it was.
	if got := getTexts(t, s, "b0"); !slices.Equal(got, []string{"b0"}) {
		t.Errorf("b0 reloaded: %q", got)
	}
	if got, want := liveIDs(s), []string{"b0", "b3", "watched"}; !slices.Equal(got, want) {
		t.Errorf("in memory %q, want %q", got, want)
	}
	// An id of the watched board's first stay does not resume a later one.
	old := s.boards.boards["watched"].hub.eventID(0)
	s.boards.mu.Lock()
	delete(s.boards.boards, "watched") // as if it had been evicted
	s.boards.mu.Unlock()
	_, sr2 := watchBoard(t, c, ts.URL, "watched", "Last-Event-ID", old)
	if ev := next(t, sr2); ev.Type != "board" || ev.ID == old {
		t.Errorf("resuming %s on a new stay: %s %s", old, ev.Type, ev.ID)
	}
}

// docBytes is the length of a board's document in the store.
func docBytes(t *testing.T, s *Server, id string) int {
	t.Helper()
	st, err := s.store.LoadBoard(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return len(st.Doc)
}

// TestHostileIdleBoardBytes: idle boards are let go once their documents
// together pass the bound in bytes, well within the count, least recently
// used first; one let go comes back from the store on its next use.
func TestHostileIdleBoardBytes(t *testing.T) {
	s := newTestServer(t, Options{})
	for i := range 4 {
		createBigBoard(t, s, fmt.Sprintf("big%d", i), 20)
	}
	size := docBytes(t, s, "big0")
	s.boards.maxIdleBytes = size*5/2 + 1
	for i := range 3 {
		if got := getTexts(t, s, fmt.Sprintf("big%d", i)); len(got) != 20 {
			t.Fatalf("big%d: %d objects", i, len(got))
		}
	}
	if got, want := liveIDs(s), []string{"big1", "big2"}; !slices.Equal(got, want) {
		t.Errorf("in memory %q, want %q (3 boards of %d bytes over a bound of %d)", got, want, size, s.boards.maxIdleBytes)
	}
	if got := getTexts(t, s, "big0"); len(got) != 20 {
		t.Errorf("big0 back from the store: %d objects", len(got))
	}
	if got, want := liveIDs(s), []string{"big0", "big2"}; !slices.Equal(got, want) {
		t.Errorf("in memory %q, want %q", got, want)
	}
}

// keptBy reports how many events a hub keeps for resuming, and whether it
// keeps a drawing of its board.
func keptBy(h *hub) (events, bytes int, drawn bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.ring), h.bytes, h.drawn != nil
}

// TestHostileRingFades: the events a board keeps for resuming (and its
// drawing) are let go once resumeGrace has passed since its last watcher
// left, with nothing else happening on the board.
func TestHostileRingFades(t *testing.T) {
	s := newTestServer(t, Options{})
	s.resumeGrace = 100 * time.Millisecond
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	res, sr := watchBoard(t, c, ts.URL, "b")
	next(t, sr)
	if res, body := do(t, s, "POST", "/v1/boards/b/batch", bigBatch(20)); res.StatusCode != 200 {
		t.Fatalf("%d %.300s", res.StatusCode, body)
	}
	for ev := next(t, sr); ev.Type != "run_end"; ev = next(t, sr) {
	}
	s.boards.mu.Lock()
	h := s.boards.boards["b"].hub
	s.boards.mu.Unlock()
	if n, _, _ := keptBy(h); n == 0 {
		t.Fatal("nothing kept for resuming while watched")
	}
	res.Body.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, bytes, drawn := keptBy(h)
		if n == 0 && bytes == 0 && !drawn {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s after the last watcher left (grace %v): %d events (%d bytes) kept, drawing kept %v", s.resumeGrace, n, bytes, drawn)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
