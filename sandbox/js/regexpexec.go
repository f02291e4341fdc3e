package js

import (
	"strconv"

	"github.com/dop251/goja"
)

// The general paths of RegExp.prototype's Symbol.replace and Symbol.match,
// which goja takes for every call in the sandbox (the wrapped exec is not
// its own), call this's exec in a loop of their own, in Go, and read what
// it returns natively:
//
//   - an exec that is a native function goja runs as it is (exec: Object,
//     with flags "g") returns a fresh object forever, whose "0" is never
//     empty: the loop ran on in Go, deaf to the interrupt, allocating, and
//     the run was abandoned;
//   - replace allocates a list of a result's length at once and walks it:
//     an exec returning {length: 2 ** 40} was Go's fatal out-of-memory,
//     which took the process down;
//   - an exec that is absent or undefined was a nil function called: the
//     run ended as an engine failure.
//
// So the builtin is given, as this, an execThis: an object that forwards
// every read and write to this as it is (flags, lastIndex, global: read
// when the builtin reads them, on this, whose getters and setters see
// this), except exec, which is a check that the run was not ended and then
// this's exec called with this, and, for replace, whose results are seen
// through a resultView, which tells the builtin a length it can allocate.
// Nothing here reads anything the builtin would not: every read of the
// builtin is made once, when it makes it.

// maxShownCaptures is the length a resultView shows a string replacement
// (the match and 99 captures): its $n and $nn reach no further, so the
// replacement is the same; the captures past it are still read and
// converted, when the builtin goes on to read groups, as the language
// reads them.
const maxShownCaptures = 100

// execThis is this for the general path of RegExp.prototype's
// Symbol.replace or Symbol.match (see above).
type execThis struct {
	r      *runner
	rx     *goja.Object
	view   bool // replace: results are seen through a resultView
	fnRepl bool // replace with a function: a result's captures are its arguments
}

func (r *runner) execThisFor(rx *goja.Object, view, fnRepl bool) goja.Value {
	return r.forwarder(&execThis{r: r, rx: rx, view: view, fnRepl: fnRepl})
}

// forwarder is an object of d without a prototype: a read that d answers
// with nil (what its object does not have, through its own prototypes) goes
// no further, and a write goes to d without a look at setters inherited.
func (r *runner) forwarder(d goja.DynamicObject) *goja.Object {
	o := r.vm.NewDynamicObject(d)
	_ = o.SetPrototype(nil)
	return o
}

func (e *execThis) Get(key string) goja.Value {
	if key != "exec" {
		return e.rx.Get(key)
	}
	r := e.r
	fn, ok := goja.AssertFunction(e.rx.Get("exec"))
	if !ok {
		panic(r.vm.NewTypeError("exec is not a function"))
	}
	return r.vm.ToValue(func(c goja.FunctionCall) goja.Value {
		if err := r.killErr.Load(); err != nil {
			panic(r.vm.NewGoError(err)) // the interrupt is pending too: uncatchable
		}
		v, err := fn(e.rx, c.Arguments...)
		if err != nil {
			panic(err)
		}
		if o, ok := v.(*goja.Object); ok && e.view {
			return r.forwarder(&resultView{e: e, res: o})
		}
		return v
	})
}

func (e *execThis) Set(key string, val goja.Value) bool {
	if err := e.rx.Set(key, val); err != nil {
		panic(err)
	}
	return true
}

// Has is not asked by the builtin (a forwarder has no prototype whose
// setters a write would have to look for): every key is this's.
func (e *execThis) Has(string) bool { return true }

func (e *execThis) Delete(key string) bool { return e.rx.Delete(key) == nil }

func (e *execThis) Keys() []string { return e.rx.Keys() }

// resultView is a result of exec as Symbol.replace's builtin reads it: the
// length it is told is one it can allocate (see maxShownCaptures; with a
// function, more than maxArguments arguments is a RangeError, as engines
// have); every other read is the result's own, when the builtin makes it.
type resultView struct {
	e     *execThis
	res   *goja.Object
	n     int64 // the result's length, as read
	shown int64 // the length the builtin was told
}

func (v *resultView) Get(key string) goja.Value {
	r := v.e.r
	switch key {
	case "length":
		v.n = toLength(v.res.Get("length"))
		v.shown = v.n
		if v.e.fnRepl {
			if v.n+3 > maxArguments { // the captures, the match, position, the string and groups
				r.throwRangeError("too many captures for the replacer's arguments: " + strconv.FormatInt(v.n, 10))
			}
		} else {
			v.shown = min(v.n, maxShownCaptures)
		}
		return r.vm.ToValue(v.shown)
	case "groups":
		for k := max(v.shown, 1); k < v.n; k++ {
			if err := r.killErr.Load(); err != nil {
				panic(r.vm.NewGoError(err))
			}
			if c := v.res.Get(strconv.FormatInt(k, 10)); c != nil && !goja.IsUndefined(c) {
				r.str(c)
			}
		}
	}
	return v.res.Get(key)
}

func (v *resultView) Set(key string, val goja.Value) bool { return v.res.Set(key, val) == nil }

func (v *resultView) Has(string) bool { return true }

func (v *resultView) Delete(key string) bool { return v.res.Delete(key) == nil }

func (v *resultView) Keys() []string { return v.res.Keys() }

// guardRegexpExec hands RegExp.prototype[Symbol.match] an execThis for an
// object this (see above); a primitive is left to the builtin's TypeError.
func guardRegexpExec(r *runner, c goja.FunctionCall) goja.FunctionCall {
	if rx, ok := c.This.(*goja.Object); ok {
		c.This = r.execThisFor(rx, false, false)
	}
	return c
}
