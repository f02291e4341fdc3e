package pgstore_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/internal/pgtest"
	"github.com/codemode-dev/codemode/server"
	"github.com/codemode-dev/codemode/server/clustertest"
	"github.com/codemode-dev/codemode/server/pgstore"
)

// TestCluster holds the PostgreSQL cluster to the conformance suite: three
// replicas, each with a Store and a membership of its own, over one
// database.
func TestCluster(t *testing.T) {
	clustertest.Run(t, func(t *testing.T, n int) []clustertest.Member {
		url := pgtest.URL(t)
		var ms []clustertest.Member
		for range n {
			s := open(t, url, pgstore.Options{})
			c, err := s.Join(ctx, pgstore.ClusterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			ms = append(ms, clustertest.Member{Store: s, Cluster: c})
		}
		return ms
	})
}

// TestAppend: events go in only after the log's last (a holder that lost
// its place appends nothing), and the log keeps its latest events.
func TestAppend(t *testing.T) {
	s := open(t, pgtest.URL(t), pgstore.Options{})
	c, err := s.Join(ctx, pgstore.ClusterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	k, err := c.Lock(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	ev := func(from, to uint64) []server.LoggedEvent {
		var out []server.LoggedEvent
		for i := from; i <= to; i++ {
			out = append(out, server.LoggedEvent{Seq: i, Type: "t", Data: []byte(`{}`)})
		}
		return out
	}
	if err := k.Append(ctx, ev(1, 2)); err != nil {
		t.Fatal(err)
	}
	if err := k.Append(ctx, ev(5, 6)); err == nil {
		t.Error("events 5 and 6 appended after 2")
	}
	if st, evs, err := c.Log(ctx, "b", 0); err != nil || st.Seq != 2 || len(evs) != 2 {
		t.Fatalf("after a refused append: %+v, %d events, %v", st, len(evs), err)
	}
	for from := uint64(3); from < 1500; from += 100 {
		if err := k.Append(ctx, ev(from, from+99)); err != nil {
			t.Fatal(err)
		}
	}
	st, evs, err := c.Log(ctx, "b", 0)
	if err != nil || st.Seq != 1502 || len(evs) < 1024 || len(evs) > 1024+100 || evs[len(evs)-1].Seq != 1502 || evs[0].Seq != 1502-uint64(len(evs))+1 {
		t.Errorf("after 1502 events: %+v, %d kept (%d to %d), %v", st, len(evs), evs[0].Seq, evs[len(evs)-1].Seq, err)
	}
	if err := k.Unlock(ctx, 1502, 7, false); err != nil {
		t.Fatal(err)
	}
	if k2, err := c.Lock(ctx, "b"); err != nil || k2.State().Version != 7 || k2.State().Settled != 1502 || k2.State().Dirty {
		t.Errorf("the next lock: %+v, %v", k2.State(), err)
	} else {
		k2.Unlock(ctx, 1502, 7, false)
	}
}

// TestLogOfNewBoardRaced: replicas reading a board's log for the first
// time at once (two watchers opening a new board on two replicas) each get
// its epoch. The log's row is made by whichever reads first; one statement
// that lost the race to insert it used to find no row in its snapshot and
// return an empty epoch without an error, which the server then took for a
// board deleted and made again.
func TestLogOfNewBoardRaced(t *testing.T) {
	url := pgtest.URL(t)
	var cs []*pgstore.Cluster
	for range 2 {
		c, err := open(t, url, pgstore.Options{}).Join(ctx, pgstore.ClusterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		cs = append(cs, c)
	}
	for i := range 300 {
		id := fmt.Sprintf("new-%d", i)
		var epochs [4]string
		var errs [4]error
		var wg sync.WaitGroup
		for j := range epochs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				st, _, err := cs[j%2].Log(ctx, id, 0)
				epochs[j], errs[j] = st.Epoch, err
			}()
		}
		wg.Wait()
		for j := range epochs {
			if errs[j] != nil || epochs[j] == "" || epochs[j] != epochs[0] {
				t.Fatalf("board %s's log read at once four times: epochs %q, errors %v", id, epochs, errs)
			}
		}
	}
}
