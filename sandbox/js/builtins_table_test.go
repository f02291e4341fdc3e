package js

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite builtins_table.go from a fresh runtime (what go generate ./sandbox/js runs)")

// tableFile is the generated table, relative to the package.
const tableFile = "builtins_table.go"

// unwrapped are the builtins left as goja has them, by path prefix, with
// the reason (reviewed against goja's builtin_*.go). Wrapping costs about
// 1.5 µs and 1.9 KiB per builtin per run (goja builds the original, we
// build the wrapper); one left unwrapped and untouched costs nothing, goja
// builds it lazily. A builtin belongs here only if it has no guard or
// replacement, is not a JSON or RegExp builtin, does short work (O(1), or
// linear in an input that already exists), and either
//
//	(a) calls nothing a script can observe: no coercion, no getter, no
//	    callback, no species or iterator lookup, no TypeError whose message
//	    formats an object (goja formats with ToPrimitive, and
//	    Object.prototype.toString reads Symbol.toStringTag, a getter: the
//	    Map and Set methods, Number.prototype.valueOf and toFixed stay
//	    wrapped for that, their error paths recurse in Go); or
//	(b) like Math, ignores this or only checks its type, coerces only its
//	    arguments — the toString or valueOf it calls gets no arguments, so
//	    an unwrapped builtin there coerces undefined and stops — and returns
//	    nothing larger than its inputs.
//
// And (c): it never returns an object. Some of goja's loops stop only on
// what the function they call returns — an iterator's next (spread,
// Array.from, the Set methods' other.keys()), a RegExp's exec (match and
// replace of a global pattern): a next that returns an object and never
// says done ran forever, deaf to the timeout, and filled the heap. So the
// getters of prototypes and species, the iterator makers, valueOf of
// objects and the descriptor readers stay wrapped, and so do the builtins
// whose work grows with something a script builds cheaply (a prototype
// chain: isPrototypeOf, Reflect.has, setPrototypeOf; the symbol registry:
// Symbol.keyFor), which a set-like's has, called by the Set methods' own
// loops, would repeat for every element.
//
// "Short" is per call: a builtin's own loop that calls one of these again and
// again (a callback of map or sort, a setter under Object.assign) calls it
// through guardCallback's or guardDescriptor's check, which ends it with the
// run (TestHostileNativeCallbackLoops, TestHostileNativeSetterLoops).
//
// Exact paths, not prefixes, where a prefix would catch one that must stay
// wrapped (Map.prototype.forEach, the Set methods that call other.has). An
// entry starting with "get " or "set " names that half of an accessor.
// walkRuntime leaves them out of builtinTable,
// TestBuiltinsGuardedOrReviewed checks that every native function of a
// hardened runtime is either wrapped, JavaScript, or matched here, and
// TestHostileUnwrappedBuiltins attacks every one matched here.
var unwrapped = []struct{ prefix, why string }{
	{"Math.", "numbers in, a number out; this is ignored, arguments are coerced with ToNumber (their valueOf runs as JavaScript, or as a wrapped builtin)"},
	{"Date.prototype.get", "read the Date's own time value (TypeError for any other this); a number out"},
	{"Date.prototype.set", "the Date's own time value and numbers; coerce only their arguments"},
	{"Date.prototype.to", "(but toJSON) format the Date's own time value into a string of bounded size; TypeError for any other this"},
	{"Date.prototype.valueOf", "the Date's own time value"},
	{"Date.UTC", "numbers in, a number out"},
	{"Date.now", "no input"},
	{"Function.prototype[Symbol.hasInstance]", "cannot be replaced: non-writable and non-configurable, as the language has it (it was listed as wrapped while the define failed quietly; TestTableBuiltinsInstalledWrapped now checks what is installed). OrdinaryHasInstance: false for a non-callable this or a primitive argument, else one read of this.prototype and a walk up the argument's prototype chain, calling nothing else"},
	{"Date.parse", "parses a string into a number; work linear in its length"},
	// (a): never call anything a script can observe (no coercion, no
	// getter, no error message that formats an object).
	{"Array.isArray", "(a) a type test of its argument"},
	{"Object.is", "(a) SameValue of its arguments: no call, work linear in two strings' length at most"},
	{"Error.isError", "(a) a type test of its argument"},
	{"Number.isFinite", "(a) a type test, no coercion"},
	{"Number.isInteger", "(a) a type test, no coercion"},
	{"Number.isNaN", "(a) a type test, no coercion"},
	{"Number.isSafeInteger", "(a) a type test, no coercion"},
	{"Boolean.prototype.toString", "(a) this must be a boolean (TypeError with a fixed message); \"true\" or \"false\""},
	{"Boolean.prototype.valueOf", "(a) this must be a boolean"},
	{"String.prototype.toString", "(a) this must be a string (TypeError with a fixed message); that string"},
	{"String.prototype.valueOf", "(a) as String.prototype.toString"},
	{"Symbol.prototype.valueOf", "(a) this must be a symbol"},
	{"Symbol.prototype[Symbol.toPrimitive]", "(a) Symbol.prototype.valueOf"},
	{"get Symbol.prototype.description", "(a) this must be a symbol; its description, an existing string"},
	{"Function.prototype.arguments", "(a) getter and setter throw a TypeError with a fixed message"},
	{"Function.prototype.caller", "(a) getter and setter throw a TypeError with a fixed message"},
	{"Object.isExtensible", "(a) a flag of its argument"},
	{"Reflect.isExtensible", "(a) a flag of its argument"},
	{"Reflect.preventExtensions", "(a) sets a flag of its argument"},
	// (b): like Math, ignore this (or only check its type), coerce only
	// their arguments (a toString or valueOf called with no arguments),
	// and return something bounded by their inputs.
	{"Number.prototype.toString", "(b) this must be a number (fixed message); ToInteger(radix); at most ~1,100 characters"},
	{"Number.prototype.toLocaleString", "(b) goja's is Number.prototype.toString"},
	{"isNaN", "(b) ToNumber of its argument"},
	{"isFinite", "(b) ToNumber of its argument"},
	{"parseInt", "(b) ToString and ToInt32 of its arguments; a number out, work linear in the string"},
	{"parseFloat", "(b) ToString of its argument; a number out, work linear in the string"},
	{"Number.parseInt", "(b) as parseInt"},
	{"Number.parseFloat", "(b) as parseFloat"},
	{"decodeURI", "(b) ToString of its argument; the result is no longer than it, work linear in it"},
	{"decodeURIComponent", "(b) as decodeURI"},
	{"unescape", "(b) as decodeURI"},
	{"Symbol.for", "(b) ToString of its argument; one registry entry per new key"},
	{"Object.hasOwn", "(b) ToObject and ToPropertyKey of its arguments; one own-property lookup, no getter runs"},
	{"Object.prototype.hasOwnProperty", "(b) ToPropertyKey of its argument, ToObject(this) (no call); one own-property lookup"},
	{"Object.prototype.propertyIsEnumerable", "(b) as hasOwnProperty"},
}

// unwrappedWhy is the reason path is left unwrapped, or "".
func unwrappedWhy(path string) string {
	p := strings.TrimPrefix(strings.TrimPrefix(path, "get "), "set ")
	switch p {
	case "Date.prototype.toJSON":
		return "" // generic: ToPrimitive(this), then this.toISOString()
	case "Math.sign":
		return "" // goja's returns its argument itself when it is NaN or zero: an object, against (c)
	}
	for _, u := range unwrapped {
		if strings.HasPrefix(u.prefix, "get ") || strings.HasPrefix(u.prefix, "set ") {
			if path == u.prefix {
				return u.why
			}
			continue
		}
		if p == u.prefix || strings.HasPrefix(p, u.prefix) && (strings.HasSuffix(u.prefix, ".") ||
			strings.HasPrefix(u.prefix, "Date.prototype.") || p[len(u.prefix)] == '.' || p[len(u.prefix)] == '[') {
			return u.why
		}
	}
	return ""
}

// wellKnownSymbols are goja's exported symbols, by the Go expression the
// table spells them with: a builtin keyed by another symbol could not be
// found again in a run's runtime.
var wellKnownSymbols = map[*goja.Symbol]string{
	goja.SymHasInstance: "goja.SymHasInstance", goja.SymIsConcatSpreadable: "goja.SymIsConcatSpreadable",
	goja.SymIterator: "goja.SymIterator", goja.SymMatch: "goja.SymMatch", goja.SymMatchAll: "goja.SymMatchAll",
	goja.SymReplace: "goja.SymReplace", goja.SymSearch: "goja.SymSearch", goja.SymSpecies: "goja.SymSpecies",
	goja.SymSplit: "goja.SymSplit", goja.SymToPrimitive: "goja.SymToPrimitive", goja.SymToStringTag: "goja.SymToStringTag",
	goja.SymUnscopables: "goja.SymUnscopables",
}

// walkRuntime finds in a fresh runtime what builtinTable and keptGlobals
// hold: the globals but removedGlobals, in the runtime's order, with their
// attributes, and every native function reachable from them (methods,
// static functions, getters and setters) that can be wrapped and is not
// on the unwrapped list, sorted by path.
func walkRuntime() ([]builtinEntry, []globalProp) {
	vm := goja.New()
	global := vm.GlobalObject()
	object := global.Get("Object").(*goja.Object)
	gopd, _ := goja.AssertFunction(object.Get("getOwnPropertyDescriptor"))
	gops, _ := goja.AssertFunction(object.Get("getOwnPropertySymbols"))
	descriptor := func(o *goja.Object, k any) *goja.Object {
		kv, ok := k.(goja.Value)
		if !ok {
			kv = vm.ToValue(k)
		}
		d, err := gopd(goja.Undefined(), o, kv)
		if err != nil {
			panic(err)
		}
		return d.(*goja.Object)
	}

	var globals []globalProp
	for _, name := range global.GetOwnPropertyNames() {
		if !removedGlobals[name] {
			d := descriptor(global, name)
			globals = append(globals, globalProp{name, d.Get("writable").ToBoolean(), d.Get("enumerable").ToBoolean(), d.Get("configurable").ToBoolean()})
		}
	}

	var entries []builtinEntry
	var fns []*goja.Object // entries[i]'s function
	seen := map[*goja.Object]bool{}
	type item struct {
		obj  *goja.Object
		path []any
	}
	queue := []item{{global, nil}}
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
		syms, err := gops(goja.Undefined(), it.obj)
		if err != nil {
			panic(err)
		}
		arr := syms.(*goja.Object)
		for i := range toLength(arr.Get("length")) {
			keys = append(keys, arr.Get(strconv.FormatInt(i, 10)).(*goja.Symbol))
		}
		for _, k := range keys {
			if s, ok := k.(string); ok && it.obj == global && removedGlobals[s] {
				continue // not on the sandbox's global object
			}
			desc := descriptor(it.obj, k)
			path := append(slices.Clip(it.path), k)
			for kind, field := range []string{"value", "get", "set"} {
				f, ok := desc.Get(field).(*goja.Object)
				if !ok {
					continue
				}
				if _, isFunc := goja.AssertFunction(f); isFunc && wrappable(f) && unwrappedWhy(refName(builtinKind(kind), path)) == "" {
					entries = append(entries, builtinEntry{owner: it.path, key: k, kind: builtinKind(kind),
						ownerPath: refName(builtinValue, it.path), path: refName(builtinKind(kind), path),
						name: f.Get("name").String(), length: int(f.Get("length").ToInteger()),
						writable: kind == 0 && desc.Get("writable").ToBoolean(), enumerable: desc.Get("enumerable").ToBoolean(),
						configurable: desc.Get("configurable").ToBoolean()})
					fns = append(fns, f)
				}
				if kind == 0 {
					queue = append(queue, item{f, path})
				}
			}
		}
	}
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return entries[order[i]].path < entries[order[j]].path })
	sorted := make([]builtinEntry, len(entries))
	first := map[*goja.Object]string{} // the first path of each function, in table order
	for i, o := range order {
		sorted[i] = entries[o]
		if p, ok := first[fns[o]]; ok {
			sorted[i].alias = p
		} else {
			first[fns[o]] = sorted[i].path
		}
	}
	return sorted, globals
}

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

var kindNames = [...]string{builtinValue: "builtinValue", builtinGetter: "builtinGetter", builtinSetter: "builtinSetter"}

// tableDiff is what differs between two tables, as lines a reader can
// follow (-want +got), or "".
func tableDiff(wantEntries, gotEntries []builtinEntry, wantGlobals, gotGlobals []globalProp) string {
	lines := func(entries []builtinEntry) []string {
		var out []string
		for _, e := range entries {
			keys := append(slices.Clip(e.owner), e.key)
			parts := make([]string, len(keys))
			for i, k := range keys {
				if s, ok := k.(*goja.Symbol); ok {
					parts[i] = wellKnownSymbols[s] // a symbol nobody exports: ""
				} else {
					parts[i] = strconv.Quote(k.(string))
				}
			}
			out = append(out, fmt.Sprintf("%s %v %s %q name %q length %d writable %t enumerable %t configurable %t alias %q",
				e.path, parts, kindNames[e.kind], e.ownerPath, e.name, e.length, e.writable, e.enumerable, e.configurable, e.alias))
		}
		return out
	}
	return cmp.Diff(lines(wantEntries), lines(gotEntries)) + cmp.Diff(wantGlobals, gotGlobals, cmp.AllowUnexported(globalProp{}))
}

// renderTable is the source of builtins_table.go.
func renderTable(entries []builtinEntry, globals []globalProp) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`// Code generated by "go test -run ^TestBuiltinTable$ -update"; DO NOT EDIT.

package js

import "github.com/dop251/goja"

// builtinTable are the builtins every run wraps (see builtins.go): owner,
// key, kind, owner's path, path, name, length, writable, enumerable,
// configurable, alias.
var builtinTable = []builtinEntry{
`)
	key := func(k any) (string, error) {
		switch k := k.(type) {
		case string:
			return strconv.Quote(k), nil
		case *goja.Symbol:
			if name, ok := wellKnownSymbols[k]; ok {
				return name, nil
			}
		}
		return "", fmt.Errorf("key %v: neither a string nor one of goja's exported symbols", k)
	}
	for _, e := range entries {
		var owner []string
		for _, k := range e.owner {
			s, err := key(k)
			if err != nil {
				return nil, err
			}
			owner = append(owner, s)
		}
		k, err := key(e.key)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "\t{[]any{%s}, %s, %s, %q, %q, %q, %d, %t, %t, %t, %q},\n", strings.Join(owner, ", "), k, kindNames[e.kind],
			e.ownerPath, e.path, e.name, e.length, e.writable, e.enumerable, e.configurable, e.alias)
	}
	b.WriteString(`}

// keptGlobals are the globals of a fresh goja runtime, in its order, minus
// removedGlobals, with their attributes (see replaceGlobal).
var keptGlobals = []globalProp{
`)
	for _, g := range globals {
		fmt.Fprintf(&b, "\t{%q, %t, %t, %t},\n", g.name, g.writable, g.enumerable, g.configurable)
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}

// TestBuiltinTable walks a fresh runtime, as the sandbox once did in every
// process, and fails when builtins_table.go says otherwise: after a goja
// upgrade, or a change to the unwrapped list or removedGlobals. With
// -update (go generate ./sandbox/js) it rewrites the file. (After a change
// to builtinEntry the old file does not compile: replace it with
// "package js; var builtinTable []builtinEntry; var keptGlobals []globalProp"
// first.)
func TestBuiltinTable(t *testing.T) {
	entries, globals := walkRuntime()
	if *update {
		src, err := renderTable(entries, globals)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(tableFile, src, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s: %d builtins, %d globals; rebuild to use it", tableFile, len(entries), len(globals))
		return
	}
	if _, err := renderTable(entries, globals); err != nil {
		t.Error(err)
	}
	if diff := tableDiff(builtinTable, entries, keptGlobals, globals); diff != "" {
		t.Errorf("%s differs from a fresh runtime (-table +runtime); run go generate ./sandbox/js:\n%s", tableFile, diff)
	}
	if len(entries) < 150 {
		t.Errorf("the walk found only %d builtins", len(entries))
	}
	// An alias gets its first path's wrapper (one function, one wrapper):
	// the two paths must be guarded alike.
	for _, e := range entries {
		if e.alias == "" {
			continue
		}
		if (builtinGuards[e.path] == nil) != (builtinGuards[e.alias] == nil) || (builtinReplacements[e.path] == nil) != (builtinReplacements[e.alias] == nil) ||
			!slices.Equal(callbackArgs[e.path], callbackArgs[e.alias]) {
			t.Errorf("%s is %s, guarded otherwise: the one wrapper both get cannot guard both", e.path, e.alias)
		}
	}
}

// replace is a copy of entries with entries[at] changed by change.
func replace(entries []builtinEntry, at int, change func(*builtinEntry)) []builtinEntry {
	out := slices.Clone(entries)
	change(&out[at])
	return out
}

// tableDiff reports a builtin or global the table lacks, one too many, and
// one under another key or kind.
func TestBuiltinTableDiffReportsDrift(t *testing.T) {
	entries, globals := walkRuntime()
	at := slices.IndexFunc(entries, func(e builtinEntry) bool { return e.path == "String.prototype.repeat" })
	if at < 0 {
		t.Fatal("the walk did not find String.prototype.repeat")
	}
	for name, c := range map[string]struct {
		entries []builtinEntry
		globals []globalProp
		want    string
	}{
		"builtin missing":  {slices.Delete(slices.Clone(entries), at, at+1), globals, "String.prototype.repeat"},
		"builtin extra":    {append(slices.Clone(entries), builtinEntry{owner: []any{"String"}, key: "repeat", kind: builtinValue, ownerPath: "String", path: "String.repeat", name: "repeat", length: 1}), globals, "String.repeat"},
		"getter as value":  {replace(entries, at, func(e *builtinEntry) { e.kind = builtinGetter }), globals, `"Getter",`},
		"other symbol key": {replace(entries, at, func(e *builtinEntry) { e.key = goja.SymSplit }), globals, "goja.SymSplit"},
		"other owner path": {replace(entries, at, func(e *builtinEntry) { e.ownerPath = "String" }), globals, `String.prototype.repeat`},
		"global missing":   {entries, globals[1:], globals[0].name},
		"global attribute": {entries, append([]globalProp{{globals[0].name, !globals[0].writable, globals[0].enumerable, globals[0].configurable}}, globals[1:]...), globals[0].name},
	} {
		diff := tableDiff(c.entries, entries, c.globals, globals)
		if !strings.Contains(diff, c.want) {
			t.Errorf("%s: the diff does not name %s:\n%s", name, c.want, diff)
		}
	}
	if diff := tableDiff(entries, entries, globals, globals); diff != "" {
		t.Errorf("a table differs from itself:\n%s", diff)
	}
}
