package js

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/google/go-cmp/cmp"
)

// jsonRunner is a hardened runtime with the test host's tools bound, for
// calling stringifyJSON and the script's JSON.stringify side by side.
func jsonRunner(t testing.TB) *runner {
	t.Helper()
	r := newBareRunner(maxElemsFor(DefaultMaxMemoryBytes))
	if err := r.harden(); err != nil {
		t.Fatal(err)
	}
	h := newTestHost()
	r.opt = Options{Tools: h.names(), Host: h}
	if err := r.bind(); err != nil {
		t.Fatal(err)
	}
	return r
}

// stringifyOutcome is what a stringify gave: the JSON text, "undefined", or
// the exception thrown.
func stringifyOutcome(v goja.Value, err error) string {
	switch {
	case err != nil:
		if ex, ok := err.(*goja.Exception); ok {
			return "throws " + ex.Value().String()
		}
		return "error " + err.Error()
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	}
	return "json " + v.String()
}

// bothStringifies makes a value twice with body (a function body returning
// it: getters may change it while it is walked) and stringifies one with
// stringifyJSON, the other with the script's JSON.stringify (prelude.js).
func bothStringifies(t testing.TB, body string) (sandbox, script string) {
	t.Helper()
	r := jsonRunner(t)
	f, err := r.vm.RunString("(function () {\n" + body + "\n})")
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	build, _ := goja.AssertFunction(f)
	scriptStringify, _ := goja.AssertFunction(r.vm.GlobalObject().Get("JSON").(*goja.Object).Get("stringify"))
	v, err := build(goja.Undefined())
	if err != nil {
		return "make: " + err.Error(), ""
	}
	sandbox = stringifyOutcome(r.stringifyJSON(v))
	if v, err = build(goja.Undefined()); err != nil {
		t.Fatalf("%s: made once, then: %v", body, err)
	}
	return sandbox, stringifyOutcome(scriptStringify(goja.Undefined(), v))
}

// nested is a function body returning n arrays nested around inner.
func nested(n int, inner string) string {
	return fmt.Sprintf("let v = %s; for (let i = 0; i < %d; i++) v = [v]; return v", inner, n)
}

// The sandbox's stringify (tool arguments, return values, logs) gives what
// the script's JSON.stringify gives, byte for byte, exceptions included.
func TestStringifyJSONMatchesScript(t *testing.T) {
	cases := map[string]string{
		"plain":            `return {name: "alpha-1", index: 1, tags: ["a", "b"], nested: {x: null, y: true, z: false}}`,
		"numbers":          `return [0, -0, 1.5, -1e21, 1e21, 1e-7, 123456789012345680000, NaN, Infinity, -Infinity, 2**53, 0.1 + 0.2, 5e-324, -1]`,
		"strings":          `return ["\ud800", "\udc00x", "x\ud800", "\ud83d\ude00", "\ude00\ud83d", "\u2028\u2029", "\x00\x1f\x7f", "\"\\/", "\b\f\n\r\t\v", "é", "<>&'", ""]`,
		"key order":        `return {b: 1, 2: 2, a: 3, 1: 4, "-1": 5, "01": 6, 4294967295: 7, 4294967294: 8, "1.5": 9, "\ud800": 10}`,
		"omitted":          `return {u: undefined, f() {}, s: Symbol("x"), [Symbol("k")]: 1, a: [undefined, function () {}, Symbol("y")]}`,
		"sparse":           `const a = [1, , 3]; a[10] = 4; return a`,
		"holes":            `return new Array(5)`,
		"array props":      `const a = [1]; a.x = 2; return a`,
		"getter":           `return {get x() { return 1 }, y: 2}`,
		"getter edits":     `const o = {a: 1, get b() { delete this.c; this.d = 4; return 2 }, c: 3}; return o`,
		"getter array":     `const a = [1, 2, 3]; Object.defineProperty(a, 0, {get() { a.length = 1; return 0 }, enumerable: true}); return a`,
		"getter grows":     `const a = [1]; Object.defineProperty(a, 0, {get() { a.push([a.length]); return 0 }, enumerable: true}); return [a]`,
		"getter throws":    `return {get x() { throw new Error("boom") }}`,
		"getter nests":     `return {get x() { return JSON.stringify({y: [1, {z: 2}]}) }, w: [3]}`,
		"toJSON":           `return {a: {toJSON(k) { return "k=" + k }}, b: [{toJSON(k) { return k }}], c: {toJSON() { return undefined }}}`,
		"toJSON inherited": `Object.prototype.toJSON = function (k) { return k === "" ? {x: 1} : 2 }; return {a: {}}`,
		"toJSON array":     `Array.prototype.toJSON = function () { return "arr" }; return {a: [1]}`,
		"toJSON getter":    `Object.defineProperty(Object.prototype, "toJSON", {get() { return () => "got" }, configurable: true}); return [{}]`,
		"toJSON deep":      `const o = {}; o.toJSON = () => ({a: o}); return o`,
		"date":             `return [new Date(0), new Date(NaN)]`,
		"collections":      `return [new Map([[1, 2]]), new Set([1]), new WeakMap(), /x/g, new Error("e"), Promise.resolve(1)]`,
		"boxed":            `return [new Number(-0), new String("s\ud800"), new Boolean(false), Object(Symbol())]`,
		"class":            `class A { constructor() { this.x = 1 } get y() { return 2 } }; return [new A()]`,
		"prototype":        `return Object.create({inherited: 1}, {own: {value: 2, enumerable: true}})`,
		"null prototype":   `const o = Object.create(null); o.a = 1; return o`,
		"non-enumerable":   `return Object.defineProperty({a: 1}, "b", {value: 2, enumerable: false})`,
		"__proto__":        `return JSON.parse('{"__proto__": {"a": 1}, "b": 2}')`,
		"cycle":            `const o = {}; o.self = o; return o`,
		"array cycle":      `const a = []; a.push({a}); return a`,
		"shared":           `const s = {x: 1}; return [s, s, {s}]`,
		"arguments":        `return (function () { return arguments })(1, "2")`,
		"frozen":           `return Object.freeze({a: Object.seal([1])})`,
		"tools":            `return [tools, tools.board, tools.nothing, tools.board.get]`,
		"string root":      `return "s\u2028"`,
		"number root":      `return -0`,
		"undefined":        `return undefined`,
		"symbol":           `return Symbol("s")`,
		"function":         `return function () {}`,
		"null":             `return null`,
		"deep 9998":        nested(9998, "[]"),
		"deep 9999":        nested(9999, "{}"),
		"deep 10000":       nested(10000, "1"),
		"deep 20000":       nested(20000, "1"),
		"deep objects":     `let v = {}; for (let i = 0; i < 10000; i++) v = {v}; return v`,
		"deep function":    nested(9998, "function () {}"),
		"deep tool calls":  `let v = 1; for (let i = 0; i < 20000; i++) v = i % 5000 ? [v] : {get x() { tools.echo([[1]]); return 1 }, y: v}; return v`,
		"deep getter":      `let v = {get x() { return JSON.stringify([[[1]]]) }}; for (let i = 0; i < 9997; i++) v = [v]; return v`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			sandbox, script := bothStringifies(t, body)
			if sandbox != script {
				t.Errorf("stringifyJSON: %.300s\nJSON.stringify: %.300s", sandbox, script)
			}
		})
	}
}

// FuzzStringifyJSON compares the sandbox's stringify with the script's
// JSON.stringify on values built from the fuzz input (jsValue).
func FuzzStringifyJSON(f *testing.F) {
	for _, seed := range []string{"", "\x05\x01\x02", "\x06\x03\x00\x01\x07\x02", "\x09\x08\x05\x00", "\x0a\x0b\x06\x01\x02\x03",
		"\x0c\x0d\x0e\x0f\x10", "\x06\x06\x06\x06\x05\x0b\x0b"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &jsValue{data: data}
		body := "const shared = [];\nreturn " + g.value(0)
		sandbox, script := bothStringifies(t, body)
		if sandbox != script {
			t.Errorf("%s\nstringifyJSON: %.300s\nJSON.stringify: %.300s", body, sandbox, script)
		}
	})
}

// jsValue writes a JavaScript expression from fuzz bytes: JSON values and
// what JSON.stringify treats specially (getters, toJSON, prototypes,
// symbols, functions, holes, cycles, shared values, deep nesting).
type jsValue struct {
	data []byte
	i    int
}

func (g *jsValue) next() int {
	if g.i >= len(g.data) {
		return 0
	}
	g.i++
	return int(g.data[g.i-1])
}

var (
	fuzzNumbers = []string{"0", "-0", "1", "-1.5", "1e21", "1e-7", "NaN", "Infinity", "-Infinity", "2**53 + 2", "5e-324", "0.1 + 0.2"}
	fuzzStrings = []string{`""`, `"a"`, `"\ud800"`, `"\udfff\ud800"`, `"\ud83d\ude00"`, `"\u2028"`, `"\x00\x1f"`, `"\"\\"`, `"é"`, `"\n"`}
	fuzzKeys    = []string{`"a"`, `"b"`, `"0"`, `"1"`, `"10"`, `"-1"`, `"01"`, `"4294967295"`, `"toJSON"`, `"__proto__"`, `"\ud800"`, `""`, `"length"`} // JavaScript literals
)

func (g *jsValue) value(depth int) string {
	if depth > 6 {
		return "null"
	}
	k := g.next()
	switch k % 18 {
	case 0:
		return "null"
	case 1:
		return fuzzNumbers[g.next()%len(fuzzNumbers)]
	case 2:
		return fuzzStrings[g.next()%len(fuzzStrings)]
	case 3:
		return []string{"true", "false", "undefined", "Symbol()", "(() => 1)"}[g.next()%5]
	case 4, 5:
		n := g.next() % 4
		var b strings.Builder
		b.WriteString("[")
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			if g.next()%7 != 0 { // else a hole
				b.WriteString(g.value(depth + 1))
			}
		}
		b.WriteString("]")
		return b.String()
	case 6, 7:
		return g.object(depth, "")
	case 8:
		return g.object(depth, fmt.Sprintf("get [%s]() { return %s }, ", fuzzKeys[g.next()%len(fuzzKeys)], g.value(depth+1)))
	case 9:
		return g.object(depth, fmt.Sprintf("toJSON(k) { return k.length %% 2 ? %s : undefined }, ", g.value(depth+1)))
	case 10:
		return fmt.Sprintf("Object.create(%s, {x: {value: %s, enumerable: %t}})", []string{"null", "{}", "{toJSON() { return 7 }}", "Array.prototype"}[g.next()%4], g.value(depth+1), g.next()%2 == 0)
	case 11:
		return fmt.Sprintf("(shared[%d] ??= %s)", g.next()%3, g.value(depth+1))
	case 12:
		return "(() => { const o = {a: 1}; o.self = o; return o })()"
	case 13:
		return []string{"new Date(0)", "new Map()", "new Number(2)", "new String(\"s\")", "new Boolean(true)", "/x/", "new Error(\"e\")"}[g.next()%7]
	case 14:
		return fmt.Sprintf("(() => { let v = %s; for (let i = 0; i < %d; i++) v = [v]; return v })()", g.value(depth+1), 9990+g.next()%15)
	case 15:
		return fmt.Sprintf("(() => { const a = [%s, %s]; Object.defineProperty(a, %d, {get() { a.length = %d; return %s }, enumerable: true}); return a })()",
			g.value(depth+1), g.value(depth+1), g.next()%2, g.next()%3, g.value(depth+1))
	case 16:
		return fmt.Sprintf("Object.defineProperty(%s, %s, {value: %s, enumerable: %t})", g.object(depth, ""), fuzzKeys[g.next()%len(fuzzKeys)], g.value(depth+1), g.next()%2 == 0)
	default:
		return fmt.Sprintf("{get x() { return JSON.stringify(%s) }}", g.value(depth+1))
	}
}

// object is an object literal starting with extra, then up to 3 members.
func (g *jsValue) object(depth int, extra string) string {
	var b strings.Builder
	b.WriteString("({")
	b.WriteString(extra)
	for range g.next() % 4 {
		fmt.Fprintf(&b, "[%s]: %s, ", fuzzKeys[g.next()%len(fuzzKeys)], g.value(depth+1))
	}
	b.WriteString("})")
	return b.String()
}

// Getters of an argument that make tool calls of their own while the
// argument is stringified: each stringify counts its nesting from its own
// root, and the outer one goes on where it was — not from zero, or a getter
// every few thousand levels would let the native recursion go on without
// bound.
func TestHostileStringifyJSONNestedInGetters(t *testing.T) {
	code := `let deep = 1;
for (let i = 0; i < 6000; i++) deep = [deep];
let outer = {get x() { tools.echo({inner: deep}); return 2 }, y: [3]};
for (let i = 0; i < 6000; i++) outer = [outer];
await tools.echo(outer);
let deeper = 1;
for (let i = 0; i < 20000; i++) deeper = i % 5000 ? [deeper] : {get x() { tools.echo([[1]]); return 1 }, y: deeper};
try { tools.echo(deeper) } catch (e) { return e.message }`
	res, h := runCode(t, code, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if want := `"JSON.stringify: value nested too deeply (the limit is 10000 levels)"`; string(res.Value) != want {
		t.Errorf("value %s, want %s", res.Value, want)
	}
	if len(h.calls) < 2 {
		t.Fatalf("%d calls, want the first two at least", len(h.calls))
	}
	want := strings.Repeat("[", 6000) + `{"x":2,"y":[3]}` + strings.Repeat("]", 6000)
	if got := string(h.calls[1].Args); got != want {
		t.Errorf("outer args %.60s...; want %.60s...", got, want)
	}
	if got := string(h.calls[0].Args); !strings.HasPrefix(got, `{"inner":[[[`) {
		t.Errorf("inner args %.60s", got)
	}
}

// Arguments whose JSON is small but which take the builtin hundreds of
// millions of steps (many references to one object of many undefined
// members, which JSON.stringify omits): the run still ends on its timeout,
// and the builtin stops there too, not abandoned.
func TestHostileToolArgsStopOnTimeout(t *testing.T) {
	const fanout = `const o = {};
for (let i = 0; i < 1000; i++) o["k" + i] = undefined;
`
	for _, tc := range []struct{ name, code string }{
		{"arguments", fanout + `await tools.echo(new Array(200000).fill(o));`},
		// The script's return value, converted after the script returned.
		{"return value", fanout + `return new Array(200000).fill(o);`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res, _ := runCode(t, tc.code, Options{Limits: Limits{Timeout: 100 * time.Millisecond}})
			if res.Err == nil || res.Err.Code != CodeTimeout {
				t.Fatalf("err %v; want timeout", res.Err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("ended after %v; want about 100 ms", d)
			}
			if n := Abandoned(); n != 0 {
				t.Errorf("Abandoned() = %d: the builtin went on after the run was ended", n)
			}
		})
	}
}

// Arguments nested deeper than JSON.parse accepts throw a RangeError at the
// call, which the script can catch.
func TestHostileToolArgsTooDeep(t *testing.T) {
	code := `let v = 1;
for (let i = 0; i < 20000; i++) v = [v];
try { await tools.echo(v) } catch (e) { return [e instanceof RangeError, e.message] }`
	res, h := runCode(t, code, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if diff := cmp.Diff(`[true,"JSON.stringify: value nested too deeply (the limit is 10000 levels)"]`, string(res.Value)); diff != "" {
		t.Errorf("value (-want +got):\n%s", diff)
	}
	if len(h.calls) != 0 {
		t.Errorf("%d calls made; want none", len(h.calls))
	}
}
