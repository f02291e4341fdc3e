package engine

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
)

// run is one batch, step of tool calls, script or direct call: it owns the
// run id, the start time and event emission.
type run struct {
	eng   *Engine
	id    string
	kind  RunKind
	start time.Time

	// waited is how long the run's approval sets have waited for the
	// Approver, summed: Config.ApprovalTimeout bounds it (approve).
	approvalMu sync.Mutex
	waited     time.Duration
}

func (e *Engine) startRun(ctx context.Context, kind RunKind) *run {
	r := &run{eng: e, kind: kind, start: time.Now()}
	r.id = newRunID()
	r.emit(ctx, Event{Type: EventRunStart, Kind: kind})
	return r
}

// newRunID returns "run_" and 13 base-36 digits: fixed width, so ids line
// up in logs and are easy to match.
func newRunID() string {
	id := strconv.FormatUint(rand.Uint64(), 36)
	return "run_" + strings.Repeat("0", 13-len(id)) + id
}

// finish emits run_end; err is nil for a run that succeeded.
func (r *run) finish(ctx context.Context, err *Error) {
	r.emit(ctx, Event{Type: EventRunEnd, Kind: r.kind, Success: err == nil, Error: err, ElapsedMS: ms(time.Since(r.start))})
}

// emit stamps and delivers an event; without observers it costs nothing.
// An observer's panic is recovered and logged (Observer).
func (r *run) emit(ctx context.Context, ev Event) {
	if r.eng.obs == nil {
		return
	}
	ev.RunID = r.id
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	r.eng.bound(&ev)
	observe(ctx, r.eng.obs, ev) // a panicking observer loses the event, the run goes on
}

// observed reports whether events are being delivered, so hot paths can skip
// building them.
func (r *run) observed() bool { return r.eng.obs != nil }
