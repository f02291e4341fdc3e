package js

import (
	"encoding/json"
	"testing"

	"github.com/dop251/goja"
	"github.com/google/go-cmp/cmp"
)

// describeGlobal lists the global object's own properties, in order, with
// their attributes and types, and what it says it is.
const describeGlobal = `JSON.stringify([Object.prototype.toString.call(globalThis), Object.getPrototypeOf(globalThis) === Object.prototype,
  Object.isExtensible(globalThis), Reflect.ownKeys(globalThis).map((k) => {
    const d = Object.getOwnPropertyDescriptor(globalThis, k);
    return [String(k), typeof d.value, d.writable, d.enumerable, d.configurable];
  })])`

// TestHardenedGlobalIsGojasMinusRemoved checks that the global object a
// script sees is goja's own, property for property and attribute for
// attribute, without removedGlobals: replacing the object changes nothing
// else a script can see. (Function is the prelude's blocked one, made
// read-only.)
func TestHardenedGlobalIsGojasMinusRemoved(t *testing.T) {
	r := newBareRunner(maxElemsFor(DefaultMaxMemoryBytes))
	if err := r.harden(); err != nil {
		t.Fatal(err)
	}
	got, err := r.vm.RunString(describeGlobal)
	if err != nil {
		t.Fatal(err)
	}
	bare := goja.New()
	if _, err := bare.RunString(`for (const k of Object.keys(Object.getOwnPropertyDescriptors(globalThis))) {}
		Object.defineProperty(globalThis, "Function", {writable: false, configurable: false})`); err != nil {
		t.Fatal(err)
	}
	for name := range removedGlobals {
		bare.GlobalObject().Delete(name)
	}
	want, err := bare.RunString(describeGlobal)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	_ = json.Unmarshal([]byte(got.String()), &g)
	_ = json.Unmarshal([]byte(want.String()), &w)
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("the hardened global object differs from goja's without the removed globals (-goja +hardened):\n%s", diff)
	}
}
