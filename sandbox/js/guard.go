package js

import (
	_ "embed"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
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

// compileAhead starts compiling the programs every harden runs (the prelude
// and iteratorProtos) on a goroutine of its own, the first time the process
// compiles or runs a script. A fresh process's first run meanwhile compiles
// its script, makes the runtime's builtins and wraps them, and then finds
// the programs compiled, or waits for the rest: with a core to spare its
// first Compile and Run took 1.24 instead of 1.63 ms (BenchmarkFirstRun;
// making the wrap specs there too was slower, 1.40 ms).
var compileAhead = sync.OnceFunc(func() {
	go func() {
		removals()
		iteratorProtos()
		prelude()
	}()
})

// RegexpTimeout bounds one match of a regular expression that needs the
// backtracking engine (lookaround, backreferences); others run in linear
// time. A match that runs this long ends the run with timeout.
//
// It cannot be set per run: goja compiles regexp2 patterns itself, in
// unexported structs, and regexp2 copies DefaultMatchTimeout into each
// pattern when it compiles it; no API reaches the pattern's own
// MatchTimeout. So the sandbox sets the process-wide default, once, the
// first time a Hardened script runs (Lean leaves it: see Run) — and only if
// it is still regexp2's "forever":
// a host that chose its own default keeps it (and its scripts' matches get
// that bound instead; timedCall reports those past RegexpTimeout).
const RegexpTimeout = time.Second

var setRegexpTimeout = sync.OnceFunc(func() {
	if regexp2.DefaultMatchTimeout == time.Duration(math.MaxInt64) {
		regexp2.DefaultMatchTimeout = RegexpTimeout
	}
})

// call calls f and rethrows its exception as the wrapper's own.
func call(f goja.Callable, c goja.FunctionCall) goja.Value {
	v, err := f(c.This, c.Arguments...)
	if err != nil {
		panic(err)
	}
	return v
}

// timedCall calls a RegExp.prototype method so that a match stopped by the
// regexp engine's timeout — which the engine reports as "no match" — ends the
// run instead of giving the script a wrong answer.
func (r *runner) timedCall(orig goja.Callable, c goja.FunctionCall) goja.Value {
	start := time.Now()
	defer r.regexpBug()
	v := call(orig, c)
	if d := time.Since(start); d >= RegexpTimeout {
		r.abort(&Error{Code: CodeTimeout, Message: fmt.Sprintf(
			"a regular expression ran for %v, past its limit of %v (catastrophic backtracking?)", d.Round(time.Millisecond), RegexpTimeout)})
	}
	return v
}

// regexpBug turns goja's panic on a pattern it compiled once but cannot
// compile again for another engine into a SyntaxError the script can catch.
// goja compiles a pattern for Go's regexp where it can and for regexp2 when
// a match needs it (a sticky match); regexp2 refuses some patterns Go's
// accepts (duplicate group names: /(?<x>a)|(?<x>b)/), and goja panics with
// a plain Go error ("it's a bug"). Bare goja takes that path only when
// RegExp.prototype's exec or flags getters were replaced; the sandbox
// replaces them with its wrappers, so it took it for every split of such a
// pattern, and the run ended with "an internal error".
func (r *runner) regexpBug() {
	p := recover()
	if p == nil {
		return
	}
	if e, ok := p.(error); ok && strings.HasPrefix(e.Error(), "Invalid regular expression (regexp2): ") {
		if _, isGoja := p.(*goja.Exception); !isGoja {
			ex, err := r.vm.New(r.syntaxErrorCtor, r.vm.ToValue(e.Error()))
			if err != nil {
				panic(err)
			}
			panic(ex)
		}
	}
	panic(p)
}

// argGuard checks a builtin's arguments before it runs (see builtins.go). It
// may replace this and the arguments by what the builtin would coerce them
// to, so that the builtin sees exactly what was checked (a toString that
// answers differently the second time cannot slip past), and ends the run
// with r.abort when the builtin would build too much.
type argGuard func(r *runner, c goja.FunctionCall) goja.FunctionCall

// builtinGuards are the builtins whose work or output is not bounded by the
// size of their inputs, by path (as in builtinRefs). The rest are on
// reviewedBuiltins (guard_test.go) with the reason they need none.
var builtinGuards = func() map[string]argGuard {
	m := map[string]argGuard{
		"Array.prototype.flat":             guardFlat,
		"String.prototype.replace":         guardReplace(false),
		"String.prototype.replaceAll":      guardReplace(true),
		"RegExp.prototype[Symbol.replace]": guardRegexpReplace,
		"String.raw":                       guardRaw,
		"Object.keys":                      guardStringArg,
		"Object.values":                    guardStringArg,
		"Object.entries":                   guardStringArg,
		"Object.getOwnPropertyNames":       guardStringArg,
		"Object.getOwnPropertyDescriptors": guardStringArg,
		"Object.assign":                    guardStringArgs,
		"Reflect.ownKeys":                  guardStringArg,
		"Function.prototype.apply":         guardApply,
		"Reflect.apply":                    guardReflectApply,
		"Reflect.construct":                guardReflectConstruct,
		"encodeURI":                        guardStringArg,
		"encodeURIComponent":               guardStringArg,
		"escape":                           guardStringArg,
	}
	// Methods of String.prototype that coerce this to a string and make
	// something several times its size (case mapping, normalization: up to
	// 18 characters per character; split: an array element per character;
	// the HTML methods). match and matchAll always hand this on to a
	// Symbol.match or Symbol.matchAll method, given or RegExp's, whose
	// guard checks it; split does when given an object with a Symbol.split
	// method (guardSplit).
	for _, name := range []string{"normalize", "toUpperCase", "toLowerCase", "toLocaleUpperCase", "toLocaleLowerCase",
		"anchor", "big", "blink", "bold", "fixed", "fontcolor", "fontsize", "italics",
		"link", "small", "strike", "sub", "sup"} {
		m["String.prototype."+name] = guardThisString
	}
	m["String.prototype.split"] = guardSplit
	for _, k := range []string{"RegExp.prototype[Symbol.split]", "RegExp.prototype[Symbol.match]", "RegExp.prototype[Symbol.matchAll]"} {
		m[k] = guardRegexpString
	}
	m["RegExp.prototype[Symbol.match]"] = both(guardRegexpString, guardRegexpExec)
	m["RegExp.prototype[Symbol.split]"] = both(guardRegexpString, guardSplitLimit)
	m["Array.prototype.sort"] = guardSort
	m["Array.prototype.toSorted"] = guardSort
	m["Object.defineProperty"] = guardDescriptor(2, false)
	m["Reflect.defineProperty"] = guardDescriptor(2, false)
	m["Object.defineProperties"] = guardDescriptor(1, true)
	m["Object.create"] = guardDescriptor(1, true)
	for path, indexes := range callbackArgs {
		if g, ok := m[path]; ok {
			m[path] = both(g, guardCallback(indexes))
		} else {
			m[path] = guardCallback(indexes)
		}
	}
	delete(m, "Array.from") // arraylike.js, which calls the mapping function itself
	m["String.prototype.repeat"] = both(guardThisString, guardRepeat)
	m["String.prototype.padStart"] = both(guardThisString, guardPad)
	m["String.prototype.padEnd"] = both(guardThisString, guardPad)
	m["String.prototype.concat"] = both(guardThisString, guardStringConcat)
	for _, k := range arrayMethods {
		name := ""
		switch k := k.(type) {
		case string:
			name = "Array.prototype." + k
		case *goja.Symbol:
			name = "Array.prototype[" + k.String() + "]"
		}
		if g := arrayMethodGuard(name, m[name]); g != nil {
			m[name] = g
		} else {
			delete(m, name)
		}
	}
	return m
}()

func both(a, b argGuard) argGuard {
	return func(r *runner, c goja.FunctionCall) goja.FunctionCall { return b(r, a(r, c)) }
}

// guardLength notes the size of an Array an array method runs on natively
// (within the size limit: others go to arraylike.js, see
// arrayMethodGuard), for the heap watchdog.
func guardLength(r *runner, c goja.FunctionCall) goja.FunctionCall {
	if this, ok := c.This.(*goja.Object); ok && this.ClassName() == "Array" {
		saw(&r.mem.largestArray, toLength(this.Get("length")))
	}
	return c
}

// throwRangeError throws a RangeError (the runtime's own, whatever the
// script made of the global) at the script.
func (r *runner) throwRangeError(msg string) {
	e, err := r.vm.New(r.rangeErrorCtor, r.vm.ToValue(msg))
	if err != nil {
		panic(err)
	}
	panic(e)
}

// str is ToString(v) as goja's builtins do it (running the script's
// toString), TypeError for a symbol included; goja's exported ToString
// leaves numbers as numbers and symbols as symbols (its String would make
// "Symbol(s)" of one, and a guard handed that on as the string the builtin
// should see: String.prototype.padEnd.call(Symbol("s"), 12, "*") gave
// "s***********").
func (r *runner) str(v goja.Value) goja.String {
	if v == nil {
		v = goja.Undefined()
	}
	tv := v.ToString()
	if _, ok := tv.(*goja.Symbol); ok {
		panic(r.vm.NewTypeError("Cannot convert a Symbol value to a string"))
	}
	if s, ok := tv.(goja.String); ok {
		return s
	}
	s, _ := r.vm.ToValue(tv.String()).(goja.String)
	return s
}

// guardThisString coerces this to a string, as String.prototype methods do
// first, and refuses one over the size limit: these methods make several
// times their input.
func guardThisString(r *runner, c goja.FunctionCall) goja.FunctionCall {
	if c.This == nil || goja.IsUndefined(c.This) || goja.IsNull(c.This) {
		return c // the builtin throws its TypeError
	}
	s := r.str(c.This)
	if n := int64(s.Length()); n > r.maxElems {
		r.tooLong(n, "a string method on a string this long")
	}
	c.This = s
	return c
}

// guardSplitLimit converts the limit of RegExp.prototype[Symbol.split]
// with ToUint32, as the language does: the wrapped exec sends goja down its
// general path, which converts it with ToLength instead, so /./[Symbol.split]
// ("abc", -23) gave no elements instead of 4. And it hands the builtin at
// most one element more than the size limit: the general path appends a
// result's captures one by one up to the limit, natively, reading the
// result's length as it is (an exec returning {length: 2 ** 40} appended
// on in Go after the run's timeout, until the process ran out of memory);
// a result that reaches the limit ends the run (checkResult), as one that
// size always did. A primitive's conversion is made here (it is not
// observable); an object's is made when the builtin converts it, in the
// language's order, by a valueOf of an object without a prototype.
func guardSplitLimit(r *runner, c goja.FunctionCall) goja.FunctionCall {
	most := r.maxElems + 1
	c.Arguments = append([]goja.Value(nil), c.Arguments...)
	for len(c.Arguments) < 2 {
		c.Arguments = append(c.Arguments, goja.Undefined())
	}
	switch lim := c.Arguments[1].(type) {
	case *goja.Symbol:
		return c // the builtin throws its TypeError
	case *goja.Object:
		o := r.vm.CreateObject(nil)
		_ = o.Set("valueOf", func(goja.FunctionCall) goja.Value {
			return r.vm.ToValue(min(int64(toUint32(lim.ToNumber())), most))
		})
		c.Arguments[1] = o
	default:
		if goja.IsUndefined(lim) {
			c.Arguments[1] = r.vm.ToValue(most)
		} else {
			c.Arguments[1] = r.vm.ToValue(min(int64(toUint32(lim)), most))
		}
	}
	return c
}

// toUint32 is ECMAScript's ToUint32 of a number (or a primitive).
func toUint32(v goja.Value) uint32 {
	f := v.ToFloat()
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return uint32(int64(math.Mod(math.Trunc(f), 1<<32)))
}

// guardSplit is guardThisString for split, unless the separator is an
// object with a Symbol.split method: split then calls it with this as it
// is, and the method (the script's, or RegExp's, guarded by
// guardRegexpString) does the rest. Coercing this first, as the guard
// once did, called this's toString where goja calls none and gave the
// method a string instead of the object. The method is looked up once
// more than goja does, which a getter on Symbol.split would see.
func guardSplit(r *runner, c goja.FunctionCall) goja.FunctionCall {
	if sep, ok := c.Argument(0).(*goja.Object); ok && c.This != nil && !goja.IsUndefined(c.This) && !goja.IsNull(c.This) {
		if _, ok := goja.AssertFunction(sep.GetSymbol(goja.SymSplit)); ok {
			return c
		}
	}
	return guardThisString(r, c)
}

// guardRegexpString coerces the string argument of RegExp.prototype's
// Symbol.split, Symbol.match and Symbol.matchAll once, as they do first
// (after checking this), and refuses one over the size limit: they make an
// array element per character.
func guardRegexpString(r *runner, c goja.FunctionCall) goja.FunctionCall {
	if c.This == nil || goja.IsUndefined(c.This) || goja.IsNull(c.This) {
		return c // the builtin throws its TypeError before coercing anything
	}
	s := r.str(c.Argument(0))
	if n := int64(s.Length()); n > r.maxElems {
		r.tooLong(n, "a regular expression method on a string this long")
	}
	c.Arguments = append([]goja.Value{s}, c.Arguments[min(1, len(c.Arguments)):]...)
	return c
}

// builtinReplacements do a builtin's work themselves, in steps that check
// whether the run was ended, where goja's loop cannot be stopped; they
// return nil to leave the call to the builtin.
var builtinReplacements = arrayLikeReplacements()

// fillStoppable is Array.prototype.fill on an Array of more than
// sortNatively elements (array-likes go to arraylike.js): goja's fill of a sparse array of 4 Mi elements ran 2.5 s after
// its run was ended.
func fillStoppable(r *runner, c goja.FunctionCall) goja.Value {
	o, ok := c.This.(*goja.Object)
	if !ok {
		return nil
	}
	n := toLength(o.Get("length"))
	if n <= sortNatively {
		return nil
	}
	bound := func(v goja.Value, def int64) int64 {
		if v == nil || goja.IsUndefined(v) {
			return def
		}
		f := v.ToFloat()
		switch {
		case f != f:
			return 0
		case f < 0:
			return int64(max(float64(n)+math.Ceil(f), 0))
		default:
			return int64(min(math.Floor(f), float64(n)))
		}
	}
	value := c.Argument(0)
	start, end := bound(c.Argument(1), 0), bound(c.Argument(2), n)
	for k := start; k < end; k++ {
		if k%4096 == 0 {
			if err := r.killErr.Load(); err != nil {
				panic(r.vm.NewGoError(err))
			}
		}
		if err := o.Set(strconv.FormatInt(k, 10), value); err != nil {
			panic(err)
		}
	}
	return o
}

// callbackArgs are the builtins that call a function they are given in a
// loop of their own, by path, with the index of that argument. goja's loop
// calls it natively: when the callback is a builtin goja runs as it is (Math,
// the constructors, parseFloat ...), no JavaScript runs between the calls,
// so neither the interrupt nor a wrapper's check sees that the run was
// ended, and a loop over a large array calling a builtin that is slow on
// each element ([...].map(parseFloat) over 4 Mi-digit strings: 245 ms a
// call) went on for hours after its timeout. guardCallback hands the
// builtin a function that checks first.
var callbackArgs = map[string][]int{
	"Array.prototype.every": {0}, "Array.prototype.some": {0}, "Array.prototype.forEach": {0}, "Array.prototype.map": {0},
	"Array.prototype.filter": {0}, "Array.prototype.reduce": {0}, "Array.prototype.reduceRight": {0},
	"Array.prototype.find": {0}, "Array.prototype.findIndex": {0}, "Array.prototype.findLast": {0},
	"Array.prototype.findLastIndex": {0}, "Array.prototype.flatMap": {0}, "Array.prototype.sort": {0},
	"Array.prototype.toSorted": {0}, "Array.from": {1},
	"String.prototype.replace": {1}, "String.prototype.replaceAll": {1}, "RegExp.prototype[Symbol.replace]": {1},
	"JSON.parse": {1}, "Map.prototype.forEach": {0}, "Set.prototype.forEach": {0},
	"Promise.prototype.then": {0, 1}, "Promise.prototype.catch": {0}, "Promise.prototype.finally": {0},
}

// guardCallback replaces the arguments at the indexes that are native
// functions by ones that end the call when the run was ended and otherwise
// call them with the same this and arguments (see callbackArgs, stoppable).
// A JavaScript callback, the common case, is handed on as it is.
func guardCallback(indexes []int) argGuard {
	return func(r *runner, c goja.FunctionCall) goja.FunctionCall {
		copied := false
		for _, i := range indexes {
			if i >= len(c.Arguments) {
				break
			}
			f, ok := goja.AssertFunction(c.Arguments[i])
			if !ok {
				continue
			}
			s := r.stoppable(c.Arguments[i], f)
			if s == c.Arguments[i] {
				continue
			}
			if !copied {
				c.Arguments = append([]goja.Value(nil), c.Arguments...)
				copied = true
			}
			c.Arguments[i] = s
		}
		return c
	}
}

// guardDescriptor makes the native getters and setters a builtin is about
// to install stoppable (see stoppable; JavaScript ones stay as they are): a builtin that sets properties in a loop
// of its own (Object.assign, fill, the array methods on array-likes) calls
// each setter natively with the value, and a setter that is a builtin goja
// runs as it is (Math.max, Number, parseFloat) runs no JavaScript and no
// wrapper between the calls: Object.assign onto 3,000 such setters of a
// string of a million digits went on for ten seconds after its timeout.
// Argument i is a property descriptor, or with many an object of them
// (defineProperties, create). The builtin gets plain copies, each field read
// once in the order the language reads them, so a getter on a descriptor
// cannot answer one thing here and another to the builtin.
func guardDescriptor(i int, many bool) argGuard {
	return func(r *runner, c goja.FunctionCall) goja.FunctionCall {
		if i >= len(c.Arguments) {
			return c
		}
		var v goja.Value
		if many {
			v = r.stoppableDescriptors(c.Arguments[i])
		} else {
			v = r.stoppableDescriptor(c.Arguments[i])
		}
		c.Arguments = append([]goja.Value(nil), c.Arguments...)
		c.Arguments[i] = v
		return c
	}
}

// descriptorFields are a property descriptor's fields in the order
// ToPropertyDescriptor reads them.
var descriptorFields = [...]string{"enumerable", "configurable", "value", "writable", "get", "set"}

// stoppableDescriptor copies descriptor d into an object without a
// prototype (so nothing inherited is added to what d has), with get and set
// made stoppable. Anything but an object is left for the builtin to refuse.
func (r *runner) stoppableDescriptor(d goja.Value) goja.Value {
	o, ok := d.(*goja.Object)
	if !ok {
		return d
	}
	n := r.vm.CreateObject(nil)
	for _, k := range descriptorFields {
		v := o.Get(k) // own or inherited, as the language reads it; nil when absent
		if v == nil {
			continue
		}
		if k == "get" || k == "set" {
			if f, ok := goja.AssertFunction(v); ok {
				if s := r.stoppable(v, f); s != v {
					r.nameLike(s.(*goja.Object), v.(*goja.Object))
					v = s
				}
			}
		}
		_ = n.DefineDataProperty(k, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
	}
	return n
}

// stoppableDescriptors copies an object of descriptors (its own enumerable
// keys, strings then symbols, as defineProperties reads them), each through
// stoppableDescriptor.
func (r *runner) stoppableDescriptors(props goja.Value) goja.Value {
	o, ok := props.(*goja.Object)
	if !ok {
		return props // undefined for create; a primitive has no accessors to install
	}
	n := r.vm.CreateObject(nil)
	for _, k := range o.Keys() {
		_ = n.DefineDataProperty(k, r.stoppableDescriptor(o.Get(k)), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
	}
	for _, s := range o.Symbols() {
		_ = n.DefineDataPropertySymbol(s, r.stoppableDescriptor(o.GetSymbol(s)), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
	}
	return n
}

// stoppable is f behind a check that the run was not ended, when f needs
// one; given a function that stops by itself it returns it as it is:
//
//   - JavaScript functions: the interrupt reaches them. Keeping them is
//     what keeps an accessor a script defines its own: what
//     getOwnPropertyDescriptor reads back is what the script passed, and
//     defining a non-configurable accessor again with the same function
//     works (a check made afresh was another function, and a TypeError).
//   - the builtins' wrappers (guarded), which check first themselves;
//   - a check: a check of a check would be one more level of Go recursion
//     per call. A getter read back with getOwnPropertyDescriptor and
//     defined again in a loop (or a callback handed back by a custom
//     Symbol.replace) grew a chain of them, and reading the property
//     recursed in Go until the process died.
//
// What is left are the native functions goja runs as they are (Math.max,
// the constructors, bound functions), which run no JavaScript.
func (r *runner) stoppable(v goja.Value, f goja.Callable) goja.Value {
	if stopsByItself(v) {
		return v
	}
	return r.vm.ToValue(r.stoppableFunc(f))
}

// nameLike gives check the name and length of the native function f it
// stands for, as an accessor a script reads back (goja would name it after
// the Go closure: String(getter) showed the sandbox's package path). Only
// data properties are copied: a getter the script put there does not run.
func (r *runner) nameLike(check, f *goja.Object) {
	for _, k := range [...]string{"name", "length"} {
		d, err := r.gopd(goja.Undefined(), f, r.vm.ToValue(k))
		if err != nil {
			continue
		}
		desc, ok := d.(*goja.Object)
		if !ok {
			continue
		}
		if v := desc.Get("value"); v != nil {
			_ = check.DefineDataProperty(k, v, goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		}
	}
}

// stoppableFunc is the Go function of a stoppable check. Not inlined: a
// closure inlined elsewhere is a function of its own, with other code.
//
//go:noinline
func (r *runner) stoppableFunc(f goja.Callable) func(goja.FunctionCall) goja.Value {
	return func(c goja.FunctionCall) goja.Value {
		if err := r.killErr.Load(); err != nil {
			panic(r.vm.NewGoError(err)) // the interrupt is pending too: uncatchable
		}
		return call(f, c)
	}
}

// stopsByItselfCode is the code of the Go functions of the functions that
// stop by themselves (see stoppable), by which goja's Export tells them
// apart: a native function exports its Go function, a JavaScript function
// a method value of its kind's Call (or Construct, for a class), the same
// for every function of that kind. Found once per process.
var stopsByItselfCode = sync.OnceValue(func() map[uintptr]bool {
	codes := map[uintptr]bool{
		reflect.ValueOf((&runner{}).stoppableFunc(nil)).Pointer():        true,
		reflect.ValueOf((&runner{}).guarded(&wrapSpec{}, nil)).Pointer(): true,
		// the forwarders of the prelude's replacements, which are JavaScript
		reflect.ValueOf((&runner{}).guarded(&wrapSpec{forward: true}, nil)).Pointer(): true,
	}
	vm := goja.New()
	v, err := vm.RunString(`[function () {}, () => {}, ({ m() {} }).m, Object.getOwnPropertyDescriptor({ get g() { return 1 } }, "g").get,
  async function () {}, async () => {}, ({ async m() {} }).m, function* () {}, ({ *g() {} }).g,
  class {}, class extends Object {}, (class { m() {} }).prototype.m, (class { static m() {} }).m]`)
	if err != nil {
		panic(err)
	}
	for _, f := range v.Export().([]any) {
		codes[reflect.ValueOf(f).Pointer()] = true
	}
	return codes
})

// stopsByItself reports whether v is a function that needs no stoppable
// check: JavaScript, a builtin's wrapper, or a check.
func stopsByItself(v goja.Value) bool {
	o, ok := v.(*goja.Object)
	if !ok {
		return false
	}
	f := reflect.ValueOf(o.Export())
	return f.Kind() == reflect.Func && stopsByItselfCode()[f.Pointer()]
}

// sortNatively is the largest array sorted by goja's own comparison; above
// it, sort without a comparator gets compareStrings.
const sortNatively = 10_000

// guardSort gives sort and toSorted without a comparator one that compares
// as the default does (by ToString, in UTF-16 code units) but checks
// whether the run was ended: goja's default sort of 4 Mi strings ran for 25 s
// on this machine with no way to stop it.
func guardSort(r *runner, c goja.FunctionCall) goja.FunctionCall {
	if !goja.IsUndefined(c.Argument(0)) {
		return c // the script's comparator, made stoppable by guardCallback
	}
	if this, ok := c.This.(*goja.Object); !ok || toLength(this.Get("length")) <= sortNatively {
		return c
	}
	c.Arguments = []goja.Value{r.compareStrings()}
	return c
}

// compareStrings is the default sort order as a function, stopping when the
// run was ended.
func (r *runner) compareStrings() goja.Value {
	return r.vm.ToValue(func(c goja.FunctionCall) goja.Value {
		if err := r.killErr.Load(); err != nil {
			panic(r.vm.NewGoError(err))
		}
		return r.vm.ToValue(r.str(c.Argument(0)).CompareTo(r.str(c.Argument(1))))
	})
}

// guardRepeat multiplies this (a string, after guardThisString) by the
// count, coerced once and handed on as a number.
func guardRepeat(r *runner, c goja.FunctionCall) goja.FunctionCall {
	s, ok := c.This.(goja.String)
	if !ok {
		return c
	}
	count := c.Argument(0).ToFloat()
	c.Arguments = []goja.Value{r.vm.ToValue(count)}
	if count > 0 && !math.IsInf(count, 1) {
		if n := float64(s.Length()) * math.Floor(count); n > float64(r.maxElems) {
			r.tooLong(int64(min(n, math.MaxInt64/2)), "String.prototype.repeat")
		}
	}
	return c
}

// guardPad checks padStart's and padEnd's target length, coerced once.
func guardPad(r *runner, c goja.FunctionCall) goja.FunctionCall {
	n := toLength(c.Argument(0))
	c.Arguments = append([]goja.Value{r.vm.ToValue(n)}, c.Arguments[min(1, len(c.Arguments)):]...)
	if n > r.maxElems {
		r.tooLong(n, "a padded string")
	}
	return c
}

// guardStringConcat coerces concat's arguments once and adds them up.
func guardStringConcat(r *runner, c goja.FunctionCall) goja.FunctionCall {
	s, ok := c.This.(goja.String)
	if !ok {
		return c
	}
	total := int64(s.Length())
	args := make([]goja.Value, len(c.Arguments))
	for i, a := range c.Arguments {
		as := r.str(a)
		args[i] = as
		if total += int64(as.Length()); total > r.maxElems {
			r.tooLong(total, "String.prototype.concat")
		}
	}
	c.Arguments = args
	return c
}

// guardStringArg refuses a string first argument over a quarter of the
// limit: these functions make an array element, a property or several
// characters per character of it.
func guardStringArg(r *runner, c goja.FunctionCall) goja.FunctionCall {
	if s, ok := c.Argument(0).(goja.String); ok && int64(s.Length()) > r.maxElems/4 {
		r.tooMany(int64(s.Length()), "a function applied to a string this long")
	}
	return c
}

// guardStringArgs is guardStringArg for every argument (Object.assign).
func guardStringArgs(r *runner, c goja.FunctionCall) goja.FunctionCall {
	for _, a := range c.Arguments {
		if s, ok := a.(goja.String); ok && int64(s.Length()) > r.maxElems/4 {
			r.tooMany(int64(s.Length()), "a function applied to a string this long")
		}
	}
	return c
}

// guardFlat walks what flat would flatten, counting its elements and its
// depth: nested arrays that share elements fan out to far more than exists
// (an array of a thousand references to one array of a million), and very
// deep nesting recurses in Go.
func guardFlat(r *runner, c goja.FunctionCall) goja.FunctionCall {
	this, ok := c.This.(*goja.Object)
	if !ok {
		return c
	}
	depth := 1.0
	if a := c.Argument(0); !goja.IsUndefined(a) {
		if depth = a.ToFloat(); depth != depth { // NaN
			depth = 0
		}
	}
	type node struct {
		o *goja.Object
		d int
	}
	var total, visited int64
	stack := []node{{this, 0}}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if visited++; visited > r.maxElems {
			r.tooMany(visited, "Array.prototype.flat")
		}
		length := toLength(n.o.Get("length"))
		for i := int64(0); i < length; i++ {
			if o, ok := n.o.Get(strconv.FormatInt(i, 10)).(*goja.Object); ok && o.ClassName() == "Array" && float64(n.d) < depth {
				if n.d+1 > r.lim.MaxCallDepth {
					r.abort(&Error{Code: CodeLimitExceeded, Message: fmt.Sprintf(
						"Array.prototype.flat on arrays nested more than %d deep", r.lim.MaxCallDepth)})
				}
				stack = append(stack, node{o, n.d + 1})
				continue
			}
			if total++; total > r.maxElems {
				r.tooMany(total, "Array.prototype.flat")
			}
		}
	}
	return c
}

// guardReplace bounds what replace and replaceAll build: every match may
// insert the replacement, and each "$'", "$`" or "$&" in it up to the whole
// string again, so a short call on a long string can be quadratic. A
// replacement function needs no bound here: it is JavaScript, where
// interrupts and the heap watchdog reach.
func guardReplace(all bool) argGuard {
	return func(r *runner, c goja.FunctionCall) goja.FunctionCall {
		if c.This == nil || goja.IsUndefined(c.This) || goja.IsNull(c.This) {
			return c
		}
		pattern, repl := c.Argument(0), c.Argument(1)
		if _, isObj := pattern.(*goja.Object); isObj {
			return c // RegExp.prototype[Symbol.replace] (guarded), or the script's own
		}
		s := r.str(c.This)
		c.This = s
		if _, isFunc := goja.AssertFunction(repl); isFunc {
			return c
		}
		p, rs := r.str(pattern), r.str(repl)
		c.Arguments = []goja.Value{p, rs}
		var matches int64
		switch {
		case p.Length() == 0:
			matches = int64(s.Length()) + 1
		default:
			matches = int64(strings.Count(s.String(), p.String()))
		}
		if !all {
			matches = min(matches, 1)
		}
		checkReplace(r, int64(s.Length()), matches, rs)
		return c
	}
}

// guardRegexpReplace is guardReplace for a regular expression, whose number
// of matches is only known by running it: up to one per character.
func guardRegexpReplace(r *runner, c goja.FunctionCall) goja.FunctionCall {
	if c.This == nil || goja.IsUndefined(c.This) || goja.IsNull(c.This) {
		return c // the builtin throws its TypeError before coercing anything
	}
	s, repl := r.str(c.Argument(0)), c.Argument(1)
	c.Arguments = append([]goja.Value{s}, c.Arguments[min(1, len(c.Arguments)):]...)
	_, isFunc := goja.AssertFunction(repl)
	if rx, ok := c.This.(*goja.Object); ok {
		c.This = r.execThisFor(rx, true, isFunc) // see execThis
	}
	if isFunc {
		return c
	}
	rs := r.str(repl)
	c.Arguments = []goja.Value{s, rs}
	checkReplace(r, int64(s.Length()), int64(s.Length())+1, rs)
	return c
}

func checkReplace(r *runner, n, matches int64, repl goja.String) {
	per := int64(repl.Length()) + int64(strings.Count(repl.String(), "$"))*n
	if total := n + matches*per; matches > 0 && total > r.maxElems {
		r.tooLong(total, "a replacement")
	}
}

// guardRaw coerces String.raw's strings (template.raw is any array-like,
// {length: 1e9} included) and adds up their lengths before the builtin
// joins them; the builtin then sees the coerced copy.
func guardRaw(r *runner, c goja.FunctionCall) goja.FunctionCall {
	// A primitive template or raw is made an object, as String.raw does:
	// its length is then its prototype's, which the script may have set
	// (Number.prototype.length = 2**53 - 1 made String.raw({raw: 5}) walk
	// it natively). undefined and null are left to the builtin's TypeError.
	if isNullish(c.Argument(0)) {
		return c
	}
	tpl := c.Argument(0).ToObject(r.vm)
	rawV := tpl.Get("raw")
	if isNullish(rawV) {
		return c
	}
	raw := rawV.ToObject(r.vm)
	n := toLength(raw.Get("length"))
	if n > r.maxElems {
		r.tooMany(n, "String.raw")
	}
	parts := make([]any, n)
	var total int64
	for i := range n {
		s := r.str(raw.Get(strconv.FormatInt(i, 10)))
		parts[i] = s
		if total += int64(s.Length()); total > r.maxElems {
			r.tooLong(total, "String.raw")
		}
	}
	args := []goja.Value{nil}
	for i, sub := range c.Arguments[1:] {
		if int64(i+1) >= n {
			break
		}
		s := r.str(sub)
		args = append(args, s)
		if total += int64(s.Length()); total > r.maxElems {
			r.tooLong(total, "String.raw")
		}
	}
	t := r.vm.NewObject()
	_ = t.Set("raw", r.vm.NewArray(parts...))
	args[0] = t
	c.Arguments = args
	return c
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
