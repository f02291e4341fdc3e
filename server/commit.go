package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/strictjson"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// What changes a board — a run, an undo, a redo, a delete — holds its lock,
// so that runs never interleave their changes; each run works on a clone of
// the committed board and, when it is kept, becomes the committed board (and
// one step in the store) at once.

// committed returns the committed board and its state. They are replaced,
// never changed, under lb.mu, so a reader needs the lock only for a moment
// and never waits for a run.
func (lb *liveBoard) committed() (BoardState, *whiteboard.Board) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.state, lb.board
}

// setCommitted replaces the committed board; doc is its document, whose
// length is kept as the board's weight (st.Doc is not kept). lb's lock is
// held, or lb is being loaded.
func (lb *liveBoard) setCommitted(st BoardState, b *whiteboard.Board, doc []byte) {
	st.Doc = nil
	lb.mu.Lock()
	lb.state, lb.board, lb.size = st, b, len(doc)
	lb.mu.Unlock()
}

// weight is the length of the committed board's document: a board in
// memory takes a few times that, whatever else it keeps.
func (lb *liveBoard) weight() int {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.size
}

// lockForRun waits for the board's lock as long as the run itself may take
// (its timeout, or the configured one): a run queued behind others gets its
// turn or a 503 to retry, and never waits for ever. The wait counts against
// the run's timeout: a run that waited is given what is left of it, so that
// a request is answered within its timeout whatever it waited for.
func (s *Server) lockForRun(ctx context.Context, lb *liveBoard, spec *runSpec) (func(), *httpError) {
	cfg := s.eng.Config()
	wait := cfg.Limits.BatchTimeout.D()
	asked := spec.batch.Timeout.D()
	if spec.kind == engine.RunScript {
		wait, asked = cfg.Script.Timeout.D(), spec.exec.Timeout.D()
		if asked == 0 && spec.exec.Limits != nil {
			asked = spec.exec.Limits.Timeout.D()
		}
	}
	if asked > 0 && asked < wait {
		wait = asked
	}
	start := time.Now()
	unlock, herr := s.lockBoard(ctx, lb, wait)
	if herr != nil {
		return nil, herr
	}
	if waited := time.Since(start); waited >= time.Millisecond {
		left := engine.Duration(max(wait-waited, time.Millisecond))
		if spec.kind == engine.RunScript {
			spec.exec.Timeout = left
		} else {
			spec.batch.Timeout = left
		}
	}
	return unlock, nil
}

// lockBoard takes lb's lock, waiting at most wait; a board deleted meanwhile
// is a 404. ctx ends the wait too: the client went away, or the server shuts
// down (then 503, as for any change it refuses then).
func (s *Server) lockBoard(ctx context.Context, lb *liveBoard, wait time.Duration) (func(), *httpError) {
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	gaveUp := func() *httpError {
		if errors.Is(context.Cause(ctx), errShutdownCause) {
			return unavailable("the server is shutting down: board %s was still busy with the changes before this one", quoteID(lb.id))
		}
		if ctx.Err() != nil {
			return unavailable("canceled while waiting for board %s: the client went away", quoteID(lb.id))
		}
		return unavailable("board %s is busy: the runs before this one did not finish within %v", quoteID(lb.id), wait)
	}
	select {
	case lb.lock <- struct{}{}:
	case <-wctx.Done():
		return nil, gaveUp()
	}
	unlock := func() { <-lb.lock }
	if s.cluster != nil && !lb.deleted {
		unlockCluster, herr := s.lockCluster(ctx, wctx, lb, gaveUp)
		if herr != nil {
			unlock()
			return nil, herr
		}
		unlockHere := unlock
		unlock = func() {
			unlockCluster()
			unlockHere()
		}
	}
	if lb.deleted {
		unlock()
		return nil, notFound("no board %s: it was deleted", quoteID(lb.id))
	}
	return unlock, nil
}

// settle commits a run's board (keep) or drops it (a failed run, rolled
// back). A run that changed nothing leaves no undo step: there is nothing
// to undo. A board that came out over MaxBoardBytes is dropped too, and the
// run answered with a 413 (boardTooLarge). lb's lock is held.
func (s *Server) settle(lb *liveBoard, k *runSink, base int64, keep bool) *boardOutcome {
	changed, _ := k.boardChanged()
	st, _ := lb.committed()
	if !keep {
		return &boardOutcome{Version: st.Version, Committed: false}
	}
	if !changed {
		return &boardOutcome{Version: st.Version, Committed: true}
	}
	doc, err := k.work.MarshalJSON()
	if err == nil {
		// Too large: dropped as a failed run is; the committed board is as it was.
		if herr := s.boardTooLarge(doc, "the run's changes were not saved: board "+quoteID(lb.id), "delete objects or shorten texts, then run again"); herr != nil {
			return &boardOutcome{Version: st.Version, Committed: false, Error: herr.err, status: herr.status}
		}
		ctx, cancel := s.storeCtx(context.Background())
		var next BoardState
		next, err = s.store.Commit(ctx, lb.id, Commit{Base: base, Doc: doc, RunID: k.runID})
		cancel()
		if err == nil {
			lb.setCommitted(next, k.work, doc)
			return &boardOutcome{Version: next.Version, Committed: true}
		}
	}
	// Not kept after all: another writer of a shared store got there
	// first, or the store failed. The board is reloaded so that what the
	// server holds is what the store holds, and the answer says the run's
	// work is lost: not a success to a client that reads only its status,
	// nor to one that reads the result's success (commitFailed).
	s.log.Error("server: committing a run failed", "board", lb.id, "run", k.runID, "err", err)
	if fresh, rerr := s.reload(lb); rerr == nil {
		st = fresh
	}
	herr := commitFailed(lb.id, err)
	return &boardOutcome{Version: st.Version, Committed: false, Error: herr.err, status: herr.status}
}

// commitFailed is the answer to a run whose commit the store refused: 409
// when another writer changed the board first (run it again on the board as
// it is now), 404 when the board is gone, 500 when the store failed.
func commitFailed(id string, err error) *httpError {
	const lost = "the run's changes were not saved"
	switch {
	case errors.Is(err, ErrConflict):
		return conflict("%s: board %s changed since the run started (another server committed to it first); run it again on the board as it is now", lost, quoteID(id))
	case errors.Is(err, ErrNotFound):
		return notFound("%s: board %s was deleted while the run ran", lost, quoteID(id))
	case errors.Is(err, ErrUnavailable):
		return unavailable("%s: the board store cannot be reached now: run it again shortly", lost)
	}
	return internal(fmt.Errorf("%s: the board store failed; the server's log has the details", lost))
}

// reload reads lb from the store again; lb's lock is held.
func (s *Server) reload(lb *liveBoard) (BoardState, error) {
	ctx, cancel := s.storeCtx(context.Background())
	defer cancel()
	st, err := s.store.LoadBoard(ctx, lb.id)
	if err != nil {
		return BoardState{}, err
	}
	b, err := parseDoc(st)
	if err != nil {
		return BoardState{}, err
	}
	lb.setCommitted(st, b, st.Doc)
	return st, nil
}

// holdBoard brings board id into memory and takes its lock, as a change
// other than a run does (undo, redo, delete, a preview's apply), waiting for
// a run under way at most boardOpWait; release lets go of both.
func (s *Server) holdBoard(ctx context.Context, id string) (lb *liveBoard, release func(), herr *httpError) {
	lb, herr = s.boards.acquire(ctx, id)
	if herr != nil {
		return nil, nil, herr
	}
	unlock, herr := s.lockBoard(ctx, lb, s.boardOpWait())
	if herr != nil {
		s.boards.release(lb)
		return nil, nil, herr
	}
	return lb, func() {
		unlock()
		s.boards.release(lb)
	}, nil
}

// boardOpWait bounds how long undo, redo and delete wait for a run under way.
func (s *Server) boardOpWait() time.Duration {
	cfg := s.eng.Config()
	return max(cfg.Limits.BatchTimeout.D(), cfg.Script.Timeout.D()) + 5*time.Second
}

func (s *Server) handleUndo(w http.ResponseWriter, r *http.Request, id string) *httpError {
	return s.step(w, r, id, "undo")
}

func (s *Server) handleRedo(w http.ResponseWriter, r *http.Request, id string) *httpError {
	return s.step(w, r, id, "redo")
}

// step undoes or redoes one step: one whole run. The answer, the board
// whole, is written after the board is let go: a client slow to read it
// must not hold up the board's runs.
func (s *Server) step(w http.ResponseWriter, r *http.Request, id, dir string) *httpError {
	if s.shuttingDown() {
		return errShuttingDown()
	}
	data, herr := s.readJSONBody(w, r)
	if herr != nil {
		return herr
	}
	var none struct{}
	if err := strictjson.Decode(data, &none).Err(); err != nil {
		return badRequest("%v (%s takes no parameters: send {} or nothing)", err, dir)
	}
	ctx, done, herr := s.startChange(r)
	if herr != nil {
		return herr
	}
	defer done()
	answer, herr := s.stepLocked(ctx, id, dir)
	if herr != nil {
		return herr
	}
	writeJSON(w, http.StatusOK, answer)
	return nil
}

// stepLocked does step's work holding the board, and returns the answer.
func (s *Server) stepLocked(ctx context.Context, id, dir string) (any, *httpError) {
	lb, release, herr := s.holdBoard(ctx, id)
	if herr != nil {
		return nil, herr
	}
	defer release()
	sctx, cancel := s.storeCtx(ctx)
	defer cancel()
	var st BoardState
	var err error
	if dir == "undo" {
		st, err = s.store.Undo(sctx, id)
	} else {
		st, err = s.store.Redo(sctx, id)
	}
	switch {
	case errors.Is(err, ErrNothingToUndo), errors.Is(err, ErrNothingToRedo):
		return nil, conflict("board %s: nothing to %s", quoteID(id), dir)
	case errors.Is(err, ErrNotFound):
		return nil, notFound("no board %s", quoteID(id))
	case err != nil:
		return nil, s.storeFailed(dir+" of board "+quoteID(id), err)
	}
	b, err := parseDoc(st)
	if err != nil {
		return nil, s.storeFailed(dir+" of board "+quoteID(id), err)
	}
	lb.setCommitted(st, b, st.Doc)
	// Which run's step moved, for a view that shows the run (its timeline
	// marks it taken back, or back again): in the event and the answer.
	answer := stepAnswer{boardJSON: boardBody(lb.committed())} // the committed board is replaced, never changed: encoding it later is safe
	name := "redoneRun"
	if dir == "undo" {
		name, answer.UndoneRun = "undoneRun", st.StepRunID
	} else {
		answer.RedoneRun = st.StepRunID
	}
	var extra []field
	if st.StepRunID != "" {
		extra = append(extra, field{name, mustJSON(st.StepRunID)})
	}
	lb.hub.publishBoard(lb, extra...)
	return answer, nil
}

// stepAnswer is an undo's or redo's answer: the board, and the run whose
// step was taken back or brought back (none for a board's first state).
type stepAnswer struct {
	boardJSON
	UndoneRun string `json:"undoneRun,omitempty"`
	RedoneRun string `json:"redoneRun,omitempty"`
}

// handleDeleteBoard deletes a board once the run under way on it, if any,
// is over; its watchers get board_deleted and their streams end.
func (s *Server) handleDeleteBoard(w http.ResponseWriter, r *http.Request, id string) *httpError {
	ctx, done, herr := s.startChange(r)
	if herr != nil {
		return herr
	}
	defer done()
	lb, release, herr := s.holdBoard(ctx, id)
	if herr != nil {
		return herr
	}
	defer release()
	sctx, cancel := s.storeCtx(ctx)
	defer cancel()
	switch err := s.store.DeleteBoard(sctx, id); {
	case errors.Is(err, ErrNotFound):
		return notFound("no board %s", quoteID(id))
	case err != nil:
		return s.storeFailed(fmt.Sprintf("deleting board %s", quoteID(id)), err)
	}
	lb.deleted = true
	s.boards.forget(lb)
	s.previews.forgetBoard(id)
	lb.hub.end("board_deleted", mustJSON(map[string]string{"boardId": id}))
	w.WriteHeader(http.StatusNoContent)
	return nil
}
