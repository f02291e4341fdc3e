package worker

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/sandbox/js"
	"github.com/google/go-cmp/cmp"
)

// host runs the test tools: add sums {a, b}; fail rejects; boom aborts the
// run with a budget error; wait holds the run's clock for ms, then resolves.
type host struct{ wg sync.WaitGroup }

type toolErr struct{ tool string } // a host's own value, handed back as Cause

func (h *host) Start(calls []*js.Call) {
	for _, c := range calls {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			switch c.Tool {
			case "add":
				var in struct{ A, B int }
				_ = json.Unmarshal(c.Args, &in)
				out, _ := json.Marshal(map[string]int{"sum": in.A + in.B})
				c.Resolve(out)
			case "fail":
				c.Reject(&js.Error{Code: "tool_error", Message: "it failed", Props: json.RawMessage(`{"details":[1]}`), Cause: toolErr{c.Tool}})
			case "boom":
				c.Abort(&js.Error{Code: js.CodeTimeout, Message: "the tool timed out", Cause: toolErr{c.Tool}})
			case "wait":
				var in struct{ MS int }
				_ = json.Unmarshal(c.Args, &in)
				release := c.Hold()
				time.Sleep(time.Duration(in.MS) * time.Millisecond)
				release()
				c.Resolve(json.RawMessage(`{"waited":true}`))
			default:
				c.Reject(&js.Error{Code: "unknown_tool", Message: "unknown tool " + c.Tool})
			}
		}()
	}
}

var tools = []string{"add", "fail", "boom", "wait"}

func newPool(t *testing.T, cfg Config) *Pool {
	t.Helper()
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func run(t *testing.T, p *Pool, code string, lim js.Limits) *js.Result {
	t.Helper()
	h := &host{}
	res := p.RunScript(context.Background(), js.Job{Code: code, Options: js.Options{Limits: lim, Tools: tools, Host: h, Input: json.RawMessage(`{"n":2}`)}})
	h.wg.Wait()
	return res
}

func code(res *js.Result) string {
	if res.Err == nil {
		return "success"
	}
	return string(res.Err.Code)
}

func TestRunLikeInProcess(t *testing.T) {
	p := newPool(t, Config{Warm: 1, Max: 2})
	// The scripts that end by themselves get the default budget: on a busy
	// machine a short one could end one of the two runs and not the other.
	cases := []struct {
		code    string
		timeout time.Duration
	}{
		{`const r = await tools.add({a: input.n, b: 3}); console.log("sum", r.sum); return r`, 0},
		{`const [a, b] = await Promise.all([tools.add({a: 1, b: 1}), tools.add({a: 2, b: 2})]); return a.sum + b.sum`, 0},
		{`try { await tools.fail({}) } catch (e) { return [e.code, e.message, e.details, e.tool] }`, 0},
		{`await tools.fail({})`, 0},
		{`await tools.nope({})`, 0},
		{`let x: number = 4; return x * 2`, 0}, // TypeScript
		{`return (`, 0},                        // syntax error
		{`while (true) {}`, 4 * time.Second},   // the backstop's grace is half of it: a busy machine's worker answers in time
		{`throw new RangeError("no")`, 0},
		// The same bytes, not only the same values: a model reads "<", not "\u003c".
		{`console.log("<b> & </b>"); return {html: "<a href='x'>&amp;</a>", arrow: "->"}`, 0},
		{`try { await tools.nope({}) } catch (e) { throw new Error("<" + e.message + ">") }`, 0},
	}
	cache := js.NewCache(16)
	for _, tc := range cases {
		c, lim := tc.code, js.Limits{Timeout: tc.timeout}
		want := func() *js.Result {
			h := &host{}
			r := js.RunJob(context.Background(), cache, js.Job{Code: c, Options: js.Options{Limits: lim, Tools: tools, Host: h, Input: json.RawMessage(`{"n":2}`)}})
			h.wg.Wait()
			return r
		}()
		got := run(t, p, c, lim)
		opts := cmp.Options{cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Cause" }, cmp.Ignore())}
		if d := cmp.Diff(want, got, opts); d != "" {
			t.Errorf("%s: worker differs from in process (-want +got):\n%s", c, d)
		}
	}
	if s := p.Stats(); s.Replaced != 0 {
		t.Errorf("workers replaced: %+v", s)
	}
}

func TestErrorsKeepTheHostsCause(t *testing.T) {
	p := newPool(t, Config{Warm: 1})
	for _, tc := range []struct{ code, tool string }{{`await tools.fail({})`, "fail"}, {`await tools.boom({})`, "boom"}} {
		res := run(t, p, tc.code, js.Limits{})
		if res.Err == nil || res.Err.Cause != (toolErr{tc.tool}) {
			t.Errorf("%s: error %+v, want the host's cause for %s", tc.code, res.Err, tc.tool)
		}
	}
}

// A worker that dies, hangs or breaks the protocol fails that run with a
// structured error, and the pool goes on with a new worker. Only the hung
// worker is ended by the backstop, at its short budget; the others must end
// by what they do, so their budget is long: on a busy machine a short one
// could run out first.
func TestBrokenWorkers(t *testing.T) {
	for _, tc := range []struct {
		worker, code, msg string
	}{
		{"hang", "timeout", "did not answer"},
		{"exit", "runtime_error", "something broke"},
		{"huge", "output_limit", "over the worker protocol's limit"},
		{"garbage", "runtime_error", "malformed result"},
		{"spin", "timeout", "more CPU time"},
		{"badindex", "runtime_error", "call 2147483648 where call 0"},
	} {
		t.Run(tc.worker, func(t *testing.T) {
			p := newPool(t, Config{Command: self(tc.worker), Warm: 1})
			waitWarm(t, p, 1)
			start := time.Now()
			timeout := time.Minute
			if tc.worker == "hang" { // the backstop must end it
				timeout = 300 * time.Millisecond
			}
			res := run(t, p, `return 1`, js.Limits{Timeout: timeout})
			if code(res) != tc.code || !strings.Contains(res.Err.Message, tc.msg) {
				t.Errorf("got %+v, want %s mentioning %q", res.Err, tc.code, tc.msg)
			}
			// The spinning worker needs two seconds of CPU time to reach
			// its CPU limit, which a busy machine may take long to give it.
			if d := time.Since(start); d > 10*time.Second && tc.worker != "spin" {
				t.Errorf("took %v", d)
			}
		})
	}
}

func TestWorkersGetNoEnvironmentOrDescriptors(t *testing.T) {
	t.Setenv("CODEMODE_SECRET", "x")
	_, err := startProc(mustDefaults(t, Config{Command: self("probe")}))
	if err == nil || !strings.Contains(err.Error(), "env=0 fds=") {
		t.Fatalf("got %v, want a report of the worker's environment and descriptors", err)
	}
	// What may be open: the three pipes, and descriptors the Go runtime and
	// the probe opened themselves (the cgroup files GOMAXPROCS reads, the
	// directory being listed).
	for _, fd := range strings.Split(err.Error()[strings.Index(err.Error(), "fds=")+4:], ",") {
		num, target, _ := strings.Cut(fd, "=")
		if n, _ := strconv.Atoi(num); n > 2 && !strings.HasPrefix(target, "/sys/fs/cgroup/") && !strings.HasPrefix(target, "/proc/") && target != "" {
			t.Errorf("the worker has descriptor %s open: %s", num, target)
		}
	}
}

func mustDefaults(t *testing.T, c Config) Config {
	t.Helper()
	c, err := c.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Crashes inside a real worker: its memory limit, the Go stack, a run that
// had to be abandoned. Each is that run's error only; the next run works.
func TestContainment(t *testing.T) {
	heavy(t)
	p := newPool(t, Config{Warm: 1, Max: 2, MemoryBytes: 256 << 20, StackBytes: 64 << 20})
	for _, tc := range []struct{ name, code, want string }{
		{"memory", `const a = []; for (;;) a.push("x".repeat(1000) + a.length)`, "memory_limit"},
		{"cancel-then-next", `return 1`, "success"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, p, tc.code, js.Limits{Timeout: time.Minute, MaxMemoryBytes: 4 << 30}) // the memory limit must end it
			if code(res) != tc.want {
				t.Errorf("got %s (%v), want %s", code(res), res.Err, tc.want)
			}
			if next := run(t, p, `return (await tools.add({a: 1, b: 1})).sum`, js.Limits{}); string(next.Value) != "2" {
				t.Errorf("the next run: %s %v", next.Value, next.Err)
			}
		})
	}
}

// A canceled run ends soon after the cancel (a few seconds on a busy
// machine; its budget is the default 30 s), and keeps its worker.
func TestCancel(t *testing.T) {
	p := newPool(t, Config{Warm: 1})
	waitWarm(t, p, 1)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	res := p.RunScript(ctx, js.Job{Code: `while (true) {}`, Options: js.Options{Host: &host{}}})
	if code(res) != "canceled" || time.Since(start) > 10*time.Second {
		t.Errorf("got %v after %v, want canceled soon after 100ms", res.Err, time.Since(start))
	}
	if s := p.Stats(); s.Replaced != 0 {
		t.Errorf("a canceled run that stopped replaced its worker: %+v", s)
	}
}

// Time a call holds (waiting for a person) is billed neither by the worker
// nor by the pool's backstop: the hold outlasts both (1 s, and 0.5 s more).
// The run's own work, a second of its budget, is ample on a busy machine.
func TestHoldsPauseTheBackstop(t *testing.T) {
	p := newPool(t, Config{Warm: 1})
	waitWarm(t, p, 1)
	res := run(t, p, `return await tools.wait({ms: 2000})`, js.Limits{Timeout: time.Second})
	if res.Err != nil || string(res.Value) != `{"waited":true}` {
		t.Errorf("got %s %v", res.Value, res.Err)
	}
}

func TestConcurrentRuns(t *testing.T) {
	p := newPool(t, Config{Warm: 2, Max: 3})
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := run(t, p, `let s = 0; for (let i = 0; i < 5; i++) s += (await tools.add({a: i, b: input.n})).sum; return s`, js.Limits{})
			if string(res.Value) != "20" {
				t.Errorf("run %d: %s %v", i, res.Value, res.Err)
			}
		}()
	}
	wg.Wait()
}

func TestClosedPool(t *testing.T) {
	p, err := New(Config{Warm: 1})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	if res := run(t, p, `return 1`, js.Limits{}); code(res) != "runtime_error" || !strings.Contains(res.Err.Message, "closed") {
		t.Errorf("got %v", res.Err)
	}
}

// TestWorkersKeptUnderLoad: workers that come back from runs at once are
// all kept (up to Max), so the next wave of runs starts no process; once
// idle for IdleTimeout the pool shrinks back to Warm. Before, only Warm
// were kept and each wave of Max runs started Max − Warm new processes.
func TestWorkersKeptUnderLoad(t *testing.T) {
	const maxWorkers = 4
	p := newPool(t, Config{Warm: 1, Max: maxWorkers, IdleTimeout: 300 * time.Millisecond})
	wave := func() {
		var wg sync.WaitGroup
		for range maxWorkers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Long enough that the four runs are under way together.
				if res := run(t, p, `await tools.wait({ms: 200}); return 1`, js.Limits{}); res.Err != nil {
					t.Error(res.Err)
				}
			}()
		}
		wg.Wait()
	}
	wave()
	st := p.Stats()
	if st.Started != maxWorkers || st.Idle != maxWorkers {
		t.Fatalf("after a wave of %d runs: %+v, want %d started and kept idle", maxWorkers, st, maxWorkers)
	}
	wave()
	if st := p.Stats(); st.Started != maxWorkers {
		t.Errorf("a second wave started workers: %+v", st)
	}
	deadline := time.Now().Add(10 * time.Second) // generous: IdleTimeout is 0.3 s
	for p.Stats().Idle > 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if st := p.Stats(); st.Idle != 1 || st.Retired != maxWorkers-1 {
		t.Errorf("idle for longer than IdleTimeout: %+v, want 1 idle (Warm), %d retired", st, maxWorkers-1)
	}
	// The one kept still runs scripts.
	if res := run(t, p, `return 2`, js.Limits{}); string(res.Value) != "2" {
		t.Errorf("after the reaper: %s %v", res.Value, res.Err)
	}
}

// A run canceled as it starts: its cancel must reach the worker after the
// run, or the worker takes the cancel for nothing and the run's endless
// loop for work, and the host kills and replaces it abortGrace later. (Both
// frames were sent from goroutines of their own, in either order: 19 runs
// of 20 lost their cancel; on a busy machine TestCancel's cancel, 100 ms
// in, could overtake its run too.) The check is that the worker answered
// each cancel, not that it was kept: a run canceled before its runtime is
// even set up may end up abandoned by the sandbox's 50 ms grace on a busy
// machine, and its worker then retires itself.
func TestCancelAtStart(t *testing.T) {
	p := newPool(t, Config{Warm: 1, Max: 1})
	waitWarm(t, p, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 20 {
		start := time.Now()
		res := p.RunScript(ctx, js.Job{Code: `while (true) {}`, Options: js.Options{Host: &host{}}})
		if code(res) != "canceled" {
			t.Fatalf("run %d: got %v, want canceled", i, res.Err)
		}
		if d := time.Since(start); d >= abortGrace {
			t.Errorf("run %d took %v: its worker did not answer the cancel, and was killed", i, d)
		}
	}
	t.Logf("%+v", p.Stats())
}

// Workers run the lean profile unless the pool asks for the hardened one:
// join is goja's in lean, the prelude's in hardened (its frames show in a
// stack trace); an array-like whose length is a getter works in both.
func TestWorkerProfile(t *testing.T) {
	code := `let r; try { r = Array.prototype.indexOf.call({get length() { return 1 }, 0: "a"}, "a") } catch (e) { r = e.name }
		let prelude; try { [{toString() { throw new Error("x") }}].join() } catch (e) { prelude = e.stack.includes("prelude.js") }
		return [r, prelude]`
	want := map[js.Profile]string{js.Lean: `[0,false]`, js.Hardened: `[0,true]`}
	for _, hardened := range []bool{false, true} {
		p := newPool(t, Config{Warm: 1, Max: 1, Hardened: hardened})
		profile := js.Hardened
		if !hardened && !RaceDetector {
			profile = js.Lean // without RLIMIT_DATA (the race detector) workers stay hardened
		}
		if p.Profile() != profile {
			t.Errorf("Hardened %v: Profile() = %v, want %v", hardened, p.Profile(), profile)
		}
		res := run(t, p, code, js.Limits{})
		if res.Err != nil || string(res.Value) != want[profile] {
			t.Errorf("Hardened %v: %s %v, want %s", hardened, res.Value, res.Err, want[profile])
		}
	}
}

// A worker that died of a fault in Go's runtime (a mapping it could not
// make under RLIMIT_DATA) is out of memory; a fault elsewhere, or a panic,
// is not.
func TestRuntimeFault(t *testing.T) {
	gc := "SIGSEGV: segmentation violation\nPC=0x439a7d m=8 sigcode=1 addr=0x0\n\ngoroutine 0 gp=0x2ccc9c4561e0 m=8 mp=0x2ccc9c485808 [idle]:\n" +
		"runtime.(*spanQueue).tryDrain(0x7f9e00000400?, 0x442205?, 0x1a16d68?)\n\t/usr/local/go/src/runtime/mgcmark_greenteagc.go:520 +0x5d\n"
	user := "SIGSEGV: segmentation violation\nPC=0x1 m=0 sigcode=1\n\ngoroutine 7 gp=0x1 m=0 mp=0x1 [running]:\n" +
		"github.com/dop251/goja.(*vm).run(0x1)\n"
	panicked := "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1]\n\ngoroutine 1 [running]:\nruntime.panicmem()\n"
	for text, want := range map[string]bool{gc: true, user: false, panicked: false, "": false, "fatal error: stack overflow": false} {
		if got := runtimeFault(text); got != want {
			t.Errorf("runtimeFault(%.40q) = %v, want %v", text, got, want)
		}
	}
}

// A worker whose runtime has mapped half its data limit retires after
// answering (RLIMIT_DATA counts mappings Go never gives back, so its next
// run could fail to map a page), and the run after it gets a fresh one.
func TestRetiresNearDataLimit(t *testing.T) {
	p := newPool(t, Config{Warm: 1, Max: 1, MemoryBytes: 512 << 20})
	if p.Profile() != js.Lean {
		t.Skip("needs the lean profile (the hardened one caps the string), which needs RLIMIT_DATA: not under the race detector")
	}
	res := run(t, p, `return "x".repeat(3e8).length`, js.Limits{MaxMemoryBytes: 1 << 30})
	if res.Err != nil || string(res.Value) != "300000000" {
		t.Fatalf("%s %v", res.Value, res.Err)
	}
	if st := p.Stats(); st.Replaced != 1 {
		t.Errorf("stats %+v: the worker near its data limit was kept", st)
	}
	if res := run(t, p, `return 1`, js.Limits{}); res.Err != nil {
		t.Errorf("the next run: %v", res.Err)
	}
	res = run(t, p, `return "x".repeat(1e6).length`, js.Limits{})
	if st := p.Stats(); res.Err != nil || st.Replaced != 1 {
		t.Errorf("a light run: %v, stats %+v", res.Err, st)
	}
}
