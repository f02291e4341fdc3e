package js

import (
	"fmt"
	"reflect"
	"sync"
	"weak"

	"github.com/dop251/goja"
)

// Function.prototype.bind is goja's, behind its wrapper, with one limit
// more. goja's bound function calls its target in Go: calling a chain of a
// million binds recursed in Go a million levels deep, with no JavaScript
// frame between them for the call-depth limit to count, until Go's stack
// overflowed and took the process down. So bind counts how deep the chain
// it extends is, and ends the run with limit_exceeded past MaxCallDepth, as
// a JavaScript recursion that deep ends. (The sandbox once replaced bind
// with a JavaScript one, whose every level is a frame the limit counts; but
// its bound functions had a prototype of their own, so instanceof a bound
// constructor was false, and they were constructors whatever their target.)

// boundDepths are the depths of a run's bound functions that bind bound
// ones (see countBind), by weak pointer: a run's bound functions are
// collected as in goja.
type boundDepths map[weak.Pointer[goja.Object]]int

// countBind runs after bind (c) returned the bound function v: when this
// was a bound function itself, v is one level deeper than it, and past the
// limit the run ends. Bound functions are told apart by the Go function
// goja runs for them (boundCode); only those binding a bound function
// (depth 2 or more) are remembered, weakly, so that a run's bound functions
// are collected as in goja.
func (r *runner) countBind(c goja.FunctionCall, v goja.Value) {
	this, ok := c.This.(*goja.Object)
	if !ok || !isBound(this) {
		return
	}
	depth := max(r.boundDepth[weak.Make(this)], 1) + 1
	if depth > r.lim.MaxCallDepth {
		r.abort(&Error{Code: CodeLimitExceeded, Message: fmt.Sprintf(
			"bound functions bound again more than %d deep (calling one nests a call per level)", r.lim.MaxCallDepth)})
	}
	if o, ok := v.(*goja.Object); ok {
		if r.boundDepth == nil {
			r.boundDepth = boundDepths{}
		}
		r.boundDepth[weak.Make(o)] = depth
	}
}

// isBound reports whether o is a function goja's bind made.
func isBound(o *goja.Object) bool {
	f, ok := o.Export().(func(goja.FunctionCall) goja.Value)
	return ok && reflect.ValueOf(f).Pointer() == boundCode()
}

// boundCode is the code of the Go function every bound function of goja
// runs, found once per process.
var boundCode = sync.OnceValue(func() uintptr {
	v, err := goja.New().RunString("(function () {}).bind(null)")
	if err != nil {
		panic(err)
	}
	return reflect.ValueOf(v.Export()).Pointer()
})
