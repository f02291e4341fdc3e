package js

import (
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// clock bills a run's timeout. It pauses while the loop is idle and some
// call holds it (a call waiting for a person's approval): that wait is the
// approver's, bounded by its own timeout, not the script's.
type clock struct {
	mu       sync.Mutex
	timer    *time.Timer
	left     time.Duration // budget left when the clock last stopped running
	since    time.Time     // when the clock last started running; zero while paused
	holds    int
	idleLoop bool
	stopped  bool
}

func (c *clock) start(budget time.Duration, expire func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.left, c.since = budget, time.Now()
	c.timer = time.AfterFunc(budget, expire)
}

func (c *clock) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	c.timer.Stop()
}

func (c *clock) idle(idle bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	was := c.paused()
	c.idleLoop = idle
	c.update(was)
}

func (c *clock) hold() (release func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	was := c.paused()
	c.holds++
	c.update(was)
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			was := c.paused()
			c.holds--
			c.update(was)
		})
	}
}

func (c *clock) paused() bool { return c.holds > 0 && c.idleLoop }

// update stops or restarts the timer when the clock changed between running
// and paused.
func (c *clock) update(wasPaused bool) {
	now := c.paused()
	if now == wasPaused || c.stopped || c.timer == nil {
		return
	}
	if now {
		if c.timer.Stop() {
			c.left -= time.Since(c.since)
			c.since = time.Time{}
		}
		return
	}
	c.since = time.Now()
	c.timer.Reset(max(c.left, 0))
}

// heapWatch is the one watchdog of every running script. Go has no heap
// per goroutine, so the policy is:
//
//   - Over: a run is over its budget when the live heap (what the last
//     garbage collection found reachable: /gc/heap/live:bytes, so garbage
//     never counts and no collection is forced) has grown by more than its
//     MaxMemoryBytes above the lowest it has been since the run started
//     (the lowest, so that runs side by side share a base even when one
//     started while the heap still held what a finished run left). With
//     runs side by side, every run that started before a bomb is over too.
//   - Blame: of the runs past half their budget (so that a bomb whose base
//     is a little higher is among them), the watchdog ends only the one with
//     the largest structures: the longest array and string its builtins
//     have seen (every array method reads this.length, every builtin's
//     result is checked; see builtins.go), at bytesPerElement per element
//     and two bytes per character. Go cannot say which goroutine allocated
//     what, and allocation is a poor guide: an innocent script churning
//     garbage allocates as fast as a bomb. When no run's structures are
//     four times those of every other (a bomb that keeps its memory in
//     objects linked by properties, which no builtin sees), the allocation
//     attributed to each decides: the process's new allocation
//     (/gc/heap/allocs:bytes) is shared every few milliseconds among the
//     runs in proportion to the time each spent running JavaScript.
//   - Then it waits for that run's loop to stop, and then until no run is
//     past half its budget or quietCycles collections have passed, before
//     blaming again: the memory of the run it ended, and the garbage the
//     others allocated meanwhile, must be gone from the live heap, or a
//     second, innocent run gets blamed.
//
// A bomb that keeps its memory in arrays or strings is told apart from
// innocent runs beside it; one that keeps it only in objects linked by
// properties (no builtin sees them) is blamed by allocation, and an
// innocent run beside it that allocates faster could be ended first (the
// bomb is ended next, once the collections show the heap still over).
// Without forced collections, and with over confirmed at two collections
// in a row (see tick), a bomb is seen at the second collection after it
// passed its budget: the heap can reach a few times the budget first.
// While runs are watched, the watchdog sets Go's soft memory limit near
// the heap plus their budgets (softHeapTarget, softLimit), so that those
// collections come in time even after a run that left gigabytes of
// garbage. Hard isolation needs a process (a worker with an OS limit).
var heapWatch = &watchdog{runs: make(map[*runner]struct{})}

const watchEvery = 5 * time.Millisecond

// memShare is what the watchdog knows of one run.
type memShare struct {
	liveBase  int64        // the lowest the live heap has been since the run started
	busySince atomic.Int64 // unix nanoseconds when JavaScript started running; 0 when idle
	busyNanos atomic.Int64 // time spent running JavaScript, finished stretches

	lastBusy  int64 // watchdog: busy time at the last tick
	allocated int64 // watchdog: bytes allocated, as attributed

	largestArray  atomic.Int64 // elements of the longest array a builtin saw
	largestString atomic.Int64 // characters of the longest string a builtin made
}

// saw records the size of an array or string a builtin saw.
func saw(largest *atomic.Int64, n int64) {
	if n > largest.Load() {
		largest.Store(n) // the loop is the only writer
	}
}

// structures is the bytes the run's largest array and string stand for.
func (m *memShare) structures() int64 {
	return m.largestArray.Load()*bytesPerElement + m.largestString.Load()*2
}

// blame picks the run to end among those past half their budget (see
// heapWatch):
// the one with the largest structures when they are at least four times
// those of any other, the one that allocated the most otherwise.
func blame(over []*runner) *runner {
	var first, second *runner
	for _, r := range over {
		switch {
		case first == nil || r.mem.structures() > first.mem.structures():
			first, second = r, first
		case second == nil || r.mem.structures() > second.mem.structures():
			second = r
		}
	}
	if second == nil || first.mem.structures() >= 4*second.mem.structures() {
		return first
	}
	for _, r := range over {
		if r.mem.allocated > first.mem.allocated {
			first = r
		}
	}
	return first
}

// busy is the run's time running JavaScript up to now.
func (m *memShare) busy(now int64) int64 {
	b := m.busyNanos.Load()
	if since := m.busySince.Load(); since != 0 && now > since {
		b += now - since
	}
	return b
}

type watchdog struct {
	mu      sync.Mutex
	runs    map[*runner]struct{}
	running bool
	overAt  uint64    // the collection at which some run was first seen over its budget; 0: none is
	limit   softLimit // while runs are watched
	stale   staleHeap // after a run was ended for memory
}

// staleHeap is what the watchdog knows after it ended a run for memory and
// the run's loop stopped: the live heap it last read still holds that
// run's memory, now garbage, until a collection runs. Until two more have
// (the first may have started while the run's objects were still
// reachable), the soft limit is set as if the heap were back at the run's
// base, so the collection comes at once instead of after the collector's
// goal, gigabytes away; runs that started meanwhile took the stale reading
// as their base and get the fresh one at that collection.
type staleHeap struct {
	base  int64  // the ended run's base
	until uint64 // the collection count at which the reading is fresh again
}

func (w *watchdog) add(r *runner) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r.mem.lastBusy = r.mem.busy(time.Now().UnixNano())
	w.runs[r] = struct{}{}
	if !w.running {
		w.running = true
		go w.watch()
	}
}

func (w *watchdog) remove(r *runner) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.runs, r)
}

// watch runs while there are runs to watch.
func (w *watchdog) watch() {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	m := readMem()
	var ended *runner  // the last run blamed, until its loop has stopped
	var quiet struct { // after a run was ended: until no run is past half its budget,
		active bool
		cycles uint64 // or the collections reach this
	}
	for range t.C {
		prev := m
		m = readMem()
		var stopped *runner // the run ended for memory, now that its loop stopped
		if ended != nil {
			select {
			case <-ended.done:
				quiet.active, quiet.cycles = true, m.cycles+quietCycles
				stopped, ended = ended, nil
			default:
			}
		}
		w.mu.Lock()
		if stopped != nil {
			w.stale = staleHeap{base: stopped.mem.liveBase, until: m.cycles + 2}
		}
		if len(w.runs) == 0 {
			w.running = false
			w.limit.restore()
			w.mu.Unlock()
			return
		}
		victim, calm, heapTarget := w.tick(m.allocs-prev.allocs, m.live, m.cycles, ended == nil && !quiet.active)
		if quiet.active && (calm || m.cycles >= quiet.cycles) {
			quiet.active = false
		}
		w.limit.apply(heapTarget + m.nonHeap)
		w.mu.Unlock()
		if victim != nil {
			victim.kill(&Error{Code: CodeMemoryLimit, Message: "the script used more memory than its limit of " + mib(victim.lim.MaxMemoryBytes)})
			ended = victim
		}
	}
}

// tick attributes allocated bytes to the runs and returns the run to end,
// if blaming is allowed and some run is over its budget. Holds w.mu.
// tick attributes allocation, finds the runs past half their budget, and
// picks one to end if blaming is allowed and some run is over at two
// collections in a row. calm reports that no run is past half its budget.
func (w *watchdog) tick(allocated uint64, live int64, cycles uint64, mayBlame bool) (victim *runner, calm bool, heapTarget int64) {
	now := time.Now().UnixNano()
	var total int64
	base, budgets := live, int64(0)
	for r := range w.runs {
		total += r.mem.busy(now) - r.mem.lastBusy
		base = min(base, r.mem.liveBase)
		budgets += r.lim.MaxMemoryBytes
	}
	seen := live // the live heap the target allows for
	if cycles < w.stale.until {
		base = min(base, w.stale.base)
		seen = min(live, base+budgets)
	}
	heapTarget = softHeapTarget(base, budgets, seen)
	var near []*runner // runs past half their budget
	triggered := false // some run is past all of it
	for r := range w.runs {
		b := r.mem.busy(now)
		if total > 0 {
			r.mem.allocated += int64(float64(allocated) * float64(b-r.mem.lastBusy) / float64(total))
		}
		r.mem.lastBusy = b
		r.mem.liveBase = min(r.mem.liveBase, live)
		g := live - r.mem.liveBase
		if g > r.lim.MaxMemoryBytes/2 {
			near = append(near, r)
		}
		triggered = triggered || g > r.lim.MaxMemoryBytes
	}
	// Over must hold at two collections in a row: objects allocated while a
	// collection marks count as live until the next one, so runs that churn
	// garbage on a slow (busy) machine look over budget for one cycle. A
	// bomb's memory is still there at the next collection.
	calm = len(near) == 0
	switch {
	case !triggered:
		w.overAt = 0
		return nil, calm, heapTarget
	case w.overAt == 0:
		w.overAt = cycles
		return nil, calm, heapTarget
	case cycles == w.overAt || !mayBlame:
		return nil, calm, heapTarget
	}
	w.overAt = 0
	return blame(near), calm, heapTarget
}

// softHeapTarget is the heap the watchdog asks the collector to stay
// under while runs are watched (see softLimit): the runs' common base plus
// all their budgets, or the live heap when it is already past that (a run
// over its budget, or the program's own memory grew), plus a margin for
// garbage.
//
// Without it the collector's next goal is twice the last live heap: after
// a run that held a gigabyte, the next collection is a gigabyte of
// allocation away, and the live heap the watchdog reads is stale all that
// time. A run that starts then takes that stale reading as its base, and
// what it allocates before the next collection is hidden in its base for
// good (measured before: eight memory bombs of 128 MiB in sequence left a
// live heap of 1.1, 1.7, 2.4, 3.6 GB… and the server died under an 8 GB
// address-space cap on the third). With the target, a collection comes at
// most the runs' budgets and the margin later, so a stale base hides at
// most that much and the next bomb ends near its budget again.
func softHeapTarget(base, budgets, live int64) int64 {
	return max(base+budgets, live) + max(budgets/4, softMargin)
}

// softMargin is the least garbage margin softHeapTarget leaves.
const softMargin = 16 << 20

// softLimit is the Go memory limit (debug.SetMemoryLimit) the watchdog
// sets while it watches runs, and what it gives back when none is left.
// The limit is the program's, not only the sandbox's, so:
//
//   - the watchdog never raises it: a limit the program set (or
//     GOMEMLIMIT) that is lower than the target stays;
//   - a limit the program sets while runs are watched is taken as the
//     program's own: the watchdog stays under it and restores it;
//   - when the last run ends, the limit the program had is restored,
//     unless the program changed it meanwhile.
//
// Only the watchdog's goroutine uses it, under watchdog.mu.
type softLimit struct {
	active bool  // the watchdog has set the limit
	host   int64 // the program's limit, math.MaxInt64 when it has none
	set    int64 // the limit the watchdog last set
}

// apply sets the memory limit to want, or to the program's when that is
// lower.
func (s *softLimit) apply(want int64) {
	cur := debug.SetMemoryLimit(-1)
	if !s.active || cur != s.set {
		s.host = cur // the first time, or the program changed it since: its own
	}
	want = min(want, s.host)
	if d := want - cur; d > 1<<20 || d < -1<<20 || (d != 0 && want == s.host) {
		debug.SetMemoryLimit(want)
		cur = want
	}
	s.active, s.set = true, cur
}

// restore gives the program back its limit.
func (s *softLimit) restore() {
	if s.active && debug.SetMemoryLimit(-1) == s.set {
		debug.SetMemoryLimit(s.host)
	}
	s.active = false
}

// quietCycles is how many collections the watchdog waits, after ending a
// run, for the heap to calm down (no run past half its budget) before it
// blames again. After a bomb the collector's goal is large, and the
// garbage the runs beside it allocate while it marks counts as live for
// several cycles: blaming on that would end an innocent run.
const quietCycles = 30

var memSamples = []metrics.Sample{
	{Name: "/gc/heap/live:bytes"}, {Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/cycles/total:gc-cycles"},
	{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"},
	{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}, {Name: "/memory/classes/heap/free:bytes"},
}
var memMu sync.Mutex

type memReading struct {
	live   int64
	allocs uint64
	cycles uint64
	// nonHeap is what the Go memory limit counts besides heap objects:
	// goroutine stacks, the runtime's metadata, and so on.
	nonHeap int64
}

func readMem() (m memReading) {
	memMu.Lock()
	defer memMu.Unlock()
	metrics.Read(memSamples)
	u := func(i int) int64 { return int64(memSamples[i].Value.Uint64()) }
	m.live = u(0)
	m.allocs = uint64(u(1))
	m.cycles = uint64(u(2))
	m.nonHeap = max(u(3)-u(4)-u(5)-u(6)-u(7), 0)
	return m
}

// liveHeap is the live heap as of the last collection.
func liveHeap() int64 { return readMem().live }

func mib(n int64) string {
	if n%(1<<20) == 0 {
		return strconv.Itoa(int(n>>20)) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
