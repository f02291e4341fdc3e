package worker

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/sandbox/js"
)

// The red-team suite: a hostile script (or a worker it took over) against a
// long-lived host. Every attack must end with a structured error soon after
// its budget, and leave the host able to serve the next run, with no
// process or goroutine left behind.
//
// The suite runs on busy machines, where a process may wait seconds for a
// CPU: "soon" is seconds (stopSlack), and the broken workers below misbehave
// for longer than any test waits. An attack that a limit other than the
// clock must end (a memory bomb, a stack overflow) gets a budget of a
// minute: it is a net, and a slow machine must not make the clock win.

// stopSlack is how long past its budget (or its caller's cancel) a run may
// take to end before a test fails it as late.
const stopSlack = 5 * time.Second

// netBudget is the budget of a run that something other than the clock
// must end.
const netBudget = time.Minute

// brokenFor is how long a broken worker keeps misbehaving: longer than any
// test waits for it.
const brokenFor = 2 * time.Minute

func init() {
	brokenWorkers["rt-deaf"] = func() { // makes one call, then stops reading (a frozen worker)
		handshake()
		in := bufio.NewReader(os.Stdin)
		_, _, _ = readFrame(in, 1<<30)
		w := bufio.NewWriter(os.Stdout)
		_ = writeFrame(w, kindCalls, appendCalls(nil, []callMsg{{Index: 0, Tool: "big", Args: json.RawMessage(`{}`)}}))
		time.Sleep(brokenFor)
	}
	brokenWorkers["rt-gate"] = func() { // makes one gated call, then never answers
		handshake()
		in := bufio.NewReader(os.Stdin)
		_, _, _ = readFrame(in, 1<<30)
		w := bufio.NewWriter(os.Stdout)
		_ = writeFrame(w, kindCalls, appendCalls(nil, []callMsg{{Index: 0, Tool: "gate", Args: json.RawMessage(`{}`)}}))
		go func() { _, _ = drain(in) }()
		time.Sleep(brokenFor)
	}
	brokenWorkers["rt-garbage-then-logs"] = func() { // breaks the protocol, then floods log frames
		handshake()
		in := bufio.NewReader(os.Stdin)
		if _, _, err := readFrame(in, 1<<30); err != nil {
			os.Exit(0) // no run: stopped while idle
		}
		w := bufio.NewWriterSize(os.Stdout, 1<<20)
		w.Write([]byte{0, 0, 0, 1, 'Z'})
		for i := range 1000 {
			_ = writeFrame(w, kindLog, js.Log{Level: "log", Message: strconv.Itoa(i)})
		}
		time.Sleep(brokenFor)
	}
	brokenWorkers["rt-idle-flood"] = func() { // writes unasked-for frames while idle
		handshake()
		w := bufio.NewWriter(os.Stdout)
		for i := range 100 {
			_ = writeFrame(w, kindLog, js.Log{Level: "log", Message: strconv.Itoa(i)})
		}
		time.Sleep(brokenFor)
	}
	brokenWorkers["rt-host"] = func() { // a host with a warm pool, for the test to kill
		p, err := New(Config{Warm: 2, Max: 2})
		if err != nil {
			os.Exit(1)
		}
		for p.Stats().Started < 2 {
			time.Sleep(10 * time.Millisecond)
		}
		fmt.Println("ready")
		select {}
	}
}

func drain(r *bufio.Reader) (int64, error) {
	buf := make([]byte, 64<<10)
	var n int64
	for {
		m, err := r.Read(buf)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
}

// rtHost runs the red-team tools: add {a, b}; echo returns its arguments;
// big returns 1 MiB; slow sleeps ms then returns {tag}; hold holds the
// run's clock until released, then rejects; gate does the same after 300 ms. Start may be slowed down; entered counts the
// calls Start received.
type rtHost struct {
	wg        sync.WaitGroup
	startWait time.Duration
	entered   atomic.Int64
	release   chan struct{}
	held      chan struct{} // if not nil, hold sends on it once it holds
}

func (h *rtHost) Start(calls []*js.Call) {
	h.entered.Add(int64(len(calls)))
	time.Sleep(h.startWait)
	for _, c := range calls {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			switch c.Tool {
			case "add":
				var in struct{ A, B int }
				_ = json.Unmarshal(c.Args, &in)
				c.Resolve(json.RawMessage(strconv.Itoa(in.A + in.B)))
			case "echo":
				c.Resolve(c.Args)
			case "big":
				c.Resolve(json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`))
			case "slow":
				var in struct {
					MS  int
					Tag string
				}
				_ = json.Unmarshal(c.Args, &in)
				time.Sleep(time.Duration(in.MS) * time.Millisecond)
				out, _ := json.Marshal(in.Tag)
				c.Resolve(out)
			case "hold":
				release := c.Hold()
				if h.held != nil {
					h.held <- struct{}{}
				}
				<-h.release
				release()
				c.Reject(&js.Error{Code: "approval_denied", Message: "denied"})
			case "gate":
				time.Sleep(300 * time.Millisecond) // the approval flow starts late
				release := c.Hold()
				<-h.release
				release()
				c.Reject(&js.Error{Code: "approval_denied", Message: "denied"})
			default:
				c.Reject(&js.Error{Code: "unknown_tool", Message: c.Tool})
			}
		}()
	}
}

var rtTools = []string{"add", "echo", "big", "slow", "gate", "hold"}

// rtRun runs code in p with h and the limits; it fails the test, without
// waiting further, when the run takes longer than within.
func rtRun(t *testing.T, p *Pool, h *rtHost, code string, lim js.Limits, within time.Duration, onLog func(js.Log)) (*js.Result, time.Duration) {
	t.Helper()
	return rtRunCtx(t, context.Background(), p, h, code, lim, within, onLog)
}

func rtRunCtx(t *testing.T, ctx context.Context, p *Pool, h *rtHost, code string, lim js.Limits, within time.Duration, onLog func(js.Log)) (*js.Result, time.Duration) {
	t.Helper()
	if h.release == nil {
		h.release = make(chan struct{})
	}
	start := time.Now()
	done := make(chan *js.Result, 1)
	go func() {
		done <- p.RunScript(ctx, js.Job{Code: code, Options: js.Options{Limits: lim, Tools: rtTools, Host: h, OnLog: onLog}})
	}()
	select {
	case res := <-done:
		return res, time.Since(start)
	case <-time.After(within):
		t.Errorf("%s: no answer within %v", cut(code, 60), within)
		res := <-done // the attacks below all end eventually; wait so nothing leaks
		t.Logf("it ended after %v: %v", time.Since(start), res.Err)
		return res, time.Since(start)
	}
}

// children are this process's child processes, with their state (R, S, Z…).
func children(t *testing.T, parent int) map[int]string {
	t.Helper()
	out := map[int]string{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so split after ")".
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(parent) {
			out[pid] = f[0]
		}
	}
	return out
}

// noChildrenLeft waits up to 30 s for this process to have no children but
// those of before (left by an earlier test).
func noChildrenLeft(t *testing.T, before map[int]string) {
	t.Helper()
	var left map[int]string
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		left = children(t, os.Getpid())
		for pid := range before {
			delete(left, pid)
		}
		if len(left) == 0 {
			return
		}
	}
	t.Errorf("worker processes left behind after Close (pid: state): %v", left)
}

func rssKiB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}

// noGoroutinesLeft waits up to 30 s for this process to have at most n
// goroutines: those of workers that were stopped end when their pipes do.
func noGoroutinesLeft(t *testing.T, n int) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); runtime.NumGoroutine() > n; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			buf := make([]byte, 1<<16)
			t.Errorf("%d goroutines left behind:\n%s", runtime.NumGoroutine()-n, buf[:runtime.Stack(buf, true)])
			return
		}
	}
}

// Memory bombs above the worker's RLIMIT_DATA, with the run's own budget
// set higher still: the kernel's limit is what stops them.
func TestRedTeamMemoryBombsAboveTheWorkerLimit(t *testing.T) {
	heavy(t)
	p := newPool(t, Config{Warm: 1, Max: 1, MemoryBytes: 256 << 20})
	h := &rtHost{}
	for _, bomb := range []string{
		`const a = []; for (;;) a.push("x".repeat(1 << 20) + a.length)`,
		`return "x".repeat(400 << 20).length`,
		`let s = "xy"; for (;;) s = s + s; return s.length`,
		`return new Array(6e7).fill(1.5).length`,
		`const a = []; for (let i = 0; ; i++) a.push({i, s: "ab" + i})`,
	} {
		lim := js.Limits{Timeout: netBudget, MaxMemoryBytes: 8 << 30}
		res, took := rtRun(t, p, h, bomb, lim, lim.Timeout+stopSlack, nil)
		if code(res) != "memory_limit" {
			t.Errorf("%s: got %s (%v), want memory_limit", bomb, code(res), res.Err)
		}
		t.Logf("%s: %s in %v", bomb, code(res), took.Round(time.Millisecond))
		if next, _ := rtRun(t, p, h, `return await tools.add({a: 1, b: 1})`, js.Limits{}, 10*time.Second, nil); string(next.Value) != "2" {
			t.Errorf("the next run: %s %v", next.Value, next.Err)
		}
	}
	h.wg.Wait()
}

// Runaway recursion with the sandbox's frame limit lifted overflows the
// worker's Go stack: a fatal error of the worker, limit_exceeded for the run.
func TestRedTeamGoStackOverflow(t *testing.T) {
	p := newPool(t, Config{Warm: 1, Max: 1, StackBytes: 16 << 20})
	h := &rtHost{}
	for _, tc := range []struct {
		code, want string
		timeout    time.Duration
	}{
		// Plain JavaScript recursion grows goja's own stack, not Go's: it
		// runs until the budget.
		{`function f(n) { return f(n + 1) + 1 } return f(0)`, "timeout", 5 * time.Second},
		{`const o = {}; o.toString = function () { return String(this) }; return String(o)`, "limit_exceeded", netBudget},
		{`function f(n) { return [1].map(() => f(n + 1)) } return f(0)`, "limit_exceeded", netBudget},
	} {
		c := tc.code
		lim := js.Limits{Timeout: tc.timeout, MaxCallDepth: 1 << 30, MaxMemoryBytes: 4 << 30}
		res, took := rtRun(t, p, h, c, lim, lim.Timeout+stopSlack, nil)
		if code(res) != tc.want {
			t.Errorf("%s: got %s (%v), want %s", c, code(res), res.Err, tc.want)
		}
		t.Logf("%s: %s in %v: %v", c, code(res), took.Round(time.Millisecond), res.Err)
	}
	if next, _ := rtRun(t, p, h, `return await tools.add({a: 1, b: 1})`, js.Limits{}, 10*time.Second, nil); string(next.Value) != "2" {
		t.Errorf("the next run: %s %v", next.Value, next.Err)
	}
	h.wg.Wait()
}

// Messages over the protocol's 128 MiB limit end the run with a structured
// error, and the host never allocates them. In the hardened profile one
// string or one JSON text cannot pass 128 MiB (the sandbox's own cap,
// memory_limit); in the lean one it can, and the frame limit ends the run
// (output_limit); a call that large the worker refuses in both, as the
// in-process sandbox's string cap would. A turn of calls larger than a
// frame goes in several, as in process: the host holds it, up to the run's
// memory budget; a larger one the worker refuses, as the in-process
// watchdog would, before the host allocates anything.
func TestRedTeamFramesOverTheLimit(t *testing.T) {
	heavy(t)
	p := newPool(t, Config{Warm: 1, Max: 1, MemoryBytes: 3 << 30})
	h := &rtHost{}
	capped := "memory_limit"
	if p.Profile() == js.Lean {
		capped = "output_limit"
	}
	for _, tc := range []struct {
		code, want string
		memory     int64 // the run's budget; 8 GiB when 0
		hostHolds  bool  // the host is meant to hold the calls
	}{
		{code: `await tools.echo({s: "x".repeat(129 << 20)}); return 1`, want: "memory_limit"},
		{code: `return "x".repeat(129 << 20)`, want: capped},
		{code: `const s = "x".repeat(5 << 20); const a = []; for (let i = 0; i < 26; i++) a.push(s); return a`, want: capped},
		{code: `const s = "x".repeat(100 << 20); tools.echo(s); tools.echo(s); return 1`, want: "success", hostHolds: true},
		{code: `const s = "x".repeat(100 << 20); await Promise.all([tools.echo(s), tools.echo(s)]); return 1`, want: "success", hostHolds: true},
		{code: `const s = "x".repeat(1000000); await Promise.all(Array.from({length: 70}, () => tools.echo(s))); return 1`, want: "memory_limit", memory: 64 << 20},
	} {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		lim := js.Limits{Timeout: netBudget, MaxMemoryBytes: cmp.Or(tc.memory, 8<<30)}
		res, took := rtRun(t, p, h, tc.code, lim, lim.Timeout+stopSlack, nil)
		runtime.ReadMemStats(&after)
		if code(res) != tc.want {
			t.Errorf("%s: got %s (%v), want %s", tc.code, code(res), res.Err, tc.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 && !tc.hostHolds {
			t.Errorf("%s: the host allocated %d MiB", tc.code, grew>>20)
		}
		t.Logf("%s: %s in %v: %v", tc.code, code(res), took.Round(time.Millisecond), res.Err)
	}
	h.wg.Wait()
}

// Just under the frame limit: each call's arguments are one frame the host
// reads whole, and decodes once more. How much one run makes the host hold.
func TestRedTeamHostMemoryPerRun(t *testing.T) {
	heavy(t)
	p := newPool(t, Config{Warm: 1, Max: 1, MemoryBytes: 3 << 30})
	h := &rtHost{}
	var peak atomic.Uint64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		s := []runtime.MemStats{{}}
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			runtime.ReadMemStats(&s[0])
			if v := s[0].HeapInuse; v > peak.Load() {
				peak.Store(v)
			}
		}
	}()
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	code := `const s = "x".repeat(120 << 20); for (let i = 0; i < 3; i++) await tools.add({a: 1, b: 1, s}); return 1`
	res, took := rtRun(t, p, h, code, js.Limits{Timeout: 2 * netBudget, MaxMemoryBytes: 8 << 30}, 2*netBudget+stopSlack, nil)
	close(stop)
	sampler.Wait()
	if res.Err != nil {
		t.Errorf("got %v", res.Err)
	}
	grew := int64(peak.Load()) - int64(base.HeapInuse)
	t.Logf("calls with 120 MiB arguments: the host's heap peaked %d MiB above its start (%v)", grew>>20, took.Round(time.Millisecond))
	if grew > 512<<20 {
		t.Errorf("one run made the host hold %d MiB", grew>>20)
	}
	h.wg.Wait()
}

// A frozen worker (it stopped reading its stdin) with a tool result in
// flight larger than a pipe: the settle blocks writing, holding the
// worker's write lock, and the backstop's kill must still end the run.
func TestRedTeamFrozenWorkerWithAResultInFlight(t *testing.T) {
	p := newPool(t, Config{Command: self("rt-deaf"), Warm: 1, Max: 1})
	waitWarm(t, p, 1)
	h := &rtHost{}
	lim := js.Limits{Timeout: 300 * time.Millisecond}
	res, took := rtRun(t, p, h, `return await tools.big({})`, lim, lim.Timeout+stopSlack, nil)
	if code(res) != "timeout" {
		t.Errorf("got %s (%v), want timeout", code(res), res.Err)
	}
	t.Logf("%s after %v", code(res), took.Round(time.Millisecond))
	h.wg.Wait()
}

// The caller cancels; the approval flow of a call then starts (and holds)
// while the worker does not answer: the cancel's grace must still end the
// run.
func TestRedTeamHoldAfterCancelKeepsTheGrace(t *testing.T) {
	p := newPool(t, Config{Command: self("rt-gate"), Warm: 1, Max: 1})
	waitWarm(t, p, 1)
	h := &rtHost{release: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	res, took := rtRunCtx(t, ctx, p, h, `return await tools.gate({})`, js.Limits{Timeout: netBudget}, 100*time.Millisecond+stopSlack, nil)
	close(h.release)
	if code(res) != "canceled" {
		t.Errorf("got %s (%v), want canceled", code(res), res.Err)
	}
	t.Logf("%s after %v", code(res), took.Round(time.Millisecond))
	h.wg.Wait()
}

// Cancel while a call holds the clock (a person deciding), at twice the
// run's budget after the hold began: the run ends canceled at once, and the
// worker is reused.
func TestRedTeamCancelDuringAHold(t *testing.T) {
	p := newPool(t, Config{Warm: 1, Max: 1})
	waitWarm(t, p, 1)
	h := &rtHost{release: make(chan struct{}), held: make(chan struct{}, 1)}
	lim := js.Limits{Timeout: time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-h.held:
			time.Sleep(2 * lim.Timeout)
			cancel()
		case <-ctx.Done():
		}
	}()
	res, took := rtRunCtx(t, ctx, p, h, `try { await tools.hold({}) } catch (e) {} for (;;) {}`, lim, 2*lim.Timeout+stopSlack, nil)
	close(h.release)
	if code(res) != "canceled" {
		t.Errorf("got %s (%v), want canceled", code(res), res.Err)
	}
	t.Logf("%s after %v", code(res), took.Round(time.Millisecond))
	h.wg.Wait()
	if s := p.Stats(); s.Replaced != 0 {
		t.Errorf("a canceled run replaced its worker: %+v", s)
	}
}

// The calls of the script's last turn reach the host before the run
// returns, as in process: a runner that returns first lets the engine close
// the run before they start, and they silently never run.
func TestRedTeamLastTurnReachesTheHost(t *testing.T) {
	p := newPool(t, Config{Warm: 1, Max: 1})
	code := `await tools.add({a: 1, b: 1}); tools.add({a: 2, b: 2}); return 1`
	for i := range 5 {
		h := &rtHost{startWait: 50 * time.Millisecond}
		res, _ := rtRun(t, p, h, code, js.Limits{}, js.DefaultTimeout+stopSlack, nil)
		got := h.entered.Load()
		h.wg.Wait()
		if res.Err != nil || res.ToolCalls != 2 || got != 2 {
			t.Errorf("run %d: %v, %d calls made, %d given to the host when the run returned; want 2", i, res.Err, res.ToolCalls, got)
		}
	}
	// In process, for comparison.
	h := &rtHost{startWait: 50 * time.Millisecond}
	s, _ := js.NewCache(1).Compile(code, 0)
	res := js.Run(context.Background(), s, js.Options{Tools: rtTools, Host: h})
	if got := h.entered.Load(); res.Err != nil || got != 2 {
		t.Errorf("in process: %v, %d given to the host", res.Err, got)
	}
	h.wg.Wait()
}

// A run ends with calls in flight; the next run on the same worker reuses
// their indexes: the late outcomes must not settle its calls.
func TestRedTeamStaleSettlesDoNotReachTheNextRun(t *testing.T) {
	p := newPool(t, Config{Warm: 1, Max: 1})
	waitWarm(t, p, 1)
	h := &rtHost{}
	rtRun(t, p, h, `return 1`, js.Limits{}, 10*time.Second, nil)
	started := p.Stats().Started
	first, _ := rtRun(t, p, h, `for (let i = 0; i < 20; i++) tools.slow({ms: 200, tag: "first"}); return 1`, js.Limits{}, js.DefaultTimeout+stopSlack, nil)
	if first.Err != nil {
		t.Fatal(first.Err)
	}
	second, _ := rtRun(t, p, h, `const r = []; for (let i = 0; i < 20; i++) r.push(tools.slow({ms: 400, tag: "second"})); return [...new Set(await Promise.all(r))]`, js.Limits{}, js.DefaultTimeout+stopSlack, nil)
	if second.Err != nil || string(second.Value) != `["second"]` {
		t.Errorf("the second run got %s %v", second.Value, second.Err)
	}
	h.wg.Wait()
	if s := p.Stats(); s.Started != started || s.Replaced != 0 {
		t.Errorf("want both runs on one worker: %+v", s)
	}
}

// Floods in one turn: many calls never awaited, then the run returns.
func TestRedTeamCallFloods(t *testing.T) {
	p := newPool(t, Config{Warm: 1, Max: 1})
	h := &rtHost{}
	for _, tc := range []struct {
		code, want string
		lim        js.Limits
	}{
		{`for (let i = 0; ; i++) tools.add({a: i, b: i})`, "limit_exceeded", js.Limits{Timeout: netBudget}},
		{`for (let i = 0; i < 20000; i++) tools.add({a: i, b: i}); return 1`, "success", js.Limits{Timeout: netBudget, MaxToolCalls: 20000}},
		{`for (let i = 0; i < 20000; i++) tools.add({a: i, b: i}); await new Promise(() => {})`, "runtime_error", js.Limits{Timeout: netBudget, MaxToolCalls: 20000}},
		{`for (let i = 0; ; i++) console.log("line", i)`, "output_limit", js.Limits{Timeout: netBudget}},
	} {
		var lines atomic.Int64
		res, took := rtRun(t, p, h, tc.code, tc.lim, tc.lim.Timeout+stopSlack, func(js.Log) { lines.Add(1) })
		if code(res) != tc.want {
			t.Errorf("%s: got %s (%v), want %s", tc.code, code(res), res.Err, tc.want)
		}
		t.Logf("%s: %s in %v, %d calls, %d lines seen", tc.code, code(res), took.Round(time.Millisecond), res.ToolCalls, lines.Load())
	}
	h.wg.Wait()
	if next, _ := rtRun(t, p, h, `return await tools.add({a: 1, b: 1})`, js.Limits{}, 10*time.Second, nil); string(next.Value) != "2" {
		t.Errorf("the next run: %s %v", next.Value, next.Err)
	}
	h.wg.Wait()
}

// A slow log consumer (events streamed to a slow client) while the script
// floods the console: the backstop kills the worker with log frames still
// in its pipe. They must be drained, and the worker waited for: no
// zombie, no goroutine stuck on the pool's side.
func TestRedTeamLogFloodWithASlowObserver(t *testing.T) {
	before := children(t, os.Getpid())
	p, err := New(Config{Warm: 1, Max: 1})
	if err != nil {
		t.Fatal(err)
	}
	waitWarm(t, p, 1)
	h := &rtHost{}
	goroutines := runtime.NumGoroutine()
	lim := js.Limits{Timeout: 300 * time.Millisecond, MaxOutputChars: 10 << 20}
	res, took := rtRun(t, p, h, `for (let i = 0; ; i++) console.log("line", i)`, lim, lim.Timeout+stopSlack, func(js.Log) { time.Sleep(2 * time.Millisecond) })
	if c := code(res); c != "timeout" && c != "output_limit" {
		t.Errorf("got %s (%v), want timeout", c, res.Err)
	}
	t.Logf("%s in %v", code(res), took.Round(time.Millisecond))
	p.Close()
	noChildrenLeft(t, before)
	noGoroutinesLeft(t, goroutines)
}

// The same with a worker that breaks the protocol and then floods frames.
func TestRedTeamProtocolBreakThenFlood(t *testing.T) {
	before := children(t, os.Getpid())
	p, err := New(Config{Command: self("rt-garbage-then-logs"), Warm: 1, Max: 1})
	if err != nil {
		t.Fatal(err)
	}
	waitWarm(t, p, 1)
	h := &rtHost{}
	goroutines := runtime.NumGoroutine()
	// The garbage ends the run, not the clock: the budget is a net.
	res, _ := rtRun(t, p, h, `return 1`, js.Limits{Timeout: netBudget}, netBudget+stopSlack, func(js.Log) {})
	if code(res) != "runtime_error" {
		t.Errorf("got %s (%v), want runtime_error", code(res), res.Err)
	}
	time.Sleep(200 * time.Millisecond) // the frames are in the pipe by now
	p.Close()
	noChildrenLeft(t, before)
	noGoroutinesLeft(t, goroutines)
}

// An idle worker that writes more frames than the pool buffers: Close
// stops it, and must not wait forever for a reader stuck handing them on.
func TestRedTeamIdleWorkerFloodDoesNotBlockClose(t *testing.T) {
	before := children(t, os.Getpid())
	p, err := New(Config{Command: self("rt-idle-flood"), Warm: 1, Max: 1})
	if err != nil {
		t.Fatal(err)
	}
	for p.Stats().Started == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return within 30s")
	}
	noChildrenLeft(t, before)
}

// Many runs killed in a row: the pool replaces every worker, and when it is
// closed no process is left, running or zombie. The worker's memory limit
// or its Go stack must end each run, however slowly the machine runs it:
// under load a bomb has taken over 10 s to reach 256 MiB, and a run the
// clock ended instead keeps its worker (one replacement short).
func TestRedTeamReplacementStorm(t *testing.T) {
	heavy(t)
	before := children(t, os.Getpid())
	p, err := New(Config{Warm: 2, Max: 2, MemoryBytes: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	h := &rtHost{}
	const n = 16
	start := time.Now()
	var wg sync.WaitGroup
	for g := range 2 { // as many as Max: the runs do not queue
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += 2 {
				stormRun(t, p, h, i)
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	if next, _ := rtRun(t, p, h, `return await tools.add({a: 1, b: 1})`, js.Limits{}, 10*time.Second, nil); string(next.Value) != "2" {
		t.Errorf("the next run: %s %v", next.Value, next.Err)
	}
	s := p.Stats()
	t.Logf("%d killed runs in %v (%v each); %+v; live children before Close: %d", n, took.Round(time.Millisecond), (took / n).Round(time.Millisecond), s, len(children(t, os.Getpid())))
	if s.Replaced != n || s.Started > n+3 {
		t.Errorf("stats %+v, want %d replaced and at most %d started", s, n, n+3)
	}
	p.Close()
	h.wg.Wait()
	noChildrenLeft(t, before)
}

// stormRun is run i of the storm: a memory bomb or a Go stack overflow,
// each of which kills its worker.
func stormRun(t *testing.T, p *Pool, h *rtHost, i int) {
	c := `const a = []; for (;;) a.push("x".repeat(1 << 24) + a.length)`
	if i%2 == 1 {
		c = `function f(n) { return [1].map(() => f(n + 1)) } return f(0)`
	}
	res, _ := rtRun(t, p, h, c, js.Limits{Timeout: netBudget, MaxMemoryBytes: 4 << 30, MaxCallDepth: 1 << 30}, netBudget+stopSlack, nil)
	if c := code(res); c != "memory_limit" && c != "limit_exceeded" {
		t.Errorf("run %d: got %s (%v)", i, c, res.Err)
	}
}

// More runs than Max: the ones that wait for a worker are still ended
// within about their own budget — time spent queueing is the run's time.
// Were it not, the last of 20 runs of 500 ms on one worker would end after
// 10 s; each must end within stopSlack of its budget.
func TestRedTeamMoreRunsThanMax(t *testing.T) {
	p := newPool(t, Config{Warm: 1, Max: 1})
	// Starting the worker is not the runs' time.
	waitWarm(t, p, 1)
	h := &rtHost{release: make(chan struct{})} // shared by the runs: set up before them
	lim := js.Limits{Timeout: 500 * time.Millisecond}
	const n = 20
	var wg sync.WaitGroup
	var worst atomic.Int64
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, took := rtRun(t, p, h, `for (;;) {}`, lim, n*lim.Timeout+stopSlack, nil)
			if code(res) != "timeout" {
				t.Errorf("got %s (%v), want timeout", code(res), res.Err)
			}
			t.Logf("%s after %v: %v", code(res), took.Round(time.Millisecond), res.Err)
			for w := worst.Load(); int64(took) > w && !worst.CompareAndSwap(w, int64(took)); w = worst.Load() {
			}
		}()
	}
	wg.Wait()
	t.Logf("%d runs of a %v budget on 1 worker: the last ended after %v", n, lim.Timeout, time.Duration(worst.Load()).Round(time.Millisecond))
	if w := time.Duration(worst.Load()); w > lim.Timeout+stopSlack {
		t.Errorf("a queued run ended after %v, %v past its budget of %v", w, w-lim.Timeout, lim.Timeout)
	}
}

// A host killed with SIGKILL leaves no worker behind (Pdeathsig).
func TestRedTeamKilledHostLeavesNoWorkers(t *testing.T) {
	cmd := exec.Command(os.Args[0], "rt-host")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the host did not start: %q", line)
	}
	workers := children(t, cmd.Process.Pid)
	if len(workers) != 2 {
		t.Errorf("the host has %d workers, want 2", len(workers))
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		alive := 0
		for pid := range workers {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(b), ") Z ") {
				alive++
			}
		}
		if alive == 0 {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("%d workers outlived their killed host", alive)
		}
	}
}

// A worker's resident memory after heavy runs: nothing retires a worker, so
// an idle worker keeps what its biggest run made it take from the system.
func TestRedTeamIdleWorkerMemory(t *testing.T) {
	heavy(t)
	p := newPool(t, Config{Warm: 1, Max: 1})
	h := &rtHost{}
	waitWarm(t, p, 1)
	rtRun(t, p, h, `return 1`, js.Limits{}, js.DefaultTimeout+stopSlack, nil)
	kids := children(t, os.Getpid())
	for end := time.Now().Add(30 * time.Second); len(kids) != 1 && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		kids = children(t, os.Getpid()) // a second worker, started while the first warmed, ends
	}
	if len(kids) != 1 {
		t.Skipf("want exactly one worker, have %v", kids)
	}
	var pid int
	for k := range kids {
		pid = k
	}
	fresh, started := rssKiB(t, pid), p.Stats().Started
	heavy := `const a = []; for (let i = 0; i < 3e5; i++) a.push({i, s: "x".repeat(200) + i}); return a.length`
	for range 3 {
		res, _ := rtRun(t, p, h, heavy, js.Limits{Timeout: netBudget, MaxMemoryBytes: 900 << 20}, netBudget+stopSlack, nil)
		if res.Err != nil {
			t.Fatalf("heavy run: %v", res.Err)
		}
	}
	// The worker gives its memory back after it answered: wait for it.
	after, idleStart := rssKiB(t, pid), time.Now()
	idle := after
	for end := idleStart.Add(30 * time.Second); idle > fresh+64<<10 && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		idle = rssKiB(t, pid)
	}
	if len(children(t, os.Getpid())) != 1 || p.Stats().Started != started {
		t.Fatalf("the worker was replaced: %+v", p.Stats())
	}
	t.Logf("worker RSS: fresh %d MiB, after 3 heavy runs %d MiB, %v idle later %d MiB", fresh>>10, after>>10, time.Since(idleStart).Round(time.Millisecond), idle>>10)
	if idle > fresh+64<<10 {
		t.Errorf("an idle worker holds %d MiB (fresh: %d MiB): it keeps its peak, and nothing retires it", idle>>10, fresh>>10)
	}
	h.wg.Wait()
}

func init() {
	brokenWorkers["rt-deaf-hold"] = func() { // a turn of two calls, then stops reading (a frozen worker)
		handshake()
		in := bufio.NewReader(os.Stdin)
		_, _, _ = readFrame(in, 1<<30)
		w := bufio.NewWriter(os.Stdout)
		_ = writeFrame(w, kindCalls, appendCalls(nil, []callMsg{
			{Index: 0, Tool: "hold", Args: json.RawMessage(`{}`)},
			{Index: 1, Tool: "big", Args: json.RawMessage(`{}`)},
		}))
		time.Sleep(brokenFor)
	}
}

// A frozen worker (it stopped reading its stdin) with one call held for an
// approval and another's result larger than a pipe in flight: that settle
// blocks writing. When the approval ends, the run's clock must start again
// and its backstop end the run; the release used to wait for the blocked
// settle's lock, the clock stayed stopped, and the run never ended.
func TestRedTeamFrozenWorkerDuringAHold(t *testing.T) {
	p := newPool(t, Config{Command: self("rt-deaf-hold"), Warm: 1, Max: 1})
	waitWarm(t, p, 1)
	h := &rtHost{release: make(chan struct{}), held: make(chan struct{}, 1)}
	lim := js.Limits{Timeout: 300 * time.Millisecond}
	go func() {
		<-h.held
		time.Sleep(500 * time.Millisecond) // big's settle is blocked by then
		close(h.release)
	}()
	res, took := rtRun(t, p, h, `return 1`, lim, 500*time.Millisecond+lim.Timeout+backstop(lim.Timeout)+stopSlack, nil)
	if code(res) != "timeout" {
		t.Errorf("got %s (%v), want timeout", code(res), res.Err)
	}
	t.Logf("%s after %v", code(res), took.Round(time.Millisecond))
	h.wg.Wait()
}

// busyHost resolves quick at once, then runs big inside Start, holding
// its clock for an instant (an approval granted at once) and resolving it
// with 1 MiB: a host may run calls before Start returns (js.Host), and its
// reader of the worker's frames waits meanwhile.
type busyHost struct{}

func (busyHost) Start(calls []*js.Call) {
	for _, c := range calls {
		if c.Tool == "quick" {
			c.Resolve(json.RawMessage(`1`))
		}
	}
	for _, c := range calls {
		if c.Tool == "big" {
			time.Sleep(300 * time.Millisecond) // the script fills the pipe with logs meanwhile
			release := c.Hold()
			release()
			c.Resolve(json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`))
		}
	}
}

// A script that writes logs while its host runs a call inside Start: the
// worker blocks writing them, as the host reads nothing meanwhile. That
// writer held the lock the worker's reader needed for the hold that came
// next, so the reader stopped, the host blocked writing big's result, and
// the run ended at the backstop with timeout (4.8 s with a 3 s budget); in process it
// succeeds in a fraction of a second.
func TestWriterNeverBlocksTheReader(t *testing.T) {
	p := newPool(t, Config{Warm: 1, Max: 1})
	waitWarm(t, p, 1)
	res := p.RunScript(context.Background(), js.Job{
		Code:    `const p = tools.big({}); await tools.quick({}); for (let i = 0; i < 40000; i++) console.log(""); return (await p).length`,
		Options: js.Options{Limits: js.Limits{Timeout: 20 * time.Second}, Tools: []string{"big", "quick"}, Host: busyHost{}, OnLog: func(js.Log) {}}})
	if res.Err != nil || string(res.Value) != "1048576" {
		t.Errorf("got %s %v, want 1048576", res.Value, res.Err)
	}
}

func init() {
	brokenWorkers["rt-deaf-done"] = func() { // a call, its answer never read, then a result
		handshake()
		in := bufio.NewReader(os.Stdin)
		_, _, _ = readFrame(in, 1<<30)
		w := bufio.NewWriter(os.Stdout)
		_ = writeFrame(w, kindCalls, appendCalls(nil, []callMsg{{Index: 0, Tool: "big", Args: json.RawMessage(`{}`)}}))
		// big's settle is blocked writing by then, even on a busy machine:
		// the run's timeout is far off, so the result is what ends it.
		time.Sleep(time.Second)
		_ = writeFrame(w, kindDone, doneMsg{Value: json.RawMessage(`1`)})
		time.Sleep(brokenFor)
	}
}

// A frozen worker that answers its run while the result of its call is
// stuck on the way to it: the run ends by the backstop's kill at the
// latest. Reading the result took the lock the blocked settle held, and
// the run never ended.
func TestRedTeamFrozenWorkerAnswersWithASettleInFlight(t *testing.T) {
	p := newPool(t, Config{Command: self("rt-deaf-done"), Warm: 1, Max: 1})
	waitWarm(t, p, 1)
	h := &rtHost{}
	// A timeout of 300 ms raced the worker's answer on a busy CI machine.
	lim := js.Limits{Timeout: 10 * time.Second}
	res, took := rtRun(t, p, h, `return 1`, lim, lim.Timeout+backstop(lim.Timeout)+stopSlack, nil)
	if code(res) != "runtime_error" || !strings.Contains(res.Err.Message, "did not read") {
		t.Errorf("got %s %v, want runtime_error saying the worker did not read", res.Value, res.Err)
	}
	t.Logf("%s after %v", code(res), took.Round(time.Millisecond))
	h.wg.Wait()
	if s := p.Stats(); s.Replaced != 1 {
		t.Errorf("stats %+v, want the worker replaced", s)
	}
}
