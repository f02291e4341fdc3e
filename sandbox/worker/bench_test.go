package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/sandbox/js"
	"github.com/codemode-dev/codemode/sandbox/wasm"
)

// inlineHost resolves every call at once, inside Start, as the engine does
// for a lone call: the benchmarks measure the runner, not tools.
type inlineHost struct{}

func (inlineHost) Start(calls []*js.Call) {
	for _, c := range calls {
		c.Resolve(json.RawMessage(`{"ok":true,"n":3}`))
	}
}

const benchCalls = `let n = 0; for (let i = 0; i < 10; i++) n += (await tools.t({i})).n; return n`

// BenchmarkRun compares a script run in process and in a warm worker, in
// one benchmark run: "none" makes no tool call (the cost of a run's start
// and end), "calls" makes 10 awaited calls (plus a round trip each).
// BenchmarkRun/worker minus BenchmarkRun/inprocess is the worker's overhead.
func BenchmarkRun(b *testing.B) {
	p, err := New(Config{Warm: 1, Max: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	cache := js.NewCache(8)
	opt := js.Options{Tools: []string{"t"}, Host: inlineHost{}}
	for _, s := range []struct{ name, code string }{{"none", `return 1`}, {"calls", benchCalls}} {
		b.Run("inprocess/"+s.name, func(b *testing.B) {
			for b.Loop() {
				sc, cerr := cache.Compile(s.code, 0)
				if cerr != nil {
					b.Fatal(cerr)
				}
				if res := js.Run(context.Background(), sc, opt); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
		b.Run("worker/"+s.name, func(b *testing.B) {
			for b.Loop() {
				if res := p.RunScript(context.Background(), js.Job{Code: s.code, Options: opt}); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}

// BenchmarkPipeRoundTrip is the floor under every worker round trip: one
// byte to a child process over a pipe and back, nothing else.
func BenchmarkPipeRoundTrip(b *testing.B) {
	echo := startEcho(b)
	defer echo.close()
	for b.Loop() {
		echo.roundTrip(b)
	}
}

// BenchmarkCallRoundTrip isolates what one tool call costs through a
// worker, against the floor, in one benchmark run: each iteration runs a
// script of callRoundTrips sequential awaited calls and one of none in a
// warm worker, and makes callRoundTrips bare pipe round trips (as
// BenchmarkPipeRoundTrip) to a child process, interleaved so that a busy
// machine weighs on all alike. ns/op is the difference of the two runs per
// call; pipe-ns is one bare round trip; x-pipe is their ratio, which the
// transport keeps at 2 or below (docs/design.md, "Worker processes");
// inprocess-ns is what a call costs the same script run in process (the
// script's own work, which the worker pays as well); host- and
// worker-sleeps/call count the times a thread of either process went to
// sleep per call (on Linux), each a wake-up paid on a call's path or
// beside it.
func BenchmarkCallRoundTrip(b *testing.B) {
	p, err := New(Config{Warm: 1, Max: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	echo := startEcho(b)
	defer echo.close()
	opt := js.Options{Tools: []string{"t"}, Host: inlineHost{}}
	none := js.Job{Code: `return 1`, Options: opt}
	calls := js.Job{Code: fmt.Sprintf(`for (let i = 0; i < %d; i++) await tools.t({i}); return 1`, callRoundTrips), Options: opt}
	run := func(job js.Job) time.Duration {
		start := time.Now()
		if res := p.RunScript(context.Background(), job); res.Err != nil {
			b.Fatal(res.Err)
		}
		return time.Since(start)
	}
	cache := js.NewCache(8)
	inProcess := func(job js.Job) time.Duration {
		start := time.Now()
		if res := js.RunJob(context.Background(), cache, job); res.Err != nil {
			b.Fatal(res.Err)
		}
		return time.Since(start)
	}
	run(calls) // the first run compiles the script in the worker
	p.mu.Lock()
	pid := p.idle[0].process.Pid
	p.mu.Unlock()
	var withCalls, without, pipe, local time.Duration
	// The sleeps of the threads of each process, in the runs with calls
	// minus those without.
	var hostSleeps, workerSleeps int64
	for b.Loop() {
		h0, w0 := threadSleeps(os.Getpid()), threadSleeps(pid)
		withCalls += run(calls)
		h1, w1 := threadSleeps(os.Getpid()), threadSleeps(pid)
		without += run(none)
		h2, w2 := threadSleeps(os.Getpid()), threadSleeps(pid)
		hostSleeps += (h1 - h0) - (h2 - h1)
		workerSleeps += (w1 - w0) - (w2 - w1)
		start := time.Now()
		for range callRoundTrips {
			echo.roundTrip(b)
		}
		pipe += time.Since(start)
		local += inProcess(calls) - inProcess(none)
	}
	n := float64(b.N) * callRoundTrips
	perCall := float64(withCalls-without) / n
	perPipe := float64(pipe) / n
	b.ReportMetric(perCall, "ns/op")
	b.ReportMetric(perPipe, "pipe-ns")
	b.ReportMetric(perCall/perPipe, "x-pipe")
	b.ReportMetric(float64(local)/n, "inprocess-ns")
	if hostSleeps != 0 || workerSleeps != 0 {
		b.ReportMetric(float64(hostSleeps)/n, "host-sleeps/call")
		b.ReportMetric(float64(workerSleeps)/n, "worker-sleeps/call")
	}
}

// threadSleeps is how many times the threads of process pid have gone to
// sleep (voluntary context switches, from /proc); 0 where /proc has no such
// figures. Each sleep of a thread waiting for a frame is a wake-up to pay.
func threadSleeps(pid int) int64 {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, t := range tasks {
		status, err := os.ReadFile(dir + "/" + t.Name() + "/status")
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(l, "voluntary_ctxt_switches:"); ok {
				k, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				n += k
			}
		}
	}
	return n
}

// callRoundTrips is how many calls BenchmarkCallRoundTrip's script makes.
const callRoundTrips = 50

// echoChild is this test binary as the "echo" child: one byte back for each
// byte, the floor under every worker round trip.
type echoChild struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out io.Reader
	buf []byte
}

func startEcho(b *testing.B) *echoChild {
	cmd := exec.Command(os.Args[0], "echo")
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	e := &echoChild{cmd: cmd, in: in, out: out, buf: make([]byte, 1)}
	e.roundTrip(b) // the child has started
	return e
}

func (e *echoChild) roundTrip(b *testing.B) {
	if _, err := e.in.Write(e.buf); err != nil {
		b.Fatal(err)
	}
	if _, err := e.out.Read(e.buf); err != nil {
		b.Fatal(err)
	}
}

func (e *echoChild) close() {
	e.in.Close()
	_ = e.cmd.Wait()
}

// BenchmarkModuleCall compares a call of a tiny WAT module in process and
// in a warm worker.
func BenchmarkModuleCall(b *testing.B) {
	p, err := New(Config{Warm: 1, Max: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	bin := wasmFixture(b, "echo")
	opts := wasm.ModuleOptions{Name: "echo"}
	rt, err := wasm.NewRuntime(context.Background(), wasm.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	local, err := rt.Compile(context.Background(), bin, opts)
	if err != nil {
		b.Fatal(err)
	}
	remote, err := p.Module(bin, opts)
	if err != nil {
		b.Fatal(err)
	}
	args := []byte(`{"x":1}`)
	for _, m := range []struct {
		name string
		c    interface {
			Call(context.Context, []byte) (json.RawMessage, *wasm.Error)
		}
	}{{"inprocess", local}, {"worker", remote}} {
		b.Run(m.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := m.c.Call(context.Background(), args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReplace is what replacing a killed worker costs: a new process
// started and ready (the pool does this in the background, so a run waits
// for it only when no other worker is idle), then its first run.
func BenchmarkReplace(b *testing.B) {
	cfg, err := Config{}.withDefaults()
	if err != nil {
		b.Fatal(err)
	}
	job := js.Job{Code: `return 1`, Options: js.Options{Host: inlineHost{}}}
	for b.Loop() {
		w, err := startProc(cfg)
		if err != nil {
			b.Fatal(err)
		}
		if res, _ := w.run(context.Background(), job); res.Err != nil {
			b.Fatal(res.Err)
		}
		b.StopTimer()
		w.kill()
		<-w.exited
		b.StartTimer()
	}
}
