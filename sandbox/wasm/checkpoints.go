package wasm

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// wazero stops a module at its deadline only when the module's code passes a
// check point, and its compiler puts one at each loop header and nowhere
// else. Code without loops — exponential recursion, a chain of functions
// each calling the next twice, mutual recursion, call_indirect, in a
// function, the start section or _initialize — runs on past the deadline,
// and while it runs in native code, Go's stop-the-world cannot preempt it:
// the next GC freezes every goroutine of the process.
//
// addCheckpoints rewrites every function body so that none can run long
// without a check point. A mutable global (the "fuel") counts down by the
// size of the code about to run: at each function entry and after each call
// returns, by the size of the function's body. When it drops below zero it is
// refilled and the code enters an empty loop, which wazero compiles to its
// check (an exit to Go: the call stops there if its context is done, and a
// pending stop-the-world proceeds). Code between two charges runs at most
// once (loops have their own check), so at most fuelBudget bytes of code,
// plus one function body, run between two checks; the common path is a few
// instructions on a global.
//
// Every function is rewritten: a leaf is short, but a function calling a
// long leaf many times is not. The deadline stays wazero's: the rewrite only
// adds places where it is checked.

// fuelBudget is the code, in bytes of function bodies, run between checks:
// about a millisecond of straight-line code, or tens of thousands of calls of
// a small recursive function. A check is an exit to Go and back, so it must
// be rare; the countdown is a few instructions on a global.
const fuelBudget = 1 << 20

// maxCharge caps one function's charge, so that fuel never overflows.
const maxCharge = 1 << 24

// More section ids (binary.go has the others).
const (
	customSection   = 0
	importSection   = 2
	globalSection   = 6
	exportSection   = 7
	startSection    = 8
	elementSection  = 9
	codeSection     = 10
	functionSection = 3
)

// errUnknownInstruction is why a body cannot be rewritten: an instruction
// the rewrite does not know. The module is refused rather than run without
// check points.
var errUnknownInstruction = errors.New("unknown instruction")

// addCheckpoints returns bin with a fuel global and check points in every
// function body. A module without code is returned unchanged. It fails on a
// module it cannot parse or an instruction it does not know; the caller
// compiles the original to tell an invalid module from an unsupported one.
func addCheckpoints(bin []byte) ([]byte, error) {
	secs, ok := sections(bin)
	if !ok {
		return nil, errors.New("malformed module")
	}
	var imports, globals, code *section
	for i := range secs {
		switch secs[i].id {
		case importSection:
			imports = &secs[i]
		case globalSection:
			globals = &secs[i]
		case codeSection:
			code = &secs[i]
		}
	}
	if code == nil {
		return bin, nil
	}
	fuel, err := importedGlobals(imports)
	if err != nil {
		return nil, err
	}
	var globalsBody []byte
	if globals != nil {
		n, k := binary.Uvarint(globals.body)
		if k <= 0 {
			return nil, errors.New("malformed global section")
		}
		fuel += uint32(n)
		globalsBody = binary.AppendUvarint(nil, n+1)
		globalsBody = append(globalsBody, globals.body[k:]...)
	} else {
		globalsBody = []byte{1}
	}
	// (global (mut i32) (i32.const fuelBudget))
	globalsBody = append(globalsBody, 0x7f, 0x01, 0x41)
	globalsBody = appendSleb(globalsBody, fuelBudget)
	globalsBody = append(globalsBody, 0x0b)

	codeBody, err := instrumentCode(code.body, fuel)
	if err != nil {
		return nil, err
	}

	out := make([]byte, 0, len(bin)+len(codeBody)-len(code.body)+len(globalsBody)+16)
	out = append(out, bin[:8]...)
	appendSec := func(id byte, body []byte) {
		out = append(out, id)
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
	}
	placed := globals != nil
	for _, s := range secs {
		if !placed && comesAfterGlobals(s.id) {
			appendSec(globalSection, globalsBody)
			placed = true
		}
		switch s.id {
		case globalSection:
			appendSec(globalSection, globalsBody)
		case codeSection:
			appendSec(codeSection, codeBody)
		default:
			out = append(out, bin[s.start:s.end]...)
		}
	}
	return out, nil
}

// comesAfterGlobals reports whether a section of this id must follow the
// global section.
func comesAfterGlobals(id byte) bool {
	switch id {
	case exportSection, startSection, elementSection, dataCountSection, codeSection, dataSection:
		return true
	}
	return false
}

// importedGlobals counts the globals a module imports: the fuel global's
// index comes after them and the module's own.
func importedGlobals(s *section) (uint32, error) {
	if s == nil {
		return 0, nil
	}
	r := reader{p: s.body}
	n := r.u32()
	var globals uint32
	for i := uint32(0); i < n && !r.bad; i++ { // a count past the end stops at the end
		r.name()
		r.name()
		switch kind := r.byte(); kind {
		case 0x00: // function: type index
			r.u32()
		case 0x01: // table: reftype, limits
			r.byte()
			r.limits()
		case 0x02: // memory: limits
			r.limits()
		case 0x03: // global: valtype, mutability
			r.byte()
			r.byte()
			globals++
		default:
			r.fail()
		}
	}
	if r.bad || r.i != len(r.p) {
		return 0, errors.New("malformed import section")
	}
	return globals, nil
}

// instrumentCode rewrites a code section's bodies.
func instrumentCode(p []byte, fuel uint32) ([]byte, error) {
	r := reader{p: p}
	n := r.u32()
	out := binary.AppendUvarint(make([]byte, 0, len(p)+len(p)/4), uint64(n))
	var body []byte
	for i := range n {
		size := r.u32()
		if r.bad || uint64(size) > uint64(len(p)-r.i) {
			return nil, errors.New("malformed code section")
		}
		b, err := instrumentBody(body[:0], p[r.i:r.i+int(size)], fuel)
		if err != nil {
			return nil, fmt.Errorf("function %d: %w", i, err)
		}
		body = b
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
		r.i += int(size)
	}
	if r.bad || r.i != len(p) {
		return nil, errors.New("malformed code section")
	}
	return out, nil
}

// instrumentBody appends to out the function body p with a check point at
// its entry (after the local declarations) and after every call.
func instrumentBody(out, p []byte, fuel uint32) ([]byte, error) {
	r := reader{p: p}
	for range r.u32() { // local declarations: count, type
		r.u32()
		r.valtype()
		if r.bad {
			return nil, errors.New("malformed locals")
		}
	}
	if r.bad {
		return nil, errors.New("malformed locals")
	}
	cp := checkpoint{fuel: fuel, cost: uint32(min(len(p), maxCharge))}
	out = append(out, p[:r.i]...)
	out = cp.append(out)
	from := r.i
	for r.i < len(p) && !r.bad {
		op := r.byte()
		if err := r.immediates(op); err != nil {
			return nil, err
		}
		if op == 0x10 || op == 0x11 { // call, call_indirect
			out = append(out, p[from:r.i]...)
			out = cp.append(out)
			from = r.i
		}
	}
	if r.bad {
		return nil, errors.New("truncated instruction")
	}
	return append(out, p[from:]...), nil
}

// checkpoint is the code that charges cost to the fuel global and, when it
// runs out, refills it and passes wazero's check (an empty loop):
//
//	global.get $fuel  i32.const cost  i32.sub  global.set $fuel
//	global.get $fuel  i32.const 0  i32.lt_s
//	if  i32.const fuelBudget  global.set $fuel  loop end  end
type checkpoint struct{ fuel, cost uint32 }

func (c checkpoint) append(out []byte) []byte {
	out = binary.AppendUvarint(append(out, 0x23), uint64(c.fuel))
	out = appendSleb(append(out, 0x41), int64(c.cost))
	out = binary.AppendUvarint(append(out, 0x6b, 0x24), uint64(c.fuel))
	out = binary.AppendUvarint(append(out, 0x23), uint64(c.fuel))
	out = append(out, 0x41, 0x00, 0x48, 0x04, 0x40)
	out = appendSleb(append(out, 0x41), fuelBudget)
	out = binary.AppendUvarint(append(out, 0x24), uint64(c.fuel))
	return append(out, 0x03, 0x40, 0x0b, 0x0b)
}
