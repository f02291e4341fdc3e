package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
)

// What a server does as one replica of a cluster (Options.Cluster): see
// Cluster, and docs/design.md "Many replicas".

// lockCluster takes lb's lock across the cluster once this replica's is
// held (wctx bounds the wait, ctx is the request's), makes this replica the
// board's writer, and brings its copy of the board up to date: loaded again
// if another replica changed it, and sent whole to the watchers if the last
// holder died mid-change. unlock appends what is left of the events,
// records where the board stands and lets the lock go.
func (s *Server) lockCluster(ctx, wctx context.Context, lb *liveBoard, wait func() *httpError) (unlock func(), herr *httpError) {
	bl, err := s.cluster.Lock(wctx, lb.id)
	if err != nil {
		if wctx.Err() != nil {
			return nil, wait()
		}
		s.log.Error("server: taking a board's lock in the cluster failed", "board", lb.id, "err", err)
		return nil, unavailable("board %s: the cluster's database cannot be reached now: try again shortly", quoteID(lb.id))
	}
	return s.tookLock(ctx, lb, bl)
}

// tookLock is lockCluster once bl is held.
func (s *Server) tookLock(ctx context.Context, lb *liveBoard, bl BoardLock) (unlock func(), herr *httpError) {
	st := bl.State()
	h := lb.hub
	// The copy here was checked against no log (loaded, never changed
	// here), or another: the log's version cannot vouch for it, since a
	// board deleted and made again elsewhere can be at the old one's
	// version. (Not the hub's epoch: a watcher's catch-up follows a new
	// log without loading the board while a change holds it here.)
	unchecked := lb.checked != st.Epoch
	if h.watched() {
		// What other replicas logged since, for the watchers here (a
		// notice may still be on its way); nobody watching, the hub just
		// jumps to the log's seq (take).
		sctx, cancel := s.storeCtx(ctx) // bounded as every store call: the run waits on it
		if err := s.syncHub(sctx, lb); err != nil {
			s.log.Warn("server: reading a board's log failed; its watchers here are sent the board whole", "board", lb.id, "err", err)
		}
		cancel()
	}
	w := newAppender(bl, lb.id, s.log, s.storeTimeout)
	newLog, missed := h.take(w, st.LogState)
	unlock = func() {
		seq := h.leave()
		last, ok := w.close()
		committed, _ := lb.committed()
		version := committed.Version
		if !ok || last != seq {
			version = 0 // the log lacks events: the next holder loads the board and sends it whole
		}
		uctx, cancel := s.storeCtx(context.Background())
		defer cancel()
		if err := bl.Unlock(uctx, min(seq, last), version, lb.deleted); err != nil {
			s.log.Error("server: letting a board's lock in the cluster go failed", "board", lb.id, "err", err)
		}
	}
	var cur BoardState
	cur, _ = lb.committed()
	if !(newLog || missed || unchecked || st.Dirty || st.Version == 0 || st.Version != cur.Version) {
		lb.stale.Store(false) // the lock's word: the copy is the board (no one else changes it now)
		return unlock, nil
	}
	lb.checked = ""
	fresh, err := s.reload(lb)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			lb.deleted = true // the lock is held: lockBoard answers 404
			s.boards.forget(lb)
			return unlock, nil
		}
		unlock()
		return nil, s.storeFailed("loading board "+quoteID(lb.id), err)
	}
	lb.stale.Store(false)
	lb.checked = st.Epoch
	// A log that lacks events (not a new one), watchers here that missed
	// some (this replica could not read the log), or a copy that was
	// another board of the id (deleted and made again elsewhere; watchers
	// here may have been sent it): the board whole.
	if st.Dirty || (st.Version == 0 && st.Seq > 0) || missed || !fresh.Created.Equal(cur.Created) {
		lb.hub.publishBoard(lb)
	}
	return unlock, nil
}

// openCheckEvery is how often a replica whose watchers saw another
// replica's change begin, and not end, checks on it: the log's Settled
// behind its Seq says a change is open (or just ended: Unlock announces
// nothing). A holder that died leaves its lock free and its log dirty, and
// nobody else may want the board for long: the replica that finds it so
// takes the lock, which sends the board whole to every replica's watchers
// (tookLock) in place of the dead change's half. A check is a log read, and
// a TryLock while the log stays open.
const openCheckEvery = 2 * time.Second

// checkOpenLater arms a check of lb's log if another replica's change is
// open in it and watchers here were shown it. h.mu is held.
func (s *Server) checkOpenLater(lb *liveBoard) {
	h := lb.hub
	if h.checking || len(h.subs) == 0 || h.writer != nil || h.settled >= h.seq {
		return
	}
	h.checking = true
	time.AfterFunc(openCheckEvery, func() { s.checkOpen(lb) })
}

// checkOpen reads lb's log again and, if the change in it is still open
// and nobody holds the board's lock, takes the lock: the last holder died.
// Armed again while the change stays open.
func (s *Server) checkOpen(lb *liveBoard) {
	h := lb.hub
	if !s.addSync() { // shutting down
		return
	}
	defer s.syncs.Done()
	defer func() {
		h.mu.Lock()
		h.checking = false
		s.checkOpenLater(lb)
		h.mu.Unlock()
	}()
	ctx, cancel := s.storeCtx(context.Background())
	defer cancel()
	if err := s.syncHub(ctx, lb); err != nil {
		s.log.Warn("server: reading a board's log failed", "board", lb.id, "err", err)
		return
	}
	h.mu.Lock()
	open := len(h.subs) > 0 && h.writer == nil && h.settled < h.seq
	h.mu.Unlock()
	if !open {
		return
	}
	select {
	case lb.lock <- struct{}{}:
	default: // a change here is under way: its lock finds the log as it is
		return
	}
	defer func() { <-lb.lock }()
	if lb.deleted {
		return
	}
	bl, err := s.cluster.TryLock(ctx, lb.id)
	if err != nil {
		if !errors.Is(err, ErrBoardLocked) { // else: the holder lives
			s.log.Warn("server: checking on a board's lock in the cluster failed", "board", lb.id, "err", err)
		}
		return
	}
	if unlock, herr := s.tookLock(ctx, lb, bl); herr == nil {
		unlock()
	}
}

// noticed is the cluster's notice that board id's log is at seq: this
// replica's copy of the board may be behind, and its watchers are sent
// what they missed. An id of "" is every board.
func (s *Server) noticed(id string, seq uint64) {
	if id == "" {
		for _, lb := range s.boards.all() {
			lb.stale.Store(true)
			s.syncLater(lb)
		}
		return
	}
	lb := s.boards.peek(id)
	if lb == nil || !lb.hub.behind(seq) {
		return
	}
	lb.stale.Store(true)
	s.syncLater(lb)
}

// syncLater catches lb's watchers up with the board's log, in a goroutine
// of its own, one at a time per board; nothing when nobody watches here
// (whoever comes next catches up as it subscribes).
func (s *Server) syncLater(lb *liveBoard) {
	h := lb.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.subs) == 0 {
		return
	}
	if h.syncing {
		h.again = true
		return
	}
	if !s.addSync() {
		return
	}
	h.syncing = true
	go func() {
		defer s.syncs.Done()
		for {
			ctx, cancel := s.storeCtx(context.Background())
			err := s.syncHub(ctx, lb)
			cancel()
			if err != nil {
				s.log.Warn("server: reading a board's log failed; tried again shortly", "board", lb.id, "err", err)
			}
			h.mu.Lock()
			if !h.again {
				h.syncing = false
				if err != nil { // no notice may come again: the watchers would wait for the next change
					h.retry = min(max(2*h.retry, syncRetry), syncRetryMax)
					time.AfterFunc(h.retry, func() { s.syncLater(lb) })
				} else {
					h.retry = 0
				}
				h.mu.Unlock()
				return
			}
			h.again = false
			h.mu.Unlock()
		}
	}()
}

// syncRetry is how long a catch-up with a board's log that failed waits
// before it is tried again, doubling up to syncRetryMax while it fails (the
// database away): a replica's watchers are not left behind until the next
// change of the board.
const (
	syncRetry    = 500 * time.Millisecond
	syncRetryMax = 8 * time.Second
)

// addSync counts a catch-up or a check in, unless Shutdown waits for them
// already (a notice can still come in while it does). syncLater calls it
// holding h.mu: hub.mu comes before s.mu.
func (s *Server) addSync() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.syncsOver {
		return false
	}
	s.syncs.Add(1)
	return true
}

// syncHub reads lb's log after the hub's last event and delivers what came
// since to the watchers here. A log that is another than the one the hub
// followed means the board was deleted (and maybe made again): its streams
// end with board_deleted and the board leaves memory.
func (s *Server) syncHub(ctx context.Context, lb *liveBoard) error {
	h := lb.hub
	h.mu.Lock()
	if h.writer != nil {
		h.mu.Unlock()
		return nil
	}
	after := h.seq
	if !h.logged {
		after = 0
	}
	h.mu.Unlock()
	st, evs, err := s.cluster.Log(ctx, lb.id, after)
	if err != nil {
		return err
	}
	h.mu.Lock()
	if h.writer != nil { // this replica took the lock meanwhile: it writes the log now
		h.mu.Unlock()
		return nil
	}
	deleted := h.logged && st.Epoch != h.epoch
	n := 0
	switch {
	case deleted && len(h.subs) == 0:
		// Nobody here watched the old board to the end: nobody to tell
		// of it. The hub follows the new log from where it stands (the
		// board may have been made again: a watcher on the way is sent
		// it, not board_deleted), and the copy is loaded again, or found
		// gone (refresh).
		deleted = false
		h.epoch, h.seq, h.settled = st.Epoch, st.Seq, st.Settled
		h.letGo()
		lb.stale.Store(true)
	case deleted:
		h.endAt(h.seq+1, "board_deleted", mustJSON(map[string]string{"boardId": lb.id}))
	default:
		n, deleted = h.ingest(st, evs)
		if !deleted {
			s.checkOpenLater(lb)
		}
	}
	h.mu.Unlock()
	if deleted {
		s.boards.forget(lb)
	}
	if n > 0 {
		lb.stale.Store(true)
	}
	return nil
}

// refresh loads lb again if the cluster told of changes to it since it was
// loaded; not while a change of this replica's holds it (that change brings
// it up to date as it takes the cluster's lock).
func (s *Server) refresh(lb *liveBoard) *httpError {
	select {
	case lb.lock <- struct{}{}:
	default:
		return nil
	}
	defer func() { <-lb.lock }()
	if !lb.stale.Swap(false) {
		return nil
	}
	if _, err := s.reload(lb); err != nil {
		lb.stale.Store(true)
		if errors.Is(err, ErrNotFound) {
			s.boards.forget(lb)
			return notFound("no board %s", quoteID(lb.id))
		}
		return s.storeFailed("loading board "+quoteID(lb.id), err)
	}
	return nil
}

// watchFromCluster brings lb up to date before a watcher subscribes on this
// replica: the log's events since the hub's last, and the committed board as
// the store has it now (read after the log, so that it holds at least every
// change up to the log's Settled).
func (s *Server) watchFromCluster(ctx context.Context, lb *liveBoard) *httpError {
	sctx, cancel := s.storeCtx(ctx)
	defer cancel()
	if err := s.syncHub(sctx, lb); err != nil {
		s.log.Error("server: reading a board's log failed", "board", lb.id, "err", err)
		return unavailable("board %s: the cluster's database cannot be reached now: try again shortly", quoteID(lb.id))
	}
	return s.refresh(lb)
}

// forwarded is a request about a run sent to the replica that runs it, and
// its answer.
type forwarded struct {
	Method string          `json:"method"`
	Op     string          `json:"op,omitempty"`    // "cancel", "preview.get|discard|apply"; "" is the run's approvals
	Board  string          `json:"board,omitempty"` // a preview's
	Body   json.RawMessage `json:"body,omitempty"`
}

type forwardedAnswer struct {
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
}

// forwardApprovals answers a request about a run's approvals that this
// replica does not run, by the replica that does; false if none does.
func (s *Server) forwardApprovals(w http.ResponseWriter, r *http.Request, runID string, body []byte) (bool, *httpError) {
	if s.cluster == nil {
		return false, nil
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	out, err := s.cluster.Forward(ctx, runID, mustJSON(forwarded{Method: r.Method, Body: body}))
	if errors.Is(err, ErrNoOwner) {
		return false, nil
	}
	return true, s.answerForwarded(w, runID, out, err)
}

// serveForwarded answers a request forwarded by another replica about a run
// of this one's, as this replica's own handler would.
func (s *Server) serveForwarded(ctx context.Context, runID string, req []byte) []byte {
	var f forwarded
	var answer any
	var herr *httpError
	status := http.StatusOK
	if err := json.Unmarshal(req, &f); err != nil {
		herr = badRequest("a forwarded request that is not JSON: %v", err)
	} else if f.Op == "cancel" {
		status, answer, herr = s.cancelRun(ctx, runID)
	} else if op, ok := strings.CutPrefix(f.Op, "preview."); ok {
		status, answer, herr = s.previewLocal(ctx, f.Board, runID, op)
	} else if f.Method == http.MethodPost {
		answer, herr = s.decideApprovals(runID, f.Body)
	} else {
		answer, herr = s.pendingApprovals(runID)
	}
	if herr != nil {
		return mustJSON(forwardedAnswer{Status: herr.status, Body: mustJSON(errorBody(herr))})
	}
	if status == http.StatusNoContent {
		return mustJSON(forwardedAnswer{Status: status})
	}
	return mustJSON(forwardedAnswer{Status: status, Body: indented(answer)})
}

// ownRun makes this replica the one that answers for k's run in the
// cluster, once: its calls wait for approval, which a client may post to
// any replica. The run's end lets it go (endRunOf).
func (s *Server) ownRun(k *runSink) {
	if s.cluster == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.owned != nil || k.runID == "" || k.isOver() {
		return
	}
	ctx, cancel := s.storeCtx(context.Background())
	defer cancel()
	release, err := s.cluster.Own(ctx, k.runID)
	if err != nil {
		s.log.Error("server: registering a run in the cluster failed; its approvals can be posted to this replica only", "run", k.runID, "err", err)
		return
	}
	k.owned = release
}
