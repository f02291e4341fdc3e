package js

import (
	"strconv"

	"github.com/dop251/goja"
)

// The sandbox's own stringifying (a tool call's arguments, the script's
// return value, logged objects) is JSON.stringify exactly as the script's
// own (prelude.js): the guarded builtin, with a replacer at every value that
// keeps the path of holders and throws a RangeError past maxJSONDepth. Only
// the replacer is Go instead of JavaScript: a JavaScript function called
// back at every value cost ≈ 6 µs for a small argument object, most of a
// tool call's time in the sandbox; a Go one costs a fraction of that, and
// checks at every value whether the run was ended, where the JavaScript one
// was reached by the interrupt. Getters, toJSON, cycles, and the guarded
// builtin's depth count and result size check all stay as they are: it is
// the same builtin walking the same value.
//
// In the Lean profile the builtin is goja's own, unwrapped: stringifyJSON
// itself then counts how deep the sandbox's stringifies are nested in each
// other (maxJSONNesting, which the wrapper counts in Hardened), so that a
// script's tool calls give the host the same arguments, or fail with the
// same error, in both profiles.

// stringifyJSON is JSON.stringify(v) for the sandbox: a string, or
// undefined where JSON.stringify gives undefined. A JavaScript exception
// (a cycle, nesting past maxJSONDepth, a throwing getter) is the error.
func (r *runner) stringifyJSON(v goja.Value) (goja.Value, error) {
	if r.jsonReplacer == nil {
		r.jsonReplacer = r.vm.ToValue(r.trackJSON)
	}
	if r.opt.Profile == Lean {
		// nestJSON throws (a panic goja makes the call's exception); a
		// Go caller gets it as the error, as from the wrapper.
		if ex := r.vm.Try(func() { r.nestJSON("JSON.stringify") }); ex != nil {
			r.jsonNesting--
			return nil, ex
		}
		defer func() { r.jsonNesting-- }()
	}
	// A getter or toJSON of the value may stringify something of its own
	// (a tool call, a log) while this one is under way: that one keeps its
	// path above this one's, and leaves this one's as it found it.
	outer := r.jsonBase
	r.jsonBase = len(r.jsonPath)
	defer func() {
		clear(r.jsonPath[r.jsonBase:])
		r.jsonPath = r.jsonPath[:r.jsonBase]
		r.jsonBase = outer
	}()
	return r.nativeStringify(goja.Undefined(), v, r.jsonReplacer)
}

// trackJSON is the replacer of stringifyJSON, called by JSON.stringify with
// this = the holder of each value, depth first: the path from the root
// holder to the value is what stays of the path after popping down to the
// holder. It returns the value unchanged.
func (r *runner) trackJSON(c goja.FunctionCall) goja.Value {
	if err := r.killErr.Load(); err != nil {
		panic(r.vm.NewGoError(err)) // the interrupt is pending too: uncatchable
	}
	holder, _ := c.This.(*goja.Object)
	path := r.jsonPath
	for len(path) > r.jsonBase && path[len(path)-1] != holder {
		path = path[:len(path)-1]
	}
	if len(path) == r.jsonBase {
		path = append(path, holder)
	}
	v := c.Argument(1)
	if o, ok := v.(*goja.Object); ok {
		if _, isFunc := goja.AssertFunction(o); !isFunc { // typeof v === "object"
			path = append(path, o)
			if len(path)-r.jsonBase > maxJSONDepth {
				r.jsonPath = path
				r.throwRangeError("JSON.stringify: value nested too deeply (the limit is " + strconv.Itoa(maxJSONDepth) + " levels)")
			}
		}
	}
	r.jsonPath = path
	return v
}
