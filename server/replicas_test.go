package server

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRunOnBoardMadeAgainAfterWatch: a replica whose watcher of a board
// left moments ago (it may come back to resume) runs on the board after
// another replica deleted it and made it again, at the same version as the
// old one here. The run is on the new board: catching the watchers up with
// the new log as the lock is taken must not hide from the lock that the
// board is another one (its copy here is the old board's, the notices of
// A's changes not yet come).
func TestRunOnBoardMadeAgainAfterWatch(t *testing.T) {
	a, b := twoReplicas(t)
	mustDo(t, a, 201, "POST", "/v1/boards", `{"id":"m"}`)
	mustDo(t, b, 200, "POST", "/v1/boards/m/batch", batchOf(sticky("old", 0)))
	lb := b.boards.peek("m")
	if lb == nil {
		t.Fatal("board m is not in B's memory after B's run")
	}
	lb.hub.mu.Lock()
	lb.hub.left = time.Now() // a watcher of B's left: it may come back
	lb.hub.mu.Unlock()
	makeAgain(t, a, "m")
	lb.stale.Store(false) // the notices of A's changes are still on their way to B (PostgreSQL's come a moment later)
	mustDo(t, b, 200, "POST", "/v1/boards/m/batch", batchOf(sticky("from B", 300)))
	wantNewFromB(t, a, "m")
}

// TestRunOnBoardMadeAgainUnlogged: a replica that only read a board (its
// copy loaded, its log never read) runs on it after another replica deleted
// it and made it again at the same version, the notices of that not yet
// come. The run is on the new board, not on the old copy committed over it.
func TestRunOnBoardMadeAgainUnlogged(t *testing.T) {
	a, b := twoReplicas(t)
	mustDo(t, a, 201, "POST", "/v1/boards", `{"id":"m"}`)
	mustDo(t, a, 200, "POST", "/v1/boards/m/batch", batchOf(sticky("old", 0)))
	mustDo(t, b, 200, "GET", "/v1/boards/m", "")
	makeAgain(t, a, "m")
	b.boards.peek("m").stale.Store(false) // the notices of A's changes are still on their way to B
	mustDo(t, b, 200, "POST", "/v1/boards/m/batch", batchOf(sticky("from B", 300)))
	wantNewFromB(t, a, "m")
}

// TestRunOnBoardMadeAgainWatchedMeanwhile: as TestRunOnBoardMadeAgainAfterWatch,
// but a watcher comes to the replica while its run waits for the cluster's
// lock (the run holds the board's lock here, so the watcher's catch-up with
// the new log cannot load the board again). The run is still on the new
// board: what the hub follows says nothing of what the copy of the board is.
func TestRunOnBoardMadeAgainWatchedMeanwhile(t *testing.T) {
	a, b := twoReplicas(t)
	mustDo(t, a, 201, "POST", "/v1/boards", `{"id":"m"}`)
	mustDo(t, b, 200, "POST", "/v1/boards/m/batch", batchOf(sticky("old", 0)))
	makeAgain(t, a, "m")
	lb := b.boards.peek("m")
	lb.stale.Store(false) // the notices of A's changes are still on their way to B
	// The watcher's catch-up, as B's run (its board acquired before)
	// waits for the cluster's lock.
	if err := b.syncHub(t.Context(), lb); err != nil {
		t.Fatal(err)
	}
	lb.stale.Store(false) // the run acquired the board before: no refresh for it
	mustDo(t, b, 200, "POST", "/v1/boards/m/batch", batchOf(sticky("from B", 300)))
	wantNewFromB(t, a, "m")
}

// TestApprovalsNotJSONInCluster: a body that is not JSON, posted for a run
// to a replica of a cluster, is a 400 as on a server alone: nothing to
// forward (it used to panic encoding the forwarded request: a 500).
func TestApprovalsNotJSONInCluster(t *testing.T) {
	alone := newTestServer(t, Options{})
	s := newTestServer(t, Options{Cluster: NewMemoryCluster().Join()})
	for _, body := range []string{`{`, `{"decisions":[}`, `[1,`, "\x00"} {
		want, wantBody := do(t, alone, "POST", "/v1/runs/run_0000000000001/approvals", body)
		res, data := do(t, s, "POST", "/v1/runs/run_0000000000001/approvals", body)
		if res.StatusCode != 400 || res.StatusCode != want.StatusCode || string(data) != string(wantBody) {
			t.Errorf("posting %q: %d %s; alone: %d %s", body, res.StatusCode, data, want.StatusCode, wantBody)
		}
	}
}

// failingLog is a member of a cluster whose log cannot be read while fail
// is set (its database connection is failing), though its lock can be
// taken.
type failingLog struct {
	Cluster
	fail atomic.Bool
}

func (f *failingLog) Log(ctx context.Context, id string, after uint64) (LogState, []LoggedEvent, error) {
	if f.fail.Load() {
		return LogState{}, nil, errors.New("the log cannot be read now")
	}
	return f.Cluster.Log(ctx, id, after)
}

// watchedOnFailingB makes two replicas, B's log reads failing while bm.fail
// is set, and board g made on A with a watcher on B (q, of B's lb), let go
// when the test ends.
func watchedOnFailingB(t *testing.T) (a, b *Server, bm *failingLog, lb *liveBoard, q *subscriber) {
	t.Helper()
	store, cluster := NewMemoryStore(), NewMemoryCluster()
	a = newTestServer(t, Options{Store: store, Cluster: cluster.Join()})
	bm = &failingLog{Cluster: cluster.Join()}
	b = newTestServer(t, Options{Store: store, Cluster: bm})
	mustDo(t, a, 201, "POST", "/v1/boards", `{"id":"g"}`)
	lb, herr := b.boards.acquire(t.Context(), "g")
	if herr != nil {
		t.Fatal(herr.err)
	}
	t.Cleanup(func() { b.boards.release(lb) })
	if herr := b.watchFromCluster(t.Context(), lb); herr != nil {
		t.Fatal(herr.err)
	}
	q, herr = lb.hub.subscribe("", lb.committed)
	if herr != nil {
		t.Fatal(herr.err)
	}
	t.Cleanup(func() { lb.hub.unsubscribe(q) })
	return a, b, bm, lb, q
}

// TestWatcherMissedEventsSentBoard: a watcher on B whose replica could not
// read the log of A's run (so it missed the run's events) is sent the board
// whole when B's own run takes the lock and jumps to the log's end, not
// left without A's changes.
func TestWatcherMissedEventsSentBoard(t *testing.T) {
	a, b, bm, lb, q := watchedOnFailingB(t)
	bm.fail.Store(true)
	if res, data := do(t, a, "POST", "/v1/boards/g/batch", batchOf(sticky("from A", 0))); res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, data)
	}
	for { // B's catch-up with A's run, which fails
		lb.hub.mu.Lock()
		syncing := lb.hub.syncing
		lb.hub.mu.Unlock()
		if !syncing {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if res, data := do(t, b, "POST", "/v1/boards/g/batch", batchOf(sticky("from B", 300))); res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, data)
	}
	q.mu.Lock()
	frames := bytes.Join(q.frames, nil)
	q.mu.Unlock()
	if !bytes.Contains(frames, []byte(`"from A"`)) {
		t.Errorf("B's watcher was never sent A's change:\n%s", frames)
	}
}

// TestWatcherCatchesUpAfterFailedRead: a watcher on B whose replica could
// not read the log when told of A's run gets the run once the log can be
// read again, without another change to the board.
func TestWatcherCatchesUpAfterFailedRead(t *testing.T) {
	a, _, bm, lb, q := watchedOnFailingB(t)
	bm.fail.Store(true)
	mustDo(t, a, 200, "POST", "/v1/boards/g/batch", batchOf(sticky("from A", 0)))
	for { // B's catch-up with A's run, which fails
		lb.hub.mu.Lock()
		done := !lb.hub.syncing && lb.hub.retry > 0
		lb.hub.mu.Unlock()
		if done {
			break
		}
		time.Sleep(time.Millisecond)
	}
	bm.fail.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	for {
		q.mu.Lock()
		frames := bytes.Join(q.frames, nil)
		q.mu.Unlock()
		if bytes.Contains(frames, []byte(`"from A"`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("B's watcher was not sent A's run within 10 s of the log being readable again:\n%s", frames)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWatcherOfOldCopySentBoardMadeAgain: a watcher that came to B while
// B's run waited for the lock was sent B's copy of the board, which is the
// old board's (deleted and made again on A, the notices not yet come). As
// the run takes the lock and loads the new board, the watcher is sent it
// whole: its view is not left on the deleted board's objects.
func TestWatcherOfOldCopySentBoardMadeAgain(t *testing.T) {
	a, b := twoReplicas(t)
	mustDo(t, a, 201, "POST", "/v1/boards", `{"id":"m"}`)
	mustDo(t, b, 200, "POST", "/v1/boards/m/batch", batchOf(sticky("old", 0)))
	makeAgain(t, a, "m")
	lb := b.boards.peek("m")
	lb.stale.Store(false) // the notices of A's changes are still on their way to B
	// The watcher's catch-up and subscription, as B's run (its board
	// acquired before) waits for the cluster's lock: no refresh for it.
	if err := b.syncHub(t.Context(), lb); err != nil {
		t.Fatal(err)
	}
	lb.stale.Store(false)
	q, herr := lb.hub.subscribe("", lb.committed)
	if herr != nil {
		t.Fatal(herr.err)
	}
	defer lb.hub.unsubscribe(q)
	mustDo(t, b, 200, "POST", "/v1/boards/m/batch", batchOf(sticky("from B", 300)))
	q.mu.Lock()
	frames := q.frames
	q.mu.Unlock()
	var last []byte
	for _, f := range frames {
		if bytes.Contains(f, []byte("event: board\n")) {
			last = f
		}
	}
	if !bytes.Contains(last, []byte(`"new"`)) || bytes.Contains(last, []byte(`"old"`)) {
		t.Errorf("the last board B's watcher was sent: %s", last)
	}
}

// mustDo sends a request to s and fails the test unless it is answered
// with status want.
func mustDo(t *testing.T, s *Server, want int, method, path, body string) {
	t.Helper()
	if res, data := do(t, s, method, path, body); res.StatusCode != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, res.StatusCode, data, want)
	}
}

// twoReplicas is two servers sharing a memory store and cluster.
func twoReplicas(t *testing.T) (a, b *Server) {
	store, cluster := NewMemoryStore(), NewMemoryCluster()
	a = newTestServer(t, Options{Store: store, Cluster: cluster.Join()})
	b = newTestServer(t, Options{Store: store, Cluster: cluster.Join()})
	return a, b
}

// makeAgain deletes board id through s, makes it again and runs once on
// it (a sticky "new"): the new board is at the version the old one had.
func makeAgain(t *testing.T, s *Server, id string) {
	t.Helper()
	mustDo(t, s, 204, "DELETE", "/v1/boards/"+id, "")
	mustDo(t, s, 201, "POST", "/v1/boards", `{"id":"`+id+`"}`)
	mustDo(t, s, 200, "POST", "/v1/boards/"+id+"/batch", batchOf(sticky("new", 0)))
}

// wantNewFromB checks that the board made again holds the new board's sticky
// and B's run on it, not the old board's.
func wantNewFromB(t *testing.T, s *Server, id string) {
	t.Helper()
	if got := strings.Join(getTexts(t, s, id), ","); got != "new,from B" {
		t.Errorf("the board made again, after B's run: %q, want %q", got, "new,from B")
	}
}
