package server

import (
	"fmt"
	"slices"
	"testing"
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
