package js

import (
	_ "embed"
	"fmt"
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja"
)

//go:embed prelude.js
var preludeSource string

// prelude is the hardening program, compiled once. It is our own code, so
// the package-level compiler (which would follow source-map comments) is safe
// here; scripts never go through it.
var prelude = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile("prelude.js", preludeSource, true)
})

// RegexpTimeout bounds one match of a regular expression that needs the
// backtracking engine (lookaround, backreferences); others run in linear
// time. A match that runs this long ends the run with timeout. The value is
// set on the process-wide default of the regexp engine (dlclark/regexp2/v2)
// the first time a script runs.
const RegexpTimeout = time.Second

var setRegexpTimeout = sync.OnceFunc(func() { regexp2.DefaultMatchTimeout = RegexpTimeout })

// wrapNative replaces obj[key] (a string or a *goja.Symbol) with a native
// wrapper made by wrap from the original, keeping the property's flags as
// the builtins have them (writable, configurable, not enumerable). Wrappers
// are made in Go: cheaper than JavaScript ones, and every run makes them all.
func (r *runner) wrapNative(obj *goja.Object, keys []any, wrap func(orig goja.Callable) func(goja.FunctionCall) goja.Value) {
	for _, key := range keys {
		switch k := key.(type) {
		case string:
			if f, ok := goja.AssertFunction(obj.Get(k)); ok {
				_ = obj.DefineDataProperty(k, r.vm.ToValue(wrap(f)), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
			}
		case *goja.Symbol:
			if f, ok := goja.AssertFunction(obj.GetSymbol(k)); ok {
				_ = obj.DefineDataPropertySymbol(k, r.vm.ToValue(wrap(f)), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
			}
		}
	}
}

// call calls f and rethrows its exception as the wrapper's own.
func call(f goja.Callable, c goja.FunctionCall) goja.Value {
	v, err := f(c.This, c.Arguments...)
	if err != nil {
		panic(err)
	}
	return v
}

// timedRegexp wraps a RegExp.prototype method so that a match stopped by the
// regexp engine's timeout — which the engine reports as "no match" — ends the
// run instead of giving the script a wrong answer.
func (r *runner) timedRegexp(orig goja.Callable) func(goja.FunctionCall) goja.Value {
	return func(c goja.FunctionCall) goja.Value {
		start := time.Now()
		v := call(orig, c)
		if d := time.Since(start); d >= RegexpTimeout {
			r.abort(&Error{Code: CodeTimeout, Message: fmt.Sprintf(
				"a regular expression ran for %v, past its limit of %v (catastrophic backtracking?)", d.Round(time.Millisecond), RegexpTimeout)})
		}
		return v
	}
}

// regexpMethods are the RegExp.prototype methods that run a match.
var regexpMethods = []any{"exec", "test", goja.SymMatch, goja.SymMatchAll, goja.SymReplace, goja.SymSearch, goja.SymSplit}

// lengthGuard wraps an Array.prototype method with a check of this.length:
// every one of them walks the length, also of array-likes such as
// {length: 2**32 - 1}, inside the builtin where no interrupt reaches. A
// length over maxElems ends the run with memory_limit.
func (r *runner) lengthGuard(maxElems int64) func(goja.Callable) func(goja.FunctionCall) goja.Value {
	return func(orig goja.Callable) func(goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value {
			if this, ok := c.This.(*goja.Object); ok {
				if n := toLength(this.Get("length")); n > maxElems {
					r.abort(&Error{Code: CodeMemoryLimit, Message: fmt.Sprintf(
						"an array of %d elements is over the sandbox's limit of %d", n, maxElems)})
				}
			}
			return call(orig, c)
		}
	}
}

// arrayMethods are the methods of Array.prototype (ES2023, as goja has
// them) and its iterator; a test checks the list against the runtime.
var arrayMethods = []any{goja.SymIterator,
	"at", "concat", "copyWithin", "entries", "every", "fill", "filter", "find", "findIndex", "findLast",
	"findLastIndex", "flat", "flatMap", "forEach", "includes", "indexOf", "join", "keys", "lastIndexOf",
	"map", "pop", "push", "reduce", "reduceRight", "reverse", "shift", "slice", "some", "sort", "splice",
	"toLocaleString", "toReversed", "toSorted", "toSpliced", "toString", "unshift", "values", "with",
}

// toLength is ECMAScript's ToLength, saturating at MaxInt64.
func toLength(v goja.Value) int64 {
	if v == nil {
		return 0
	}
	f := v.ToFloat()
	if !(f > 0) {
		return 0
	}
	if f >= 9.2e18 {
		return 1<<63 - 1
	}
	return int64(f)
}
