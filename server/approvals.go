package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/codemode-dev/codemode/engine"
)

// approvals parks the sets of calls waiting for a person, by run id, until
// POST /v1/runs/{runId}/approvals decides every call of a set (in one post
// or several), or the engine's approval timeout ends the wait (and denies
// the set). A set is parked when its approval_required event goes out and
// leaves when the Approver's wait ends.
type approvals struct {
	mu   sync.Mutex
	runs map[string][]*approvalSet
}

// approvalSet is one set the engine sent the Approver: its requests as the
// approval_required event showed them, and the decisions so far.
type approvalSet struct {
	runID     string
	boardID   string       // the board the run is on; "" for a run without one
	event     engine.Event // the approval_required event, for watchers that come later
	reqs      []engine.ApprovalRequest
	decisions map[string]engine.Decision // by call id
	done      chan struct{}              // closed once every call is decided
	// announced is the seq of the event on its board's stream once the
	// board's hub has published it (0 before): a watcher that subscribes
	// after that is sent the set's undecided calls (pendingOn).
	announced uint64
}

func newApprovals() *approvals {
	return &approvals{runs: make(map[string][]*approvalSet)}
}

// open parks a set as its approval_required event goes out, before any
// client can answer it; boardID is the run's board ("" for none).
func (a *approvals) open(boardID string, ev engine.Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.runs[ev.RunID] = append(a.runs[ev.RunID], &approvalSet{
		runID: ev.RunID, boardID: boardID, event: ev, reqs: slices.Clone(ev.Approvals),
		decisions: make(map[string]engine.Decision, len(ev.Approvals)), done: make(chan struct{}),
	})
}

// announce notes that a set's approval_required event went out on its
// board's stream as event seq. The board's hub calls it under its lock, so
// that every watcher either got the event or will be sent the set when it
// subscribes (pendingOn), never both and never neither.
func (a *approvals) announce(ev engine.Event, seq uint64) {
	if len(ev.Approvals) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if set := a.find(ev.RunID, ev.Approvals[0].CallID); set != nil {
		set.announced = seq
	}
}

// announcedSet is a set waiting on a board, as a watcher that comes later
// is sent it: its approval_required event listing the calls still
// undecided, and the seq of the event that announced it.
type announcedSet struct {
	seq   uint64
	event engine.Event
}

// pendingOn returns the sets of runs on board id that were announced on its
// stream and still have undecided calls, oldest first. The board's hub
// calls it under its lock.
func (a *approvals) pendingOn(id string) []announcedSet {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []announcedSet
	for _, sets := range a.runs {
		for _, set := range sets {
			if set.boardID != id || set.announced == 0 {
				continue
			}
			if undecided := set.undecided(); len(undecided) > 0 {
				ev := set.event
				ev.Approvals = undecided
				out = append(out, announcedSet{set.announced, ev})
			}
		}
	}
	slices.SortFunc(out, func(x, y announcedSet) int { return cmp.Compare(x.seq, y.seq) })
	return out
}

// undecided returns the set's calls not decided yet, in the order asked.
// a.mu is held.
func (set *approvalSet) undecided() []engine.ApprovalRequest {
	var out []engine.ApprovalRequest
	for _, r := range set.reqs {
		if _, ok := set.decisions[r.CallID]; !ok {
			out = append(out, r)
		}
	}
	return out
}

// find returns the run's open set whose first call is callID. a.mu is held.
func (a *approvals) find(runID, callID string) *approvalSet {
	for _, set := range a.runs[runID] {
		if len(set.reqs) > 0 && set.reqs[0].CallID == callID {
			return set
		}
	}
	return nil
}

// remove takes a set off its run. a.mu is held.
func (a *approvals) remove(set *approvalSet) {
	list := slices.DeleteFunc(a.runs[set.runID], func(x *approvalSet) bool { return x == set })
	if len(list) == 0 {
		delete(a.runs, set.runID)
	} else {
		a.runs[set.runID] = list
	}
}

// wait is the Approver's side: it waits until the set of reqs is decided
// or ctx (bounded by the engine's approval timeout) ends.
func (a *approvals) wait(ctx context.Context, runID string, reqs []engine.ApprovalRequest) ([]engine.Decision, error) {
	if len(reqs) == 0 {
		return nil, nil
	}
	a.mu.Lock()
	set := a.find(runID, reqs[0].CallID)
	a.mu.Unlock()
	if set == nil {
		return nil, fmt.Errorf("no client can be asked about run %s", runID)
	}
	// The set stays parked until here, even when decided before the
	// Approver asked (a quick client), and leaves with the wait.
	defer func() {
		a.mu.Lock()
		a.remove(set)
		a.mu.Unlock()
	}()
	select {
	case <-set.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]engine.Decision, len(reqs))
	for i, r := range reqs {
		out[i] = set.decisions[r.CallID]
	}
	return out, nil
}

// has reports whether the run is this server's and has sets of calls
// parked (decided or not).
func (a *approvals) has(runID string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.runs[runID]) > 0
}

// pending returns the run's undecided requests, in the order they were
// asked; false if it has none.
func (a *approvals) pending(runID string) ([]engine.ApprovalRequest, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []engine.ApprovalRequest
	for _, set := range a.runs[runID] {
		out = append(out, set.undecided()...)
	}
	return out, len(out) > 0
}

// decision is one answer of POST /v1/runs/{runId}/approvals.
type decision struct {
	CallID   string `json:"callId"`
	Approved *bool  `json:"approved"`
	Reason   string `json:"reason,omitempty"`
}

// errNoApprovals: the run has nothing waiting (404).
var errNoApprovals = errors.New("no calls waiting")

// decide records decisions for a run's pending calls: all of them or, if
// any names a call that is not pending or the request had problems of its
// own (invalid), none; problems lists each call id's. A set whose every call
// is decided resumes. It returns the call ids still undecided.
func (a *approvals) decide(runID string, ds []decision, invalid bool) (pending []string, problems []string, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	owner := make(map[string]*approvalSet)
	for _, set := range a.runs[runID] {
		for _, r := range set.undecided() {
			owner[r.CallID] = set
		}
	}
	if len(owner) == 0 {
		return nil, nil, errNoApprovals
	}
	seen := make(map[string]bool)
	for i, d := range ds {
		switch {
		case d.CallID == "":
		case seen[d.CallID]:
			problems = append(problems, fmt.Sprintf("decisions[%d].callId: %s is decided twice in this request", i, quoteID(d.CallID)))
		case owner[d.CallID] == nil:
			problems = append(problems, fmt.Sprintf("decisions[%d].callId: call %s of run %s is not waiting for approval", i, quoteID(d.CallID), runID))
		}
		seen[d.CallID] = true
	}
	if len(problems) > 0 || invalid {
		return nil, problems, nil
	}
	for _, d := range ds {
		set := owner[d.CallID]
		set.decisions[d.CallID] = engine.Decision{Approved: *d.Approved, Reason: d.Reason}
		if len(set.decisions) == len(set.reqs) {
			close(set.done)
		}
	}
	for _, set := range a.runs[runID] {
		for _, r := range set.undecided() {
			pending = append(pending, r.CallID)
		}
	}
	return pending, nil, nil
}

// approve is the engine's Approver: the set waits, parked under its run's
// id, for clients to decide it. A run the server did not start (one started
// on Engine() directly) has no client to ask: its set is denied.
func (s *Server) approve(ctx context.Context, reqs []engine.ApprovalRequest) ([]engine.Decision, error) {
	k := sinkFrom(ctx)
	if k == nil {
		return nil, errors.New("this run was not started through the HTTP API, so no client can approve its calls")
	}
	if k.previewOf != nil {
		// Nothing a preview does is real: the whiteboard's calls change
		// only its copy, and another tool that may act outside it refuses
		// in a preview (guardForPreview).
		ds := make([]engine.Decision, len(reqs))
		for i := range ds {
			ds[i].Approved = true
		}
		return ds, nil
	}
	k.mu.Lock()
	runID := k.runID
	k.mu.Unlock()
	defer s.park(k)()
	return s.approvals.wait(ctx, runID, reqs)
}
