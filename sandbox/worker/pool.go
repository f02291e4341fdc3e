package worker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/codemode-dev/codemode/sandbox/js"
	"github.com/codemode-dev/codemode/sandbox/worker/spawn"
)

// Config configures a Pool. Zero fields take the defaults.
type Config struct {
	// Command starts a worker: argv, with the program first. Default: this
	// binary (os.Executable) with the argument Arg, which Main answers.
	Command []string
	// Prestarted is a worker process the caller started already, with
	// spawn.Start of this Command, so that it initialises while the caller
	// does (codemode's CLI starts one during package initialisation, see
	// cmd/codemode/internal/prestart). The pool sends it the configuration,
	// as to any worker it starts, and makes it its first warm worker instead
	// of starting one; one that cannot be used (it died meanwhile) is killed
	// and replaced. The pool owns it from New on.
	Prestarted *spawn.Process
	// Warm is how many idle workers the pool keeps started, so a run does
	// not wait for a process to start. Default: GOMAXPROCS.
	Warm int
	// Max is how many workers may run scripts at once; a run waits for a
	// free one (or its context). Default: 8 × GOMAXPROCS.
	Max int
	// IdleTimeout is how long a worker beyond the Warm ones is kept idle
	// after a run: under load every worker that comes back is kept (up to
	// Max), so that no run waits for a process to start (≈ 30 ms) while
	// another was just stopped; when the load goes, the pool shrinks back
	// to Warm. Default: 30 s.
	IdleTimeout time.Duration
	// MemoryBytes is each worker's data-segment limit (RLIMIT_DATA): the
	// most memory a script can make its worker use before the kernel refuses
	// it and the run ends with memory_limit. Default: 1 GiB. It bounds the
	// process; a run's own maxMemoryBytes is still enforced inside it.
	MemoryBytes int64
	// StackBytes is the largest goroutine stack in a worker. Default: 256 MiB.
	StackBytes int
	// MaxRuns retires a worker after that many runs and calls, so that
	// whatever a long series of scripts leaves in a process (fragmented
	// memory, a slow leak in a dependency) does not accumulate. Default: 1000.
	MaxRuns int
	// WasmCacheDir is where workers keep compiled WASM modules (see
	// wasm.Config.CacheDir); "" compiles in every worker.
	WasmCacheDir string
	// Hardened runs scripts with the in-process sandbox's profile
	// (js.Hardened: every builtin behind a guard) inside the workers too.
	// By default workers run js.Lean — goja's builtins unwrapped, with the
	// same removals from the language — because the process is what
	// contains a script there: its memory (MemoryBytes), CPU time and wall
	// time are bounded, and a worker a script kills or freezes is replaced.
	// Hardened costs about twice as much per run and changes some of
	// JavaScript's meaning (docs/code-mode.md); it is for comparing the
	// two, or for a second layer. Workers without a data-segment limit
	// (off unix, under the race detector) run Hardened whatever this says:
	// nothing else would stop one builtin's allocation there (Pool.Profile).
	Hardened bool
}

// Defaults for zero Config fields.
const (
	DefaultMemoryBytes = 1 << 30
	DefaultStackBytes  = 256 << 20
	DefaultMaxRuns     = 1000
	DefaultIdleTimeout = 30 * time.Second
)

func (c Config) withDefaults() (Config, error) {
	if len(c.Command) == 0 {
		self, err := spawn.Self()
		if err != nil {
			return c, fmt.Errorf("worker: cannot find this binary to start workers: %w", err)
		}
		c.Command = self
	}
	if c.Warm <= 0 {
		c.Warm = runtime.GOMAXPROCS(0)
	}
	if c.Max <= 0 {
		c.Max = 8 * runtime.GOMAXPROCS(0)
	}
	c.Warm = min(c.Warm, c.Max)
	if c.MemoryBytes <= 0 {
		c.MemoryBytes = DefaultMemoryBytes
	}
	if c.StackBytes <= 0 {
		c.StackBytes = DefaultStackBytes
	}
	if c.MaxRuns <= 0 {
		c.MaxRuns = DefaultMaxRuns
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	return c, nil
}

// Pool runs scripts in worker processes. It implements the engine's
// ScriptRunner; it is safe for concurrent use. Close it after the last run.
type Pool struct {
	cfg   Config
	slots chan struct{} // Max

	mu      sync.Mutex
	changed *sync.Cond // on mu: a warming start ended, or the pool closed
	idle    []*proc    // least recently used first
	closed  bool
	warming int
	waiting int            // takers waiting for a warming worker
	wg      sync.WaitGroup // warming starts, retiring workers, the reaper
	stats   Stats
	stop    chan struct{} // closed by Close: ends the reaper

	prestarted *spawn.Process // Config.Prestarted until the first start takes it
}

// Stats are a pool's counters.
type Stats struct {
	Started  int // worker processes started
	Adopted  int // prestarted worker processes taken over (Config.Prestarted)
	Replaced int // workers killed or crashed during a run, and replaced
	Retired  int // idle workers stopped after IdleTimeout
	Idle     int // workers idle now (not a counter)
}

// Profile is the sandbox profile the pool's workers run scripts with:
// js.Lean, unless Config.Hardened asked for js.Hardened or the workers have
// no data-segment limit to contain a lean run (off unix, under the race
// detector).
func (p *Pool) Profile() js.Profile { return p.cfg.profile() }

func (c Config) profile() js.Profile {
	if c.Hardened || !dataLimited() || c.MemoryBytes <= 0 {
		return js.Hardened
	}
	return js.Lean
}

// New starts a pool and begins warming its workers in the background.
// In a process started as a worker it returns an error: a worker never
// starts workers (the package's init serves in such a process before any
// code that could call New runs, so only a program that bypasses it gets
// here).
func New(cfg Config) (*Pool, error) {
	prestarted := cfg.Prestarted
	cfg, err := cfg.withDefaults()
	if err == nil && startedAsWorker() {
		err = fmt.Errorf("worker: this process was started as a worker (with the argument %s), and a worker never starts workers of its own", Arg)
	}
	if err != nil {
		if prestarted != nil {
			prestarted.Discard() // the pool owns it from New on, also when there is no pool
		}
		return nil, err
	}
	p := &Pool{cfg: cfg, slots: make(chan struct{}, cfg.Max), stop: make(chan struct{}), prestarted: cfg.Prestarted}
	p.changed = sync.NewCond(&p.mu)
	p.warm()
	p.wg.Add(1)
	go p.reap()
	return p, nil
}

// Stats returns the pool's counters.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.stats
	st.Idle = len(p.idle)
	return st
}

// reap stops the idle workers beyond Warm that have been idle for
// IdleTimeout, until Close.
func (p *Pool) reap() {
	defer p.wg.Done()
	tick := time.NewTicker(max(p.cfg.IdleTimeout/4, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
		cutoff := time.Now().Add(-p.cfg.IdleTimeout)
		p.mu.Lock()
		n := 0
		for n < len(p.idle)-p.cfg.Warm && p.idle[n].idleSince.Before(cutoff) {
			n++
		}
		old := slices.Clone(p.idle[:n])
		p.idle = slices.Delete(p.idle, 0, n)
		p.stats.Retired += n
		p.mu.Unlock()
		for _, w := range old {
			w.stop()
		}
	}
}

// warm starts workers in the background until Warm are idle or starting.
func (p *Pool) warm() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for !p.closed && len(p.idle)+p.warming < p.cfg.Warm {
		p.warming++
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			w, err := p.start()
			p.mu.Lock()
			p.warming--
			keep := err == nil && !p.closed && (len(p.idle) < p.cfg.Warm || p.waiting > 0)
			if keep {
				w.idleSince = time.Now()
				p.idle = append(p.idle, w)
			}
			p.changed.Broadcast()
			p.mu.Unlock()
			if err == nil && !keep {
				w.kill()
			}
		}()
	}
}

// start starts a worker, or adopts the prestarted one if it is still there.
func (p *Pool) start() (*proc, error) {
	p.mu.Lock()
	sp := p.prestarted
	p.prestarted = nil
	p.mu.Unlock()
	if sp != nil {
		if w, err := adoptProc(p.cfg, sp); err == nil {
			p.mu.Lock()
			p.stats.Adopted++
			p.mu.Unlock()
			return w, nil
		} // a prestarted worker that cannot be used costs only time
	}
	w, err := startProc(p.cfg)
	if err == nil {
		p.mu.Lock()
		p.stats.Started++
		p.mu.Unlock()
	}
	return w, err
}

// take returns an idle worker, waits for one that is warming (so that a
// run right after New does not start a second process beside the warm-up),
// or starts one.
func (p *Pool) take() (*proc, error) {
	p.mu.Lock()
	for {
		if p.closed {
			p.mu.Unlock()
			return nil, errors.New("the worker pool is closed")
		}
		if n := len(p.idle); n > 0 {
			w := p.idle[n-1]
			p.idle = p.idle[:n-1]
			if w.alive() {
				p.mu.Unlock()
				return w, nil
			}
			go w.kill()
			continue
		}
		if p.warming <= p.waiting {
			break
		}
		p.waiting++
		p.changed.Wait()
		p.waiting--
	}
	p.mu.Unlock()
	return p.start()
}

// put gives a worker back after a run, or retires it. A healthy worker is
// kept even beyond Warm: the reaper stops it if no run takes it within
// IdleTimeout.
func (p *Pool) put(w *proc, healthy bool) {
	w.runs++
	p.mu.Lock()
	if healthy && w.runs < p.cfg.MaxRuns && !p.closed && len(p.idle) < p.cfg.Max && w.alive() {
		w.idleSince = time.Now()
		p.idle = append(p.idle, w)
		p.mu.Unlock()
		return
	}
	if !healthy {
		p.stats.Replaced++
	}
	p.mu.Unlock()
	w.kill()
	p.warm()
}

// Close stops every idle worker and makes later runs fail. Runs under way
// finish first; their workers are stopped as they return.
func (p *Pool) Close() error {
	p.mu.Lock()
	if !p.closed {
		close(p.stop)
	}
	p.closed = true
	p.changed.Broadcast()
	idle := p.idle
	p.idle = nil
	sp := p.prestarted
	p.prestarted = nil
	p.mu.Unlock()
	if sp != nil {
		sp.Discard()
	}
	for _, w := range idle {
		w.stop()
	}
	p.wg.Wait()
	return nil
}

// RunScript compiles and runs job in a worker (the engine's ScriptRunner).
// The worker enforces the run's budgets itself; the pool adds what it
// cannot: a wall-clock backstop that kills a worker that does not answer
// in time, and crash reports as structured errors.
func (p *Pool) RunScript(ctx context.Context, job js.Job) *js.Result {
	budget := cmp.Or(job.Options.Limits.Timeout, js.DefaultTimeout)
	waited, err := p.acquire(ctx, budget)
	if err != nil {
		return &js.Result{Err: err}
	}
	defer func() { <-p.slots }()
	job.Options.Limits.Timeout = budget - waited // waiting for a worker is part of the run
	w, serr := p.take()
	if serr != nil {
		return &js.Result{Err: &js.Error{Code: js.CodeRuntimeError, Message: "cannot start a worker process: " + serr.Error()}}
	}
	res, healthy := w.run(ctx, job)
	p.put(w, healthy)
	return res
}

// acquire waits for one of the Max slots, at most budget (or until ctx
// ends), and says how long it waited.
func (p *Pool) acquire(ctx context.Context, budget time.Duration) (time.Duration, *js.Error) {
	select {
	case p.slots <- struct{}{}:
		return 0, nil
	default:
	}
	start := time.Now()
	t := time.NewTimer(budget)
	defer t.Stop()
	select {
	case p.slots <- struct{}{}:
		waited := time.Since(start)
		if waited >= budget {
			<-p.slots
			return 0, waitedTooLong(budget)
		}
		return waited, nil
	case <-t.C:
		return 0, waitedTooLong(budget)
	case <-ctx.Done():
		return 0, ctxError(ctx)
	}
}

func waitedTooLong(budget time.Duration) *js.Error {
	return &js.Error{Code: js.CodeTimeout, Message: fmt.Sprintf(
		"no worker process was free within the run's timeout of %v (every one of the pool's workers was busy)", budget)}
}

// ctxError is the run's error for a context that ended.
func ctxError(ctx context.Context) *js.Error {
	code := js.CodeCanceled
	if ctx.Err() == context.DeadlineExceeded {
		code = js.CodeTimeout
	}
	if cause := context.Cause(ctx); cause != ctx.Err() {
		return &js.Error{Code: code, Message: cause.Error()} // the caller said why (e.g. "the server is shutting down")
	}
	return &js.Error{Code: code, Message: "the run was ended by its caller: " + context.Cause(ctx).Error()}
}

// backstop is how long past a run's own timeout the pool waits for its
// worker's answer before killing it: the worker normally answers within
// milliseconds of its budget (or 50 ms after, for a builtin it had to
// abandon), so this only fires for a frozen worker. At least half a second:
// on a loaded machine a healthy worker can take a few hundred milliseconds
// to be scheduled, and killing it costs a new process.
func backstop(timeout time.Duration) time.Duration {
	return min(max(timeout/2, 500*time.Millisecond), 2*time.Second)
}

// newBackstop is a timer that fires at timeout + backstop(timeout).
func newBackstop(timeout time.Duration) *time.Timer {
	return time.NewTimer(timeout + backstop(timeout))
}
