package js

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/google/go-cmp/cmp"
)

// arrayLikeHelpers are defined before every script of arrayLikeScripts:
// logged(len, values, log) is an array-like whose length is a getter that
// answers an object (whose valueOf is logged too), and whose indexes are
// getters and setters, each logging its use, so that a script returns the
// order and number of the reads and writes a method made.
const arrayLikeHelpers = `
function logged(len, values, log) {
  const o = {};
  Object.defineProperty(o, "length", {
    get() { log.push("length"); return { valueOf() { log.push("valueOf"); return len; } }; },
    set(v) { log.push("length=" + v); },
    configurable: true,
  });
  for (const k of Object.keys(values)) {
    let v = values[k];
    Object.defineProperty(o, k, {
      get() { log.push("get " + k); return v; },
      set(x) { log.push("set " + k + "=" + x); v = x; },
      configurable: true, enumerable: true,
    });
  }
  return o;
}
function run(f) { try { return f(); } catch (e) { return "threw " + e.name; } }
`

// arrayLikeScripts run the same in the sandbox as in a bare goja.New(): the
// array methods on array-likes whose length is a getter or an object (read
// once, in the spec's order), lazy walks over huge lengths, Array.from,
// concat's spreadables, and the argument lists of apply and Reflect. Each
// returns a JSON value.
var arrayLikeScripts = map[string]string{
	"at":             `const log = []; return [Array.prototype.at.call(logged(3, {0: "a", 2: "c"}, log), -1), log]`,
	"concat":         `const log = []; const o = logged(2, {0: "a", 1: "b"}, log); o[Symbol.isConcatSpreadable] = true; return [[0].concat(o, [3]), log]`,
	"concat this":    `const log = []; const o = logged(2, {0: "a", 1: "b"}, log); o[Symbol.isConcatSpreadable] = true; return [Array.prototype.concat.call(o, 1), log]`,
	"copyWithin":     `const log = []; const o = logged(4, {0: "a", 1: "b", 2: "c"}, log); Array.prototype.copyWithin.call(o, 1, 0, 3); return log`,
	"every":          `const log = []; return [Array.prototype.every.call(logged(3, {0: 1, 1: 2, 2: 3}, log), (x) => (log.push("cb " + x), x < 2)), log]`,
	"fill":           `const log = []; Array.prototype.fill.call(logged(3, {0: 1, 1: 2, 2: 3}, log), 9, 1); return log`,
	"filter":         `const log = []; return [Array.prototype.filter.call(logged(3, {0: 1, 2: 3}, log), (x) => x > 1), log]`,
	"find":           `const log = []; return [Array.prototype.find.call(logged(3, {0: 1, 1: 2}, log), (x) => x === 2), log]`,
	"findIndex":      `const log = []; return [Array.prototype.findIndex.call(logged(3, {1: 2}, log), (x) => x === undefined), log]`,
	"findLast":       `const log = []; return [Array.prototype.findLast.call(logged(3, {0: 1, 1: 2}, log), (x) => x === 1), log]`,
	"findLastIndex":  `const log = []; return [Array.prototype.findLastIndex.call(logged(3, {0: 1, 1: 2}, log), (x) => x === 9), log]`,
	"flat":           `const log = []; return [Array.prototype.flat.call(logged(3, {0: [1, [2]], 2: 3}, log), 2), log]`,
	"flatMap":        `const log = []; return [Array.prototype.flatMap.call(logged(2, {0: 1, 1: 2}, log), (x) => [x, [x]]), log]`,
	"forEach":        `const log = []; Array.prototype.forEach.call(logged(3, {0: 1, 2: 3}, log), (x, i) => log.push("cb " + x + " " + i)); return log`,
	"includes":       `const log = []; return [Array.prototype.includes.call(logged(3, {0: 1, 1: NaN}, log), NaN), log]`,
	"indexOf":        `const log = []; return [Array.prototype.indexOf.call(logged(3, {0: 1, 2: 3}, log), 3, -2), log]`,
	"join":           `const log = []; return [Array.prototype.join.call(logged(3, {0: 1, 2: 3}, log), "-"), log]`,
	"lastIndexOf":    `const log = []; return [Array.prototype.lastIndexOf.call(logged(3, {0: 1, 2: 3}, log), 1), log]`,
	"map":            `const log = []; return [Array.prototype.map.call(logged(3, {0: "a", 2: "c"}, log), (x) => x + x), log]`,
	"pop":            `const log = []; return [Array.prototype.pop.call(logged(2, {0: "a", 1: "b"}, log)), log]`,
	"push":           `const log = []; return [Array.prototype.push.call(logged(2, {0: "a"}, log), "x", "y"), log]`,
	"reduce":         `const log = []; return [Array.prototype.reduce.call(logged(3, {1: 2, 2: 3}, log), (a, b) => a + b), log]`,
	"reduceRight":    `const log = []; return [Array.prototype.reduceRight.call(logged(3, {0: 1, 1: 2}, log), (a, b) => a + "," + b, "x"), log]`,
	"reverse":        `const log = []; Array.prototype.reverse.call(logged(3, {0: 1, 1: 2}, log)); return log`,
	"shift":          `const log = []; return [Array.prototype.shift.call(logged(3, {0: 1, 2: 3}, log)), log]`,
	"slice":          `const log = []; return [Array.prototype.slice.call(logged(4, {0: 1, 1: 2, 3: 4}, log), 1, -1), log]`,
	"some":           `const log = []; return [Array.prototype.some.call(logged(3, {0: 1, 1: 2}, log), (x) => x === 2), log]`,
	"sort":           `const log = []; const o = logged(4, {0: "c", 1: "a", 3: "b"}, log); Array.prototype.sort.call(o); return [o[0], o[1], o[2], log]`,
	"sort compare":   `const log = []; const o = logged(3, {0: 3, 1: 1, 2: 2}, log); Array.prototype.sort.call(o, (a, b) => b - a); return [o[0], o[1], o[2]]`,
	"splice":         `const log = []; return [Array.prototype.splice.call(logged(4, {0: 1, 1: 2, 2: 3, 3: 4}, log), 1, 2, "x"), log]`,
	"toLocaleString": `const log = []; return [Array.prototype.toLocaleString.call(logged(2, {0: 1, 1: "b"}, log)), log]`,
	"toReversed":     `const log = []; return [Array.prototype.toReversed.call(logged(3, {0: 1, 2: 3}, log)), log]`,
	"toSorted":       `const log = []; return [Array.prototype.toSorted.call(logged(3, {0: "b", 1: "a"}, log)), log]`,
	"toSpliced":      `const log = []; return [Array.prototype.toSpliced.call(logged(4, {0: 1, 1: 2, 2: 3, 3: 4}, log), 1, 2, "x"), log]`,
	"unshift":        `const log = []; return [Array.prototype.unshift.call(logged(2, {0: 1, 1: 2}, log), "x"), log]`,
	"with":           `const log = []; return [Array.prototype.with.call(logged(3, {0: 1, 1: 2, 2: 3}, log), 1, "x"), log]`,
	"arguments":      `return (function () { return Array.prototype.slice.call(arguments, 1); })(1, 2, 3)`,
	"string this":    `return [Array.prototype.map.call("abc", (c) => c + c), Array.prototype.indexOf.call("abc", "c")]`,
	"function this":  `const f = function (a, b) {}; f[0] = "x"; return [Array.prototype.join.call(f, "+"), Array.prototype.includes.call(f, "x")]`,
	"errors":         `return [run(() => Array.prototype.map.call({length: 1}, 5)), run(() => Array.prototype.reduce.call({length: 0}, (a, b) => a)), run(() => Array.prototype.with.call({length: 2}, 5, 0)), run(() => Array.prototype.toReversed.call({length: 2 ** 32}))]`,

	// Huge lengths that the spec walks lazily, with an early answer.
	"includes Infinity":    `return run(() => Array.prototype.includes.call({length: Infinity, 0: 1}, 1))`,
	"indexOf huge":         `return Array.prototype.indexOf.call({length: 2 ** 53 - 1, 3: "x"}, "x")`,
	"lastIndexOf huge":     `return Array.prototype.lastIndexOf.call({length: 2 ** 53 - 1, [2 ** 53 - 3]: "x"}, "x")`,
	"find huge":            `return Array.prototype.find.call({length: 2 ** 53 - 1, 2: "x"}, (v) => v === "x")`,
	"findLastIndex huge":   `return Array.prototype.findLastIndex.call({length: 2 ** 53 - 1}, (v, i) => i < 2 ** 53 - 5)`,
	"some huge":            `return Array.prototype.some.call({length: 2 ** 53 - 1, 5: 1}, (v) => v === 1)`,
	"every huge":           `return Array.prototype.every.call({length: 2 ** 53 - 1, 0: 1}, (v) => v === 2)`,
	"at huge":              `return Array.prototype.at.call({length: 2 ** 53 - 1, [2 ** 53 - 2]: "last"}, -1)`,
	"fill near 2**53":      `const o = {length: 2 ** 53 - 1}; Array.prototype.fill.call(o, "v", 2 ** 53 - 4, 2 ** 53 - 2); return [o[2 ** 53 - 4], o[2 ** 53 - 3], o[2 ** 53 - 2]]`,
	"push over 2**53":      `return run(() => Array.prototype.push.call({length: 2 ** 53 - 1}, 1))`,
	"toSpliced clamped":    `return Array.prototype.toSpliced.call({length: 2 ** 53 + 20, [2 ** 53 - 3]: "a", [2 ** 53 - 2]: "b"}, 0, 2 ** 53 - 3)`,
	"with over 2**32":      `return run(() => Array.prototype.with.call({length: 2 ** 32}, 0, 0))`,
	"concat over 2**53":    `const o = {length: 2 ** 53, [Symbol.isConcatSpreadable]: true}; return run(() => [1].concat(o))`,
	"concat poisoned huge": `const o = {length: 2 ** 53 - 1, get 0() { throw new SyntaxError() }, [Symbol.isConcatSpreadable]: true}; return run(() => [].concat(o))`,

	// Array.from
	"from getter length": `const log = []; return [Array.from(logged(2, {0: "a", 1: "b"}, log)), log]`,
	"from mapped":        `return Array.from({length: 3, 1: "b"}, (v, i) => [v === undefined ? null : v, i])`,
	"from iterable": `const log = [];
		const it = {[Symbol.iterator]() { let i = 0; return {get next() { log.push("next"); return () => ({get done() { log.push("done"); return i >= 2 }, get value() { log.push("value"); return i++ }}) }, return() { log.push("return") }} }, get length() { log.push("length"); return 5 }};
		return [Array.from(it), log]`,
	"from closes": `const log = [];
		const it = {[Symbol.iterator]() { return {next() { return {done: false, value: 1} }, return() { log.push("return"); return {} }} }};
		return [run(() => Array.from(it, () => { throw new SyntaxError() })), log]`,
	"from Set and Map":  `return [Array.from(new Set([1, 2, 2])), Array.from(new Map([[1, "a"]]).entries()), Array.from("héllo")]`,
	"from custom ctor":  `function C(n) { this.made = n === undefined ? "none" : n } const r = Array.from.call(C, {length: 2, 0: "a"}); return [r.made, r.length, r[0]]`,
	"from iterator get": `const log = []; const o = {get [Symbol.iterator]() { log.push("iterator"); return undefined }, length: 1, 0: "x"}; return [Array.from(o), log]`,

	// concat reads Symbol.isConcatSpreadable once per item, in order.
	"concat spreadable reads": `const log = [];
		const item = (name, v) => ({get [Symbol.isConcatSpreadable]() { log.push(name); return v }, length: 1, 0: name});
		const arr = [1]; Object.defineProperty(arr, Symbol.isConcatSpreadable, {get() { log.push("arr"); return true }});
		return [arr.concat(item("a", true), item("b", false), [2]).length, log]`,

	"concat Arrays spreadable reads": `const log = [];
		const a = [1]; Object.defineProperty(a, Symbol.isConcatSpreadable, {get() { log.push("a"); return false }});
		const r = [0].concat(a, [2]); return [r.length, Array.isArray(r[1]), log]`,

	// apply, Reflect.apply and Reflect.construct read the length once.
	"apply getter":                      `const log = []; return [Math.max.apply(null, logged(2, {0: 1, 1: 5}, log)), log]`,
	"Reflect.apply getter":              `const log = []; return [Reflect.apply(Math.min, null, logged(2, {0: 1, 1: 5}, log)), log]`,
	"Reflect.construct getter":          `const log = []; return [Reflect.construct(Array, logged(2, {0: 1, 1: 5}, log)), log]`,
	"apply not callable":                `const log = []; return [run(() => Function.prototype.apply.call({}, null, logged(1, {}, log))), log]`,
	"Reflect.apply not callable":        `const log = []; return [run(() => Reflect.apply(1, null, logged(1, {}, log))), log]`,
	"Reflect.construct not constructor": `const log = []; return [run(() => Reflect.construct(() => 0, logged(1, {}, log))), run(() => Reflect.construct(Array, logged(1, {}, log), Math.max)), log]`,
	"apply length toctou":               `let n = 0; const o = {get length() { return n++ === 0 ? 1 : 2 ** 40 }}; return [Math.max.apply(null, o), n]`,
}

// overLimitScripts run the same in the sandbox, with a size guard of 16,384
// elements, as in bare goja: their Arrays are over it (sparse), so their
// methods run in arraylike.js, which creates results with the species
// constructor.
var overLimitScripts = map[string]string{
	"indexOf":        `const a = []; a.length = 40000; a[5] = "x"; return [a.indexOf("x"), a.includes(undefined), a.lastIndexOf("x")]`,
	"filter":         `const a = []; a.length = 40000; a[5] = "x"; return a.filter(() => true)`,
	"slice":          `const a = []; a.length = 40000; a[1] = "x"; return a.slice(0, 3).map((x) => x === undefined ? "hole" : x)`,
	"subclass":       `class B extends Array {} const b = new B(); b.length = 40000; b[3] = 1; const r = b.filter(() => true); return [r instanceof B, r.length, r[0]]`,
	"species":        `const a = []; a.length = 40000; a[2] = 7; a.constructor = {[Symbol.species]: function (n) { this.made = n }}; const r = a.filter(() => true); return [r.made, r[0], r.length, Array.isArray(r)]`,
	"species null":   `const a = []; a.length = 40000; a[2] = 7; a.constructor = {[Symbol.species]: null}; const r = a.flat(); return [Array.isArray(r), r]`,
	"frozen species": `const a = []; a.length = 40000; a[2] = 7; a.constructor = {[Symbol.species]: function () { return Object.freeze({}) }}; return run(() => a.filter(() => true))`,
	"concat species": `class B extends Array {} const b = new B(); b.push(1); const r = b.concat({length: 2, 0: "a", [Symbol.isConcatSpreadable]: true}); return [r instanceof B, r.length, r[1], 2 in r]`,
	"splice":         `const a = []; a.length = 40000; a[0] = "x"; a[39999] = "z"; const r = a.splice(0, 1); return [r, a.length, a[39998]]`,
}

// TestArrayLikesSameAsGoja runs arrayLikeScripts in the sandbox and in a
// bare goja runtime: the values (reads and writes logged in order included)
// must be the same.
func TestArrayLikesSameAsGoja(t *testing.T) {
	requireHardenedSameAsGoja(t, arrayLikeHelpers, arrayLikeScripts, Limits{})
}

// TestOverLimitArraysSameAsGoja runs overLimitScripts, as
// TestArrayLikesSameAsGoja does.
func TestOverLimitArraysSameAsGoja(t *testing.T) {
	if maxElemsFor(1<<20) != 16384 {
		t.Fatalf("the size guard of 1 MiB is %d elements", maxElemsFor(1<<20))
	}
	requireHardenedSameAsGoja(t, arrayLikeHelpers, overLimitScripts, Limits{MaxMemoryBytes: 1 << 20})
}

// requireHardenedSameAsGoja runs each script (prefix + script) in a bare
// goja runtime and in a hardened run with lim (a 10 s timeout when lim has
// none): the values, reads and writes logged in order included, must be
// the same.
func requireHardenedSameAsGoja(t *testing.T, prefix string, scripts map[string]string, lim Limits) {
	t.Helper()
	if lim.Timeout == 0 {
		lim.Timeout = 10 * time.Second
	}
	for name, code := range scripts {
		t.Run(name, func(t *testing.T) {
			want := bareGoja(t, prefix+code)
			res, _ := runCode(t, prefix+code, Options{Limits: lim})
			if res.Err != nil {
				t.Fatalf("sandbox: %v (bare goja: %s)", res.Err, want)
			}
			if diff := cmp.Diff(want, string(res.Value)); diff != "" {
				t.Errorf("sandbox differs from goja (-goja +sandbox):\n%s", diff)
			}
		})
	}
}

// requireEndsWith runs code (a 10 s timeout) and fails unless it ends with
// want ("" for success); a want of timeout also requires that the run
// stops at its timeout, not abandoned (requireStopsAtTimeout).
func requireEndsWith(t *testing.T, code string, want Code) {
	t.Helper()
	if want == CodeTimeout {
		requireStopsAtTimeout(t, code)
		return
	}
	res, _ := runCode(t, code, Options{Limits: Limits{Timeout: 10 * time.Second}})
	var got Code
	if res.Err != nil {
		got = res.Err.Code
	}
	if got != want {
		t.Errorf("err = %v (value %s), want %q", res.Err, res.Value, want)
	}
}

// bareGoja runs code as the body of a strict function in a fresh goja
// runtime and returns its result as JSON.
func bareGoja(t *testing.T, code string) string {
	t.Helper()
	vm := goja.New()
	v, err := vm.RunString(`JSON.stringify((function () { "use strict";` + code + "\n})())")
	if err != nil {
		t.Fatalf("bare goja: %v", err)
	}
	var out any
	if err := json.Unmarshal([]byte(v.String()), &out); err != nil {
		t.Fatalf("bare goja returned %q: %v", v, err)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// hugeArrayLikeOutcomes are how each array method ends on {length: 2**40},
// called with () => 0: a lazy walk runs until the run's timeout stops it,
// what would allocate 2**40 elements or characters ends with memory_limit,
// what the spec refuses (ArrayCreate past 2**32 - 1) is a catchable
// RangeError, and what touches a few indexes answers.
var hugeArrayLikeOutcomes = map[string]Code{
	"at": "", "concat": "", "entries": "", "keys": "", "values": "", "Symbol.iterator": "", "map": "", "pop": "",
	"push": "", "slice": "", "splice": "", "toReversed": "", "toSorted": "", "toSpliced": "", "toString": "", "with": "",
	"fill": CodeMemoryLimit, "join": CodeMemoryLimit, "toLocaleString": CodeMemoryLimit,
	"copyWithin": CodeTimeout, "every": CodeTimeout, "filter": CodeTimeout, "find": CodeTimeout, "findIndex": CodeTimeout,
	"findLast": CodeTimeout, "findLastIndex": CodeTimeout, "flat": CodeTimeout, "flatMap": CodeTimeout,
	"forEach": CodeTimeout, "includes": CodeTimeout, "indexOf": CodeTimeout, "lastIndexOf": CodeTimeout,
	"reduce": CodeTimeout, "reduceRight": CodeTimeout, "reverse": CodeTimeout, "shift": CodeTimeout, "some": CodeTimeout,
	"sort": CodeTimeout, "unshift": CodeTimeout,
}

// methodExpr is the expression of an array method of arrayMethods.
func methodExpr(k any) (name, expr string) {
	if k == goja.SymIterator {
		return "Symbol.iterator", "Array.prototype[Symbol.iterator]"
	}
	return k.(string), fmt.Sprintf("Array.prototype[%q]", k)
}

// Every array method on a huge array-like ends as the spec has it, within
// the run's limits: a walk that finds nothing is stopped by the timeout,
// and its goroutine with it (not abandoned); what would allocate ends with
// memory_limit.
func TestHostileHugeArrayLikes(t *testing.T) {
	for _, k := range arrayMethods {
		name, expr := methodExpr(k)
		want, ok := hugeArrayLikeOutcomes[name]
		if !ok {
			t.Errorf("hugeArrayLikeOutcomes has no outcome for %s", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			requireEndsWith(t, "try { "+expr+".call({length: 2 ** 40}, () => 0) } catch (e) { return 'caught ' + e.name }\nreturn 'done'", want)
		})
	}
}

// The cases the sandbox refused or ended before: {length: 2**32 - 1} (a
// length ArrayCreate accepts), an Array over the size limit, and a length
// getter answering small and then huge.
func TestHostileArrayLikeLengths(t *testing.T) {
	for name, c := range map[string]struct {
		code string
		want Code
	}{
		"join":                       {`return Array.prototype.join.call({length: 2 ** 32 - 1}).length`, CodeMemoryLimit},
		"join function":              {`const f = function () {}; Object.defineProperty(f, "length", {value: 2 ** 32 - 1}); return Array.prototype.join.call(f).length`, CodeMemoryLimit},
		"fill":                       {`return Array.prototype.fill.call({length: 2 ** 32 - 1}, 0).length`, CodeMemoryLimit},
		"fill Array":                 {`const a = []; a.length = 2 ** 32 - 1; return a.fill(0).length`, CodeMemoryLimit},
		"toReversed":                 {`return Array.prototype.toReversed.call({length: 2 ** 32 - 1}).length`, CodeMemoryLimit},
		"toSorted":                   {`return Array.prototype.toSorted.call({length: 2 ** 32 - 1}).length`, CodeMemoryLimit},
		"with":                       {`return Array.prototype.with.call({length: 2 ** 32 - 1}, 0, 1).length`, CodeMemoryLimit},
		"Array.from":                 {`return Array.from({length: 2 ** 32 - 1}).length`, CodeMemoryLimit},
		"Array.from Array":           {`const a = []; a.length = 2 ** 32 - 1; return Array.from(a).length`, CodeTimeout},
		"Array.from Array iterator":  {`Array.prototype[Symbol.iterator] = function () { return {next: Object} }; return Array.from([1]).length`, CodeTimeout},
		"Array.from string iterator": {`String.prototype[Symbol.iterator] = function () { return {next: Object} }; return Array.from("x").length`, CodeTimeout},
		"map":                        {`return Array.prototype.map.call({length: 2 ** 32 - 1}, (x) => x).length`, CodeTimeout},
		"includes Array":             {`const a = []; a.length = 2 ** 32 - 1; return a.includes(1)`, CodeTimeout},
		"concat spreadable":          {`return [].concat({length: 2 ** 32 - 1, [Symbol.isConcatSpreadable]: true}).length`, CodeTimeout},
		"includes Infinity":          {`return Array.prototype.includes.call({length: Infinity}, 1)`, CodeTimeout},
		"Array.from Object":          {`return Array.from({[Symbol.iterator]() { return {next: Object} }}).length`, CodeTimeout},
		"length recursion":           {`const o = {get length() { return Array.prototype.indexOf.call(o, 1) }}; return Array.prototype.indexOf.call(o, 1)`, CodeLimitExceeded},
		"callback recursion":         {`const f = () => Array.prototype.some.call({length: 1, 0: 0}, f); return f()`, CodeLimitExceeded},
	} {
		t.Run(name, func(t *testing.T) {
			if c.want == CodeTimeout {
				requireStopsAtTimeout(t, c.code)
				return
			}
			res, _ := runCode(t, c.code, Options{Limits: Limits{Timeout: 20 * time.Second, MaxMemoryBytes: 64 << 20}})
			if res.Err == nil || res.Err.Code != c.want {
				t.Errorf("err = %v (value %s), want %s", res.Err, res.Value, c.want)
			}
		})
	}
}

// A length getter that answers 1 and then 2**32 - 1 is read once (or not
// at all, by the methods that do not walk this): every array method,
// Array.from and the argument lists see 1 and finish. (Those that set
// length throw a TypeError: the accessor has no setter.)
func TestHostileLengthGetterReadOnce(t *testing.T) {
	lie := "let n = 0; const o = {get length() { return n++ === 0 ? 1 : 2 ** 32 - 1 }, 0: 1};\n"
	exprs := map[string]string{
		"Array.from":        "Array.from(o)",
		"apply":             "Math.max.apply(null, o)",
		"Reflect.apply":     "Reflect.apply(Math.max, null, o)",
		"Reflect.construct": "Reflect.construct(Array, o)",
		"concat argument":   "(o[Symbol.isConcatSpreadable] = true, [].concat(o))",
	}
	for _, k := range arrayMethods {
		name, expr := methodExpr(k)
		exprs[name] = expr + ".call(o, () => 0)"
	}
	for name, expr := range exprs {
		t.Run(name, func(t *testing.T) {
			code := lie + "try { " + expr + " } catch (e) { if (e.name !== 'TypeError') throw e }\nreturn n"
			res, _ := runCode(t, code, Options{Limits: Limits{Timeout: 5 * time.Second}})
			if res.Err != nil {
				t.Fatalf("err = %v, want the method to read length once and finish", res.Err)
			}
			if v := string(res.Value); v != "1" && v != "0" {
				t.Errorf("length read %s times, want at most once", v)
			}
		})
	}
}

// BenchmarkArrayLike is whole runs that call an array method: on an Array
// (goja's builtin), on an array-like (arraylike.js, whose functions the run
// makes at its first such call), and both over 10,000 elements.
func BenchmarkArrayLike(b *testing.B) {
	h := newTestHost()
	for name, code := range map[string]string{
		"Array":            `return [1, 2, 3].map((x) => x).length`,
		"array-like":       `return Array.prototype.map.call({length: 3, 0: 1, 1: 2, 2: 3}, (x) => x).length`,
		"Array 10k":        `const a = []; for (let i = 0; i < 1e4; i++) a[i] = i; return a.map((x) => x).indexOf(-1)`,
		"array-like 10k":   `const a = {length: 1e4}; for (let i = 0; i < 1e4; i++) a[i] = i; return Array.prototype.indexOf.call(Array.prototype.map.call(a, (x) => x), -1)`,
		"Array.from range": `return Array.from({length: 1e4}, (_, i) => i).length`,
		"Array.from Array": `const a = []; for (let i = 0; i < 1e4; i++) a[i] = i; return Array.from(a).length`,
		"Array.from Set":   `const s = new Set(); for (let i = 0; i < 1e4; i++) s.add(i); return Array.from(s).length`,
	} {
		s, err := Compile(code, 0)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if res := Run(context.Background(), s, Options{Tools: h.names(), Host: h}); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}

// BenchmarkArrayLikeFirstUse is what a run pays the first time it calls a
// method of arraylike.js: its functions made in the run's runtime.
func BenchmarkArrayLikeFirstUse(b *testing.B) {
	arrayLikeProgram() // compiled once per process, not per run
	maxElems := maxElemsFor(DefaultMaxMemoryBytes)
	for b.Loop() {
		b.StopTimer()
		r := newBareRunner(maxElems)
		if err := r.harden(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		r.arrayLikeMethods()
	}
}

// concat of real Arrays over the size limit ends the run with
// memory_limit before it copies (goja's would have allocated it all, and
// copying it in JavaScript took longer than the timeout under the race
// detector, and a sparse one of 2**31 walked its holes until the timeout);
// an array-like of the same length stays lazy.
func TestHostileConcatOfArraysOverLimit(t *testing.T) {
	requireEndsWith(t, `const a = []; a.length = 2 ** 31; return [].concat(a).length`, CodeMemoryLimit)
	requireEndsWith(t, `const o = {length: 2 ** 40, [Symbol.isConcatSpreadable]: true, get 0() { throw new RangeError("first") }};
		try { [].concat(o) } catch (e) { return e.name }`, "")
}
