package js

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/dop251/goja"
)

// BenchmarkSetup is the cost of a fresh runtime with 12 tools, before any
// script runs: the hardened builtins (harden), the lean profile's removals
// alone (lean), and the run's own globals (bind).
func BenchmarkSetup(b *testing.B) {
	h := newTestHost()
	names := []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "b.c", "b.d"}
	maxElems := maxElemsFor(DefaultMaxMemoryBytes)
	b.Run("harden", func(b *testing.B) {
		for b.Loop() {
			if err := newBareRunner(maxElems).harden(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lean", func(b *testing.B) {
		for b.Loop() {
			r := newBareRunner(maxElems)
			r.opt.Profile = Lean
			if err := r.build(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bind", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			r := newBareRunner(maxElems)
			if err := r.harden(); err != nil {
				b.Fatal(err)
			}
			r.opt = Options{Tools: names, Host: h}
			b.StartTimer()
			if err := r.bind(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRunEmpty is a whole run of "return 1".
func BenchmarkRunEmpty(b *testing.B) {
	s, err := Compile("return 1", 0)
	if err != nil {
		b.Fatal(err)
	}
	h := newTestHost()
	for b.Loop() {
		if res := Run(context.Background(), s, Options{Tools: h.names(), Host: h}); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}

// BenchmarkStringifyArgs is the JSON of one tool call's arguments in the
// BenchmarkExecute script: by the sandbox (stringifyJSON, the replacer in
// Go) and by the script's JSON.stringify (the replacer in JavaScript, which
// the sandbox used before).
func BenchmarkStringifyArgs(b *testing.B) {
	r := jsonRunner(b)
	v, err := r.vm.RunString(`({ name: "alpha-1", index: 1, tags: ["a", "b"] })`)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("sandbox", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.stringifyJSON(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	script, _ := goja.AssertFunction(r.vm.GlobalObject().Get("JSON").(*goja.Object).Get("stringify"))
	b.Run("script", func(b *testing.B) {
		for b.Loop() {
			if _, err := script(goja.Undefined(), v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkParseResult is a tool's result becoming a JavaScript value: the
// result of the BenchmarkExecute tools, and a larger one, by the sandbox's
// decoder (parseJSON) and by goja's JSON.parse (which the sandbox used
// before).
func BenchmarkParseResult(b *testing.B) {
	r := jsonRunner(b)
	for name, text := range map[string]string{
		"small": `{"ok":true,"n":3}`,
		"board": `{"objects":[{"id":"a1","kind":"frame","x":10,"y":20.5,"tags":["a","b"]},{"id":"a2","kind":"note","x":-3,"y":1e3,"text":"hello, wörld"}],"count":2}`,
	} {
		b.Run(name+"/sandbox", func(b *testing.B) {
			for b.Loop() {
				if _, err := r.parseJSON([]byte(text)); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/builtin", func(b *testing.B) {
			for b.Loop() {
				if _, err := r.jsonParse(goja.Undefined(), r.vm.ToValue(text)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// syncHost answers every call at once, inside Start, with the result of the
// engine benchmarks' tools.
type syncHost struct{}

func (syncHost) Start(calls []*Call) {
	for _, c := range calls {
		c.Resolve(json.RawMessage(`{"ok":true,"n":3}`))
	}
}

// benchTenCalls is the engine's BenchmarkExecute script: 20 lines, 10
// awaited tool calls.
const benchTenCalls = `const names = ["alpha", "beta", "gamma", "delta", "epsilon"];
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

// BenchmarkRunProfiles is a whole run of benchTenCalls, compiled once,
// with tools answered at once: what each profile costs a run where the
// sandbox runs (in process, or inside a worker), without the engine or a
// pipe.
func BenchmarkRunProfiles(b *testing.B) {
	s, err := Compile(benchTenCalls, 0)
	if err != nil {
		b.Fatal(err)
	}
	tools := make([]string, 12)
	for i := range tools {
		tools[i] = "tool" + strconv.Itoa(i)
	}
	for _, p := range []Profile{Hardened, Lean} {
		b.Run(p.String(), func(b *testing.B) {
			for b.Loop() {
				if res := Run(context.Background(), s, Options{Profile: p, Tools: tools, Host: syncHost{}}); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}
