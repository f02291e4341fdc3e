package js

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja"
	"github.com/google/go-cmp/cmp"
)

// ownMethods lists the own data properties of obj that hold functions, in a
// fresh runtime: string keys by name, symbol keys by their String().
func ownMethods(t *testing.T, vm *goja.Runtime, obj string) []string {
	t.Helper()
	v, err := vm.RunString(`(function (o) {
		return Reflect.ownKeys(o).filter((k) => typeof Object.getOwnPropertyDescriptor(o, k).value === "function");
	})(` + obj + `)`)
	if err != nil {
		t.Fatal(err)
	}
	arr := v.(*goja.Object)
	n := int(arr.Get("length").ToInteger())
	names := make([]string, 0, n)
	for i := range n {
		names = append(names, keyName(arr.Get(strconv.Itoa(i))))
	}
	slices.Sort(names)
	return names
}

// keyName names a property key: a Go string or *goja.Symbol, or a goja
// string or symbol value.
func keyName(k any) string {
	switch k := k.(type) {
	case *goja.Symbol:
		return k.String()
	case string:
		return k
	case goja.Value:
		return k.String()
	}
	panic(fmt.Sprintf("unexpected key %T", k))
}

func keyNames(keys []any) []string {
	var names []string
	for _, k := range keys {
		names = append(names, keyName(k))
	}
	slices.Sort(names)
	return names
}

// checkFunctions reports entries of keys that are not functions on obj in a
// fresh runtime: the guards would silently skip them.
func checkFunctions(t *testing.T, obj *goja.Object, keys []any) {
	t.Helper()
	for _, k := range keys {
		var v goja.Value
		switch k := k.(type) {
		case string:
			v = obj.Get(k)
		case *goja.Symbol:
			v = obj.GetSymbol(k)
		}
		if _, ok := goja.AssertFunction(v); !ok {
			t.Errorf("%s is not a function in the runtime", keyName(k))
		}
	}
}

// Every array method walks this.length inside the builtin: arrayMethods must
// name all of them (and nothing else), or a new one goes unguarded.
func TestArrayMethodsMatchRuntime(t *testing.T) {
	vm := goja.New()
	var want []string
	for _, name := range ownMethods(t, vm, "Array.prototype") {
		if name != "constructor" { // Array itself, not a method on this
			want = append(want, name)
		}
	}
	if !slices.Contains(want, goja.SymIterator.String()) {
		t.Fatalf("the runtime's Array.prototype has no Symbol.iterator method: %v", want)
	}
	if diff := cmp.Diff(want, keyNames(arrayMethods)); diff != "" {
		t.Errorf("arrayMethods differ from Array.prototype's methods (-runtime +list):\n%s", diff)
	}
	checkFunctions(t, vm.Get("Array").ToObject(vm).Get("prototype").ToObject(vm), arrayMethods)
}

// The guards keep the builtins' behavior and property flags.
func TestGuardedBuiltinsStillWork(t *testing.T) {
	t.Cleanup(regexp2.StopTimeoutClock) // split with a regexp goes through regexp2 (goleak)
	code := `const d = Object.getOwnPropertyDescriptor(Array.prototype, "map");
const keys = []; for (const k in [1, 2]) keys.push(k);
return [[3, 1, 2].toSorted(), [1, 2, 3].map((x) => x * 2), [1, 2, 3].at(-1), [...[1, 2]],
  Array.from({length: 3}, (_, i) => i), ["a", "b"].join("-"), "ab".repeat(2), "x".padStart(3, "."),
  /b(c)/.exec("abc")[1], "a-b".split(/-/), Object.keys(Array.prototype), keys,
  [d.writable, d.enumerable, d.configurable], JSON.parse(JSON.stringify({a: [1]}))]`
	res, _ := runCode(t, code, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	want := `[[1,2,3],[2,4,6],3,[1,2],[0,1,2],"a-b","abab","..x","c",["a","b"],[],["0","1"],[true,false,true],{"a":[1]}]`
	if got := string(res.Value); got != want {
		t.Errorf("value =\n%s\nwant\n%s", got, want)
	}
}

func TestToLength(t *testing.T) {
	vm := goja.New()
	obj, err := vm.RunString("({valueOf() { return 7.5 }})")
	if err != nil {
		t.Fatal(err)
	}
	const maxInt64 = math.MaxInt64
	tests := []struct {
		name string
		v    goja.Value
		want int64
	}{
		{"nil", nil, 0},
		{"undefined", goja.Undefined(), 0},
		{"null", goja.Null(), 0},
		{"NaN", vm.ToValue(math.NaN()), 0},
		{"-1", vm.ToValue(-1), 0},
		{"-0.5", vm.ToValue(-0.5), 0},
		{"-Infinity", vm.ToValue(math.Inf(-1)), 0},
		{"0", vm.ToValue(0), 0},
		{"0.9", vm.ToValue(0.9), 0},
		{"1.9", vm.ToValue(1.9), 1},
		{"3", vm.ToValue(3), 3},
		{"true", vm.ToValue(true), 1},
		{"string 12", vm.ToValue("12"), 12},
		{"string x", vm.ToValue("x"), 0},
		{"valueOf", obj, 7},
		{"2^32-1", vm.ToValue(float64(1<<32 - 1)), 1<<32 - 1},
		{"2^53", vm.ToValue(float64(1 << 53)), 1 << 53},
		{"1e300", vm.ToValue(1e300), maxInt64},
		{"MaxInt64 as float", vm.ToValue(float64(math.MaxInt64)), maxInt64},
		{"Infinity", vm.ToValue(math.Inf(1)), maxInt64},
	}
	for _, tt := range tests {
		if got := toLength(tt.v); got != tt.want {
			t.Errorf("toLength(%s) = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestJSONDepthOK(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	open := func(n int) string { return strings.Repeat("[", n) }
	tests := []struct {
		name string
		s    string
		want bool
	}{
		{"empty", "", true},
		{"scalar", `"x"`, true},
		{"depth 10000", nest(maxJSONDepth), true},
		{"depth 10001", nest(maxJSONDepth + 1), false},
		{"objects and arrays 10000", strings.Repeat(`{"a":[`, maxJSONDepth/2) + strings.Repeat("]}", maxJSONDepth/2), true},
		{"objects and arrays 10001", strings.Repeat(`{"a":[`, maxJSONDepth/2) + "{}" + strings.Repeat("]}", maxJSONDepth/2), false},
		{"depth counts at its peak", nest(maxJSONDepth+1) + "[]", false},
		{"siblings do not add up", strings.Repeat(nest(maxJSONDepth), 3), true},
		{"unclosed 10001", open(maxJSONDepth + 1), false},
		{"brackets in a string", `["` + open(2*maxJSONDepth) + `"]`, true},
		{"escaped quote keeps the string open", `["\"` + open(maxJSONDepth+1) + `"]`, true},
		{"escaped backslash closes the string", `["\\"` + open(maxJSONDepth+1), false},
		{"brackets after a string", `["x",` + open(maxJSONDepth), false},
		{"unterminated string", `"` + open(maxJSONDepth+1), true},
		{"string with braces", `{"` + strings.Repeat("{", maxJSONDepth+1) + `":1}`, true},
	}
	for _, tt := range tests {
		if got := jsonDepthOK(tt.s); got != tt.want {
			t.Errorf("%s: jsonDepthOK = %v, want %v", tt.name, got, tt.want)
		}
		if got := refJSONDepth(tt.s) <= maxJSONDepth; got != tt.want {
			t.Errorf("%s: the reference says %v, want %v", tt.name, got, tt.want)
		}
	}
}

// JSON.parse in a run refuses nesting past maxJSONDepth with a catchable
// SyntaxError, and parses nesting up to it.
func TestJSONParseDepthInRun(t *testing.T) {
	code := `const deep = (n) => "[".repeat(n) + "]".repeat(n);
let err = "";
try { JSON.parse(deep(10001)) } catch (e) { err = e.name }
return [JSON.parse(deep(10000)).length, err, JSON.parse('["[[[["]')[0]]`
	res, _ := runCode(t, code, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got, want := string(res.Value), `[1,"SyntaxError","[[[["]`; got != want {
		t.Errorf("value = %s, want %s", got, want)
	}
}

// jsonString matches a JSON string as jsonDepthOK scans it: from a quote to
// the next unescaped quote or the end of the text.
var jsonString = regexp.MustCompile(`(?s)"(?:[^"\\]|\\.)*"?`)

// refJSONDepth is the deepest nesting of brackets outside strings, done the
// simple way: drop the strings, then count.
func refJSONDepth(s string) int {
	depth, deepest := 0, 0
	for _, c := range []byte(jsonString.ReplaceAllString(s, "")) {
		switch c {
		case '[', '{':
			depth++
			deepest = max(deepest, depth)
		case ']', '}':
			depth--
		}
	}
	return deepest
}

func FuzzJSONDepthOK(f *testing.F) {
	for _, s := range []string{"", "[]", `{"a":[1,{"b":"]"}]}`, `"\"[`, `"\\"[`, "\"\\\n[", "]]][[[", "[\"\xff\\\xe2\"]", `{"}`} {
		f.Add(s, uint8(0))
	}
	f.Add("[[[[", uint8(3))
	f.Add(`"\"[[`, uint8(1))
	f.Fuzz(func(t *testing.T, s string, pad uint8) {
		depth := refJSONDepth(s)
		if got, want := jsonDepthOK(s), depth <= maxJSONDepth; got != want {
			t.Fatalf("jsonDepthOK(%.200q) = %v; the deepest nesting is %d", s, got, depth)
		}
		// Near the limit, where a miscounted bracket changes the answer. The
		// brackets in front add their number to the depth.
		open := maxJSONDepth - int(pad%8)
		if got, want := jsonDepthOK(strings.Repeat("[", open)+s), open+depth <= maxJSONDepth; got != want {
			t.Fatalf("jsonDepthOK(%d brackets + %.200q) = %v; the deepest nesting is %d", open, s, got, open+depth)
		}
	})
}

// A regular expression that needs the backtracking engine ends the run with
// timeout when one match runs past RegexpTimeout; the script cannot catch it.
//
// The script tries ten times: timedCall recognizes the engine's timeout
// (which the engine reports as "no match") by the match's wall time, and the
// engine's coarse clock (100 ms ticks, 1 ms units) leaves that only a few
// milliseconds above RegexpTimeout; a single try could, in principle, come
// out just under it and pass for a genuine "no match".
func TestRegexpTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("takes a second")
	}
	t.Cleanup(regexp2.StopTimeoutClock) // the engine's clock goroutine lingers otherwise (goleak)
	code := `const re = new RegExp("^(?=.*)(\\w+\\s?)*$");
for (let i = 0; i < 10; i++) {
  try { re.test("a".repeat(34) + "!") } catch (e) {}
}
return "never stopped"`
	start := time.Now()
	res, _ := runCode(t, code, Options{Limits: Limits{Timeout: 30 * time.Second}})
	if res.Err == nil || res.Err.Code != CodeTimeout || !strings.Contains(res.Err.Message, "regular expression") {
		t.Fatalf("err = %v (value %s), want a regular expression timeout", res.Err, res.Value)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
}

// childEnv marks the test binary run as a child process by a test.
const childEnv = "CODEMODE_SANDBOX_JS_TEST_CHILD"

// The regexp engine's match timeout is set process-wide by the first Run,
// but goja compiles a regular expression literal when the script is compiled
// and keeps the timeout of that moment. In a fresh process, the first
// script is compiled before any run: its literals never time out, and a
// catastrophic one runs on after Run has given up on it (on the run's
// timeout), burning a CPU. This needs a fresh process, so the test runs
// itself as a child.
func TestRegexpLiteralTimeoutInFreshProcess(t *testing.T) {
	if os.Getenv(childEnv) == t.Name() {
		s, err := Compile(`return /^(?=.*)(\w+\s?)*$/.test("a".repeat(34) + "!")`, 0)
		if err != nil {
			fmt.Println("compile error:", err)
			os.Exit(1)
		}
		res := Run(context.Background(), s, Options{Limits: Limits{Timeout: 5 * time.Second}, Host: newTestHost()})
		fmt.Printf("result: %v\n", res.Err)
		os.Exit(0) // a stuck match may still run: skip goleak
	}
	if testing.Short() {
		t.Skip("runs a child process for seconds")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "result: timeout: a regular expression ran for") {
		t.Errorf("the first script's regular expression literal did not time out:\n%s", out)
	}
}

// TestApplyArgumentLists checks guardApply and the Reflect guards: more than
// maxArguments spread by apply, Reflect.apply or Reflect.construct is a
// catchable RangeError (the runtime's own, whatever the script put in the
// global), a string is the builtin's TypeError, a length getter is read
// once, and ordinary lists work.
func TestApplyArgumentLists(t *testing.T) {
	code := `const RE = RangeError, out = [];
globalThis.RangeError = function () { return "the script's"; };
for (const f of [() => Math.max.apply(null, { length: 70000 }), () => Reflect.apply(Math.max, null, { length: 70000 }),
  () => Reflect.construct(Array, { length: 70000 }), () => Math.max.apply(null, { length: { valueOf() { return 70000; } } })]) {
  try { f(); out.push("no error"); } catch (e) { out.push(e instanceof RE ? e.message : String(e)); }
}
try { Math.max.apply(null, "x".repeat(70000)); out.push("no error"); } catch (e) { out.push(e.constructor.name); }
out.push(Reflect.apply(Math.max, null, { get length() { return 1; }, 0: 7 }));
out.push(Math.max.apply(null, [1, 3, 2]), Reflect.apply(Math.min, null, { length: 2, 0: 5, 1: 4 }),
  Reflect.construct(Array, [1, 2]).length, Math.max.apply(null, undefined));
return out;`
	res, _ := runCode(t, code, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	want := []any{"too many arguments: 70000 (the limit is 65536)", "too many arguments: 70000 (the limit is 65536)",
		"too many arguments: 70000 (the limit is 65536)", "too many arguments: 70000 (the limit is 65536)",
		"TypeError", 7.0, 3.0, 4.0, 2.0, nil}
	if diff := cmp.Diff(want, mustJSON(t, res.Value)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
