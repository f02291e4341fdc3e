package js

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/google/go-cmp/cmp"
)

// profileRunner is a runner whose runtime is built for p, as before a
// script.
func profileRunner(t *testing.T, p Profile) *runner {
	t.Helper()
	r := newBareRunner(maxElemsFor(DefaultMaxMemoryBytes))
	r.opt.Profile = p
	if err := r.build(); err != nil {
		t.Fatal(err)
	}
	return r
}

// codeOf is the Go function a native function object runs, as a code
// pointer: a Go wrapper of guardBuiltins is told apart from goja's own
// builtin by it (as in TestTableBuiltinsInstalledWrapped).
func codeOf(v goja.Value) uintptr {
	o, ok := v.(*goja.Object)
	if !ok {
		return 0
	}
	fn, ok := o.Export().(func(goja.FunctionCall) goja.Value)
	if !ok {
		return 0
	}
	return reflect.ValueOf(fn).Pointer()
}

// TestLeanHasNoWrappers checks, for every builtin the hardened profile
// wraps and every iterator's next, that the lean runtime has goja's own
// function there, and that no function reachable from its global object is
// JavaScript but the blocked Function constructor (no prelude: join and
// JSON are goja's). The same checks on a hardened runtime find wrappers and
// the native functions in front of the prelude's, so they can fail.
func TestLeanHasNoWrappers(t *testing.T) {
	count := func(r *runner) (wrapped, forwarded int, jsPaths []string) {
		guardedCode := codeOf(r.wrapper(&wrapSpec{name: r.vm.ToValue("x")}, nil))
		forwardCode := codeOf(r.wrapper(&wrapSpec{name: r.vm.ToValue("x"), forward: true}, nil))
		owners := map[string]*goja.Object{}
		g := r.vm.GlobalObject()
		for _, ref := range builtinRefs() {
			owner := r.resolve(owners, g, ref.ownerPath, ref.owner)
			if owner == nil {
				t.Fatalf("%s: owner %s not found", ref.path, ref.ownerPath)
			}
			d, err := r.gopd(goja.Undefined(), owner, r.keyValue(ref.key))
			if err != nil {
				t.Fatal(err)
			}
			f := d.(*goja.Object).Get([...]string{"value", "get", "set"}[ref.kind])
			switch codeOf(f) {
			case guardedCode:
				wrapped++
			case forwardCode:
				forwarded++
			}
		}
		v, err := r.vm.RunProgram(iteratorProtos())
		if err != nil {
			t.Fatal(err)
		}
		for i := range iteratorNexts() {
			if codeOf(v.(*goja.Object).Get(string(rune('0'+i))).(*goja.Object).Get("next")) == guardedCode {
				wrapped++
			}
		}
		for _, f := range reachableFunctions(t, r) {
			if f.kind == "js" {
				jsPaths = append(jsPaths, f.path)
			}
		}
		return wrapped, forwarded, jsPaths
	}
	hw, hf, _ := count(profileRunner(t, Hardened))
	if hw < 150 || hf != len(preludeReplaced) {
		t.Errorf("hardened: %d wrappers, %d in front of the prelude's functions: the check sees neither", hw, hf)
	}
	lw, lf, jsPaths := count(profileRunner(t, Lean))
	if lw != 0 || lf != 0 {
		t.Errorf("lean: %d builtins are wrapped, %d behind the prelude's", lw, lf)
	}
	for _, p := range jsPaths {
		if p != "Function" && !strings.HasSuffix(p, ".constructor") {
			t.Errorf("lean: %s is JavaScript, not goja's builtin (a prelude guard?)", p)
		}
	}
	t.Logf("hardened: %d wrappers, %d of the prelude's; lean: none, JavaScript only %v", hw, hf, jsPaths)
}

// TestProfilesRemoveTheSame walks both runtimes from their global objects:
// the same globals with the same attributes (goja's, without
// removedGlobals: TestHardenedGlobalIsGojasMinusRemoved), and the same set of
// reachable functions by path — the profiles differ in what the builtins
// are, never in which exist. Every way to code from strings throws in both.
func TestProfilesRemoveTheSame(t *testing.T) {
	walk := func(p Profile) (global any, paths []string) {
		r := profileRunner(t, p)
		v, err := r.vm.RunString(describeGlobal)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(v.String()), &global); err != nil {
			t.Fatal(err)
		}
		for _, f := range reachableFunctions(t, r) {
			paths = append(paths, f.path)
		}
		slices.Sort(paths)
		return global, paths
	}
	hg, hp := walk(Hardened)
	lg, lp := walk(Lean)
	if diff := cmp.Diff(hg, lg); diff != "" {
		t.Errorf("the global objects differ (-hardened +lean):\n%s", diff)
	}
	if diff := cmp.Diff(hp, lp); diff != "" {
		t.Errorf("the reachable functions differ (-hardened +lean):\n%s", diff)
	}
	for _, name := range []string{"eval", "Proxy", "BigInt", "ArrayBuffer", "Uint8Array"} {
		if slices.Contains(lp, name) {
			t.Errorf("lean: %s is reachable", name)
		}
	}
	const probes = `const tries = [
		() => Function('return 1')(),
		() => new Function('return 1')(),
		() => (function () {}).constructor('return 1')(),
		() => (async function () {}).constructor('return 1')(),
		() => (function* () {}).constructor('return 1')(),
		() => Reflect.construct(Function, ['return 1']),
	];
	return [tries.map((f) => { try { f(); return "ran" } catch (e) { return e.name + ": " + e.message } }),
		(() => 1) instanceof Function, typeof eval, typeof Proxy, typeof BigInt, typeof Uint8Array]`
	var outs []string
	for _, p := range []Profile{Hardened, Lean} {
		res, _ := runCode(t, probes, Options{Profile: p})
		if res.Err != nil {
			t.Fatalf("%v: %v", p, res.Err)
		}
		outs = append(outs, string(res.Value))
	}
	want := `[["TypeError: code generation from strings is not allowed in the sandbox",` +
		strings.Repeat(`"TypeError: code generation from strings is not allowed in the sandbox",`, 4) +
		`"TypeError: code generation from strings is not allowed in the sandbox"],true,"undefined","undefined","undefined","undefined"]`
	for i, p := range []Profile{Hardened, Lean} {
		if outs[i] != want {
			t.Errorf("%v: %s\nwant %s", p, outs[i], want)
		}
	}
}

// toolArgScripts make tool calls whose arguments exercise JSON.stringify
// (getters, toJSON, undefined members, sparse arrays, special numbers,
// symbols, lone surrogates, Dates, boxed values, tampered builtins, nested
// stringifies in getters, cycles) and give back what the tools returned.
var toolArgScripts = map[string]string{
	"plain":    `return await tools.echo({a: 1, b: "x", c: [1, 2, {d: null}], e: true})`,
	"none":     `return [await tools.echo(), await tools.echo(undefined), await tools.echo(null)]`,
	"scalars":  `return [await tools.echo(1), await tools.echo("s"), await tools.echo(-0), await tools.echo(NaN), await tools.echo(1e21)]`,
	"specials": `return await tools.echo({u: undefined, f() {}, s: Symbol("x"), [Symbol("k")]: 1, n: NaN, i: -Infinity, z: -0, big: 2**53 + 1, tiny: 5e-324})`,
	"sparse":   `const a = [1, , 3]; a[10] = 4; return await tools.echo({a, holes: new Array(3)})`,
	"strings":  `return await tools.echo({s: "\ud800 lone \udfff, \u2028 \u0000 \"quoted\" \\ é 😀", k: {"\u0007": 1, "__proto__": 2}})`,
	"getters": `let n = 0; const o = {get a() { return ++n }, get b() { return {c: ++n} }};
		Object.defineProperty(o, "hidden", {get() { return ++n }, enumerable: false});
		return [await tools.echo(o), n]`,
	"toJSON": `return await tools.echo({d: new Date(0), t: {toJSON(k) { return "key:" + k }}, nested: [{toJSON() { return {x: [1]} }}]})`,
	"boxed":  `return await tools.echo({n: new Number(3), s: new String("s"), b: new Boolean(false), m: new Map([[1, 2]]), set: new Set([1]), re: /x/g, e: new Error("m")})`,
	"proto":  `class P { constructor() { this.own = 1 } get inherited() { return 2 } } return await tools.echo(new P())`,
	"tampered": `Object.prototype.toJSON = undefined; JSON.stringify = () => "{}"; Array.prototype.toJSON = function () { return "arr" };
		return await tools.echo({a: [1, 2]})`,
	"cycle":               `const o = {}; o.self = o; try { await tools.echo(o) } catch (e) { return e.name + ": " + e.message }`,
	"throwing getter":     `try { await tools.echo({get x() { throw new RangeError("from getter") }}) } catch (e) { return e.name + ": " + e.message }`,
	"stringify in getter": `const o = {get x() { return JSON.stringify({y: [1, 2]}) }}; return await tools.echo(o)`,
	"call in getter":      `const o = {get x() { tools.echo({inner: 1}); return 1 }}; return [await tools.echo(o)]`,
	"nested in getters": `const mk = (d) => ({get x() { if (d < 6) tools.echo(mk(d + 1)); return d }});
		try { await tools.echo(mk(0)) } catch (e) { return e.name + ": " + e.message }`,
	"deep":     `let a = 0; for (let i = 0; i < 200; i++) a = [a, {k: i}]; return await tools.echo(a)`,
	"too deep": `let a = 0; for (let i = 0; i < 10050; i++) a = [a]; try { await tools.echo(a) } catch (e) { return e.name + ": " + e.message }`,
	"results":  `const r = await tools.echo({s: "\u00e9\ud83d\ude00", n: 1.5e300, arr: [[], {}], "__proto__": {x: 1}}); return [r, Object.getPrototypeOf(r) === Object.prototype, Object.keys(r)]`,
	"input":    `return input`,
	"console":  `console.log("a", {b: [1, {c: undefined}]}, [function () {}], new Error("e"), undefined, null, Symbol("s")); return 1`,
}

// TestToolArgumentsSameInBothProfiles runs toolArgScripts in both profiles:
// the host gets the same calls with the same argument bytes, and the runs
// end with the same value, logs and error.
func TestToolArgumentsSameInBothProfiles(t *testing.T) {
	type outcome struct {
		Calls []string
		Value string
		Logs  []Log
		Err   string
	}
	for name, code := range toolArgScripts {
		t.Run(name, func(t *testing.T) {
			var got [2]outcome
			for i, p := range []Profile{Hardened, Lean} {
				res, h := runCode(t, code, Options{Profile: p, Input: json.RawMessage(`{"a": [1, "\u00e9"], "b": {"c": null}}`)})
				o := outcome{Value: string(res.Value), Logs: res.Logs}
				if res.Err != nil {
					o.Err = string(res.Err.Code) + ": " + res.Err.Message
				}
				h.mu.Lock()
				for _, c := range h.calls {
					o.Calls = append(o.Calls, c.Tool+" "+string(c.Args))
				}
				h.mu.Unlock()
				got[i] = o
			}
			if diff := cmp.Diff(got[0], got[1]); diff != "" {
				t.Errorf("the profiles differ (-hardened +lean):\n%s", diff)
			}
			if noCall := []string{"input", "console", "cycle", "too deep", "throwing getter", "nested in getters"}; len(got[0].Calls) == 0 && !slices.Contains(noCall, name) {
				t.Errorf("no tool call was made: %+v", got[0])
			}
		})
	}
}

// TestLeanRunsGojasBuiltins keeps two cases test262 found, where the
// hardened guards used to change JavaScript (an array-like whose length is
// a getter was refused, a wrapped builtin's length was 0), the same in both
// profiles; bind is goja's in both too (TestBindAsGoja).
func TestLeanRunsGojasBuiltins(t *testing.T) {
	code := `const al = {get length() { return 2 }, 0: "a", 1: "b"};
		let r;
		try { r = Array.prototype.indexOf.call(al, "b") } catch (e) { r = e.name }
		return [r, Array.prototype.map.length, Function.prototype.bind.toString().includes("[native code]")]`
	for p, want := range map[Profile]string{Hardened: `[1,1,true]`, Lean: `[1,1,true]`} {
		res, _ := runCode(t, code, Options{Profile: p})
		if res.Err != nil || string(res.Value) != want {
			t.Errorf("%v: %s %v, want %s", p, res.Value, res.Err, want)
		}
	}
}

// A lean run keeps the budgets that do not depend on wrappers: the
// deadline's interrupt, the call-stack cap, the tool-call limit, the
// output limit.
func TestLeanKeepsBudgets(t *testing.T) {
	for name, c := range map[string]struct {
		code string
		lim  Limits
		want Code
	}{
		"timeout":    {`for (;;) {}`, Limits{Timeout: 100 * time.Millisecond}, CodeTimeout},
		"call stack": {`const f = (n) => f(n + 1) + 1; return f(0)`, Limits{}, CodeLimitExceeded},
		"tool calls": {`for (;;) await tools.echo({})`, Limits{MaxToolCalls: 5}, CodeLimitExceeded},
		"output":     {`for (;;) console.log("x".repeat(100))`, Limits{MaxOutputChars: 1000}, CodeOutputLimit},
		"memory":     {`const keep = []; for (;;) keep.push({s: "x".repeat(100) + keep.length})`, Limits{MaxMemoryBytes: 32 << 20}, CodeMemoryLimit},
	} {
		t.Run(name, func(t *testing.T) {
			res, _ := runCode(t, c.code, Options{Profile: Lean, Limits: c.lim})
			if res.Err == nil || res.Err.Code != c.want {
				t.Errorf("err = %v, want %s", res.Err, c.want)
			}
		})
	}
}
