package js

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/dop251/goja"
)

// Every native function reachable from the global object (methods, static
// functions, getters and setters; not constructors) runs behind one Go
// wrapper, made per run by guardBuiltins. The wrapper exists because goja's
// interrupt and call-depth limit do not reach inside builtins:
//
//   - depth: builtins that call builtins (a nested array's toString calls
//     its elements' toString; a getter that is itself a builtin) recurse in
//     Go with no JavaScript frame in between, past any JavaScript limit,
//     until Go's stack overflows, which kills the process. Each wrapper
//     counts how deep builtins are nested and ends the run with
//     limit_exceeded past MaxCallDepth.
//   - killed runs: a run that was ended stops at the next builtin it enters,
//     instead of finishing a long native computation nobody waits for.
//   - sizes: a guard (builtinGuards) checks, before the builtin runs, the
//     size of what it is about to build when that is not bounded by the size
//     of its inputs (repeat, replaceAll, concat, flat...), and every wrapper
//     checks that the string or array it returns is within maxElems. Builtins
//     whose work is bounded by their inputs need no guard of their own: the
//     result check stops a chain of them at the first step over the limit.
//
// The exceptions, builtins that need none of the three, are on unwrapped
// (builtins_table_test.go) with the reason for each.
//
// Which builtins are wrapped is builtinTable, generated from a walk of a
// fresh runtime (go generate; builtins_table_test.go) that leaves out
// constructors and the reviewed unwrapped list. TestBuiltinTable fails when
// the table differs from what goja has, and TestBuiltinsGuardedOrReviewed
// enumerates the builtins of a hardened runtime and fails on one that is
// neither wrapped nor reviewed, so a builtin added by a goja upgrade cannot
// slip through.
//
//go:generate go test -run ^TestBuiltinTable$ -update .

// builtinKind says which part of a property a builtinRef is.
type builtinKind int

const (
	builtinValue builtinKind = iota
	builtinGetter
	builtinSetter
)

// builtinEntry is one wrapped builtin of builtinTable: the keys from the
// global object to the object that holds it (strings, or goja's well-known
// symbols), its own key there, which part of the property it is, and the
// paths of both as people write them. The rest is what a script sees of
// goja's original, read when the table was generated, so that the wrapper
// shows the same: the function's name and length, the property's
// attributes (writable only for data properties), and alias, the path of
// the entry earlier in the table that holds the same function
// (Array.prototype[Symbol.iterator] is Array.prototype.values): the two
// get one wrapper, and stay the same function.
type builtinEntry struct {
	owner     []any
	key       any
	kind      builtinKind
	ownerPath string // "String.prototype", "RegExp.prototype"
	path      string // "String.prototype.repeat", "get RegExp.prototype.flags"

	name                               string // "repeat", "values" (for Array.prototype[Symbol.iterator]), "get flags"
	length                             int
	writable, enumerable, configurable bool
	alias                              string // "Array.prototype.values", or ""
}

// builtinRef is a builtinEntry with its wrap specs, made once per process.
type builtinRef struct {
	builtinEntry
	spec   *wrapSpec
	setter *wrapSpec // a getter's: the same property's setter, if the table has it
	// alone: a setter whose getter is left unwrapped (get
	// Object.prototype.__proto__), wrapped by itself.
	alone bool
	// aliasOf is the index of the ref whose wrapper this one installs
	// again (its alias), or -1; slot, for a ref that others alias, is
	// where a run keeps its wrapper for them, or -1.
	aliasOf, slot int
}

// wrapSpec is what the wrapper of one builtin needs besides its run: made
// once per process, so that a run makes only the wrapper itself.
type wrapSpec struct {
	path    string
	name    goja.Value // the wrapper's name, the builtin's ("map", "get flags", "values")
	length  goja.Value // the builtin's length; nil for 0
	guard   argGuard
	replace func(r *runner, c goja.FunctionCall) goja.Value
	timed   bool // a RegExp method: see timedCall
	json    bool // JSON.parse or JSON.stringify: see maxJSONNesting
	bind    bool // Function.prototype.bind: see countBind
	forward bool // only calls the function it wraps: see preludeForwarders
}

// newWrapSpec makes the spec of the builtin at path, named name (goja's
// name of the function) and of length length. The name and length are
// values that hold no reference to a runtime, so every run can share them.
func newWrapSpec(path, name string, length int) *wrapSpec {
	u := make([]uint16, 0, len(name))
	for _, c := range name {
		u = utf16.AppendRune(u, c)
	}
	return &wrapSpec{path: path, name: goja.StringFromUTF16(u), length: lengthValue(length), guard: builtinGuards[path], replace: builtinReplacements[path],
		json: path == "JSON.parse" || path == "JSON.stringify", bind: path == "Function.prototype.bind",
		timed: strings.HasPrefix(path, "RegExp.prototype.") || strings.HasPrefix(path, "RegExp.prototype[")}
}

// lengthValue is n as a goja value, or nil for 0 (the length a wrapper is
// made with). goja's integers hold no reference to the runtime that made
// them; the one made here is for that only.
func lengthValue(n int) goja.Value {
	if n == 0 {
		return nil
	}
	return numberMaker().ToValue(n)
}

var numberMaker = sync.OnceValue(goja.New)

// builtinRefs are the wrapped builtins, from builtinTable: the result of
// walking a fresh runtime (which every runtime is), found when the table was
// generated rather than by each process (which took ≈ 2 ms, before its first
// run). TestBuiltinTable walks a fresh runtime and fails when the table
// differs; TestBuiltinsGuardedOrReviewed fails on a native function of a
// hardened runtime that is not wrapped.
var builtinRefs = sync.OnceValue(func() []builtinRef {
	refs := make([]builtinRef, len(builtinTable))
	index := map[string]int{}
	for i, e := range builtinTable {
		index[e.path] = i
	}
	slots := 0
	for i, e := range builtinTable {
		refs[i] = builtinRef{builtinEntry: e, spec: newWrapSpec(e.path, e.name, e.length), aliasOf: -1, slot: -1}
		switch e.kind {
		case builtinGetter:
			if j, ok := index["set"+strings.TrimPrefix(e.path, "get")]; ok {
				s := builtinTable[j]
				refs[i].setter = newWrapSpec(s.path, s.name, s.length)
			}
		case builtinSetter:
			_, withGetter := index["get"+strings.TrimPrefix(e.path, "set")]
			refs[i].alone = !withGetter
		}
		if e.alias != "" {
			j := index[e.alias]
			refs[i].aliasOf = j
			if refs[j].slot < 0 {
				refs[j].slot = slots
				slots++
			}
		}
	}
	return refs
})

// aliasSlots is how many wrappers a run keeps for aliases (see builtinRef).
var aliasSlots = sync.OnceValue(func() int {
	n := 0
	for _, ref := range builtinRefs() {
		n = max(n, ref.slot+1)
	}
	return n
})

// guardBuiltins wraps every builtin of builtinRefs in this run's runtime,
// each property redefined with the attributes goja gave it.
func (r *runner) guardBuiltins() {
	g := r.vm.GlobalObject()
	owners := map[string]*goja.Object{}
	gopd, _ := goja.AssertFunction(g.Get("Object").(*goja.Object).Get("getOwnPropertyDescriptor"))
	slots := make([]goja.Value, aliasSlots())
	refs := builtinRefs()
	for _, ref := range refs {
		owner := r.resolve(owners, g, ref.ownerPath, ref.owner)
		if owner == nil {
			continue
		}
		if ref.kind == builtinValue {
			var w goja.Value
			if ref.aliasOf >= 0 {
				w = slots[refs[ref.aliasOf].slot]
			} else {
				var f goja.Callable
				switch k := ref.key.(type) {
				case string:
					f, _ = goja.AssertFunction(owner.Get(k))
				case *goja.Symbol:
					f, _ = goja.AssertFunction(owner.GetSymbol(k))
				}
				if f == nil {
					continue
				}
				w = r.wrapper(ref.spec, f)
				if ref.slot >= 0 {
					slots[ref.slot] = w
				}
			}
			if w == nil {
				continue
			}
			switch k := ref.key.(type) {
			case string:
				_ = owner.DefineDataProperty(k, w, attr(ref.writable), attr(ref.configurable), attr(ref.enumerable))
			case *goja.Symbol:
				_ = owner.DefineDataPropertySymbol(k, w, attr(ref.writable), attr(ref.configurable), attr(ref.enumerable))
			}
			continue
		}
		// Accessors: both halves are redefined together, each wrapped
		// (but a getter left unwrapped, whose setter is wrapped alone).
		if ref.kind == builtinSetter && !ref.alone {
			continue // done with its getter
		}
		d, err := gopd(goja.Undefined(), owner, r.keyValue(ref.key))
		if err != nil {
			continue
		}
		desc := d.(*goja.Object)
		var get, set goja.Value = goja.Undefined(), goja.Undefined()
		if f, ok := goja.AssertFunction(desc.Get("get")); ok {
			get = desc.Get("get")
			if !ref.alone {
				get = r.wrapper(ref.spec, f)
			}
		}
		if f, ok := goja.AssertFunction(desc.Get("set")); ok {
			set = desc.Get("set")
			if ref.alone {
				set = r.wrapper(ref.spec, f)
			} else if ref.setter != nil {
				set = r.wrapper(ref.setter, f)
			}
		}
		switch k := ref.key.(type) {
		case string:
			_ = owner.DefineAccessorProperty(k, get, set, attr(ref.configurable), attr(ref.enumerable))
		case *goja.Symbol:
			_ = owner.DefineAccessorPropertySymbol(k, get, set, attr(ref.configurable), attr(ref.enumerable))
		}
	}
}

// attr is b as goja's attribute flag.
func attr(b bool) goja.Flag {
	if b {
		return goja.FLAG_TRUE
	}
	return goja.FLAG_FALSE
}

// preludeReplaced are the builtins the prelude replaces by JavaScript
// functions (which call their wrappers): see prelude.js.
var preludeReplaced = []string{"Array.prototype.join", "Array.prototype.toLocaleString", "Array.from", "JSON.stringify", "JSON.parse"}

// preludeForwarders are the specs of the native functions that stand for
// the prelude's replacements (see forwardPrelude), made once per process.
var preludeForwarders = sync.OnceValue(func() []builtinRef {
	var refs []builtinRef
	for _, ref := range builtinRefs() {
		if slices.Contains(preludeReplaced, ref.path) {
			ref.spec = &wrapSpec{path: ref.path, name: ref.spec.name, length: ref.spec.length, forward: true}
			refs = append(refs, ref)
		}
	}
	return refs
})

// forwardPrelude puts a native function in front of each of the prelude's
// replacements (after the prelude ran), so that they look as goja's
// builtins do: Function.prototype.toString shows "[native code]", not
// their source. The native function only calls the replacement (spec.forward),
// which is JavaScript, where the interrupt reaches, and calls the
// builtin's own wrapper.
func (r *runner) forwardPrelude() {
	g := r.vm.GlobalObject()
	owners := map[string]*goja.Object{}
	for _, ref := range preludeForwarders() {
		owner := r.resolve(owners, g, ref.ownerPath, ref.owner)
		if owner == nil {
			continue
		}
		k := ref.key.(string)
		f, ok := goja.AssertFunction(owner.Get(k))
		if !ok {
			continue
		}
		_ = owner.DefineDataProperty(k, r.wrapper(ref.spec, f), attr(ref.writable), attr(ref.configurable), attr(ref.enumerable))
	}
}

// keyValue is a builtin's key (a string or one of goja's symbols) as a
// value, for getOwnPropertyDescriptor.
func (r *runner) keyValue(key any) goja.Value {
	if s, ok := key.(string); ok {
		return r.vm.ToValue(s)
	}
	return key.(*goja.Symbol)
}

// wrapper makes the guarded function of spec, named as the builtin is
// (goja would name it after the Go closure) and as long. goja makes it a
// plain native function, as its builtins are: not a constructor, no
// prototype property, length and name non-writable, non-enumerable and
// configurable.
func (r *runner) wrapper(spec *wrapSpec, f goja.Callable) goja.Value {
	w := r.vm.ToValue(r.guarded(spec, f)).(*goja.Object)
	_ = w.DefineDataProperty("name", spec.name, goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	if spec.length != nil {
		_ = w.DefineDataProperty("length", spec.length, goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	return w
}

// guardIterators wraps next of the builtin iterators, which are not
// reachable as properties from the global object: spreading or destructuring
// a large array calls next natively once per element, and the wrapper's
// check stops an ended run there.
func (r *runner) guardIterators() error {
	v, err := r.vm.RunProgram(iteratorProtos())
	if err != nil {
		return err
	}
	protos := v.(*goja.Object)
	for i, spec := range iteratorNexts() {
		p, ok := protos.Get(strconv.Itoa(i)).(*goja.Object)
		if !ok {
			continue
		}
		if f, ok := goja.AssertFunction(p.Get("next")); ok {
			_ = p.DefineDataProperty("next", r.wrapper(spec, f), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		}
	}
	return nil
}

// iteratorNexts are the specs of the iterators' next, in the order of
// iteratorProtos.
var iteratorNexts = sync.OnceValue(func() []*wrapSpec {
	var specs []*wrapSpec
	for _, name := range []string{"%ArrayIteratorPrototype%", "%MapIteratorPrototype%", "%SetIteratorPrototype%", "%StringIteratorPrototype%", "%RegExpStringIteratorPrototype%"} {
		specs = append(specs, newWrapSpec(name+".next", "next", 0))
	}
	return specs
})

// iteratorProtos finds the iterator prototypes; compiled once, as the
// prelude is.
var iteratorProtos = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile("iterators.js", `[[][Symbol.iterator](), new Map()[Symbol.iterator](), new Set()[Symbol.iterator](), ""[Symbol.iterator](), /x/[Symbol.matchAll]("")].map(Object.getPrototypeOf)`, true)
})

// resolve follows path from the global object, caching owners by path.
func (r *runner) resolve(cache map[string]*goja.Object, g *goja.Object, name string, path []any) *goja.Object {
	if o, ok := cache[name]; ok {
		return o
	}
	o := g
	for _, k := range path {
		var v goja.Value
		switch k := k.(type) {
		case string:
			v = o.Get(k)
		case *goja.Symbol:
			v = o.GetSymbol(k)
		}
		next, ok := v.(*goja.Object)
		if !ok {
			o = nil
			break
		}
		o = next
	}
	cache[name] = o
	return o
}

// guarded is the wrapper of one builtin (see the comment at the top): one
// closure per builtin and run, the rest is in spec. Not inlined: its
// closure's code tells wrappers apart (stopsByItself).
//
//go:noinline
func (r *runner) guarded(spec *wrapSpec, orig goja.Callable) func(goja.FunctionCall) goja.Value {
	if spec.forward {
		return func(c goja.FunctionCall) goja.Value { return call(orig, c) }
	}
	return func(c goja.FunctionCall) goja.Value {
		if err := r.killErr.Load(); err != nil {
			panic(r.vm.NewGoError(err)) // the interrupt is pending too: uncatchable
		}
		r.depth++
		defer func() { r.depth-- }()
		if r.depth > r.lim.MaxCallDepth {
			r.abort(&Error{Code: CodeLimitExceeded, Message: fmt.Sprintf(
				"builtins called each other more than %d deep (%s; runaway recursion through toString, getters or bind?)", r.lim.MaxCallDepth, spec.path)})
		}
		for i, a := range c.Arguments {
			if a == nil {
				// goja hands a Map's or WeakMap's own set, when it is not
				// the original (it is this wrapper), a missing entry field
				// as nil, not undefined (new Map([{}])); the original
				// would dereference it.
				c.Arguments[i] = goja.Undefined()
			}
		}
		if spec.json {
			r.nestJSON(spec.path)
			defer func() { r.jsonNesting-- }()
		}
		if spec.guard != nil {
			c = spec.guard(r, c)
		}
		var v goja.Value
		if spec.replace != nil {
			v = spec.replace(r, c)
		}
		if v == nil {
			if spec.timed {
				v = r.timedCall(orig, c)
			} else {
				v = call(orig, c)
			}
		}
		if spec.bind {
			r.countBind(c, v)
		}
		r.checkResult(spec.path, v, c)
		return v
	}
}

// nestJSON counts one more JSON.parse or JSON.stringify (path) running
// inside another, and throws a RangeError past maxJSONNesting; the caller
// counts it down when it returns.
func (r *runner) nestJSON(path string) {
	r.jsonNesting++
	if r.jsonNesting > maxJSONNesting {
		r.throwRangeError(fmt.Sprintf("%s called inside JSON.parse or JSON.stringify (from a getter, toJSON or reviver) more than %d deep", path, maxJSONNesting))
	}
}

// checkResult ends the run when a builtin returned a string or array over
// the sandbox's size limit.
func (r *runner) checkResult(path string, v goja.Value, c goja.FunctionCall) {
	switch v := v.(type) {
	case goja.String:
		n := int64(v.Length())
		if n > r.maxElems {
			r.tooLong(n, path)
		}
		saw(&r.mem.largestString, n)
	case *goja.Object:
		if given(v, c) {
			// The object it was given, handed back (defineProperty,
			// fill, sort): not built by the builtin, and an Array given
			// a huge length by it is sparse, not allocated
			// (Object.defineProperty([], "length", {value: 2**32 - 2})).
			return
		}
		if v.ClassName() == "Array" {
			n := toLength(v.Get("length"))
			if n > r.maxElems {
				r.tooMany(n, path)
			}
			saw(&r.mem.largestArray, n)
		}
	}
}

// given reports whether o is the call's this or one of its arguments.
func given(o *goja.Object, c goja.FunctionCall) bool {
	if c.This == goja.Value(o) {
		return true
	}
	for _, a := range c.Arguments {
		if a == goja.Value(o) {
			return true
		}
	}
	return false
}

func (r *runner) tooLong(n int64, what string) {
	r.abort(&Error{Code: CodeMemoryLimit, Message: fmt.Sprintf(
		"%s would make a string of %d characters, over the sandbox's limit of %d", what, n, r.maxElems)})
}

func (r *runner) tooMany(n int64, what string) {
	r.abort(&Error{Code: CodeMemoryLimit, Message: fmt.Sprintf(
		"%s would make an array of %d elements, over the sandbox's limit of %d", what, n, r.maxElems)})
}
