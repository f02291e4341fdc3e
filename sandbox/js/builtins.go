package js

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

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
// TestBuiltinsGuardedOrReviewed enumerates the builtins of a fresh runtime
// and fails on one that is neither wrapped nor on the reviewed list, so a
// builtin added by a goja upgrade cannot slip through.

// unwrapped are the builtins left as goja has them, by path prefix, with
// the reason (reviewed against goja's builtin_*.go). Wrapping costs about a
// microsecond per builtin per run, plus goja making the lazily-built ones.
// TestBuiltinsGuardedOrReviewed checks that every native function of a
// hardened runtime is either wrapped, JavaScript, or matched here.
var unwrapped = []struct{ prefix, why string }{
	{"Math.", "numbers in, a number out; this is ignored, arguments are coerced with ToNumber (their valueOf runs as JavaScript, or as a wrapped builtin)"},
	{"Date.prototype.get", "read the Date's own time value (TypeError for any other this); a number out"},
	{"Date.prototype.set", "the Date's own time value and numbers; coerce only their arguments"},
	{"Date.prototype.to", "(but toJSON) format the Date's own time value into a string of bounded size; TypeError for any other this"},
	{"Date.prototype.valueOf", "the Date's own time value"},
	{"Date.UTC", "numbers in, a number out"},
	{"Date.now", "no input"},
	{"Date.parse", "parses a string into a number; work linear in its length"},
}

// unwrappedWhy is the reason path is left unwrapped, or "".
func unwrappedWhy(path string) string {
	p := strings.TrimPrefix(strings.TrimPrefix(path, "get "), "set ")
	if p == "Date.prototype.toJSON" {
		return "" // generic: ToPrimitive(this), then this.toISOString()
	}
	for _, u := range unwrapped {
		if p == u.prefix || strings.HasPrefix(p, u.prefix) && (strings.HasSuffix(u.prefix, ".") ||
			strings.HasPrefix(u.prefix, "Date.prototype.") || p[len(u.prefix)] == '.' || p[len(u.prefix)] == '[') {
			return u.why
		}
	}
	return ""
}

// builtinKind says which part of a property a builtinRef is.
type builtinKind int

const (
	builtinValue builtinKind = iota
	builtinGetter
	builtinSetter
)

// builtinRef is one native function of a fresh runtime: the property that
// holds it, found by following owner from the global object.
type builtinRef struct {
	path      string // "String.prototype.repeat", "get RegExp.prototype.flags"
	owner     []any  // keys (string or *goja.Symbol) from the global object to the owner
	ownerName string
	key       any
	kind      builtinKind
	spec      *wrapSpec
	setter    *wrapSpec // a getter's: the same property's setter, if it has one
}

// wrapSpec is what the wrapper of one builtin needs besides its run: made
// once per process, so that a run makes only the wrapper itself.
type wrapSpec struct {
	path    string
	name    goja.Value // the wrapper's name, the builtin's ("map", "get flags", "[Symbol.iterator]")
	guard   argGuard
	replace func(r *runner, c goja.FunctionCall) goja.Value
	timed   bool // a RegExp method: see timedCall
	json    bool // JSON.parse or JSON.stringify: see maxJSONNesting
}

// newWrapSpec makes the spec of the builtin at path, whose property is key.
// The name is a string value, which holds no reference to a runtime, so
// every run can share it.
func newWrapSpec(vm *goja.Runtime, path string, key any, kind builtinKind) *wrapSpec {
	var name string
	switch k := key.(type) {
	case string:
		name = k
	case *goja.Symbol:
		name = "[" + k.String() + "]"
	}
	switch kind {
	case builtinGetter:
		name = "get " + name
	case builtinSetter:
		name = "set " + name
	}
	return &wrapSpec{path: path, name: vm.ToValue(name), guard: builtinGuards[path], replace: builtinReplacements[path],
		json:  path == "JSON.parse" || path == "JSON.stringify",
		timed: strings.HasPrefix(path, "RegExp.prototype.") || strings.HasPrefix(path, "RegExp.prototype[")}
}

// builtinRefs lists the wrapped builtins, found once per process in a fresh
// runtime: every runtime has the same ones.
var builtinRefs = sync.OnceValue(func() []builtinRef {
	vm := goja.New()
	object := vm.GlobalObject().Get("Object").(*goja.Object)
	gopd, _ := goja.AssertFunction(object.Get("getOwnPropertyDescriptor"))
	gops, _ := goja.AssertFunction(object.Get("getOwnPropertySymbols"))
	var refs []builtinRef
	seen := map[*goja.Object]bool{}
	type item struct {
		obj  *goja.Object
		path []any
	}
	queue := []item{{vm.GlobalObject(), nil}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if seen[it.obj] {
			continue
		}
		seen[it.obj] = true
		var keys []any
		for _, k := range it.obj.GetOwnPropertyNames() {
			keys = append(keys, k)
		}
		if syms, err := gops(goja.Undefined(), it.obj); err == nil {
			arr := syms.(*goja.Object)
			for i := range toLength(arr.Get("length")) {
				if sym, ok := arr.Get(strconv.FormatInt(i, 10)).(*goja.Symbol); ok {
					keys = append(keys, sym)
				}
			}
		}
		for _, k := range keys {
			if s, ok := k.(string); ok && it.obj == vm.GlobalObject() && removedGlobals[s] {
				continue // not on the sandbox's global object
			}
			var kv goja.Value
			if s, ok := k.(string); ok {
				kv = vm.ToValue(s)
			} else {
				kv = k.(*goja.Symbol)
			}
			d, err := gopd(goja.Undefined(), it.obj, kv)
			if err != nil {
				continue
			}
			desc := d.(*goja.Object)
			path := append(append([]any(nil), it.path...), k)
			for kind, field := range []string{"value", "get", "set"} {
				f, ok := desc.Get(field).(*goja.Object)
				if !ok {
					continue
				}
				if _, isFunc := goja.AssertFunction(f); isFunc && wrappable(f) {
					name := refName(builtinKind(kind), path)
					if unwrappedWhy(name) == "" {
						ref := builtinRef{path: name, owner: it.path, ownerName: refName(builtinValue, it.path), key: k, kind: builtinKind(kind)}
						ref.spec = newWrapSpec(vm, name, k, ref.kind)
						if ref.kind == builtinGetter {
							setPath := "set" + strings.TrimPrefix(name, "get")
							ref.setter = newWrapSpec(vm, setPath, k, builtinSetter)
						}
						refs = append(refs, ref)
					}
				}
				if kind == 0 {
					queue = append(queue, item{f, path})
				}
			}
		}
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].path < refs[j].path })
	return refs
})

// wrappable reports whether f can be replaced by a plain Go function: not a
// constructor (a wrapper could not be one), and without properties of its
// own beyond name and length (Symbol carries Symbol.iterator and others).
func wrappable(f *goja.Object) bool {
	if _, ctor := goja.AssertConstructor(f); ctor {
		return false
	}
	for _, k := range f.GetOwnPropertyNames() {
		if k != "length" && k != "name" {
			return false
		}
	}
	return len(f.Symbols()) == 0
}

// refName is the path of a builtin as people write it.
func refName(kind builtinKind, path []any) string {
	var b strings.Builder
	switch kind {
	case builtinGetter:
		b.WriteString("get ")
	case builtinSetter:
		b.WriteString("set ")
	}
	for i, k := range path {
		switch k := k.(type) {
		case string:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k)
		case *goja.Symbol:
			fmt.Fprintf(&b, "[%s]", k.String())
		}
	}
	return b.String()
}

// guardBuiltins wraps every builtin of builtinRefs in this run's runtime.
func (r *runner) guardBuiltins() {
	g := r.vm.GlobalObject()
	owners := map[string]*goja.Object{}
	gopd, _ := goja.AssertFunction(g.Get("Object").(*goja.Object).Get("getOwnPropertyDescriptor"))
	for _, ref := range builtinRefs() {
		owner := r.resolve(owners, g, ref.ownerName, ref.owner)
		if owner == nil {
			continue
		}
		if ref.kind == builtinValue {
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
			w := r.wrapper(ref.spec, f)
			switch k := ref.key.(type) {
			case string:
				_ = owner.DefineDataProperty(k, w, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
			case *goja.Symbol:
				_ = owner.DefineDataPropertySymbol(k, w, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
			}
			continue
		}
		// Accessors: both halves are redefined together, each wrapped.
		if ref.kind == builtinSetter {
			continue // done with its getter
		}
		var kv goja.Value
		if s, ok := ref.key.(string); ok {
			kv = r.vm.ToValue(s)
		} else {
			kv = ref.key.(*goja.Symbol)
		}
		d, err := gopd(goja.Undefined(), owner, kv)
		if err != nil {
			continue
		}
		desc := d.(*goja.Object)
		var get, set goja.Value = goja.Undefined(), goja.Undefined()
		if f, ok := goja.AssertFunction(desc.Get("get")); ok {
			get = r.wrapper(ref.spec, f)
		}
		if f, ok := goja.AssertFunction(desc.Get("set")); ok {
			set = r.wrapper(ref.setter, f)
		}
		enum := goja.FLAG_FALSE
		if desc.Get("enumerable").ToBoolean() {
			enum = goja.FLAG_TRUE
		}
		switch k := ref.key.(type) {
		case string:
			_ = owner.DefineAccessorProperty(k, get, set, goja.FLAG_TRUE, enum)
		case *goja.Symbol:
			_ = owner.DefineAccessorPropertySymbol(k, get, set, goja.FLAG_TRUE, enum)
		}
	}
}

// wrapper makes the guarded function of spec, named as the builtin is
// (goja would name it after the Go closure).
func (r *runner) wrapper(spec *wrapSpec, f goja.Callable) goja.Value {
	w := r.vm.ToValue(r.guarded(spec, f)).(*goja.Object)
	_ = w.DefineDataProperty("name", spec.name, goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
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
	vm := goja.New()
	var specs []*wrapSpec
	for _, name := range []string{"%ArrayIteratorPrototype%", "%MapIteratorPrototype%", "%SetIteratorPrototype%", "%StringIteratorPrototype%", "%RegExpStringIteratorPrototype%"} {
		specs = append(specs, newWrapSpec(vm, name+".next", "next", builtinValue))
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
// closure per builtin and run, the rest is in spec.
func (r *runner) guarded(spec *wrapSpec, orig goja.Callable) func(goja.FunctionCall) goja.Value {
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
		if spec.json {
			r.jsonNesting++
			defer func() { r.jsonNesting-- }()
			if r.jsonNesting > maxJSONNesting {
				r.throwRangeError(fmt.Sprintf("%s called inside JSON.parse or JSON.stringify (from a getter, toJSON or reviver) more than %d deep", spec.path, maxJSONNesting))
			}
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
		r.checkResult(spec.path, v)
		return v
	}
}

// checkResult ends the run when a builtin returned a string or array over
// the sandbox's size limit.
func (r *runner) checkResult(path string, v goja.Value) {
	switch v := v.(type) {
	case goja.String:
		n := int64(v.Length())
		if n > r.maxElems {
			r.tooLong(n, path)
		}
		saw(&r.mem.largestString, n)
	case *goja.Object:
		if v.ClassName() == "Array" {
			n := toLength(v.Get("length"))
			if n > r.maxElems {
				r.tooMany(n, path)
			}
			saw(&r.mem.largestArray, n)
		}
	}
}

func (r *runner) tooLong(n int64, what string) {
	r.abort(&Error{Code: CodeMemoryLimit, Message: fmt.Sprintf(
		"%s would make a string of %d characters, over the sandbox's limit of %d", what, n, r.maxElems)})
}

func (r *runner) tooMany(n int64, what string) {
	r.abort(&Error{Code: CodeMemoryLimit, Message: fmt.Sprintf(
		"%s would make an array of %d elements, over the sandbox's limit of %d", what, n, r.maxElems)})
}
