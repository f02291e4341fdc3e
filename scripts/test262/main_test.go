package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMeta(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want Meta
	}{
		{"flow lists", `// Copyright
/*---
esid: sec-array.prototype.map
description: >
    Array.prototype.map - includes: [not, a, key]
includes: [compareArray.js, propertyHelper.js]
flags: [onlyStrict, async] # comment
features: [Symbol.iterator, "Proxy"]
---*/
var x = 1;`, Meta{Includes: []string{"compareArray.js", "propertyHelper.js"}, Flags: []string{"onlyStrict", "async"}, Features: []string{"Symbol.iterator", "Proxy"}}},
		{"block lists and negative", `/*---
info: |
    flags: [raw]
    negative: no
negative:
  phase: parse
  type: SyntaxError
includes:
  - asyncHelpers.js
  - 'compareArray.js'
flags:
- module
---*/`, Meta{Includes: []string{"asyncHelpers.js", "compareArray.js"}, Flags: []string{"module"}, Negative: &Negative{Phase: "parse", Type: "SyntaxError"}}},
		{"flow list over lines", "/*---\r\nfeatures: [a,\r\n  b]\r\nflags: [raw]\r\n---*/", Meta{Features: []string{"a", "b"}, Flags: []string{"raw"}}},
		{"nothing of interest", "/*---\ndescription: just this\n---*/", Meta{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseMeta(c.src)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("parseMeta (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseMetaErrors(t *testing.T) {
	for name, src := range map[string]string{
		"no front matter":  "var x;",
		"not closed":       "/*---\nflags: [raw]\n",
		"negative no type": "/*---\nnegative:\n  phase: parse\n---*/",
		"bad block list":   "/*---\nincludes:\n  a.js\n---*/",
		"not key value":    "/*---\njust words\n---*/",
	} {
		if _, err := parseMeta(src); err == nil {
			t.Errorf("%s: parseMeta accepted %q", name, src)
		}
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		c    classified
		want string
	}{
		{classified{Path: "built-ins/Array/prototype/map/15.4.4.19-5-7.js", Code: "runtime_error", Message: "ReferenceError: eval is not defined"}, "removed"},
		{classified{Path: "built-ins/Function/x.js", Code: "runtime_error", Message: "TypeError: code generation from strings is not allowed in the sandbox"}, "removed"},
		{classified{Path: "built-ins/Array/from/proxy.js", Features: []string{"Proxy"}, Code: "runtime_error", Message: "Test262Error: whatever"}, "removed"},
		{classified{Path: "built-ins/Array/prototype/map/15.4.4.19-2-10.js", Code: "runtime_error", Message: "TypeError: array methods on an array-like whose length is a getter are not supported in the sandbox"}, "arraylike-length"},
		{classified{Path: "built-ins/Array/prototype/map/15.4.4.19-4-8.js", Code: "runtime_error", Message: "uncaught Test262Error: accessed !== true", LengthAccessor: true}, "arraylike-length"},
		{classified{Path: "built-ins/Array/prototype/map/15.4.4.19-3-14.js", Code: "memory_limit", Message: "an array of 4294967296 elements is over the sandbox's limit"}, "memory-limit"},
		{classified{Path: "built-ins/Array/prototype/map/length.js", Code: "runtime_error", Message: "uncaught Test262Error: length descriptor value should be 1; length value should be 1"}, "wrapper-length"},
		{classified{Path: "built-ins/JSON/stringify/name.js", Code: "runtime_error", Message: "uncaught Test262Error: name descriptor value should be stringify"}, "name"},
		{classified{Path: "built-ins/Array/prototype/join/not-a-constructor.js", Code: "runtime_error", Message: "uncaught Test262Error: Expected a TypeError to be thrown but no exception was thrown at all"}, "constructor"},
		{classified{Path: "built-ins/String/prototype/split/x.js", Code: "runtime_error", Message: "internal error: runtime error: index out of range"}, "internal"},
		{classified{Path: "built-ins/Function/prototype/bind/instance-length.js", Code: "runtime_error", Message: "uncaught Test262Error: Expected SameValue(«true», «false»)"}, "bind"},
		{classified{Path: "built-ins/Date/prototype/Symbol.toPrimitive/prop-desc.js", Code: "runtime_error", Message: "uncaught Test262Error: descriptor should not be writable"}, "descriptor"},
		{classified{Path: "language/expressions/new/spread-sngl-obj-ident.js", Includes: []string{"propertyHelper.js"}, Code: "runtime_error", Message: "TypeError: Value is not a constructor"}, "bind"},
		{classified{Path: "built-ins/JSON/parse/not-a-constructor.js", Code: "runtime_error", Message: "uncaught Test262Error: isConstructor(JSON.parse) must return false"}, "constructor"},
		{classified{Path: "built-ins/Array/prototype/Symbol.iterator.js", Code: "runtime_error", Message: "uncaught Test262Error: Expected SameValue(«function [Symbol.iterator]() { [native code] }», «function values() { [native code] }») to be true"}, "alias"},
		{classified{Path: "built-ins/Object/getOwnPropertyDescriptor/15.2.3.3-3-5.js", Code: "runtime_error", Message: "uncaught Test262Error: desc.get Expected SameValue(«function github.com/codemode-dev/codemode/sandbox/js.(*runner).stoppableFunc.func1() { [native code] }», «function() {}»)"}, "accessor-identity"},
		{classified{Path: "built-ins/Promise/all/ctx-non-ctor.js", UsesRemoved: true, Code: "runtime_error", Message: "uncaught Test262Error: Expected a TypeError but got a ReferenceError"}, "removed"},
		{classified{Path: "built-ins/Array/prototype/concat/arg-length-exceeding-integer-limit.js", UsesRemoved: true, Code: "memory_limit", Message: "Array.prototype.concat would make an array of 9007199254740992 elements"}, "memory-limit"},
		{classified{Path: "language/statements/class/subclass/builtin-objects/Map/regular-subclassing.js", Code: "runtime_error", Message: "the sandbox's JavaScript engine failed: invalid memory address or nil pointer dereference"}, "internal"},
		{classified{Path: "built-ins/Math/abs/odd.js", Code: "runtime_error", Message: "uncaught Test262Error: something else"}, "other"},
	}
	for _, c := range cases {
		if got := classify(c.c); got != c.want {
			t.Errorf("classify(%s: %q) = %s, want %s", c.c.Path, c.c.Message, got, c.want)
		}
	}
}

func TestLengthAccessor(t *testing.T) {
	for src, want := range map[string]bool{
		`Object.defineProperty(obj, "length", { get: function() { return 2; } });`: true,
		`var obj = { get length() { return 2; } };`:                                true,
		`var obj = { 0: 1, length: { valueOf: function() { return 2; } } };`:       true,
		`var obj = { 0: 1, length: 2 };`:                                           false,
	} {
		if got := sourceHints(classified{}, src).LengthAccessor; got != want {
			t.Errorf("LengthAccessor of %q = %v, want %v", src, got, want)
		}
	}
}

// TestRun runs the harness end to end over a small test262-shaped tree of
// its own (test262 itself is not needed): a passing test, a test codemode
// fails on purpose (eval is removed), an async test, a parse-negative
// test, a runtime-negative test, a test that fails bare (left out) and a
// module (skipped), through bare goja and both runners.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	root := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("harness/assert.js", `function assert(v, m) { if (v !== true) throw new Test262Error(m); }
assert.sameValue = function (a, b, m) { if (a !== b) throw new Test262Error(m || (a + " !== " + b)); };`)
	write("harness/sta.js", `function Test262Error(m) { this.message = m || ""; }
Test262Error.prototype.toString = function () { return "Test262Error: " + this.message; };`)
	write("harness/doneprintHandle.js", `function $DONE(e) { print(e ? "Test262:AsyncTestFailure:" + e : "Test262:AsyncTestComplete"); }`)
	write("harness/twice.js", `function twice(x) { return 2 * x; }`)
	const head = "/*---\ndescription: t\n"
	write("test/dir/pass.js", head+"includes: [twice.js]\n---*/\nassert.sameValue(twice(21), 42);")
	write("test/dir/eval.js", head+"---*/\nassert.sameValue(eval('1 + 1'), 2);")
	write("test/dir/async.js", head+"flags: [async]\n---*/\nPromise.resolve(1).then(function (v) { assert.sameValue(v, 1); }).then($DONE, $DONE);")
	write("test/dir/parse.js", head+"negative:\n  phase: parse\n  type: SyntaxError\n---*/\nvar = ;")
	write("test/dir/throws.js", head+"negative:\n  phase: runtime\n  type: TypeError\n---*/\nnull.x;")
	write("test/dir/barefail.js", head+"---*/\nassert.sameValue(1, 2);")
	write("test/dir/module.js", head+"flags: [module]\n---*/\nexport var x;")
	write("test/dir/sub/skipped_FIXTURE.js", "not a test")

	out := filepath.Join(t.TempDir(), "r.json")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-root", root, "-dir", "dir", "-parallel", "2", "-timeout", "5s", "-json", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("run exited %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for id, r := range rep.Tests {
		s := r.Skip
		if r.Bare != nil {
			s = "bare " + r.Bare.Status
		}
		for _, o := range []*Outcome{r.InProcess, r.Worker} {
			if o != nil {
				s += " " + o.Status + o.Cause
			}
		}
		got[id] = s
	}
	want := map[string]string{
		"dir/pass.js":     "bare pass pass pass",
		"dir/eval.js":     "bare pass failremoved failremoved",
		"dir/async.js":    "bare pass pass pass",
		"dir/parse.js":    "bare pass pass pass",
		"dir/throws.js":   "bare pass pass pass",
		"dir/barefail.js": "bare fail",
		"dir/module.js":   "module",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s\nstdout:\n%s", diff, stdout.String())
	}
	if !strings.Contains(stdout.String(), "**5 pass bare**") || !strings.Contains(stdout.String(), "dir/eval.js [runtime_error] ReferenceError: eval is not defined") {
		t.Errorf("report lacks the counts or the regression:\n%s", stdout.String())
	}

	// Against itself as a baseline nothing is fixed or broken; against a
	// baseline where eval.js passed, it is broken again.
	stdout.Reset()
	if code := run([]string{"-root", root, "-dir", "dir", "-runner", "inprocess", "-baseline", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("run with baseline exited %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "Against the baseline, in process: 0 fixed, 0 broken") {
		t.Errorf("baseline diff against itself:\n%s", stdout.String())
	}
	rep.Tests["dir/eval.js"].InProcess = &Outcome{Status: "pass"}
	b, _ = json.Marshal(rep)
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if code := run([]string{"-root", root, "-dir", "dir", "-runner", "inprocess", "-baseline", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("run with baseline exited %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "1 broken\n- broken dir/eval.js [removed]") {
		t.Errorf("baseline diff does not show eval.js broken:\n%s", stdout.String())
	}
}

func TestRunBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-root", "", "-runner", "inprocess"},
		{"-root", "x", "-runner", "nope"},
		{"-root", "x", "-parallel", "0"},
	} {
		t.Setenv("TEST262", "")
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("run(%q) = %d, want 2 (%s)", args, code, errb.String())
		}
	}
}

// A run answered while its goroutine ran on, and the workers replaced,
// are reported under the table.
func TestSummaryReportsAbandonedAndReplaced(t *testing.T) {
	pass := &Outcome{Status: "pass"}
	rep := &Report{Runners: []string{runnerInProcess, runnerWorker}, WorkersReplaced: 3, Tests: map[string]*TestResult{
		"a.js": {Bare: pass, InProcess: &Outcome{Status: "abandoned", Cause: "other"}, Worker: &Outcome{Status: "timeout", Cause: "other"}},
		"b.js": {Bare: pass, InProcess: pass, Worker: pass},
	}}
	md := summarize(rep).markdown()
	for _, want := range []string{"in process: 1 bare-passing tests end with abandoned: a.js", "workers: 1 bare-passing tests end with timeout: a.js", "workers: 3 worker processes were replaced"} {
		if !strings.Contains(md, want) {
			t.Errorf("the summary lacks %q:\n%s", want, md)
		}
	}
}
