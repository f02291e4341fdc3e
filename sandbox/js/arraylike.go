package js

import (
	_ "embed"
	"fmt"
	"strconv"
	"sync"

	"github.com/dop251/goja"
)

// Array-likes. goja's array methods walk this.length natively: over
// {length: 2**53 - 1} that is a loop in Go that no interrupt reaches, which
// went on long after its run had been answered; and a guard that reads the
// length first cannot vouch for what the builtin reads after it (a getter,
// or a length object's valueOf, can answer 1 to the guard and 2**40 to the
// builtin). So the wrappers of the array methods hand a call whose `this` is
// not an Array (or is an Array over the size limit) to arraylike.js, the
// same methods written in JavaScript after ECMA-262, step by step: length is
// read once, getters and setters run in the spec's order, a lazy walk over a
// huge length (includes with an early hit) answers as the spec says, and
// every loop is script code, which the interrupt stops and the heap watchdog
// counts. What would really allocate more than the sandbox's size limit
// (fill, Array.from, toReversed/toSorted/toSpliced/with, join) ends the run
// with memory_limit before it starts; the others stop at the timeout or at
// the watchdog as any loop does. Arrays within the limit keep goja's native
// methods and the guards of guard.go: their length is an own data property,
// which nothing can make lie.
//
// The JavaScript is compiled once per process, and a run builds its
// functions the first time it needs one (a run that never calls an array
// method on an array-like pays nothing).

//go:embed arraylike.js
var arrayLikeSource string

// arrayLikeProgram is arraylike.js compiled: our own code, so the
// package-level compiler is safe here (as for the prelude).
var arrayLikeProgram = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile("arraylike.js", arrayLikeSource, true)
})

// nativeArrayMethods are the methods of Array.prototype that do not walk
// this.length when called: the iterators read it at each step (each step a
// call of their wrapped next), and toString calls this.join. They run as
// goja has them, on anything.
var nativeArrayMethods = map[string]bool{
	"Array.prototype.entries": true, "Array.prototype.keys": true, "Array.prototype.values": true,
	"Array.prototype[Symbol.iterator]": true, "Array.prototype.toString": true,
}

// arrayMethodGuard is the guard of the array method at path, given the
// guards it has besides (g, or nil): none for nativeArrayMethods; for the
// others, g and guardLength when the call stays native, nothing when it
// goes to arraylike.js (see divertsThis), whose reads a guard must
// not add to.
func arrayMethodGuard(path string, g argGuard) argGuard {
	if nativeArrayMethods[path] {
		return g
	}
	if path == "Array.prototype.concat" {
		return nil // divertConcat: native only over Arrays that fit the limit
	}
	if g != nil {
		g = both(guardLength, g)
	} else {
		g = guardLength
	}
	return func(r *runner, c goja.FunctionCall) goja.FunctionCall {
		if r.divertsThis(c.This) {
			return c
		}
		return g(r, c)
	}
}

// arrayLikeReplacements are the builtinReplacements of the array methods,
// Array.from and concat: each calls arraylike.js when divertsThis (or
// divertConcat) says so, and otherwise leaves the call to the builtin (or
// to fillStoppable). Array.from always runs arraylike.js.
func arrayLikeReplacements() map[string]func(r *runner, c goja.FunctionCall) goja.Value {
	m := map[string]func(r *runner, c goja.FunctionCall) goja.Value{
		// Array.from always: goja's walks an array-like's length (read
		// twice) natively, and an iterable natively too, calling its next
		// as it is: a next that is a builtin goja runs unwrapped (an
		// iterator whose next is Object, which never says done; the
		// iterator of Arrays or strings can be replaced by such a one) runs
		// no JavaScript and no wrapper between the steps, and its run was
		// abandoned, allocating on.
		"Array.from": func(r *runner, c goja.FunctionCall) goja.Value {
			return r.callArrayLike("from", c)
		},
		// Object.fromEntries too: goja's reads an entry's "0" as nil when
		// it has none and dereferenced it (Object.fromEntries([{}]) ended
		// the run as an engine failure), and walks the iterable natively,
		// as Array.from did.
		"Object.fromEntries": func(r *runner, c goja.FunctionCall) goja.Value {
			return r.callArrayLike("fromEntries", c)
		},
		"Array.prototype.concat": func(r *runner, c goja.FunctionCall) goja.Value {
			if !r.divertConcat(c) {
				return nil
			}
			return r.callArrayLike("concat", c)
		},
	}
	for _, k := range arrayMethods {
		name, ok := k.(string)
		path := "Array.prototype." + name
		if !ok || nativeArrayMethods[path] || name == "concat" {
			continue
		}
		var native func(*runner, goja.FunctionCall) goja.Value
		if name == "fill" {
			native = fillStoppable
		}
		m[path] = func(r *runner, c goja.FunctionCall) goja.Value {
			if r.divertsThis(c.This) {
				return r.callArrayLike(name, c)
			}
			if native != nil {
				return native(r, c)
			}
			return nil
		}
	}
	return m
}

// divertsThis reports whether an array method called on this goes to
// arraylike.js: this is an object but not an Array, or an Array over the
// size limit (an Array's length is its own data property: reading it runs
// nothing), or a primitive other than a string. A string stays native:
// goja makes it an object whose length is its own size. A number, boolean
// or symbol has no length of its own: the builtin reads the one its
// prototype has, which the script may have made 2**53 - 1
// (Object.defineProperty(Number.prototype, "length", {value: 2 ** 53 - 1});
// [].includes.call(5, 1) walked it natively and its run was abandoned).
// undefined and null stay native: the builtin throws its TypeError.
func (r *runner) divertsThis(this goja.Value) bool {
	o, ok := this.(*goja.Object)
	if !ok {
		return !goja.IsString(this) && !isNullish(this)
	}
	return o.ClassName() != "Array" || toLength(o.Get("length")) > r.maxElems
}

// isNullish reports whether v is undefined (or absent) or null.
func isNullish(v goja.Value) bool {
	return v == nil || goja.IsUndefined(v) || goja.IsNull(v)
}

// divertConcat reports whether concat goes to arraylike.js: unless this and
// every argument are primitives or Arrays whose lengths add up to the size
// limit at most (each counted as at least one element: a non-spreadable
// Array is one), and this is not a primitive either (concat makes this an
// object, whose Symbol.isConcatSpreadable and length are its prototype's,
// which the script may have set: Number.prototype's made
// [].concat.call(5) walk 2**53 - 1 natively). Reading an Array's length
// runs nothing, and nothing else is read here: concat reads each item's
// Symbol.isConcatSpreadable once, itself.
func (r *runner) divertConcat(c goja.FunctionCall) bool {
	if _, ok := c.This.(*goja.Object); !ok && !isNullish(c.This) {
		return true
	}
	var total int64
	for i := -1; i < len(c.Arguments); i++ {
		v := c.This
		if i >= 0 {
			v = c.Arguments[i]
		}
		if o, ok := v.(*goja.Object); ok {
			if o.ClassName() != "Array" {
				return true
			}
			total += max(toLength(o.Get("length")), 1)
		} else {
			total++
		}
		if total > r.maxElems {
			return true
		}
	}
	return false
}

// callArrayLike calls the method name of arraylike.js with the call's this
// and arguments; a primitive this made an object first, as the array
// methods' first step does (arraylike.js's are strict: this stays as it is
// given), except for Array.from, whose this is a constructor.
func (r *runner) callArrayLike(name string, c goja.FunctionCall) goja.Value {
	if _, ok := c.This.(*goja.Object); !ok && name != "from" && name != "fromEntries" {
		if isNullish(c.This) { // concat's, when an argument diverted it
			panic(r.vm.NewTypeError("Cannot convert undefined or null to object"))
		}
		c.This = c.This.ToObject(r.vm)
	}
	f, ok := goja.AssertFunction(r.arrayLikeMethods().Get(name))
	if !ok {
		panic(r.vm.NewGoError(fmt.Errorf("arraylike.js has no method %q", name)))
	}
	return call(f, c)
}

// arrayLikeMethods are arraylike.js's methods in this run, made at the
// first call.
func (r *runner) arrayLikeMethods() *goja.Object {
	if r.arrayLike != nil {
		return r.arrayLike
	}
	v, err := r.vm.RunProgram(arrayLikeProgram())
	if err != nil {
		panic(err)
	}
	factory, _ := goja.AssertFunction(v)
	var arrayCtor goja.Value = goja.Undefined()
	if r.arrayCtor != nil {
		arrayCtor = r.arrayCtor
	}
	m, err := factory(goja.Undefined(), r.arrayLikeHost(), goja.SymIterator, goja.SymSpecies, goja.SymIsConcatSpreadable,
		r.vm.ToValue(r.maxElems), arrayCtor)
	if err != nil {
		panic(err)
	}
	r.arrayLike = m.(*goja.Object)
	return r.arrayLike
}

// arrayLikeHost is h of arraylike.js: what it needs of the runtime without
// going through globals or prototypes the script may have replaced.
func (r *runner) arrayLikeHost() *goja.Object {
	vm := r.vm
	h := vm.NewObject()
	set := func(name string, f func(goja.FunctionCall) goja.Value) { _ = h.Set(name, f) }
	set("call", func(c goja.FunctionCall) goja.Value {
		f, ok := goja.AssertFunction(c.Argument(0))
		if !ok {
			// Not formatted with the value: its toString is the script's.
			panic(vm.NewTypeError("the value called is not a function"))
		}
		var args []goja.Value
		if len(c.Arguments) > 2 {
			args = c.Arguments[2:]
		}
		v, err := f(c.Argument(1), args...)
		if err != nil {
			panic(err)
		}
		return v
	})
	set("isConstructor", func(c goja.FunctionCall) goja.Value {
		_, ok := goja.AssertConstructor(c.Argument(0))
		return vm.ToValue(ok)
	})
	set("isArray", func(c goja.FunctionCall) goja.Value {
		o, ok := c.Argument(0).(*goja.Object)
		return vm.ToValue(ok && o.ClassName() == "Array")
	})
	set("createData", func(c goja.FunctionCall) goja.Value {
		o, ok := c.Argument(0).(*goja.Object)
		if !ok {
			panic(vm.NewTypeError("cannot define a property on a primitive"))
		}
		if err := o.DefineDataProperty(c.Argument(1).String(), c.Argument(2), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
			panic(err)
		}
		return goja.Undefined()
	})
	// list is an Array without a prototype, for arraylike.js's lists (goja
	// stores its elements by index, as an object's by name); build makes
	// one a result: the Array it already is, given Array.prototype and its
	// length.
	var arrayProto *goja.Object
	// defineOwn(o, t, v) is CreateDataPropertyOrThrow(o, key, v) for the
	// key of t, an object literal {[k]: v}: the literal made
	// ToPropertyKey(k), a string or a symbol, as the language does. goja's
	// literal makes no property of the key "__proto__" (it sets the
	// prototype): a t without one stands for that key.
	set("defineOwn", func(c goja.FunctionCall) goja.Value {
		o, t, v := c.Argument(0).(*goja.Object), c.Argument(1).(*goja.Object), c.Argument(2)
		var err error
		if keys := t.Keys(); len(keys) == 1 {
			err = o.DefineDataProperty(keys[0], v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
		} else if syms := t.Symbols(); len(syms) == 1 {
			err = o.DefineDataPropertySymbol(syms[0], v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
		} else {
			err = o.DefineDataProperty("__proto__", v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
		}
		if err != nil {
			panic(err)
		}
		return goja.Undefined()
	})
	set("list", func(goja.FunctionCall) goja.Value {
		a := vm.NewArray()
		if arrayProto == nil {
			arrayProto = a.Prototype()
		}
		_ = a.SetPrototype(nil)
		return a
	})
	set("build", func(c goja.FunctionCall) goja.Value {
		a := c.Argument(0).(*goja.Object)
		_ = a.SetPrototype(arrayProto)
		if err := a.Set("length", c.Argument(1)); err != nil {
			panic(err)
		}
		return a
	})
	set("typeError", func(c goja.FunctionCall) goja.Value {
		panic(vm.NewTypeError(c.Argument(0).String()))
	})
	set("rangeError", func(c goja.FunctionCall) goja.Value {
		r.throwRangeError(c.Argument(0).String())
		return nil
	})
	set("tooMany", func(c goja.FunctionCall) goja.Value {
		r.tooMany(int64(c.Argument(0).ToFloat()), c.Argument(1).String())
		return nil
	})
	set("tooLong", func(c goja.FunctionCall) goja.Value {
		r.tooLong(int64(c.Argument(0).ToFloat()), c.Argument(1).String())
		return nil
	})
	set("joinParts", func(c goja.FunctionCall) goja.Value {
		parts := c.Argument(0).(*goja.Object)
		n := c.Argument(1).ToInteger()
		sep := r.str(c.Argument(2))
		var b goja.StringBuilder
		for i := int64(0); i < n; i++ {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(r.str(parts.Get(strconv.FormatInt(i, 10))))
		}
		return b.String()
	})
	return h
}

// guardApply, guardReflectApply and guardReflectConstruct hand the builtin
// the argument list an array-like stands for, read as
// CreateListFromArrayLike reads it (length once, then each index in
// order), in a real Array, after the checks the builtin makes before it:
// goja would read the length again and allocate a list of it in one step
// (a getter answering 1 here and 2**40 there is a fatal out-of-memory). More
// than maxArguments is a catchable RangeError, as engines have.
func guardApply(r *runner, c goja.FunctionCall) goja.FunctionCall {
	if _, ok := goja.AssertFunction(c.This); !ok {
		return c // the builtin throws its TypeError first
	}
	return r.argList(c, 1)
}

func guardReflectApply(r *runner, c goja.FunctionCall) goja.FunctionCall {
	if _, ok := goja.AssertFunction(c.Argument(0)); !ok {
		return c
	}
	return r.argList(c, 2)
}

func guardReflectConstruct(r *runner, c goja.FunctionCall) goja.FunctionCall {
	if _, ok := goja.AssertConstructor(c.Argument(0)); !ok {
		return c
	}
	if len(c.Arguments) > 2 {
		if _, ok := goja.AssertConstructor(c.Arguments[2]); !ok {
			return c
		}
	}
	return r.argList(c, 1)
}

// argList replaces argument i, an array-like, by an Array of its elements
// (see guardApply). Primitives are left to the builtin (undefined and null
// mean no arguments to apply; the rest are TypeErrors).
func (r *runner) argList(c goja.FunctionCall, i int) goja.FunctionCall {
	o, ok := c.Argument(i).(*goja.Object)
	if !ok {
		return c
	}
	n := toLength(o.Get("length"))
	if n > maxArguments {
		r.throwRangeError(fmt.Sprintf("too many arguments: %d (the limit is %d)", n, maxArguments))
	}
	if o.ClassName() == "Array" {
		return c // its length and elements read again by the builtin are the same
	}
	elems := make([]any, n)
	for k := range n {
		v := o.Get(strconv.FormatInt(k, 10))
		if v == nil {
			v = goja.Undefined()
		}
		elems[k] = v
	}
	c.Arguments = append([]goja.Value(nil), c.Arguments...)
	c.Arguments[i] = r.vm.NewArray(elems...)
	return c
}
