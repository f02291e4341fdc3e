package js

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja"
)

// bareResult runs code (a function body that returns a value) in a bare
// goja.New(), as a script would run without the sandbox, and returns what
// it returned as JSON, the name of what it threw, or "goja panicked".
func bareResult(t *testing.T, code string) (res string) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			res = "goja panicked"
		}
	}()
	vm := goja.New()
	v, err := vm.RunString(`JSON.stringify((function () {"use strict";` + code + "\n})())")
	if err != nil {
		if ex, ok := err.(*goja.Exception); ok {
			if o, ok := ex.Value().(*goja.Object); ok {
				return "threw " + o.Get("name").String()
			}
		}
		return "threw " + err.Error()
	}
	return v.String()
}

// sandboxResult runs code in the given profile and returns what it
// returned as JSON, or the run's error.
func sandboxResult(t *testing.T, code string, p Profile) string {
	t.Helper()
	res, _ := runCode(t, `"use strict";`+code, Options{Profile: p})
	if res.Err != nil {
		return "error " + res.Err.Error()
	}
	return string(res.Value)
}

// sameAsGoja runs every script in a bare goja.New() and in the sandbox's
// profiles, and fails where the sandbox returns something else: what these
// scripts see, the sandbox must not change.
func sameAsGoja(t *testing.T, scripts map[string]string) {
	t.Helper()
	t.Cleanup(regexp2.StopTimeoutClock) // some scripts match through regexp2, whose clock lingers (goleak)
	for name, code := range scripts {
		t.Run(name, func(t *testing.T) {
			want := bareResult(t, code)
			if want == "" || strings.HasPrefix(want, "threw") || want == "goja panicked" {
				// Scripts catch what they expect to be thrown themselves,
				// so that both sides compare as values.
				t.Fatalf("bare goja: %s", want)
			}
			for _, p := range []Profile{Hardened, Lean} {
				if got := sandboxResult(t, code, p); got != want {
					t.Errorf("%v: got %s, bare goja %s", p, got, want)
				}
			}
		})
	}
}

// Wrapped builtins look like goja's: length, name, not constructors.
func TestWrappersLookLikeGojas(t *testing.T) {
	sameAsGoja(t, map[string]string{
		"length": `return [Array.prototype.map.length, String.prototype.slice.length, Object.defineProperty.length,
  JSON.stringify.length, JSON.parse.length, Array.prototype.join.length, Array.from.length, Function.prototype.bind.length,
  Array.prototype.toLocaleString.length, Object.getOwnPropertyDescriptor(Map.prototype, "size").get.length,
  [][Symbol.iterator]().next.length, Array.prototype.push.length, Math.max.length, String.fromCharCode.length].join()`,
		"name": `return [Array.prototype.join.name, JSON.stringify.name, JSON.parse.name, Array.from.name, Function.prototype.bind.name,
  Array.prototype.toLocaleString.name, Object.getOwnPropertyDescriptor(Map.prototype, "size").get.name,
  Array.prototype[Symbol.iterator].name, [][Symbol.iterator]().next.name, Object.getOwnPropertyDescriptor(Object.prototype, "__proto__").set.name].join()`,
		"not constructors": `const out = [];
for (const f of [Array.prototype.join, Array.prototype.map, JSON.stringify, JSON.parse, Array.from, Function.prototype.bind,
    Array.prototype.toLocaleString, String.prototype.repeat, Object.getOwnPropertyDescriptor(Map.prototype, "size").get]) {
  try { new f(); out.push("constructed") } catch (e) { out.push(e.name) }
  out.push(Object.prototype.hasOwnProperty.call(f, "prototype"));
}
return out.join()`,
		"source": `return [String(Array.prototype.map), String(Object.getOwnPropertyDescriptor(Map.prototype, "size").get)].join()`,
		"iterators' next": `return [[][Symbol.iterator](), new Map()[Symbol.iterator](), new Set()[Symbol.iterator](), ""[Symbol.iterator](), /x/[Symbol.matchAll]("")]
  .map((it) => { const p = Object.getPrototypeOf(it), d = Object.getOwnPropertyDescriptor(p, "next");
    return [d.writable, d.enumerable, d.configurable, d.value.name, d.value.length, String(d.value), "prototype" in d.value].join("/") }).join(" ")`,
	})
}

// Properties keep their attributes, and builtins their aliases.
func TestWrappersKeepAttributesAndAliases(t *testing.T) {
	sameAsGoja(t, map[string]string{
		"aliases": `const d = (o, k) => Object.getOwnPropertyDescriptor(o, k);
return [Array.prototype[Symbol.iterator] === Array.prototype.values, Set.prototype.keys === Set.prototype.values,
  Set.prototype[Symbol.iterator] === Set.prototype.values, Map.prototype[Symbol.iterator] === Map.prototype.entries,
  String.prototype.trimLeft === String.prototype.trimStart, String.prototype.trimRight === String.prototype.trimEnd,
  Date.prototype.toGMTString === Date.prototype.toUTCString, Number.parseFloat === parseFloat, Number.parseInt === parseInt,
  d(Object.prototype, "__proto__").get === d(Object.prototype, "__proto__").get].join()`,
		"attributes": `const d = (o, k) => JSON.stringify(Object.getOwnPropertyDescriptor(o, k), (k, v) => typeof v === "function" ? typeof v : v);
return [d(Date.prototype, Symbol.toPrimitive), d(Array.prototype, "map"), d(Array.prototype, Symbol.iterator),
  d(Map.prototype, "size"), d(RegExp.prototype, "flags"), d(Array, Symbol.species), d(Object.prototype, "__proto__"),
  d(Array.prototype.map, "length"), d(Array.prototype.map, "name"), d(JSON.stringify, "length"), d(JSON.stringify, "name"),
  d(Object.getOwnPropertyDescriptor(Map.prototype, "size").get, "name"), d(Symbol.prototype, Symbol.toPrimitive),
  d(RegExp.prototype, Symbol.split)].join(" ")`,
	})
}

// Bound functions are goja's: instanceof a bound constructor, names,
// lengths, constructors only when their target is one.
func TestBindAsGoja(t *testing.T) {
	sameAsGoja(t, map[string]string{
		"instanceof": `function F() {} const B = F.bind(null); return [new F() instanceof B, new B() instanceof F, new B() instanceof B].join()`,
		"name and length": `function f(a, b, c) {} const b = f.bind(null, 1), bb = b.bind(null, 2, 3, 4);
Object.defineProperty(f, "name", {value: 5});
return [b.name, b.length, bb.name, bb.length, f.bind().name, "prototype" in b, Object.getOwnPropertyNames(b).join("+"),
  JSON.stringify(Object.getOwnPropertyDescriptor(b, "name"))].join()`,
		"construct": `function P(x, y) { this.s = x + y } const B = P.bind({}, "a");
let arrow; try { new ((() => 1).bind(null))(); arrow = "constructed" } catch (e) { arrow = e.name }
class C { constructor(v) { this.v = v } }
return [new B("b").s, Reflect.construct(B, ["c"]).s, arrow, new (C.bind(null, 7))().v, Object.getPrototypeOf(new B("d")) === P.prototype].join()`,
		"chain": `let f = function (a, b) { return [this && this.t, a, b].join("/") }; for (let i = 0; i < 500; i++) f = f.bind({t: i}); return f(1, 2) + f.name.length`,
	})
}

// A chain of binds deeper than the call-depth limit ends the run as a
// recursion that deep does: calling it recursed in Go.
func TestHostileBindChain(t *testing.T) {
	for name, code := range map[string]string{
		"called":    "let f = () => 1; for (let i = 0; i < 1e4; i++) f = f.bind(null); return f()",
		"unnamed":   `let f = () => 1; for (let i = 0; i < 1e5; i++) { f = f.bind(null); delete f.name } return f()`,
		"reflect":   "let f = () => 1; for (let i = 0; i < 1e4; i++) f = Reflect.apply(Function.prototype.bind, f, [null]); return f()",
		"construct": "let f = function () {}; for (let i = 0; i < 1e4; i++) f = f.bind(null); return new f()",
	} {
		requireLimitExceeded(t, name, code)
	}
}

// Accessors a script defines stay its own: the stoppable check the sandbox
// puts around native ones is not put around JavaScript.
func TestDefinedAccessorsKeepIdentity(t *testing.T) {
	sameAsGoja(t, map[string]string{
		"identity": `const g = function () { return 1 }, s = (v) => {}, m = { get x() { return 2 } };
const o = Object.defineProperty({}, "x", {get: g, set: s});
const p = Object.defineProperties({}, {y: {get: g}, [Symbol.iterator]: {set: s}});
const q = Object.create(null, {z: {get: g}});
const r = {}; Reflect.defineProperty(r, "w", {get: Object.getOwnPropertyDescriptor(m, "x").get});
const d = (o, k) => Object.getOwnPropertyDescriptor(o, k);
return [d(o, "x").get === g, d(o, "x").set === s, d(p, "y").get === g, d(p, Symbol.iterator).set === s, d(q, "z").get === g,
  d(r, "w").get === d(m, "x").get, String(d(o, "x").get), o.x, r.w].join()`,
		"non-configurable twice": `const g = function () { return 1 }; const o = {};
Object.defineProperty(o, "x", {get: g});
let again; try { Object.defineProperty(o, "x", {get: g}); again = "ok" } catch (e) { again = e.name }
let other; try { Object.defineProperty(o, "x", {get: () => 2}); other = "ok" } catch (e) { other = e.name }
return [again, other, o.x].join()`,
		"kinds": `const fs = [async function () {}, function* () {}, class {}, ({ m() {} }).m, (class { static m() {} }).m];
const o = {}; fs.forEach((f, i) => Object.defineProperty(o, "k" + i, {get: f}));
return fs.map((f, i) => Object.getOwnPropertyDescriptor(o, "k" + i).get === f).join()`,
		"native getter kept working": `const o = Object.defineProperty({}, "x", {get: Math.random, set: Math.max}); o.x = 5; return typeof o.x`,
		// A native accessor is put behind a check (its identity is not kept),
		// which looks like it.
		"native getter looks alike": `const f = (x) => x; const b = f.bind(null); Object.defineProperty(b, "name", {get() { throw new Error("read") }});
const o = Object.defineProperty({}, "x", {get: Math.random, set: Math.max}), p = Object.defineProperty({}, "y", {get: b});
const d = Object.getOwnPropertyDescriptor(o, "x"), e = Object.getOwnPropertyDescriptor(p, "y");
return [String(d.get), d.get.name, d.get.length, String(d.set), d.set.length, e.get.length].join()`,
	})
}

// A symbol where a string method wants a string is a TypeError, as in
// goja: the guards coerce once and hand the builtin the string, and once
// made a "Symbol(s)" of it.
func TestStringGuardsThrowOnSymbols(t *testing.T) {
	cases := map[string]string{}
	for name, call := range map[string]string{
		"padEnd this":       `String.prototype.padEnd.call(Symbol("s"), 12, "*")`,
		"padStart this":     `String.prototype.padStart.call(Symbol("s"), 12)`,
		"padEnd length":     `"s".padEnd(Symbol("n"))`,
		"padEnd filler":     `"s".padEnd(5, Symbol("f"))`,
		"repeat this":       `String.prototype.repeat.call(Symbol("s"), 2)`,
		"repeat count":      `"s".repeat(Symbol("n"))`,
		"concat this":       `String.prototype.concat.call(Symbol("s"), "x")`,
		"concat argument":   `"s".concat("x", Symbol("a"))`,
		"toUpperCase this":  `String.prototype.toUpperCase.call(Symbol("s"))`,
		"split this":        `String.prototype.split.call(Symbol("s"), "")`,
		"normalize this":    `String.prototype.normalize.call(Symbol("s"))`,
		"replace this":      `String.prototype.replace.call(Symbol("s"), "S", "x")`,
		"replace pattern":   `"s".replace(Symbol("p"), "x")`,
		"replace with":      `"s".replace("s", Symbol("r"))`,
		"replaceAll this":   `String.prototype.replaceAll.call(Symbol("s"), "S", "x")`,
		"regexp replace":    `/s/[Symbol.replace](Symbol("s"), "x")`,
		"regexp with":       `/s/[Symbol.replace]("s", Symbol("r"))`,
		"raw":               `String.raw({raw: [Symbol("r"), "b"]}, 1)`,
		"raw substitution":  `String.raw({raw: ["a", "b"]}, Symbol("s"))`,
		"toPrimitive gives": `String.prototype.padEnd.call({[Symbol.toPrimitive]() { return Symbol("t") }}, 3)`,
		"sort":              `Array.from({length: 10001}, (_, i) => i === 5 ? Symbol("x") : "a").sort().length`,
	} {
		cases[name] = `try { const v = ` + call + `; return typeof v === "symbol" ? "symbol" : v } catch (e) { return e.name }`
	}
	sameAsGoja(t, cases)
}

// goja panics on a pattern whose named groups repeat (/(?<x>a)|(?<x>b)/)
// when it must match it from an index other than 0: bare goja does in
// exec with a lastIndex, the sandbox also in split, whose wrapped exec
// makes goja take that path. The panic ended the run with "an internal
// error"; it is a SyntaxError the script can catch, and the pattern keeps
// working where goja's does.
func TestRegexpDuplicateGroupNames(t *testing.T) {
	sameAsGoja(t, map[string]string{
		"exec":    `return JSON.stringify(/(?<x>a)|(?<x>b)/.exec("b").groups)`,
		"match":   `return JSON.stringify("xab".match(/(?<x>a)|(?<x>b)/).groups)`,
		"sticky":  `return /(?<x>a)|(?<x>b)/y.exec("b").groups.x`,
		"replace": `return "xab".replace(/(?<x>a)|(?<x>b)/, "[$<x>]")`,
	})
	for name, code := range map[string]string{
		"split":      `return "xab".split(/(?<x>a)|(?<x>b)/).length`,
		"lastIndex":  `const r = /(?<x>a)|(?<x>b)/g; r.lastIndex = 1; return r.exec("xab").index`,
		"replaceAll": `return "xab".replace(/(?<x>a)|(?<x>b)/g, "[$<x>]")`,
	} {
		t.Run(name, func(t *testing.T) {
			got := sandboxResult(t, `try { `+code+` } catch (e) { return e.name }`, Hardened)
			want := bareResult(t, code)
			t.Logf("bare goja: %s", want)
			if got != want && got != `"SyntaxError"` {
				t.Errorf("got %s, want bare goja's %s or a SyntaxError", got, want)
			}
		})
	}
}

// describeFunctionsJS describes every function reachable from the global
// object as a script sees it, by path: the property's attributes, the
// function's name and length (with their attributes), whether it is a
// constructor, has a prototype property, or looks native, and the first
// path it was found at (aliases).
const describeFunctionsJS = `(() => {` + walkFunctionsJS + `
	const out = {}, first = new Map();
	const attrs = (d) => d ? [d.writable, d.enumerable, d.configurable, typeof d.value === "function" ? "" : d.value].join(" ") : "none";
	walkFunctions((p, f, d) => {
		if (!first.has(f)) first.set(f, p);
		out[p] = [attrs({...d, value: undefined, get: undefined, set: undefined}), "name", attrs(Reflect.getOwnPropertyDescriptor(f, "name")),
			"length", attrs(Reflect.getOwnPropertyDescriptor(f, "length")), isCtor(f) ? "constructor" : "",
			Object.prototype.hasOwnProperty.call(f, "prototype") ? "prototype" : "", isNative(f) ? "native" : "source",
			"first " + first.get(f)].join(", ");
	});
	return JSON.stringify(out);
})()`

// TestHardenedFunctionsLookLikeGojas compares every function reachable in
// a hardened runtime with goja's own, as describeFunctionsJS sees them:
// wrappers and the prelude's replacements must not show.
func TestHardenedFunctionsLookLikeGojas(t *testing.T) {
	describe := func(vm *goja.Runtime) map[string]string {
		v, err := vm.RunString(describeFunctionsJS)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]string
		if err := json.Unmarshal([]byte(v.String()), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	bare := goja.New()
	for name := range removedGlobals {
		bare.GlobalObject().Delete(name)
	}
	want, got := describe(bare), describe(hardenedRunner(t).vm)
	// Removed on purpose (removals.js): code from strings. The function
	// constructors are JavaScript that throws, read-only on the global.
	removed := map[string]bool{"Function": true, "Function.prototype.constructor": true}
	n := 0
	for path := range got {
		if _, ok := want[path]; !ok {
			t.Errorf("%s: in the hardened runtime only", path)
		}
	}
	for path, w := range want {
		g, ok := got[path]
		if !ok {
			t.Errorf("%s: missing from the hardened runtime", path)
		}
		if !ok || g == w || removed[path] {
			continue
		}
		n++
		t.Errorf("%s:\n  hardened %s\n  goja     %s", path, g, w)
	}
	t.Logf("%d functions compared, %d differ", len(want), n)
}

// split, match and matchAll hand this, as it is, to the Symbol.split,
// Symbol.match or Symbol.matchAll method of an object given: the guard that
// checks the string's size coerced it first, calling its toString where
// goja calls none.
func TestStringDelegatesGetThisAsItIs(t *testing.T) {
	const setup = `const log = []; const o = {toString() { log.push("toString"); return "a,b" }};
const by = (sym) => ({[sym](s, l) { log.push(typeof s + " " + l); return "x" }});
const spy = {toString() { log.push("argument toString"); return "" }};
const caught = (f) => { try { return f() } catch (e) { return e.name } };`
	sameAsGoja(t, map[string]string{
		"split":    setup + `return [String.prototype.split.call(o, by(Symbol.split), 3), ...log].join()`,
		"match":    setup + `return [String.prototype.match.call(o, by(Symbol.match)), ...log].join()`,
		"matchAll": setup + `return [String.prototype.matchAll.call(o, by(Symbol.matchAll)), ...log].join()`,
		"regexp": setup + `return [String.prototype.split.call(o, /,/), String.prototype.match.call(o, /b/)[0],
  [...String.prototype.matchAll.call(o, /[ab]/g)].length, ...log].join()`,
		"plain": setup + `return [String.prototype.split.call(o, ","), String.prototype.match.call(o, "b").index, "a1b2".split(/\d/), ...log].join()`,
		"this checked first": setup + `return [caught(() => RegExp.prototype[Symbol.split].call(undefined, spy)),
  caught(() => RegExp.prototype[Symbol.match].call(null, spy)), caught(() => RegExp.prototype[Symbol.matchAll].call(undefined, spy)),
  caught(() => RegExp.prototype[Symbol.replace].call(undefined, spy, "")), ...log].join()`,
		"huge string, own splitter": `const s = "x".repeat(4e6), t = s + s; return t.split({[Symbol.split]: (v) => v.length})`,
	})
}

// The string a regular expression splits or matches is still checked: a
// string over the limit, made without a builtin (+), ends the run before
// the array of its characters is made, however the method is reached.
func TestHostileHugeStringThroughRegexp(t *testing.T) {
	t.Cleanup(regexp2.StopTimeoutClock)
	const big = `const s = "x".repeat(4e6), t = s + s + s;`
	for name, code := range map[string]string{
		"split regexp":  big + `return t.split(/(?:)/).length`,
		"split bound":   big + `return t.split({[Symbol.split]: RegExp.prototype[Symbol.split].bind(/(?:)/)}).length`,
		"split string":  big + `return t.split("").length`,
		"match":         big + `return t.match(/x/g).length`,
		"match string":  big + `return t.match("x").length`,
		"matchAll":      big + `let n = 0; for (const m of t.matchAll(/x/g)) n++; return n`,
		"symbol direct": big + `return /x/g[Symbol.match](t).length`,
		"split of this": big + `return String.prototype.split.call({toString: () => t}, "").length`,
	} {
		t.Run(name, func(t *testing.T) {
			res, _ := runCode(t, code, Options{})
			if res.Err == nil || res.Err.Code != CodeMemoryLimit {
				t.Fatalf("err = %v, value %.80s; want %s", res.Err, res.Value, CodeMemoryLimit)
			}
		})
	}
}

// Array.from reads the length of an iterable no more than goja does: not
// at all (the prelude's check read it, which a getter saw).
func TestArrayFromReadsAsGoja(t *testing.T) {
	sameAsGoja(t, map[string]string{
		"iterable with a length getter": `const log = [];
const it = {get length() { log.push("length"); return 0 }, *[Symbol.iterator]() { yield 1; yield 2 }};
return [Array.from(it).join("+"), Array.from(it, (x) => x * 2).join("+"), log.length].join()`,
		"set, map, string, array": `return [Array.from(new Set([1, 2])), Array.from(new Map([[1, 2]])), Array.from("ab"), Array.from([3, , 4])].map(String).join(" ")`,
	})
}

// goja's Map and WeakMap constructors hand a wrapped set a missing entry
// field as nil: the wrapper makes it undefined, as the original sees it.
func TestMapEntriesWithoutFields(t *testing.T) {
	sameAsGoja(t, map[string]string{
		"map":     `const m = new Map([{foo: "bar"}, [1]]); return [m.size, m.has(undefined), m.get(1)]`,
		"weakmap": `const k = {}; const m = new WeakMap([[k]]); return [m.has(k), m.get(k)]`,
		"set":     `return new Set([undefined, , 1]).size`,
	})
}

// RegExp's Symbol.split converts its limit with ToUint32 (goja's general
// path, which the wrapped exec sends it down, used ToLength).
func TestRegexpSplitLimit(t *testing.T) {
	sameAsGoja(t, map[string]string{
		"negative": `return /./[Symbol.split]("abc", -23).length`,
		"fraction": `return /./[Symbol.split]("abc", 1.9)`,
		"nan":      `return /./[Symbol.split]("abc", NaN).length`,
		"string":   `return /./[Symbol.split]("abc", "-23").length`,
		"huge":     `return "a,b,c".split(/,/, 2**32 + 2)`,
		"object":   `const log = []; const r = /,/[Symbol.split]("a,b", {valueOf() { log.push("limit"); return 1 }}); return [r, log]`,
		"none":     `return "a,b".split(/,/)`,
	})
}

// A builtin that hands back the object it was given (defineProperty and
// its kin) has not built it: an Array it gave a huge length is sparse, and
// the run goes on, as in goja.
func TestHugeLengthHandedBack(t *testing.T) {
	sameAsGoja(t, map[string]string{
		"defineProperty":   `const a = Object.defineProperty([], "length", {value: 2**32 - 2}); return a.length`,
		"defineProperties": `const a = Object.defineProperties([], {length: {value: 2**32 - 1}}); return a.length`,
		"reflect":          `const a = []; return [Reflect.defineProperty(a, "length", {value: 2**32 - 1}), a.length]`,
		"assign":           `return Object.assign([], {length: 2**31}).length`,
	})
}
