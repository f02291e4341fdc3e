package engine

import (
	"context"
	"sync"
	"time"
)

// callCtx is the context a handler runs under: the run's context plus the
// call's own deadline. It replaces context.WithDeadline on the hot path: the
// goroutine that waits for the handler already watches the run's context and
// the deadline, so it cancels this context itself, and nothing registers with
// the parent (whose lock every concurrent call would otherwise share). One
// allocation, one channel, a pooled timer — against five allocations.
//
// It follows the context rules: Done closes once, Err is set before it does,
// Deadline is the earlier of the two deadlines, Value is the parent's, and
// AfterFunc lets contexts derived from it register without a goroutine.
type callCtx struct {
	context.Context // the run's context: values and its own deadline
	deadline        time.Time
	done            chan struct{}

	info CallInfo

	mu    sync.Mutex
	err   error
	funcs []*afterFunc
}

// CallInfo identifies the tool call a handler is running: the ids its events
// carry. A handler that keeps a record of what it did (a board's change log,
// an audit line) uses it to match the record to the call's tool_call_end.
type CallInfo struct {
	RunID    string
	CallID   string
	ParentID string
	Tool     string
}

type callInfoKey struct{}

// CallFromContext returns the call a handler's context belongs to. It is
// false outside a handler (and in a context not derived from a handler's).
func CallFromContext(ctx context.Context) (CallInfo, bool) {
	info, ok := ctx.Value(callInfoKey{}).(CallInfo)
	return info, ok
}

// Value answers CallFromContext without an allocation per call; everything
// else is the run's.
func (c *callCtx) Value(key any) any {
	if _, ok := key.(callInfoKey); ok {
		return c.info
	}
	return c.Context.Value(key)
}

type afterFunc struct{ f func() }

func newCallCtx(parent context.Context, deadline time.Time) *callCtx {
	return &callCtx{Context: parent, deadline: deadline, done: make(chan struct{})}
}

func (c *callCtx) Deadline() (time.Time, bool) {
	if d, ok := c.Context.Deadline(); ok && d.Before(c.deadline) {
		return d, true
	}
	return c.deadline, true
}

func (c *callCtx) Done() <-chan struct{} { return c.done }

func (c *callCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// cancel ends the context with err; later calls do nothing.
func (c *callCtx) cancel(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	funcs := c.funcs
	c.funcs = nil
	close(c.done)
	c.mu.Unlock()
	for _, a := range funcs {
		go a.f()
	}
}

// AfterFunc runs f on its own goroutine once the context ends; stop prevents
// that if it has not happened yet. context.WithCancel and friends use it.
func (c *callCtx) AfterFunc(f func()) (stop func() bool) {
	a := &afterFunc{f: f}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	c.funcs = append(c.funcs, a)
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, x := range c.funcs {
			if x == a {
				c.funcs = append(c.funcs[:i], c.funcs[i+1:]...)
				return true
			}
		}
		return false
	}
}

func (c *callCtx) String() string { return "codemode call context" }
