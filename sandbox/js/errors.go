package js

import (
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// errorOf turns an error returned by goja into the run's error.
func (r *runner) errorOf(err error) *Error {
	var intr *goja.InterruptedError
	if errors.As(err, &intr) {
		if e, ok := intr.Value().(*Error); ok {
			c := *e
			return &c
		}
		return &Error{Code: CodeTimeout, Message: fmt.Sprint(intr.Value())}
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		e := &Error{Code: CodeLimitExceeded, Message: fmt.Sprintf("the call stack grew past its limit of %d frames (runaway recursion?)", r.lim.MaxCallDepth)}
		e.Line, e.Column = r.framePosition(so.Stack())
		return e
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		e := r.errorOfValue(ex.Value())
		if e.Line == 0 {
			e.Line, e.Column = r.framePosition(ex.Stack())
		}
		return e
	}
	return &Error{Code: CodeRuntimeError, Message: err.Error()}
}

// errorOfPanic is the run's error for a panic that escaped goja: a budget
// error that interrupted Go code reading the script's values (a getter of a
// thrown value that ran out of time), or a failure inside goja itself (an
// index out of range in a builtin). The latter is reported without Go's
// text, which says nothing to the script's author; the runtime is dropped
// with the run, so the next run is not affected.
func (r *runner) errorOfPanic(p any) *Error {
	if k := r.killErr.Load(); k != nil {
		c := *k
		return &c
	}
	switch p := p.(type) {
	case *goja.InterruptedError, *goja.StackOverflowError, *goja.Exception:
		return r.errorOf(p.(error))
	case *Error:
		c := *p
		return &c
	}
	what := "an internal error"
	if e, ok := p.(runtime.Error); ok {
		what = strings.TrimPrefix(e.Error(), "runtime error: ")
		if i := strings.IndexAny(what, "[:"); i > 0 {
			what = strings.TrimSpace(what[:i]) // "index out of range [5] with length 3"
		}
	}
	return &Error{Code: CodeRuntimeError, Message: "the sandbox's JavaScript engine failed: " + what}
}

// errorOfValue turns a thrown or rejected value into the run's error. The
// Error of a rejected tool call keeps its code and the host's cause; anything
// else is a runtime_error.
func (r *runner) errorOfValue(v goja.Value) *Error {
	if obj, ok := v.(*goja.Object); ok {
		if e, ok := r.thrown[obj]; ok {
			c := *e
			return &c
		}
	}
	e := &Error{Code: CodeRuntimeError}
	// The value is the script's: reading it may run its getters, which may
	// throw. Whatever happens, the run gets an error with a message.
	if ex := r.vm.Try(func() { e.Message, e.Line, e.Column = r.describe(v) }); ex != nil || e.Message == "" {
		e.Message = "the script threw a value that cannot be described"
	}
	return e
}

// describe is the message and position of a thrown value: "TypeError: x is
// not a function" and where it was made, for Errors; the value as a string
// otherwise.
func (r *runner) describe(v goja.Value) (string, int, int) {
	obj, ok := v.(*goja.Object)
	if !ok || obj.ClassName() != "Error" {
		if v == nil || goja.IsUndefined(v) {
			return "the script threw undefined", 0, 0
		}
		return "uncaught " + clip(v, maxMessageChars), 0, 0
	}
	msg := obj.Get("message")
	name := obj.Get("name")
	s := "Error"
	if name != nil && !goja.IsUndefined(name) {
		s = clip(name, maxMessageChars)
	}
	if msg != nil && !goja.IsUndefined(msg) {
		if m := clip(msg, maxMessageChars); m != "" {
			s += ": " + m
		}
	}
	if utf8.RuneCountInString(s) > maxMessageChars {
		s = cutChars(s, maxMessageChars) + "…"
	}
	var line, col int
	if st := obj.Get("stack"); st != nil {
		line, col = r.stackPosition(st.String())
	}
	return s, line, col
}

// maxMessageChars bounds the text made from one thrown value (its name and
// message) and one console line: the script decides their size, and an
// error message is read by a model, which a megabyte of it would only
// drown. Longer texts end with "…".
const maxMessageChars = 2000

// clip is ToString(v) cut to n characters (plus "…" when cut), without
// copying more of a long string than it keeps.
func clip(v goja.Value, n int) string {
	sv, ok := v.ToString().(goja.String)
	if !ok {
		return cutChars(v.String(), n)
	}
	if sv.Length() <= n {
		return sv.String()
	}
	return sv.Substring(0, n).String() + "…"
}

var stackPos = regexp.MustCompile(regexp.QuoteMeta(scriptName) + `:(\d+):(\d+)`)

// stackPosition finds the innermost position in the script in an Error's
// stack text.
func (r *runner) stackPosition(stack string) (int, int) {
	m := stackPos.FindStringSubmatch(stack)
	if m == nil {
		return 0, 0
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	return r.s.position(line, col)
}

// framePosition is the innermost position in the script among frames.
func (r *runner) framePosition(frames []goja.StackFrame) (int, int) {
	for i := range frames {
		if frames[i].SrcName() == scriptName {
			p := frames[i].Position()
			return r.s.position(p.Line, p.Column)
		}
	}
	return 0, 0
}

// callSite is where the script is calling from, in the code as sent.
func (r *runner) callSite() (int, int) {
	r.stackBuf = r.vm.CaptureCallStack(0, r.stackBuf[:0])
	return r.framePosition(r.stackBuf)
}

// newError makes the catchable Error a rejected tool call throws: message,
// code, the host's props, and the tool's name. The runner remembers it, so
// that if it ends the run uncaught, the run fails with the tool's error.
func (r *runner) newError(e *Error, c *Call) *goja.Object {
	obj, err := r.vm.New(r.errorCtor, r.vm.ToValue(e.Message))
	if err != nil { // Error is the runtime's own constructor; this cannot fail
		obj = r.vm.NewObject()
		_ = obj.Set("message", e.Message)
	}
	if len(e.Props) > 0 {
		if props, perr := r.jsonParse(goja.Undefined(), r.vm.ToValue(string(e.Props))); perr == nil {
			if p, ok := props.(*goja.Object); ok {
				for _, k := range p.Keys() {
					_ = obj.Set(k, p.Get(k))
				}
			}
		}
	}
	_ = obj.Set("code", string(e.Code))
	_ = obj.Set("tool", c.Tool)
	kept := *e
	if kept.Line == 0 {
		kept.Line, kept.Column = c.Line, c.Column
	}
	r.thrown[obj] = &kept
	return obj
}
