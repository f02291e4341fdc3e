package server

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// sinkKey is the context key of a run's sink.
type sinkKey struct{}

// runSink is where one run's events go: the stream of the client that
// started it (if it asked for one) and the streams of its board's watchers.
// The engine has one observer for all runs and passes it the run's context,
// so the server puts each run's sink into that context and routes by it:
// runs never see each other's events, however many run at once.
//
// It also collects the board changes the whiteboard's tools report
// (whiteboard.WithChanges) and hands each to its call's tool_call_end, and it
// holds two events back: run_start until the run is known to go ahead (the
// engine starts a batch's run before it rejects a malformed one, which then
// answers 400 and streams nothing), and run_end until the run's board work is
// settled, so that it can carry the result and the commit.
type runSink struct {
	board *liveBoard        // nil for a stateless run, and a preview's
	work  *whiteboard.Board // the board the run works on
	sub   *subscriber       // the POST stream; nil for a JSON answer
	// previewOf is a preview run's board (preview.go), whose copy it works
	// on; nil for a run.
	previewOf *liveBoard

	mu      sync.Mutex
	runID   string
	start   *engine.Event // run_start, held
	started bool          // run_start has been sent
	end     *engine.Event // the engine's run_end, held
	changes map[string]whiteboard.Change
	changed bool // a call of the run changed the board
	lost    bool // an event failed to go out (Server.observe recovered a panic)

	// waits counts the run's approval waits under way, parked says it gave
	// its place among the runs MaxRuns counts up meanwhile (Server.park),
	// ended that it is over; s.mu guards them.
	waits  int
	parked bool
	ended  bool

	// owned lets go of the run's ownership in the cluster (Server.ownRun),
	// ownTimer makes it (Server.activate); guarded by mu.
	owned    func()
	ownTimer *time.Timer

	// cancel ends the run, saying why (POST /v1/runs/{runId}/cancel, a
	// client that went away); over is closed, under mu, once the run is
	// over (endRunOf): a run that is over is owned no more.
	cancel context.CancelCauseFunc
	over   chan struct{}

	// asked gets a token when the run asks for approvals, for a JSON
	// answer's handler: it then sends its headers with the run's id at
	// once (answerRun). nil for a stream.
	asked chan struct{}
}

func newSink(lb *liveBoard, sub *subscriber) *runSink {
	k := &runSink{board: lb, sub: sub, over: make(chan struct{})}
	if sub == nil {
		k.asked = make(chan struct{}, 1)
	}
	return k
}

// isOver reports whether the run is over (endRunOf). k.mu is held.
func (k *runSink) isOver() bool {
	select {
	case <-k.over:
		return true
	default:
		return false
	}
}

func sinkFrom(ctx context.Context) *runSink {
	k, _ := ctx.Value(sinkKey{}).(*runSink)
	return k
}

// context returns ctx carrying the sink, the run's board and the change
// recorder.
func (k *runSink) context(ctx context.Context) context.Context {
	ctx = whiteboard.NewContext(ctx, k.work)
	ctx = whiteboard.WithChanges(ctx, k.record)
	return context.WithValue(ctx, sinkKey{}, k)
}

// record keeps a call's board change for its tool_call_end, which the engine
// emits after the handler (and so record) has returned.
func (k *runSink) record(ctx context.Context, c whiteboard.Change) {
	info, _ := engine.CallFromContext(ctx)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.changed = true
	if k.changes == nil {
		k.changes = make(map[string]whiteboard.Change)
	}
	k.changes[info.CallID] = c
}

// listened reports whether anyone may read the run's events.
func (k *runSink) listened() bool { return k.sub != nil || k.board != nil }

// observe takes one of the run's events from the engine.
func (k *runSink) observe(ev engine.Event) {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch ev.Type {
	case engine.EventRunStart:
		k.runID = ev.RunID
		k.start = &ev
		return
	case engine.EventRunEnd:
		k.end = &ev
		return
	}
	k.sendStart()
	c, changed := k.changes[ev.CallID]
	if ev.Type == engine.EventToolCallEnd && changed {
		delete(k.changes, ev.CallID)
	}
	var seen func(uint64)
	if ev.Type == engine.EventApprovalRequired && k.previewOf != nil {
		return // decided at once, by nobody (Server.approve): nothing to show
	}
	if ev.Type == engine.EventApprovalRequired {
		if k.asked != nil {
			select {
			case k.asked <- struct{}{}:
			default:
			}
		}
		if k.board != nil {
			approvals := k.board.hub.s.approvals
			seen = func(seq uint64) { approvals.announce(ev, seq) }
		}
	}
	if !k.listened() {
		return
	}
	k.send(string(ev.Type), func() []byte {
		if ev.Type == engine.EventToolCallEnd && changed {
			return withFields(eventJSON(ev), field{"change", k.changeJSON(c)})
		}
		return eventJSON(ev)
	}, seen)
}

// changeJSON is a tool_call_end's "change": the objects the call created or
// modified (in their state after it), the ids it removed, and the objects'
// SVG fragments, each exactly the <g> the board's SVG has for it, so that a
// client inserts or replaces it as is.
func (k *runSink) changeJSON(c whiteboard.Change) json.RawMessage {
	return mustJSON(struct {
		whiteboard.Change
		SVG map[string]string `json:"svg,omitempty"`
	}{c, k.work.ChangeSVG(c)})
}

// sendStart sends the held run_start, once, before any other event.
func (k *runSink) sendStart() {
	if k.started || k.start == nil {
		return
	}
	k.started = true
	if k.listened() {
		k.send(string(engine.EventRunStart), func() []byte { return eventJSON(*k.start) }, nil)
	}
}

// send delivers one event to the run's stream and its board's watchers
// (these with the board's id). build makes the event's data, only if
// someone is there to read it: a board nobody watches costs its runs no
// encoding, no SVG. seen, if set, gets the event's seq on the board's
// stream (hub.publishSeen). k.mu is held, so that both see the run's events in
// one order.
func (k *runSink) send(typ string, build func() []byte, seen func(seq uint64)) {
	var data []byte
	once := func() []byte {
		if data == nil {
			data = build()
		}
		return data
	}
	if k.sub != nil {
		k.sub.push(frame("", typ, once()))
	}
	if k.board != nil {
		k.board.hub.publishSeen(typ, func() []byte { return withFields(once(), field{"boardId", jsonString(k.board.id)}) }, seen)
	}
}

// finish sends run_end with the run's result and, for a board run, what
// became of its work (and a preview's extra, its "preview"); then the
// client's stream ends.
func (k *runSink) finish(result any, board *boardOutcome, extra []field) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.sendStart()
	if k.end != nil && k.listened() {
		k.send(string(engine.EventRunEnd), func() []byte {
			fields := []field{{"result", mustJSON(result)}}
			if board != nil {
				fields = append(fields, field{"board", mustJSON(board)})
			}
			return withFields(eventJSON(*k.end), append(fields, extra...)...)
		}, nil)
	}
	if k.sub != nil {
		k.sub.close()
	}
}

// discard ends a run that was rejected before it ran: nothing of it is sent.
func (k *runSink) discard() {
	if k.sub != nil {
		k.sub.close()
	}
}

// boardChanged reports whether any call of the run changed its board, and
// whether some change reached no tool_call_end (a call that changed the board
// after the engine stopped waiting for it, or an event lost to a panic):
// watchers then need the board whole.
func (k *runSink) boardChanged() (changed, unsent bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.changed, len(k.changes) > 0 || k.lost
}

// lose records that one of the run's events did not go out.
func (k *runSink) lose() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.lost = true
}

// observe is the engine's one observer: it opens a set of approvals for
// POST /v1/runs/{runId}/approvals to answer before the set reaches the
// Approver (so no answer can come too early), and routes the event to its
// run's sink. Runs without a sink (started on Engine() directly) are not
// the server's to report.
//
// It runs on the engine's goroutines, outside any handler's recover: a
// panic here (a bug in encoding a change or drawing its SVG) is recovered
// and logged with its stack, the event is lost for the run's stream and its
// board's watchers, and the run goes on; once it is over, its board's
// watchers get the board whole (as after a rollback), so that what they
// draw is right again.
func (s *Server) observe(ctx context.Context, ev engine.Event) {
	k := sinkFrom(ctx)
	if k == nil {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("server: panic reporting a run's event", "runId", ev.RunID, "event", string(ev.Type),
				"callId", ev.CallID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			k.lose()
		}
	}()
	if ev.Type == engine.EventApprovalRequired && k.previewOf == nil {
		boardID := ""
		if k.board != nil {
			boardID = k.board.id
		}
		s.approvals.open(boardID, ev)
		s.ownRun(k)
	}
	if ev.Type == engine.EventRunStart {
		s.activate(k, ev.RunID)
		if k.board != nil {
			k.board.hub.setRunning(ev.RunID)
		}
	}
	k.observe(ev)
}
