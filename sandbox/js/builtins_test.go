package js

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja"
)

// reviewedConstructors are the constructors a script can reach, left
// unwrapped (a Go wrapper cannot be a constructor), with why their cost is
// bounded by their inputs.
var reviewedConstructors = map[string]string{
	"Array":          "new Array(n) makes a sparse array whatever n (2**32-1 allocates nothing); every method on it is guarded",
	"Object":         "ToObject of its argument",
	"String":         "one ToString (a script's toString runs as JavaScript or as a wrapped builtin)",
	"Number":         "one ToNumber",
	"Boolean":        "no coercion that runs code",
	"Symbol":         "its description is one ToString of an existing value",
	"Error":          "keeps its message (one ToString)",
	"EvalError":      "as Error",
	"RangeError":     "as Error",
	"ReferenceError": "as Error",
	"SyntaxError":    "as Error",
	"TypeError":      "as Error",
	"URIError":       "as Error",
	"AggregateError": "as Error; its errors are iterated step by step",
	"RegExp":         "compiles a pattern that exists; matches are timed (timedCall) and run in wrapped methods",
	"Date":           "numbers or one string to parse",
	"Map":            "one step (a wrapped set) per element of an iterable the script made",
	"Set":            "one step (a wrapped add) per element",
	"WeakMap":        "as Map",
	"WeakSet":        "as Set",
	"Promise":        "calls its executor once",
	"GoError":        "goja's Error for Go errors: as Error",
	// Not a constructor, but callable: returns undefined.
	"Function.prototype": "returns undefined",
}

// walkFunctionsJS defines walkFunctions(visit): it walks everything
// reachable from the global object, breadth first, and calls visit(path,
// f, descriptor, walked) for every function found as a value, getter or
// setter; paths are as builtinRefs spells them ("get Map.prototype.size"),
// and walked says f's own properties were walked already (an alias).
const walkFunctionsJS = `function walkFunctions(visit) {
	const seen = new Set(), queue = [[globalThis, ""]];
	while (queue.length > 0) {
		const [o, path] = queue.shift();
		if (seen.has(o)) continue;
		seen.add(o);
		for (const k of Reflect.ownKeys(o)) {
			const name = typeof k === "symbol" ? path + "[" + k.description + "]" : (path ? path + "." : "") + k;
			const d = Reflect.getOwnPropertyDescriptor(o, k);
			for (const [kind, f] of [["", d.value], ["get ", d.get], ["set ", d.set]]) {
				if (typeof f !== "function") continue;
				visit(kind + name, f, d, seen.has(f));
				if (kind === "") queue.push([f, name]);
			}
			if (d.value !== null && typeof d.value === "object") queue.push([d.value, name]);
		}
	}
}
const isNative = (f) => Function.prototype.toString.call(f).includes("[native code]");
const isCtor = (f) => { try { Reflect.construct(String, [], f); return true } catch (e) { return false } };
`

// reachableFunctionsJS lists every function reachable from the global
// object, as [path, kind] pairs: kind is "js", "native" or "constructor".
const reachableFunctionsJS = `(() => {` + walkFunctionsJS + `
	const out = [];
	walkFunctions((path, f, d, walked) => {
		if (!walked) out.push([path, isNative(f) ? (isCtor(f) ? "constructor" : "native") : "js"]);
	});
	return out;
})()`

// hardenedRunner is a runner whose runtime is hardened, as before a script.
func hardenedRunner(t *testing.T) *runner {
	t.Helper()
	r := newBareRunner(maxElemsFor(DefaultMaxMemoryBytes))
	if err := r.harden(); err != nil {
		t.Fatal(err)
	}
	return r
}

// reachableFunction is a function reachable from the global object: its
// path and kind ("native", "constructor", ...), from reachableFunctionsJS.
type reachableFunction struct{ path, kind string }

// reachableFunctions walks r's runtime with reachableFunctionsJS.
func reachableFunctions(t *testing.T, r *runner) []reachableFunction {
	t.Helper()
	v, err := r.vm.RunString(reachableFunctionsJS)
	if err != nil {
		t.Fatal(err)
	}
	var fns []reachableFunction
	for _, e := range v.Export().([]any) {
		pair := e.([]any)
		fns = append(fns, reachableFunction{pair[0].(string), pair[1].(string)})
	}
	return fns
}

// TestBuiltinsGuardedOrReviewed walks every function reachable from the
// global object of a hardened runtime: each must be a Go wrapper (a path
// guardBuiltins wraps), JavaScript (the prelude's), a reviewed
// constructor, or on the unwrapped list with its reason. A builtin a goja
// upgrade adds fails here until someone decides which it is.
func TestBuiltinsGuardedOrReviewed(t *testing.T) {
	fns := reachableFunctions(t, hardenedRunner(t))
	wrapped := map[string]bool{}
	for _, ref := range builtinRefs() {
		wrapped[ref.path] = true
	}
	counts := map[string]int{}
	for _, f := range fns {
		path, kind := f.path, f.kind
		counts[kind]++
		switch kind {
		case "constructor":
			if reviewedConstructors[path] == "" {
				t.Errorf("%s: a constructor that nobody reviewed (add it to reviewedConstructors with why its cost is bounded, or delete it in the prelude)", path)
			}
		case "native":
			if wrapped[path] {
				counts["wrapper"]++
			} else if unwrappedWhy(path) == "" && reviewedConstructors[path] == "" {
				t.Errorf("%s: a native function neither wrapped nor reviewed (see unwrapped in builtins_table_test.go)", path)
			}
		}
	}
	t.Logf("reachable functions: %v", counts)
	if counts["wrapper"] < 150 {
		t.Errorf("only %d wrapped builtins", counts["wrapper"])
	}
}

// Every builtin of the table is installed as a wrapper, each half of an
// accessor that the table lists too: TestBuiltinsGuardedOrReviewed counts
// the table's paths as wrapped, and the setter of Object.prototype.__proto__
// (whose getter is left unwrapped) was once skipped as "done with its
// getter". A wrapper is told apart from goja's function by the Go function
// it runs.
func TestTableBuiltinsInstalledWrapped(t *testing.T) {
	r := hardenedRunner(t)
	// (through wrapper, as guardBuiltins makes them: the closure of an
	// inlined guarded is a function of its own)
	guardedCode := reflect.ValueOf(r.wrapper(&wrapSpec{name: r.vm.ToValue("x")}, nil).Export()).Pointer()
	// The prelude replaces some wrapped builtins (join, JSON...) by
	// JavaScript functions that call the wrappers, behind native functions
	// that only forward to them.
	forwardCode := reflect.ValueOf(r.wrapper(&wrapSpec{name: r.vm.ToValue("x"), forward: true}, nil).Export()).Pointer()
	gopd, _ := goja.AssertFunction(r.vm.GlobalObject().Get("Object").(*goja.Object).Get("getOwnPropertyDescriptor"))
	owners := map[string]*goja.Object{}
	for _, ref := range builtinRefs() {
		owner := r.resolve(owners, r.vm.GlobalObject(), ref.ownerPath, ref.owner)
		if owner == nil {
			t.Errorf("%s: owner %s not found", ref.path, ref.ownerPath)
			continue
		}
		d, err := gopd(goja.Undefined(), owner, r.keyValue(ref.key))
		if err != nil {
			t.Fatal(err)
		}
		field := [...]string{"value", "get", "set"}[ref.kind]
		f, ok := d.(*goja.Object).Get(field).(*goja.Object)
		if !ok {
			t.Errorf("%s: no %s", ref.path, field)
			continue
		}
		fn, ok := f.Export().(func(goja.FunctionCall) goja.Value)
		code := reflect.ValueOf(fn).Pointer()
		if code == forwardCode && !slices.Contains(preludeReplaced, ref.path) {
			t.Errorf("%s: installed as a forwarder, but the prelude does not replace it", ref.path)
		}
		if !ok || code != guardedCode && code != forwardCode {
			t.Errorf("%s: installed as goja has it, not wrapped", ref.path)
		}
	}
}

// Builtins nested in builtins without a JavaScript frame between them end
// the run with limit_exceeded, not with Go's fatal stack overflow.
func TestBuiltinRecursionEndsRun(t *testing.T) {
	for name, code := range map[string]string{
		"nested arrays":     "let a = []; for (let i = 0; i < 1e5; i++) a = [a]; return String(a)",
		"nested join":       "let a = []; for (let i = 0; i < 1e5; i++) a = [a]; return a.join()",
		"self toString":     "const o = {}; o.toString = String.prototype.trim; return `${o}`",
		"error name chain":  "let e = new Error(); for (let i = 0; i < 1e5; i++) { const f = new Error(); f.name = e; e = f } return e.toString()",
		"bind chain":        "let f = () => 1; for (let i = 0; i < 5000; i++) f = f.bind(null); return f()",
		"toJSON of Date":    "const o = {}; o.toISOString = Date.prototype.toJSON; return o.toISOString()",
		"valueOf via apply": "const o = {}; o.valueOf = function () { return Reflect.apply(Math.max, null, [o]) }; return +o",
	} {
		requireLimitExceeded(t, name, code)
	}
}

// requireLimitExceeded runs code as a subtest and fails unless the run
// ends with limit_exceeded.
func requireLimitExceeded(t *testing.T, name, code string) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		res, _ := runCode(t, code, Options{})
		if res.Err == nil || res.Err.Code != CodeLimitExceeded {
			t.Errorf("err = %v (value %.80s), want %s", res.Err, res.Value, CodeLimitExceeded)
		}
	})
}

// A run that was ended stops at the next builtin it enters, and Run does
// not count it as abandoned.
func TestKilledRunStopsInBuiltins(t *testing.T) {
	// Two million toString calls with growing strings: more than the
	// timeout, and each one enters a wrapper.
	code := `let e = new Error("x");
for (let i = 0; i < 40; i++) { const f = new Error(); f.name = e; f.message = e; e = f }
return String(e).length`
	start := time.Now()
	res, _ := runCode(t, code, Options{Limits: Limits{Timeout: 200 * time.Millisecond}})
	if res.Err == nil || (res.Err.Code != CodeTimeout && res.Err.Code != CodeMemoryLimit) {
		t.Fatalf("err = %v, want timeout or memory_limit", res.Err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	if n := Abandoned(); n != 0 {
		t.Errorf("Abandoned() = %d after a run stopped by its wrappers", n)
	}
}

// The guards keep what the builtins compute.
func TestGuardsKeepResults(t *testing.T) {
	t.Cleanup(regexp2.StopTimeoutClock) // a replace pattern goes through regexp2 (goleak)
	code := `return [
  "a-b-a".replaceAll("a", "$&$&"), "abc".replace("b", "[$']"), "xax".replace(/a/g, "$'"),
  String.raw({raw: ["a", "b", "c"]}, 1, 2), String.raw` + "`x${1}y`" + `,
  [1, [2, [3, [4]]]].flat(Infinity), [[1], [2]].flat(), [1].concat([2], 3, [[4]]),
  "ß".toUpperCase(), Object.keys("abc"), "a,b".split(","),
  ((a, b) => a + b).bind(null, 1)(2), ((a, b) => a + b).bind(null, 1).name, ((a, b) => a + b).bind(null, 1).length,
  new ((function P(x) { this.x = x }).bind(null, 5))().x,
  JSON.stringify({a: [1, {b: 2}]}, null, 1), JSON.stringify({a: 1, b: 2}, (k, v) => k === "a" ? undefined : v),
]`
	res, _ := runCode(t, code, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	want := `["aa-b-aa","a[c]c","xxx","a1b2c","x1y",[1,2,3,4],[1,2],[1,2,3,[4]],"SS",["0","1","2"],["a","b"],3,"bound ",1,5,"{\n \"a\": [\n  1,\n  {\n   \"b\": 2\n  }\n ]\n}","{\"b\":2}"]`
	if got := string(res.Value); got != want {
		t.Errorf("value =\n%s\nwant\n%s", got, want)
	}
}

// Thrown values and console lines are cut to maxMessageChars.
func TestMessagesCapped(t *testing.T) {
	res, _ := runCode(t, `console.log("y".repeat(1e5)); throw new Error("x".repeat(1e5))`, Options{})
	if res.Err == nil || len([]rune(res.Err.Message)) > maxMessageChars+1 || !strings.HasSuffix(res.Err.Message, "…") {
		t.Errorf("error message of %d characters", len([]rune(res.Err.Message)))
	}
	if len(res.Logs) != 1 || len([]rune(res.Logs[0].Message)) != maxMessageChars+1 {
		t.Errorf("logs %d", len(res.Logs))
	}
}

// Tool calls made by getters while arguments are serialised count.
func TestToolCallsInGettersCount(t *testing.T) {
	code := `const arg = {};
for (let i = 0; i < 30; i++) Object.defineProperty(arg, "k" + i, {enumerable: true, get() { tools.echo({}); return i }});
await tools.echo(arg)`
	res, h := runCode(t, code, Options{Limits: Limits{MaxToolCalls: 10}})
	if res.Err == nil || res.Err.Code != CodeLimitExceeded {
		t.Errorf("err = %v, want %s", res.Err, CodeLimitExceeded)
	}
	if n := len(h.calls); n > 10 {
		t.Errorf("%d calls reached the host, limit 10", n)
	}
}

// A timeout inside a getter of a thrown value is a timeout, and a goja
// panic is a clean runtime_error; the next run works.
func TestCodesOfOddEnds(t *testing.T) {
	res, _ := runCode(t, `const e = new Error("x"); Object.defineProperty(e, "message", {get() { for (;;) {} }}); throw e`,
		Options{Limits: Limits{Timeout: 200 * time.Millisecond}})
	if res.Err == nil || res.Err.Code != CodeTimeout {
		t.Errorf("getter timeout: err = %v, want timeout", res.Err)
	}
	res, _ = runCode(t, `const a = Array.from({length: 100}, (_, i) => 100 - i); a.sort((x, y) => { a.length = 0; return x - y }); return a.length`, Options{})
	if res.Err != nil && (res.Err.Code != CodeRuntimeError || strings.Contains(res.Err.Message, "goroutine") || strings.Contains(res.Err.Message, "runtime error")) {
		t.Errorf("goja panic: err = %v", res.Err)
	}
	res, _ = runCode(t, "return 1", Options{})
	if res.Err != nil || string(res.Value) != "1" {
		t.Errorf("next run: %v %s", res.Err, res.Value)
	}
}

// Run refuses new scripts while MaxAbandoned runs are still stopping.
func TestRunRefusedWhileAbandoned(t *testing.T) {
	abandonedRuns.Add(MaxAbandoned)
	defer abandonedRuns.Add(-MaxAbandoned)
	s, err := Compile("return 1", 0)
	if err != nil {
		t.Fatal(err)
	}
	res := Run(context.Background(), s, Options{Host: newTestHost()})
	if res.Err == nil || res.Err.Code != CodeLimitExceeded || !strings.Contains(res.Err.Message, "still stopping") {
		t.Errorf("err = %v", res.Err)
	}
}

// Large sorts without a comparator get the sandbox's (stoppable) one and
// keep the default order: by ToString, in UTF-16 code units, undefined last.
func TestLargeSortKeepsDefaultOrder(t *testing.T) {
	code := `const a = [];
for (let i = 0; i < 30000; i++) a.push(i % 7 === 0 ? undefined : i % 5 === 0 ? "\u{1F600}" + i : i % 3 === 0 ? "\uFFFD" + i : i);
const want = a.slice(0, 10000).sort().join("|");
const small = a.slice(0, 10000);
const got = a.slice(0).sort();
const ref = a.slice(0).sort((x, y) => { const s = String(x), t = String(y); return s < t ? -1 : s > t ? 1 : 0 });
return [small.sort().join("|") === want, got.join("|") === ref.join("|"), got[got.length - 1] === undefined, a.toSorted().join("|") === ref.join("|")]`
	res, _ := runCode(t, code, Options{})
	if res.Err != nil || string(res.Value) != "[true,true,true,true]" {
		t.Errorf("value %s, err %v", res.Value, res.Err)
	}
}

// The builtin iterators' next is wrapped, on the prototype every iterator of
// its kind shares (they are not reachable as properties of the global
// object, so TestBuiltinsGuardedOrReviewed cannot see them): with no depth
// left, calling it ends the run with limit_exceeded, where goja's own next
// would spread a million elements deaf to the run's end.
func TestHostileIteratorNextsWrapped(t *testing.T) {
	for _, expr := range []string{`[1][Symbol.iterator]()`, `[1].entries()`, `new Map([[1, 1]]).keys()`, `new Set([1])[Symbol.iterator]()`,
		`"ab"[Symbol.iterator]()`, `/a/g[Symbol.matchAll]("aa")`} {
		t.Run(expr, func(t *testing.T) {
			r := newBareRunner(maxElemsFor(DefaultMaxMemoryBytes))
			if err := r.harden(); err != nil {
				t.Fatal(err)
			}
			if _, err := r.vm.RunString("globalThis.it = " + expr); err != nil {
				t.Fatal(err)
			}
			r.lim.MaxCallDepth = 0 // the next wrapper entered ends the run
			_, err := r.vm.RunString("it.next()")
			if k := r.killErr.Load(); k == nil || k.Code != CodeLimitExceeded {
				t.Errorf("next() did not end the run (%v, err %v): not wrapped", k, err)
			}
		})
	}
}

// A builtin that loops over a callback (map, sort, forEach, then...) calls
// it natively: when the callback is a builtin goja runs as it is (Math, the
// constructors, parseFloat), no JavaScript and no wrapper runs between the
// calls, and a run ended by its timeout went on for minutes. Each case takes
// over ten seconds without guardCallback (a call ≈ 3–60 ms: a string of a
// million digits); with it the run stops at the next call.
func TestHostileNativeCallbackLoops(t *testing.T) {
	const big = `const s = "1".repeat(1e6);`
	for name, code := range map[string]string{
		"map parseFloat":   big + `return Array(300).fill(s).map(parseFloat).length`,
		"sort Math.max":    big + `return Array(300).fill(s).sort(Math.max).length`,
		"Array.from":       big + `return Array.from(Array(300).fill(s), parseFloat).length`,
		"Map forEach":      big + `new Map(Array.from({length: 300}, (_, i) => [i, s])).forEach(parseFloat); return 1`,
		"then jobs":        big + `return (await Promise.all(Array.from({length: 300}, () => Promise.resolve(s).then(parseFloat)))).length`,
		"some isNaN":       big + `return Array(4000).fill(s).some(isNaN)`,
		"filter Number":    big + `return Array(4000).fill(s).filter(Number).length`,
		"catch parseFloat": big + `return (await Promise.all(Array.from({length: 300}, () => Promise.reject(s).catch(parseFloat)))).length`,
	} {
		t.Run(name, func(t *testing.T) { requireStopsAtTimeout(t, code) })
	}
}

// A builtin that sets properties in a loop of its own calls each setter
// natively; a setter that is an unwrapped builtin (Math.max, parseFloat)
// runs no JavaScript between the calls. Each case takes ten seconds or more
// without guardDescriptor; with it the run stops at the next setter.
func TestHostileNativeSetterLoops(t *testing.T) {
	const setup = `const s = "1".repeat(1e6); const src = {}; for (let i = 0; i < 4000; i++) src["k" + i] = s;`
	for name, code := range map[string]string{
		"defineProperty":   setup + `const t = {}; for (const k in src) Object.defineProperty(t, k, {set: Math.max}); Object.assign(t, src); return 1`,
		"Reflect":          setup + `const t = {}; for (const k in src) Reflect.defineProperty(t, k, {set: parseFloat}); Object.assign(t, src); return 1`,
		"defineProperties": setup + `const d = {}; for (const k in src) d[k] = {set: Number}; const t = Object.defineProperties({}, d); Object.assign(t, src); return 1`,
		"create":           setup + `const d = {}; for (const k in src) d[k] = {set: Math.min}; Object.assign(Object.create(null, d), src); return 1`,
		"inherited field":  setup + `const t = {}; const get = Object.create({set: isNaN}); for (const k in src) Object.defineProperty(t, k, get); Object.assign(t, src); return 1`,
		"array-like fill":  `const s = "1".repeat(1e6); const t = {length: 4000}; for (let i = 0; i < 4000; i++) Object.defineProperty(t, i, {set: Math.max}); Array.prototype.fill.call(t, s); return 1`,
	} {
		t.Run(name, func(t *testing.T) { requireStopsAtTimeout(t, code) })
	}
}

// A check is not checked again: a getter read back and defined again in a
// loop, or a callback handed back by a custom Symbol.replace, grew a chain
// of checks, one Go call each, and reading the property recursed in Go
// until the process died (1.7 million levels in about ten seconds).
func TestStoppableNotNested(t *testing.T) {
	code := `const o = {};
Object.defineProperty(o, "x", {get: Math.random, configurable: true});
const d = Object.getOwnPropertyDescriptor(o, "x");
Object.defineProperty(o, "x", d);
Object.defineProperty(o, "x", Object.getOwnPropertyDescriptor(o, "x"));
const back = {[Symbol.replace]: (s, f) => f};
const g = "x".replace(back, parseFloat), h = "x".replace(back, g);
const c = {}; Object.defineProperty(c, "y", {get: Math.random});
Object.defineProperty(c, "y", Object.getOwnPropertyDescriptor(c, "y"));
return [Object.getOwnPropertyDescriptor(o, "x").get === d.get, g === h, typeof o.x, typeof c.y].join(" ")`
	res, _ := runCode(t, code, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got, want := string(res.Value), `"true true number number"`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// requireStopsAtTimeout runs code with a 300 ms timeout and fails unless it
// ends with timeout and stops running (Abandoned back to 0) within seconds.
func requireStopsAtTimeout(t *testing.T, code string) {
	t.Helper()
	start := time.Now()
	res, _ := runCode(t, code, Options{Limits: Limits{Timeout: 300 * time.Millisecond}})
	if res.Err == nil || res.Err.Code != CodeTimeout {
		t.Fatalf("err = %v (value %.80s), want %s", res.Err, res.Value, CodeTimeout)
	}
	for Abandoned() != 0 && time.Since(start) < 5*time.Second*raceSlowdown {
		time.Sleep(10 * time.Millisecond)
	}
	if n := Abandoned(); n != 0 {
		t.Errorf("Abandoned() = %d %v after the run's timeout: the builtin's loop went on", n, time.Since(start).Round(time.Millisecond))
	}
}

// The descriptors the guard copies mean what they meant: fields own or
// inherited, read once each, errors as the language has them.
func TestDescriptorGuardKeepsMeaning(t *testing.T) {
	code := `const out = [];
let reads = 0;
const d = {get enumerable() { reads++; return true }, value: 1};
Object.defineProperty(out, "a", d);
const inherited = Object.create({value: 2, writable: true});
Object.defineProperty(out, "b", inherited);
const bare = Object.create(null); bare.get = function () { return 3 };
Object.defineProperty(out, "c", bare);
let err = "";
try { Object.defineProperty({}, "x", {get() {}, value: 1}) } catch (e) { err = e.constructor.name }
let err2 = "";
try { Object.defineProperty({}, "x", 5) } catch (e) { err2 = e.constructor.name }
const o = Object.defineProperties({}, {p: {value: 4, enumerable: true}, [Symbol.for("s")]: {value: 5, enumerable: true}});
const c = Object.create({}, {q: {get() { return 6 }, enumerable: true}});
let hidden = 0; const props = {}; Object.defineProperty(props, "h", {value: {value: 7}, enumerable: false});
Object.defineProperties(hidden = {}, props);
return [reads, out.a, Object.keys(out).join(), out.b, Object.getOwnPropertyDescriptor(out, "b").writable, out.c, err, err2,
  o.p, o[Symbol.for("s")], c.q, "h" in hidden].join(" ")`
	res, _ := runCode(t, code, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	want := `"1 1 a 2 true 3 TypeError TypeError 4 5 6 false"`
	if got := string(res.Value); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
