package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// A call's handler runs inline, on the goroutine that invoked it. Limits
// still hold for a handler that ignores its context: when the call's deadline
// passes (its timer) or the run's context ends (its scope) while the handler
// is still running, the call is rescued — completed at that moment as timeout
// or canceled, its context canceled, and the goroutine stuck in the handler
// written off; the completer hands that goroutine's further work to another.
// Exactly one of the handler's return and a rescue completes a call.

// completer receives the outcome of call i, exactly once. rescued means the
// goroutine that ran the call is stuck in its handler: whatever it was to do
// next must be handed to another goroutine.
type completer interface {
	complete(i int, out outcome, rescued bool)
}

// scope watches one context for a group of inline calls (a batch, a step of
// tool calls) and rescues those still running when it ends.
type scope struct {
	ctx  context.Context
	stop func() bool
	mu   sync.Mutex
	live map[*inflight]struct{}
}

func newScope(ctx context.Context) *scope {
	s := &scope{ctx: ctx, live: make(map[*inflight]struct{})}
	s.stop = context.AfterFunc(ctx, s.rescueAll)
	return s
}

// close stops watching; calls must have completed.
func (s *scope) close() { s.stop() }

// rescueAll claims, under the scope's lock, every call still in its handler,
// then completes them. Claiming under the lock matters: a call's record goes
// back to the pool only after it left s.live under the same lock, so a record
// claimed here is still this scope's call, never a reused one.
func (s *scope) rescueAll() {
	s.mu.Lock()
	var claimed []*inflight
	for f := range s.live {
		if f.state.CompareAndSwap(false, true) {
			claimed = append(claimed, f)
			delete(s.live, f)
		}
	}
	s.mu.Unlock()
	for _, f := range claimed {
		f.rescued(causeOf(s.ctx), s.ctx.Err())
	}
}

func (s *scope) add(f *inflight) {
	s.mu.Lock()
	s.live[f] = struct{}{}
	s.mu.Unlock()
}

func (s *scope) remove(f *inflight) {
	s.mu.Lock()
	delete(s.live, f)
	s.mu.Unlock()
}

// inflight is one call inside its handler. Records are pooled with their
// timers. A record goes back to the pool only when its handler completed it,
// its timer was stopped before firing, and it left its scope's live set — so
// neither a late timer nor a late scope rescue can find it reused. A rescued
// record is never reused.
type inflight struct {
	state atomic.Bool // completed
	timer *time.Timer // fires f.onDeadline

	r     *run
	s     *scope
	c     call
	t     *registered
	i     int
	to    completer
	start time.Time
	cctx  *callCtx
}

var inflights = sync.Pool{New: func() any {
	f := &inflight{}
	f.timer = time.AfterFunc(time.Hour, f.onDeadline)
	f.timer.Stop()
	return f
}}

func (f *inflight) onDeadline() {
	if !f.state.CompareAndSwap(false, true) {
		return
	}
	f.s.remove(f)
	e := *f.t.timeoutErr
	f.rescued(&e, context.DeadlineExceeded)
}

// rescued completes a call claimed by a rescue (state already set) with err.
func (f *inflight) rescued(err *Error, ctxErr error) {
	f.timer.Stop()
	f.cctx.cancel(ctxErr)
	f.r.complete(f.s.ctx, &f.c, f.start, nil, err, f.i, f.to, true)
}
