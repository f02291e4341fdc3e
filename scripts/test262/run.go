package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"

	"github.com/codemode-dev/codemode/engine"
)

// The body every runner gets is the same text: a prelude, test262's harness
// files, the test, and an ending that returns a marker. codemode runs it as
// the body of `(async function () {"use strict"; BODY\n})()` (sandbox/js),
// and the bare runner wraps it in exactly that, so both see the same source.
const (
	wrapPrefix = `(async function () {"use strict";`
	wrapSuffix = "\n})()"

	passMarker  = "t262:ok"
	asyncPassed = "Test262:AsyncTestComplete"
)

// prelude is the minimal host test262 asks for, in JavaScript so that it is
// the same in every runner: print, which doneprintHandle.js's $DONE calls,
// settles the promise an async test's body awaits at its end.
const prelude = `var __t262settle; var __t262done = new Promise(function (r) { __t262settle = r; });
function print(s) { s = String(s); if (s.indexOf("Test262:AsyncTest") === 0) __t262settle(s); }
`

// harness caches test262's harness files by name.
type harness struct {
	dir   string
	mu    sync.Mutex
	files map[string]string
}

func (h *harness) file(name string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.files[name]; ok {
		return s, nil
	}
	if strings.ContainsAny(name, `/\`) {
		return "", fmt.Errorf("include %q: not a harness file name", name)
	}
	b, err := os.ReadFile(filepath.Join(h.dir, name))
	if err != nil {
		return "", fmt.Errorf("include: %w", err)
	}
	if h.files == nil {
		h.files = map[string]string{}
	}
	h.files[name] = string(b)
	return string(b), nil
}

// body builds the code every runner gets for a test.
func (h *harness) body(src string, m Meta) (string, error) {
	var b strings.Builder
	b.WriteString(prelude)
	names := []string{"assert.js", "sta.js"}
	if m.Has("async") {
		names = append(names, "doneprintHandle.js")
	}
	names = append(names, m.Includes...)
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		s, err := h.file(n)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
		b.WriteString("\n")
	}
	if m.Has("async") {
		// asyncHelpers.js looks for $DONE on the global object, where a
		// test262 host puts it; in the wrapper it is a local function.
		b.WriteString("globalThis.$DONE = $DONE;\n")
	}
	b.WriteString(src)
	if m.Has("async") {
		b.WriteString("\n;return await __t262done;")
	} else {
		b.WriteString("\n;return \"" + passMarker + "\";")
	}
	return b.String(), nil
}

// Outcome is how one runner ran one test.
type Outcome struct {
	// Status: pass, fail, timeout (the runner reported its timeout), hang
	// (the runner did not return within the timeout and a grace period: the
	// harness moved on and left it running) or crash (a Go panic reached
	// the harness).
	Status string `json:"status"`
	// Code is codemode's error code, when it gave one.
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	// Cause classifies a regression (passes bare, not here); see causes.
	Cause string `json:"cause,omitempty"`
}

func (o Outcome) Pass() bool { return o.Status == "pass" }

// verdict is what a runner observed, before it is judged against the test's
// expectation.
type verdict struct {
	value    string // the returned marker, when the body returned a string
	compile  bool   // the code did not compile (a syntax error)
	errName  string // the thrown error's name, when known
	errText  string
	code     string // codemode's error code
	timedOut bool
	hung     bool
	crashed  bool
}

// judge turns what a runner saw into an Outcome for a test with meta m.
func judge(v verdict, m Meta) Outcome {
	switch {
	case v.hung:
		return Outcome{Status: "hang", Code: v.code, Message: v.errText}
	case v.crashed:
		return Outcome{Status: "crash", Code: v.code, Message: v.errText}
	case v.timedOut:
		return Outcome{Status: "timeout", Code: v.code, Message: v.errText}
	}
	fail := Outcome{Status: "fail", Code: v.code, Message: v.errText}
	if m.Negative != nil {
		switch m.Negative.Phase {
		case "parse":
			if v.compile && m.Negative.Type == "SyntaxError" {
				return Outcome{Status: "pass"}
			}
			if !v.compile {
				fail.Message = "expected a " + m.Negative.Type + " at parse time; " + describe(v)
			}
			return fail
		default: // runtime
			if !v.compile && v.errName == m.Negative.Type {
				return Outcome{Status: "pass"}
			}
			fail.Message = "expected a " + m.Negative.Type + " thrown; " + describe(v)
			return fail
		}
	}
	want := passMarker
	if m.Has("async") {
		want = asyncPassed
	}
	if v.value == want {
		return Outcome{Status: "pass"}
	}
	if v.errText == "" {
		fail.Message = describe(v)
	}
	return fail
}

func describe(v verdict) string {
	switch {
	case v.errText != "":
		return v.errText
	case v.value != "":
		return "returned " + v.value
	}
	return "returned no marker"
}

// runBare runs the wrapped body in a fresh goja.New(), with nothing added
// but an interrupt at the timeout and a call-stack cap: a Go stack overflow
// is fatal to the whole harness, so deep recursion must end as a
// RangeError here too (the cap is far above what tests need).
func runBare(body string, timeout time.Duration) verdict {
	return withDeadline(timeout, func() (v verdict) {
		defer func() {
			if r := recover(); r != nil {
				v = verdict{crashed: true, errText: fmt.Sprint("panic: ", r)}
			}
		}()
		prg, err := goja.Compile("test.js", wrapPrefix+body+wrapSuffix, false)
		if err != nil {
			return verdict{compile: true, errName: "SyntaxError", errText: "SyntaxError: " + err.Error()}
		}
		vm := goja.New()
		vm.SetMaxCallStackSize(bareMaxCallStack)
		t := time.AfterFunc(timeout, func() { vm.Interrupt("timeout") })
		defer t.Stop()
		res, err := vm.RunProgram(prg)
		if err != nil {
			var ie *goja.InterruptedError
			if errors.As(err, &ie) {
				return verdict{timedOut: true, errText: "interrupted at the timeout"}
			}
			return thrown(vm, err)
		}
		p, ok := res.Export().(*goja.Promise)
		if !ok {
			return verdict{errText: "the wrapper did not return a promise"}
		}
		switch p.State() {
		case goja.PromiseStateFulfilled:
			if s, ok := p.Result().Export().(string); ok {
				return verdict{value: s}
			}
			return verdict{errText: "returned " + p.Result().String()}
		case goja.PromiseStateRejected:
			return errorValue(vm, p.Result())
		}
		return verdict{errText: "the body's promise never settled"}
	})
}

// bareMaxCallStack bounds bare goja's call stack (see runBare).
const bareMaxCallStack = 10000

func thrown(vm *goja.Runtime, err error) verdict {
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return errorValue(vm, ex.Value())
	}
	return verdict{errText: err.Error()}
}

// errorValue describes a thrown value: its name (from the constructor's
// name, as test262's negative types name constructors) and its text.
func errorValue(vm *goja.Runtime, val goja.Value) (v verdict) {
	defer func() {
		if r := recover(); r != nil {
			v = verdict{errText: fmt.Sprint("thrown value not describable: ", r)}
		}
	}()
	v.errText = val.String()
	if o, ok := val.(*goja.Object); ok {
		if c, ok := o.Get("constructor").(*goja.Object); ok && c != nil {
			if n := c.Get("name"); n != nil {
				v.errName = n.String()
			}
		}
	}
	if v.errName == "" {
		v.errName, _, _ = strings.Cut(v.errText, ":")
	}
	return v
}

// withDeadline runs f, and gives up on it when it has not returned a grace
// period after the timeout: the harness must never hang on one test.
func withDeadline(timeout time.Duration, f func() verdict) verdict {
	ch := make(chan verdict, 1)
	go func() { ch <- f() }()
	t := time.NewTimer(timeout + hangGrace)
	defer t.Stop()
	select {
	case v := <-ch:
		return v
	case <-t.C:
		return verdict{hung: true, errText: fmt.Sprintf("no answer %v after the %v timeout; left running", hangGrace, timeout)}
	}
}

// hangGrace is how long past its timeout a runner may take to answer.
const hangGrace = 10 * time.Second

// runEngine runs the body through Engine.Execute, the public API, and reads
// the verdict from its result.
func runEngine(eng *engine.Engine, body string, timeout time.Duration) verdict {
	return withDeadline(timeout, func() (v verdict) {
		defer func() {
			if r := recover(); r != nil {
				v = verdict{crashed: true, errText: fmt.Sprint("panic: ", r)}
			}
		}()
		ctx, cancel := context.WithTimeout(context.Background(), timeout+hangGrace)
		defer cancel()
		res, err := eng.Execute(ctx, engine.ExecuteRequest{Code: body, Timeout: engine.Duration(timeout)})
		if err != nil {
			return verdict{crashed: true, errText: "Execute refused the request: " + err.Error()}
		}
		if res.Success {
			var s string
			if json.Unmarshal(res.Result, &s) == nil {
				return verdict{value: s}
			}
			return verdict{errText: "returned " + string(res.Result)}
		}
		if res.Error == nil {
			return verdict{errText: "failed without an error"}
		}
		v = verdict{code: string(res.Error.Code), errText: res.Error.Message}
		switch res.Error.Code {
		case engine.CodeSyntaxError:
			v.compile = true
		case engine.CodeTimeout:
			v.timedOut = true
		case engine.CodeRuntimeError:
			v.errName = errName(res.Error.Message)
		}
		return v
	})
}

// errName reads the error's name from a runtime_error's message, which
// starts with the thrown error's String() ("TypeError: ..."), after
// "uncaught " when what was thrown is not one of the Error types.
func errName(msg string) string {
	name, _, ok := strings.Cut(strings.TrimPrefix(msg, "uncaught "), ":")
	if !ok || strings.ContainsAny(name, " \n") {
		return ""
	}
	return name
}
