package js

import (
	_ "embed"
	"sync"

	"github.com/dop251/goja"
)

//go:embed removals.js
var removalsSource string

// removals is removals.js, compiled once (our own code: the package-level
// compiler is safe here, scripts never go through it).
var removals = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile("removals.js", removalsSource, true)
})

// remove makes the sandbox's deliberate removals from the language in the
// fresh runtime, the same in both profiles: a new global object without
// removedGlobals (replaceGlobal), and the function constructors blocked
// (removals.js). It returns the new global object. Nothing else differs
// between the profiles' languages but what the hardened one's guards do.
func (r *runner) remove() (*goja.Object, error) {
	g := r.replaceGlobal()
	fn, err := r.vm.RunProgram(removals())
	if err != nil {
		return nil, err
	}
	f, _ := goja.AssertFunction(fn)
	if _, err := f(goja.Undefined(), g); err != nil {
		return nil, err
	}
	return g, nil
}

// removedGlobals are the globals of a fresh goja runtime that the sandbox's
// global object does not have, in both profiles (Hardened and Lean). Tools
// exchange JSON, so scripts do without all of them. BigInt: no JSON form,
// and a BigInt value can be made as large as memory allows in one native
// step (BigInt.asUintN(2**34, -1n)); the compiler refuses BigInt literals
// (whose constant folding runs before any budget), and without the global
// no BigInt can exist. Proxy: a chain of proxies without traps recursed in
// Go on every access. The binary buffers allocate their whole size in one
// step, and nothing a tool takes or gives is binary. eval: no code from
// strings (removals.js blocks the function constructors too), so all the
// code that runs went through the compile-time checks (precheck.go,
// astcheck.go). docs/code-mode.md lists them with these reasons.
var removedGlobals = map[string]bool{
	"BigInt": true, "Proxy": true, "eval": true,
	"ArrayBuffer": true, "SharedArrayBuffer": true, "DataView": true, "Atomics": true,
	"Int8Array": true, "Uint8Array": true, "Uint8ClampedArray": true, "Int16Array": true, "Uint16Array": true,
	"Int32Array": true, "Uint32Array": true, "Float32Array": true, "Float64Array": true,
	"BigInt64Array": true, "BigUint64Array": true,
}

// globalProp is one global the sandbox keeps, with its attributes.
type globalProp struct {
	name                               string
	writable, enumerable, configurable bool
}

// replaceGlobal gives the runtime a new global object holding only
// keptGlobals, the same values with the same attributes, and returns it.
// Deleting the removed globals from goja's own global object would build
// each one first (goja makes its globals lazily, and a delete makes the
// property before removing it: the typed arrays alone cost ≈ 45 µs a run);
// the new object never has them. The old global object is reachable from
// nothing a script can touch: goja's intrinsics do not point to it,
// globalThis is the new object, scripts are strict (no sloppy this), and
// eval and the function constructors are gone (TestHostileOldGlobal and
// testdata/hostile/old_global.js probe the ways back).
func (r *runner) replaceGlobal() *goja.Object {
	vm := r.vm
	old := vm.GlobalObject()
	g := vm.NewObject()
	flag := func(b bool) goja.Flag {
		if b {
			return goja.FLAG_TRUE
		}
		return goja.FLAG_FALSE
	}
	for _, p := range keptGlobals {
		v := old.Get(p.name)
		if p.name == "globalThis" {
			v = g
		}
		_ = g.DefineDataProperty(p.name, v, flag(p.writable), flag(p.configurable), flag(p.enumerable))
	}
	_ = g.DefineDataPropertySymbol(goja.SymToStringTag, old.GetSymbol(goja.SymToStringTag), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	vm.SetGlobalObject(g)
	return g
}
