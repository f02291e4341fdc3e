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

// timedRegexp wraps a RegExp.prototype method so that a match stopped by the
// regexp engine's timeout — which the engine reports as "no match" — ends the
// run instead of giving the script a wrong answer.
func (r *runner) timedRegexp(orig goja.Value) goja.Value {
	f, ok := goja.AssertFunction(orig)
	if !ok {
		return orig
	}
	return r.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		start := time.Now()
		v, err := f(call.This, call.Arguments...)
		if err != nil {
			panic(err)
		}
		if d := time.Since(start); d >= RegexpTimeout {
			r.abort(&Error{Code: CodeTimeout, Message: fmt.Sprintf(
				"a regular expression ran for %v, past its limit of %v (catastrophic backtracking?)", d.Round(time.Millisecond), RegexpTimeout)})
		}
		return v
	})
}

// wrapArrayMethods replaces every method of Array.prototype with a native
// wrapper that checks this.length first: every one of them walks the length,
// also of array-likes such as {length: 2**32 - 1}, inside the builtin where
// no interrupt reaches. A length over maxElems ends the run with
// memory_limit. Native wrappers cost less to make than JavaScript ones, and
// every run makes them all.
func (r *runner) wrapArrayMethods(proto *goja.Object, maxElems int64) {
	vm := r.vm
	guard := func(orig goja.Callable) goja.Value {
		return vm.ToValue(func(call goja.FunctionCall) goja.Value {
			if this, ok := call.This.(*goja.Object); ok {
				if n := toLength(this.Get("length")); n > maxElems {
					r.abort(&Error{Code: CodeMemoryLimit, Message: fmt.Sprintf(
						"an array of %d elements is over the sandbox's limit of %d", n, maxElems)})
				}
			}
			v, err := orig(call.This, call.Arguments...)
			if err != nil {
				panic(err)
			}
			return v
		})
	}
	for _, name := range arrayMethods {
		if f, ok := goja.AssertFunction(proto.Get(name)); ok {
			_ = proto.DefineDataProperty(name, guard(f), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		}
	}
	for _, sym := range []*goja.Symbol{goja.SymIterator} {
		if f, ok := goja.AssertFunction(proto.GetSymbol(sym)); ok {
			_ = proto.DefineDataPropertySymbol(sym, guard(f), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		}
	}
}

// arrayMethods are the methods of Array.prototype (ES2023, as goja has
// them); a test checks the list against the runtime.
var arrayMethods = []string{
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
