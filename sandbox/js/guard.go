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
