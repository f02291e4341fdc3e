package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/internal/pgtest"
	"github.com/codemode-dev/codemode/server"
)

// A log idle for longer than the retention loses its events, keeps where
// it stands, and logs on from there; a log whose holder is in a change
// (dirty) or that was appended to within the retention keeps them. The
// logs are made old by moving their last append back an hour, not by
// waiting: the test does not depend on how fast the machine is.
func TestSweep(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, pgtest.URL(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The cluster's own sweeps (a day's retention) leave these logs alone.
	c, err := s.Join(ctx, ClusterOptions{LogRetention: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	events := func(from, to uint64) []server.LoggedEvent {
		var out []server.LoggedEvent
		for i := from; i <= to; i++ {
			out = append(out, server.LoggedEvent{Seq: i, Type: "t", Data: []byte(`{}`)})
		}
		return out
	}
	logged := func(id string, from, to uint64, unlock bool) server.BoardLock {
		k, err := c.Lock(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Append(ctx, events(from, to)); err != nil {
			t.Fatal(err)
		}
		if unlock {
			if err := k.Unlock(ctx, to, 1, false); err != nil {
				t.Fatal(err)
			}
		}
		return k
	}
	age := func(ids ...string) {
		if _, err := s.pool.Exec(ctx, `UPDATE codemode_board_logs SET appended = now() - interval '2 hours' WHERE board_id = ANY($1)`, ids); err != nil {
			t.Fatal(err)
		}
	}
	logged("idle", 1, 5, true)
	busy := logged("busy", 1, 3, false)
	logged("fresh", 1, 2, true)
	if n, err := c.sweep(ctx, time.Hour); err != nil || n != 0 {
		t.Fatalf("sweeping logs younger than the retention: %d events deleted, %v", n, err)
	}
	age("idle", "busy")
	if n, err := c.sweep(ctx, time.Hour); err != nil || n != 5 {
		t.Fatalf("sweep: %d events deleted, %v; want idle's 5", n, err)
	}
	for _, tt := range []struct {
		id   string
		seq  uint64
		kept int
	}{{"idle", 5, 0}, {"busy", 3, 3}, {"fresh", 2, 2}} {
		st, evs, err := c.Log(ctx, tt.id, 0)
		if err != nil || st.Seq != tt.seq || len(evs) != tt.kept {
			t.Errorf("%s after the sweep: %+v, %d events, %v; want seq %d and %d events", tt.id, st, len(evs), err, tt.seq, tt.kept)
		}
	}
	busy.Unlock(ctx, 3, 1, false)
	// The swept log goes on from where it stood.
	logged("idle", 6, 7, true)
	if st, evs, err := c.Log(ctx, "idle", 0); err != nil || st.Seq != 7 || len(evs) != 2 || evs[0].Seq != 6 {
		t.Errorf("idle after two more events: %+v, %v, %v", st, evs, err)
	}
	if n, err := c.sweep(ctx, time.Hour); err != nil || n != 3 {
		t.Errorf("sweeping again: %d events deleted, %v; want busy's 3, unlocked now", n, err)
	}
	age("idle", "fresh")
	if n, err := c.sweep(ctx, time.Hour); err != nil || n != 2+2 {
		t.Errorf("sweeping idle's 2 events and fresh's 2: %d deleted, %v", n, err)
	}
}

// A negative retention is refused; zero is the default.
func TestLogRetentionOption(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, pgtest.URL(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Join(ctx, ClusterOptions{LogRetention: -time.Second}); err == nil {
		t.Error("a negative LogRetention was accepted")
	}
	c, err := s.Join(ctx, ClusterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.retention != DefaultLogRetention {
		t.Errorf("retention %v, want %v", c.retention, DefaultLogRetention)
	}
}
