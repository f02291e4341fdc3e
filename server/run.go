package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// runOutcome is what a run gives its handler: a rejection, or the answer.
type runOutcome struct {
	herr   *httpError // rejected before anything ran
	runID  string
	answer any           // the batch or execute result, as the CLI prints it
	board  *boardOutcome // for a board run
	// previewed: a preview run (preview.go), whose answer carries
	// "preview": what it made, or null when it made nothing to apply.
	previewed bool
	preview   *previewJSON
}

// previewField is a preview run's "preview" member; none for a run.
func (o runOutcome) previewField() []field {
	if !o.previewed {
		return nil
	}
	if o.preview == nil {
		return []field{{"preview", json.RawMessage("null")}}
	}
	return []field{{"preview", mustJSON(o.preview)}}
}

// body is the run's answer as sent: the result, and a preview's "preview".
func (o runOutcome) body() any {
	if !o.previewed {
		return o.answer
	}
	return json.RawMessage(withFields(mustJSON(o.answer), o.previewField()...))
}

// boardOutcome is what became of a board run's work: run_end's "board".
type boardOutcome struct {
	Version int64 `json:"version"`
	// Committed: the board is as the run left it (false: rolled back, or
	// the commit failed).
	Committed bool `json:"committed"`
	// Error says why a run that was to be kept was not: the store refused
	// its commit, or the board came out over MaxBoardBytes. The JSON
	// answer is then this error, with status.
	Error  *engine.Error `json:"error,omitempty"`
	status int
}

// failure is the error a run is answered with: its rejection, or the
// commit that was refused; nil for a run answered with its result.
func (o runOutcome) failure() *httpError {
	if o.herr != nil {
		return o.herr
	}
	if o.board != nil && o.board.Error != nil {
		return &httpError{status: o.board.status, err: o.board.Error}
	}
	return nil
}

func (s *Server) handleStatelessBatch(w http.ResponseWriter, r *http.Request, _ string) *httpError {
	return s.handleRun(w, r, engine.RunBatch, "")
}

func (s *Server) handleStatelessExecute(w http.ResponseWriter, r *http.Request, _ string) *httpError {
	return s.handleRun(w, r, engine.RunScript, "")
}

func (s *Server) handleBoardBatch(w http.ResponseWriter, r *http.Request, id string) *httpError {
	return s.handleRun(w, r, engine.RunBatch, id)
}

func (s *Server) handleBoardExecute(w http.ResponseWriter, r *http.Request, id string) *httpError {
	return s.handleRun(w, r, engine.RunScript, id)
}

// handleRun runs a batch or a script, on a board or (boardID "") on a fresh
// one thrown away after. The run has a goroutine of its own, so that the
// handler can stream its events as they come, and so that a stream the
// server drops for being too slow does not end the run: it finishes and
// commits all the same. A client that goes away cancels its run.
func (s *Server) handleRun(w http.ResponseWriter, r *http.Request, kind engine.RunKind, boardID string) *httpError {
	data, herr := s.readJSONBody(w, r)
	if herr != nil {
		return herr
	}
	spec, herr := parseRun(kind, data, boardID != "")
	if herr != nil {
		return herr
	}
	if kind == engine.RunBatch {
		// A batch that can never run is answered now, not after a wait
		// for its board that would end in a 503 telling it to try again.
		if err := s.eng.CheckBatch(spec.batch); err != nil {
			return fromEngine(err)
		}
	}
	var lb *liveBoard // the board, also a preview's (which runs on a copy)
	if boardID != "" {
		if lb, herr = s.boards.acquire(r.Context(), boardID); herr != nil {
			return herr
		}
	}
	if herr := s.startRun(); herr != nil {
		s.boards.release(lb)
		return herr
	}
	var sub *subscriber
	if wantsStream(r) {
		sub = newSubscriber(s.queueBytes)
	}
	sink := newSink(lb, sub)
	if spec.preview {
		// Its events are its client's only: its board's watchers must
		// not draw what does not happen.
		sink = newSink(nil, sub)
		sink.previewOf = lb
	}
	ctx, cancelCause := context.WithCancelCause(s.base)
	cancel := func() { cancelCause(nil) }
	sink.cancel = cancelCause
	if sub == nil {
		// A client that hangs up while it waits cancels its run. (A
		// stream's handler tells hanging up from not reading itself.)
		context.AfterFunc(r.Context(), cancel)
	}
	out := make(chan runOutcome, 1)
	go func() {
		// The run is over — its board let go, its count given back —
		// before its answer goes out: a client that runs again at once
		// finds it gone.
		o := func() runOutcome {
			defer s.endRunOf(sink)
			defer cancel()
			defer s.boards.release(lb)
			return s.run(ctx, spec, sink)
		}()
		out <- o
	}()
	if sub == nil {
		return answerRun(w, out, sink)
	}
	return s.streamRun(w, r, sub, out, cancel)
}

// run runs spec and settles its board; it never panics (a panic is logged
// and answered as a 500).
func (s *Server) run(ctx context.Context, spec runSpec, sink *runSink) (o runOutcome) {
	defer func() {
		if p := recover(); p != nil {
			o = s.runPanicked(p, sink, nil)
		}
	}()
	if sink.previewOf != nil {
		return s.runPreview(ctx, spec, sink)
	}
	lb := sink.board
	sink.work = whiteboard.NewBoard()
	var base int64
	if lb != nil {
		unlock, herr := s.lockForRun(ctx, lb, &spec)
		if herr != nil {
			sink.discard()
			return runOutcome{herr: herr}
		}
		defer unlock()
		defer func() { // before unlock: the board's watchers are put right while the run still holds it
			if p := recover(); p != nil {
				o = s.runPanicked(p, sink, lb)
			}
		}()
		sink.work, base = lb.board.Clone(), lb.state.Version
		lb.hub.setWorking(sink.work)
		defer lb.hub.setWorking(nil)
	}
	answer, ok, herr := s.execute(sink.context(ctx), spec)
	if herr != nil {
		sink.discard()
		return runOutcome{herr: herr}
	}
	// The engine is done: what is left (the commit) cannot be canceled, and
	// a cancel from now on is told the run is not running.
	s.deactivate(sink)
	o = runOutcome{runID: sink.runID, answer: answer}
	if lb != nil {
		o.board = s.settle(lb, sink, base, ok || !spec.atomic)
		lb.hub.setWorking(nil) // before the rollback's board event, which a new watcher must not miss
	}
	sink.finish(answer, o.board, nil)
	if lb != nil {
		// Watchers drew the run's changes live: after a rollback they go
		// back, and a change no tool_call_end carried (a call that changed
		// the board after the engine stopped waiting for it) reaches them
		// with the board whole.
		if changed, unsent := sink.boardChanged(); (changed && !o.board.Committed) || unsent {
			lb.hub.publishBoard(lb)
		}
	}
	return o
}

// execute runs spec's batch or script and returns its answer and whether it
// succeeded, or the engine's rejection.
func (s *Server) execute(rctx context.Context, spec runSpec) (answer any, ok bool, herr *httpError) {
	if spec.kind == engine.RunBatch {
		res, err := s.eng.Batch(rctx, spec.batch)
		if err != nil {
			return nil, false, fromEngine(err)
		}
		return res, res.Summary.Successful == res.Summary.Total, nil
	}
	res, err := s.eng.Execute(rctx, spec.exec)
	if err != nil {
		return nil, false, fromEngine(err)
	}
	// The trace cut as the CLI cuts it: the answer is what `codemode run`
	// prints.
	var cut bool
	if res.Calls, cut = s.eng.CapTrace(res.Calls); cut {
		res.Warnings = append(res.Warnings, "the call trace was cut to fit the output limits (records marked truncated)")
	}
	return res, res.Success, nil
}

// runPanicked logs a run's panic and answers it as a 500. The run's work is
// dropped; lb, if the run held its board, gets its committed board sent to
// its watchers, which drew the run's changes live. The caller holds lb's
// lock.
func (s *Server) runPanicked(p any, sink *runSink, lb *liveBoard) runOutcome {
	s.log.Error("server: panic in a run", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	sink.discard()
	if lb != nil {
		lb.hub.setWorking(nil)
		lb.hub.publishBoard(lb)
	}
	return runOutcome{herr: internal(fmt.Errorf("the run failed; the server's log has the details"))}
}

// park takes a run that waits for a client's approval out of the runs
// MaxRuns counts, so that runs parked on a person's decision cannot take
// every place from the runs that work. Up to MaxRuns runs are parked so at
// once; beyond that a run waits keeping its place. The func returned puts
// the run back when its wait is over, even if that makes more than MaxRuns
// under way for a while: a run is never failed for coming back. A run with
// several waits at once is parked once, until the last ends.
func (s *Server) park(k *runSink) (resume func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k.waits++; k.waits == 1 && !k.ended && s.parked < s.maxRuns {
		k.parked = true
		s.parked++
		s.running--
	}
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if k.waits--; k.waits == 0 && k.parked {
			k.parked = false
			s.parked--
			s.running++
		}
	}
}

// endRunOf counts the run out. The engine does not wait for its Approver
// to return, so the run may end before its last wait has resumed it: it is
// resumed here, and parks no more.
func (s *Server) endRunOf(k *runSink) {
	s.deactivate(k)
	k.mu.Lock()
	if k.owned != nil {
		k.owned()
		k.owned = nil
	}
	close(k.over)
	k.mu.Unlock()
	s.mu.Lock()
	k.ended = true
	if k.parked {
		k.parked = false
		s.parked--
		s.running++
	}
	s.mu.Unlock()
	s.endRun()
}

// runHeaders are the headers of a run's answer.
func runHeaders(o runOutcome) http.Header {
	h := http.Header{}
	if o.runID != "" {
		h.Set("Codemode-Run-Id", o.runID)
	}
	setBoardHeaders(h, o.board)
	return h
}

// setBoardHeaders sets the headers that say what became of a board run's
// board (none for a run without a board).
func setBoardHeaders(h http.Header, b *boardOutcome) {
	if b != nil {
		h.Set("Codemode-Board-Version", strconv.FormatInt(b.Version, 10))
		h.Set("Codemode-Board-Committed", strconv.FormatBool(b.Committed))
	}
}

// answerRun sends a run's JSON answer: 200 with the result whether or not
// the run succeeded (the result says), or the rejection. A run that asks
// for approvals has its answer begun at once (answerEarly), so that its
// client learns the run's id while the run waits.
func answerRun(w http.ResponseWriter, out <-chan runOutcome, k *runSink) *httpError {
	var o runOutcome
	select {
	case o = <-out:
	case <-k.asked:
		select {
		case o = <-out: // over already: answered as usual
		default:
			answerEarly(w, out, k)
			return nil
		}
	}
	if o.herr != nil {
		return o.herr
	}
	for k, v := range runHeaders(o) {
		w.Header()[k] = v
	}
	if herr := o.failure(); herr != nil {
		return herr // the run's work was not saved: its result would read as a success
	}
	writeJSON(w, http.StatusOK, o.body())
	return nil
}

// boardTrailers are the headers of a board run's answer that are sent as
// trailers when the answer began before the run ended (answerEarly).
const boardTrailers = "Codemode-Board-Version, Codemode-Board-Committed"

// answerEarly answers a JSON run that waits for approvals: the status (200)
// and Codemode-Run-Id go out at once, while the run waits, so that the
// client can answer POST /v1/runs/{runId}/approvals itself; the result
// follows when the run ends, and a board run's version and commit come as
// trailers. What went wrong after the status was sent (a commit the store
// refused, a run that failed inside the server) is the error object in the
// body, in place of the result.
func answerEarly(w http.ResponseWriter, out <-chan runOutcome, k *runSink) {
	k.mu.Lock()
	runID := k.runID
	k.mu.Unlock()
	h := w.Header()
	h.Set("Codemode-Run-Id", runID)
	if k.board != nil {
		h.Set("Trailer", boardTrailers)
	}
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Accel-Buffering", "no") // a buffering proxy (nginx) would hold these headers back until the run ends
	w.WriteHeader(http.StatusOK)
	http.NewResponseController(w).Flush() // fails only where flushing is unsupported: the answer then comes whole
	o := <-out
	body := o.body()
	if herr := o.failure(); herr != nil {
		body = errorBody(herr)
	}
	// Bounded as every answer is (writeBody): a client that stops reading
	// holds this handler answerWriteTimeout at most.
	rc := http.NewResponseController(w)
	if rc.SetWriteDeadline(time.Now().Add(answerWriteTimeout)) == nil {
		defer rc.SetWriteDeadline(time.Time{})
	}
	w.Write(indented(body))
	setBoardHeaders(h, o.board) // as trailers
}

// streamRun sends a run's events as they come, ending with run_end. The
// answer starts with the first event, so a run rejected before it began is
// still answered with its 4xx. A client that hangs up cancels the run; one
// that stops reading is dropped (its queue overflows, or a write outlasts
// writeTimeout) and the run goes on without it: a slow reader must not
// decide a run's fate, nor stall it.
func (s *Server) streamRun(w http.ResponseWriter, r *http.Request, sub *subscriber, out <-chan runOutcome, cancel func()) *httpError {
	select {
	case <-sub.wake:
	case <-r.Context().Done():
		cancel()
		if o := <-out; o.herr != nil {
			return o.herr
		}
		return nil
	}
	first, closed, dropped := sub.take()
	if len(first) == 0 && closed && !dropped {
		o := <-out
		if o.herr != nil {
			return o.herr
		}
		return internal(fmt.Errorf("run %s ended without events", o.runID))
	}
	h := http.Header{}
	var start struct {
		RunID string `json:"runId"`
	}
	if len(first) > 0 && json.Unmarshal(dataOf(first[0]), &start) == nil && start.RunID != "" {
		h.Set("Codemode-Run-Id", start.RunID)
	}
	startStream(w, h)
	if dropped {
		return nil
	}
	if closed {
		sub.signal() // the wake just taken was the end's: pump sees it after first
	}
	err := s.pump(w, r, sub, first, nil)
	sub.drop() // the run may go on without its client: its events are no longer kept for it
	switch {
	case err == nil, errors.Is(err, errDropped), errors.Is(err, os.ErrDeadlineExceeded):
	default:
		cancel() // hung up (or the connection broke)
	}
	return nil
}

// dataOf is the data line of a frame.
func dataOf(frame []byte) []byte {
	const prefix = "\ndata: "
	for i := 0; i+len(prefix) <= len(frame); i++ {
		if string(frame[i:i+len(prefix)]) == prefix {
			rest := frame[i+len(prefix):]
			for j, c := range rest {
				if c == '\n' {
					return rest[:j]
				}
			}
			return rest
		}
	}
	return nil
}
