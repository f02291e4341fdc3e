package server

import (
	"github.com/codemode-dev/codemode/tools/whiteboard"
	"testing"
	"time"
)

// TestHubBuildsOnlyForWatchers: events of a board nobody watches (or has
// watched for resumeGrace) are not made; while a watcher may come back
// they are, and kept.
func TestHubBuildsOnlyForWatchers(t *testing.T) {
	s := newTestServer(t, Options{})
	h := newHub(s, "b")
	built := 0
	build := func() []byte { built++; return []byte(`{}`) }
	h.publish("log", build)
	if built != 0 || len(h.ring) != 0 || h.seq != 1 {
		t.Fatalf("never watched: built %d, ring %d, seq %d", built, len(h.ring), h.seq)
	}
	q, herr := h.subscribe("", func() (BoardState, *whiteboard.Board) { return BoardState{}, whiteboard.NewBoard() })
	if herr != nil {
		t.Fatal(herr)
	}
	h.publish("log", build)
	h.unsubscribe(q)
	h.publish("log", build) // the watcher may come back: kept
	if built != 2 || len(h.ring) != 2 {
		t.Fatalf("watched: built %d, ring %d", built, len(h.ring))
	}
	if _, ok := h.resumable(h.eventID(2)); !ok {
		t.Error("a recent id does not resume")
	}
	h.left = time.Now().Add(-s.resumeGrace - time.Second)
	h.publish("log", build)
	if built != 2 || len(h.ring) != 0 {
		t.Fatalf("left long ago: built %d, ring %d", built, len(h.ring))
	}
	if _, ok := h.resumable(h.eventID(2)); ok {
		t.Error("an id from before a gap resumes")
	}
	if _, ok := h.resumable(h.eventID(4)); !ok {
		t.Error("the latest id does not resume")
	}
}
