package wasm

import (
	"errors"
	"fmt"
	"strings"
)

// wazero v1.12.0's decoder trusts the counts in a module: it allocates a
// vector's elements, a string's or a data segment's bytes, a function
// type's params and results, a code body's locals and the name section's
// maps from the count it reads, before reading what they count. Fuzzing
// found a module whose code section claims 2^28-1 functions in 33 bytes:
// make([]wasm.Code, 2^28-1), gigabytes, and the process was killed. A
// function's locals are run-length encoded, so a few bytes declare 2^32 of
// them.
//
// checkBounds walks a module's structure before wazero sees it and refuses
// every count or size that cannot fit in the bytes left (a vector element
// takes at least one byte, at least its smallest encoding for the vectors
// below; a string or byte vector of n bytes needs n bytes), and more locals
// than maxFunctionLocals in a function or maxModuleLocals in the module.
// Every refused count would fail in wazero anyway, after the allocation,
// except the locals. It is a bounds walk, not a validator: wazero judges
// everything else, and the walk reads what wazero's decoder reads, in the
// same order, so that no count wazero reads goes unchecked. Where wazero
// stops with an error before allocating anything the walk may stop too.
//
// The "name" custom section is checked, not dropped: wazero names the
// functions of a trap's stack trace from it. Other custom sections are
// only bytes, bounded by their section's size.

// maxFunctionLocals is V8's limit on a function's locals
// (kV8MaxWasmFunctionLocals): modules that browsers run stay within it, and
// wazero keeps a byte per declared local, so without it one function of a
// few bytes declares 4 GiB.
const maxFunctionLocals = 50_000

// maxTypeValues is V8's limit on a function type's params, and on its
// results (kV8MaxWasmFunctionParams, kV8MaxWasmFunctionReturns): wazero
// builds each type's key string a value at a time, in time and memory
// quadratic in their number (100,000 params in a 100 KB module: 6 s and
// 14.6 GiB allocated).
const maxTypeValues = 1000

// maxModuleLocals bounds the locals of all functions together: wazero's
// compiler spends about 8 bytes per declared local, so 1,000 functions of
// 50,000 locals each (an 8 KB module) took 384 MiB and 0.4 s to compile. A
// 3.5 MB Go tool declares 9,316 locals; 2^20 cost 8 MiB and 15 ms.
const maxModuleLocals = 1 << 20

// The smallest encodings wazero's decoder reads of a vector element, where
// larger than one byte.
const (
	minType       = 2 // an empty recursion group: 0x4e, 0
	minFuncType   = 3 // 0x60, no params, no results
	minImport     = 4 // two empty names, kind, one-byte index
	minTable      = 3 // reftype, limits flag, minimum
	minGlobal     = 3 // valtype, mutability, end
	minExport     = 3 // empty name, kind, index
	minElement    = 3 // prefix 1: prefix, element kind, empty vector
	minCode       = 3 // size, no locals, end
	minData       = 2 // prefix 1: prefix, no bytes
	minTag        = 2 // attribute, type index
	minNameAssoc  = 2 // index, empty name
	minLocalNames = 2 // function index, empty map
	minLocals     = 2 // count, valtype
)

// errMalformed is what the walk reports when it cannot follow a module:
// wazero would refuse it too.
var errMalformed = errors.New("malformed")

// checkBounds refuses a module whose counts cannot fit in its bytes or that
// declares too many locals; it is cheap: one pass, and no allocation but
// the list of sections for a well-formed module.
func checkBounds(bin []byte) error {
	secs, ok := sections(bin)
	if !ok {
		return errors.New("malformed module: no WebAssembly header, or a section runs past the end")
	}
	var locals uint64
	for _, s := range secs {
		w := boundsWalk{reader: reader{p: s.body}, section: s.id}
		switch s.id {
		case customSection:
			w.custom()
		case typeSection:
			w.types()
		case importSection:
			w.imports()
		case functionSection:
			w.vector(plain("functions"), 1, func(int) { w.u32() })
		case tableSection:
			w.vector(plain("tables"), minTable, func(int) { w.table() })
		case globalSection:
			w.vector(plain("globals"), minGlobal, func(int) { w.valtype(); w.byte(); w.constExpr() })
		case exportSection:
			w.vector(plain("exports"), minExport, func(int) { w.bytes(plain("an export name")); w.byte(); w.u32() })
		case elementSection:
			w.vector(plain("element segments"), minElement, w.element)
		case codeSection:
			w.code(&locals)
		case dataSection:
			w.vector(plain("data segments"), minData, w.data)
		case tagSection:
			w.vector(plain("tags"), minTag, func(int) { w.byte(); w.u32() })
		}
		// memory, start and data count hold no count wazero allocates by.
		if w.err != nil {
			return w.err
		}
		if w.bad {
			return fmt.Errorf("%s is %v: it ends inside an entry", w.sectionName(), errMalformed)
		}
	}
	return nil
}

// Section ids the other files do not name.
const (
	typeSection = 1
	tagSection  = 13
)

// boundsWalk reads one section. The first refusal is kept in err, and the
// reader is then at its end, so every loop after it ends at once. Nothing
// is formatted until a refusal: the walk allocates nothing on the way.
type boundsWalk struct {
	reader
	section byte
	names   bool // the custom section is "name"
	err     error
}

func (w *boundsWalk) sectionName() string {
	names := [...]string{"custom", "type", "import", "function", "table", "memory", "global",
		"export", "start", "element", "code", "data", "data count", "tag"}
	switch {
	case w.names:
		return `"name" section`
	case int(w.section) < len(names):
		return names[w.section] + " section"
	}
	return fmt.Sprintf("section %d", w.section)
}

func (w *boundsWalk) refuse(format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("%s %s", w.sectionName(), fmt.Sprintf(format, args...))
	}
	w.fail()
}

// thing names what a count counts, for an error: its text takes index at
// its %d, if it has one.
type thing struct {
	text  string
	index int
}

func (t thing) String() string {
	if strings.Contains(t.text, "%d") {
		return fmt.Sprintf(t.text, t.index)
	}
	return t.text
}

func plain(text string) thing { return thing{text: text} }

func (w *boundsWalk) left() int { return len(w.p) - w.i }

// count reads the length of a vector of what, whose elements take at least
// size bytes each, and refuses one that cannot fit in the bytes left.
func (w *boundsWalk) count(what thing, size int) uint32 {
	n := w.u32()
	if uint64(n)*uint64(size) > uint64(w.left()) {
		w.refuse("claims %d %s in %d bytes", n, what, w.left())
		return 0
	}
	return n
}

// vector walks a vector of what, each element by elem.
func (w *boundsWalk) vector(what thing, size int, elem func(i int)) {
	n := w.count(what, size)
	for i := 0; i < int(n) && !w.bad; i++ {
		elem(i)
	}
}

// bytes skips a byte vector or string (what, with its article): its size,
// then that many bytes.
func (w *boundsWalk) bytes(what thing) {
	n := w.u32()
	if uint64(n) > uint64(w.left()) {
		w.refuse("claims %s of %d bytes in %d bytes", what, n, w.left())
		return
	}
	w.i += int(n)
}

// valtype skips a value type: one byte, or a reference type prefix and its
// heap type (wazero judges which ones are valid).
func (w *boundsWalk) valtype() {
	if b := w.byte(); b == 0x63 || b == 0x64 {
		w.leb(5)
	}
}

// types walks the type section: function types, and recursion groups of
// them (0x4e).
func (w *boundsWalk) types() {
	w.vector(plain("types"), minType, func(i int) {
		if w.i < len(w.p) && w.p[w.i] == 0x4e {
			w.i++
			w.vector(thing{"types in the group of type %d", i}, minFuncType, func(int) { w.funcType(i) })
			return
		}
		w.funcType(i)
	})
}

func (w *boundsWalk) funcType(i int) {
	if w.byte() != 0x60 {
		w.refuse("is %v: type %d is not a function type", errMalformed, i)
		return
	}
	for _, what := range []string{"params", "results"} {
		n := w.count(thing{what + " of type %d", i}, 1)
		if n > maxTypeValues {
			w.refuse("declares %d %s in type %d, over the limit of %d", n, what, i, maxTypeValues)
			return
		}
		for j := 0; j < int(n) && !w.bad; j++ {
			w.valtype()
		}
	}
}

func (w *boundsWalk) imports() {
	w.vector(plain("imports"), minImport, func(i int) {
		w.bytes(plain("a module name"))
		w.bytes(plain("an import name"))
		switch kind := w.byte(); kind {
		case 0x00: // function
			w.u32()
		case 0x01:
			w.table()
		case 0x02: // memory
			w.limits()
		case 0x03: // global
			w.valtype()
			w.byte()
		case 0x04: // tag
			w.byte()
			w.u32()
		default:
			w.refuse("is %v: import %d has kind %d", errMalformed, i, kind)
		}
	})
}

// table skips a table type, with its initial value (0x40 0x00 prefix).
func (w *boundsWalk) table() {
	init := w.i < len(w.p) && w.p[w.i] == 0x40
	if init {
		w.skip(2)
	}
	w.valtype()
	w.limits()
	if init {
		w.constExpr()
	}
}

// constExpr skips a constant expression, reading each instruction as
// wazero's decoder does.
func (w *boundsWalk) constExpr() {
	for !w.bad {
		switch op := w.byte(); op {
		case 0x0b: // end
			return
		case 0x41: // i32.const
			w.leb(5)
		case 0x42: // i64.const
			w.leb(10)
		case 0x43: // f32.const
			w.skip(4)
		case 0x44: // f64.const
			w.skip(8)
		case 0x23, 0xd2: // global.get, ref.func
			w.u32()
		case 0xd0: // ref.null: a one-byte reftype or a type index
			w.u32()
		case 0xfd: // v128.const
			if w.byte() != 0x0c {
				w.refuse("is %v: a vector instruction in a constant expression", errMalformed)
			}
			w.skip(16)
		case 0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e: // extended-const arithmetic
		default:
			if !w.bad {
				w.refuse("is %v: instruction 0x%02x in a constant expression", errMalformed, op)
			}
		}
	}
}

// element walks an element segment, by its prefix: which of table index,
// offset, element kind or reference type it has, and whether its elements
// are function indices or constant expressions.
func (w *boundsWalk) element(i int) {
	prefix := w.u32()
	if prefix > 7 {
		w.refuse("is %v: element segment %d has prefix %d", errMalformed, i, prefix)
		return
	}
	if prefix == 2 || prefix == 6 {
		w.u32() // table index
	}
	if prefix&1 == 0 {
		w.constExpr() // offset of an active segment
	}
	if prefix != 0 && prefix != 4 {
		w.valtype() // element kind (0x00) or reference type
	}
	what := thing{"elements in segment %d", i}
	if prefix < 4 {
		w.vector(what, 1, func(int) { w.u32() })
	} else {
		w.vector(what, 1, func(int) { w.constExpr() })
	}
}

func (w *boundsWalk) data(i int) {
	switch prefix := w.u32(); prefix {
	case 0:
		w.constExpr()
	case 1:
	case 2:
		w.u32()
		w.constExpr()
	default:
		w.refuse("is %v: data segment %d has prefix %d", errMalformed, i, prefix)
		return
	}
	w.bytes(thing{"data segment %d", i})
}

// code walks the code section: each body's size and its local
// declarations, adding the locals to *total. The instructions are the
// compiler's to judge: wazero reads them without trusting a count.
func (w *boundsWalk) code(total *uint64) {
	w.vector(plain("functions"), minCode, func(i int) {
		size := w.u32()
		if uint64(size) > uint64(w.left()) {
			w.refuse("claims a body of %d bytes for function %d in %d bytes", size, i, w.left())
			return
		}
		body := boundsWalk{reader: reader{p: w.p[w.i : w.i+int(size)]}, section: w.section}
		w.i += int(size)
		var locals uint64
		body.vector(thing{"local declarations in function %d", i}, minLocals, func(int) {
			locals += uint64(body.u32())
			body.valtype()
		})
		*total += locals
		switch {
		case body.err != nil:
			w.err = body.err
		case body.bad:
			w.refuse("is %v: function %d ends inside its locals", errMalformed, i)
		case locals > maxFunctionLocals:
			w.refuse("declares %d locals in function %d, over the limit of %d", locals, i, maxFunctionLocals)
		case *total > maxModuleLocals:
			w.refuse("declares %d locals up to function %d, over the module's limit of %d", *total, i, maxModuleLocals)
		}
		if w.err != nil {
			w.fail()
		}
	})
}

// custom walks the "name" section, which wazero decodes; other custom
// sections are skipped.
func (w *boundsWalk) custom() {
	n := w.u32()
	if uint64(n) > uint64(w.left()) {
		w.refuse("claims a section name of %d bytes in %d bytes", n, w.left())
		return
	}
	w.i += int(n)
	if string(w.p[w.i-int(n):w.i]) == "name" {
		w.names = true
		w.nameSubsections()
		return
	}
	w.i = len(w.p)
}

// nameSubsections walks the name section's subsections. wazero reads the module,
// function and local names by their contents, not by the subsection's
// size, so each must fill its subsection exactly: otherwise wazero would
// go on reading, at the wrong place, counts this walk has not checked.
// The other subsections wazero skips by their size.
func (w *boundsWalk) nameSubsections() {
	for w.i < len(w.p) && !w.bad {
		id := w.byte()
		size := w.u32()
		if uint64(size) > uint64(w.left()) {
			w.refuse("claims a subsection of %d bytes in %d bytes", size, w.left())
			return
		}
		sub := boundsWalk{reader: reader{p: w.p[w.i : w.i+int(size)]}, section: w.section, names: true}
		w.i += int(size)
		switch id {
		case 0:
			sub.bytes(plain("a module name"))
		case 1:
			sub.nameMap(plain("function names"))
		case 2:
			sub.vector(plain("functions' local names"), minLocalNames, func(int) {
				sub.u32()
				sub.nameMap(plain("local names"))
			})
		default:
			continue
		}
		if sub.err == nil && (sub.bad || sub.i != len(sub.p)) {
			sub.refuse("is %v: subsection %d does not fill its %d bytes", errMalformed, id, size)
		}
		if sub.err != nil {
			w.err = sub.err
			w.fail()
		}
	}
}

func (w *boundsWalk) nameMap(what thing) {
	w.vector(what, minNameAssoc, func(int) {
		w.u32()
		w.bytes(plain("a name"))
	})
}
