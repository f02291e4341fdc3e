package worker

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

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
	defer func() { in.Close(); cmd.Wait() }()
	buf := make([]byte, 1)
	for b.Loop() {
		if _, err := in.Write(buf); err != nil {
			b.Fatal(err)
		}
		if _, err := out.Read(buf); err != nil {
			b.Fatal(err)
		}
	}
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
