package js

import (
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
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

// heapWatch is the one watchdog of every running script: every few
// milliseconds it reads the Go heap, and a run that is executing JavaScript
// while the heap has grown past its budget since the run started is ended
// with memory_limit. Runs waiting for tools are not blamed: they allocate
// nothing. The heap is the process's, so with many concurrent scripts the
// watchdog is a guard, not an exact meter; hard isolation needs a process.
var heapWatch = &watchdog{runs: make(map[*runner]struct{})}

const watchEvery = 5 * time.Millisecond

type watchdog struct {
	mu      sync.Mutex
	runs    map[*runner]struct{}
	running bool
}

func (w *watchdog) add(r *runner) {
	w.mu.Lock()
	defer w.mu.Unlock()
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
	var lastGC time.Time
	for range t.C {
		w.mu.Lock()
		if len(w.runs) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		heap := heapInUse()
		var over []*runner
		for r := range w.runs {
			if r.busy.Load() && heap-r.heapBase > r.lim.MaxMemoryBytes {
				over = append(over, r)
			}
		}
		w.mu.Unlock()
		if len(over) == 0 {
			continue
		}
		// Part of the heap may be garbage: collect before blaming, but not
		// more than a few times a second.
		if time.Since(lastGC) > 100*time.Millisecond {
			runtime.GC()
			lastGC = time.Now()
			heap = heapInUse()
		}
		for _, r := range over {
			if grown := heap - r.heapBase; grown > r.lim.MaxMemoryBytes {
				r.kill(&Error{Code: CodeMemoryLimit, Message: "the script used more memory than its limit of " + mib(r.lim.MaxMemoryBytes)})
			}
		}
	}
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
var heapMu sync.Mutex

// heapInUse is the bytes of heap objects, live or not yet swept.
func heapInUse() int64 {
	heapMu.Lock()
	defer heapMu.Unlock()
	metrics.Read(heapSample)
	return int64(heapSample[0].Value.Uint64())
}

func mib(n int64) string {
	if n%(1<<20) == 0 {
		return strconv.Itoa(int(n>>20)) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
