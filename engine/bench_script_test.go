package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/worker"
	"github.com/dop251/goja"
)

// benchTools are 12 cheap tools: the code-mode benchmarks measure the
// sandbox and the engine, not tool work.
func benchTools(b *testing.B, wait time.Duration) *engine.Engine { return benchToolsWith(b, wait, nil) }

// benchToolsWith is benchTools with a script runner (nil: the default).
func benchToolsWith(b *testing.B, wait time.Duration, runner engine.ScriptRunner) *engine.Engine {
	cfg := engine.DefaultConfig()
	cfg.Script.MaxConcurrency = 10 // the default, 8, would run the fan-out of 10 in two waves
	bld := engine.NewBuilder().WithConfig(cfg)
	if runner != nil {
		bld.WithScriptRunner(runner)
	}
	for i := range 12 {
		bld.Add(engine.Tool{
			Name: fmt.Sprintf("tool%d", i), InputSchema: json.RawMessage(`{"type":"object"}`),
			Annotations: engine.Annotations{ReadOnlyHint: true},
			Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				if wait > 0 {
					time.Sleep(wait)
				}
				return json.RawMessage(`{"ok":true,"n":3}`), nil
			},
		})
	}
	e, err := bld.Build()
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// benchScriptJS is a 20-line script making 10 awaited calls.
const benchScriptJS = `const names = ["alpha", "beta", "gamma", "delta", "epsilon"];
const made = [];
let total = 0;
for (let i = 0; i < 10; i++) {
  const name = names[i % names.length] + "-" + i;
  const res = await tools["tool" + (i % 12)]({ name, index: i, tags: ["a", "b"] });
  if (!res.ok) {
    throw new Error("tool failed: " + name);
  }
  total += res.n;
  made.push({ name, n: res.n });
}
const byLetter = {};
for (const m of made) {
  const k = m.name[0];
  byLetter[k] = (byLetter[k] || 0) + 1;
}
const summary = Object.keys(byLetter).sort().map((k) => k + "=" + byLetter[k]);
console.log("made", made.length, "items");
return { total, summary };`

// benchScriptTS is the same script with type annotations, so it needs the
// TypeScript transform.
const benchScriptTS = `interface Made { name: string; n: number }
const names: string[] = ["alpha", "beta", "gamma", "delta", "epsilon"];
const made: Made[] = [];
let total: number = 0;
for (let i = 0; i < 10; i++) {
  const name = names[i % names.length] + "-" + i;
  const res = (await tools["tool" + (i % 12)]({ name, index: i, tags: ["a", "b"] })) as { ok: boolean; n: number };
  if (!res.ok) {
    throw new Error("tool failed: " + name);
  }
  total += res.n;
  made.push({ name, n: res.n });
}
const byLetter: Record<string, number> = {};
for (const m of made) {
  byLetter[m.name[0]] = (byLetter[m.name[0]] || 0) + 1;
}
const summary = Object.keys(byLetter).sort().map((k) => k + "=" + byLetter[k]);
console.log("made", made.length, "items");
return { total, summary };`

// benchFloor is the same loop in a bare runtime: goja.New, one plain Go
// function, RunString. Nothing hardened, nothing asynchronous: the floor
// any goja-based engine starts from.
const benchFloor = `const names = ["alpha", "beta", "gamma", "delta", "epsilon"];
const made = [];
let total = 0;
for (let i = 0; i < 10; i++) {
  const name = names[i % names.length] + "-" + i;
  const res = call({ name, index: i, tags: ["a", "b"] });
  if (!res.ok) {
    throw new Error("tool failed: " + name);
  }
  total += res.n;
  made.push({ name, n: res.n });
}
const byLetter = {};
for (const m of made) {
  const k = m.name[0];
  byLetter[k] = (byLetter[k] || 0) + 1;
}
const summary = Object.keys(byLetter).sort().map((k) => k + "=" + byLetter[k]);
JSON.stringify({ total, summary });`

// BenchmarkExecute compares a fresh hardened run through Execute (12 tools,
// 10 awaited calls) with the floor, in one benchmark run. The script cache
// is part of the engine; "uncached" sends a different code text every time.
func BenchmarkExecute(b *testing.B) {
	ctx := context.Background()
	b.Run("floor", func(b *testing.B) {
		for b.Loop() {
			vm := goja.New()
			_ = vm.Set("call", func(c goja.FunctionCall) goja.Value {
				o := vm.NewObject()
				_ = o.Set("ok", true)
				_ = o.Set("n", 3)
				return o
			})
			if _, err := vm.RunString(benchFloor); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, tc := range []struct{ name, code string }{{"js", benchScriptJS}, {"ts", benchScriptTS}} {
		e := benchTools(b, 0)
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				res, err := e.Execute(ctx, engine.ExecuteRequest{Code: tc.code})
				if err != nil || !res.Success {
					b.Fatal(err, res.Error)
				}
			}
		})
		b.Run(tc.name+"-uncached", func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				res, err := e.Execute(ctx, engine.ExecuteRequest{Code: fmt.Sprintf("%s\n// %d", tc.code, i)})
				if err != nil || !res.Success {
					b.Fatal(err, res.Error)
				}
			}
		})
	}
}

// BenchmarkExecuteWorker is BenchmarkExecute/js with the script in a worker
// process from a warm pool, beside the same run in process: the difference
// is what isolation costs a run (a pipe round trip per tool call, and the
// run's start and end).
func BenchmarkExecuteWorker(b *testing.B) {
	pool, err := worker.New(worker.Config{Warm: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	for _, tc := range []struct {
		name   string
		runner engine.ScriptRunner
	}{{"inprocess", nil}, {"worker", pool}} {
		e := benchToolsWith(b, 0, tc.runner)
		for _, s := range []struct{ name, code string }{{"js", benchScriptJS}, {"nocalls", "return 1"}} {
			b.Run(tc.name+"/"+s.name, func(b *testing.B) {
				for b.Loop() {
					res, err := e.Execute(context.Background(), engine.ExecuteRequest{Code: s.code})
					if err != nil || !res.Success {
						b.Fatal(err, res.Error)
					}
				}
			})
		}
	}
}

// BenchmarkExecutePromiseAll fans out to 10 tools that each wait 20 ms:
// with all ten running at once, a run takes a little over 20 ms.
func BenchmarkExecutePromiseAll(b *testing.B) {
	e := benchTools(b, 20*time.Millisecond)
	code := `return (await Promise.all([...Array(10).keys()].map((i) => tools["tool" + i]({ i })))).length`
	for b.Loop() {
		res, err := e.Execute(context.Background(), engine.ExecuteRequest{Code: code})
		if err != nil || !res.Success {
			b.Fatal(err, res.Error)
		}
	}
}
