package wasm

import "fmt"

// reader decodes the parts of the binary format the check points need. A
// read past the end or a malformed number sets bad; reads after that return
// zeros, so a caller checks bad once at the end of a construct.
type reader struct {
	p   []byte
	i   int
	bad bool
}

func (r *reader) fail() { r.bad, r.i = true, len(r.p) }

func (r *reader) byte() byte {
	if r.i >= len(r.p) {
		r.fail()
		return 0
	}
	r.i++
	return r.p[r.i-1]
}

// leb skips a LEB128 number of at most max bytes and returns its value's
// low 64 bits (unsigned reading).
func (r *reader) leb(max int) uint64 {
	var v uint64
	for k := 0; k < max; k++ {
		b := r.byte()
		if r.bad {
			return 0
		}
		if k < 10 {
			v |= uint64(b&0x7f) << (7 * k)
		}
		if b < 0x80 {
			return v
		}
	}
	r.fail()
	return 0
}

func (r *reader) u32() uint32 {
	v := r.leb(5)
	if v > 0xffffffff {
		r.fail()
		return 0
	}
	return uint32(v)
}

func (r *reader) skip(n int) {
	if n > len(r.p)-r.i {
		r.fail()
		return
	}
	r.i += n
}

// name skips a length-prefixed name.
func (r *reader) name() { r.skip(int(r.u32())) }

// limits skips a table's or memory's limits: flags, minimum, maximum if
// flag bit 0 is set.
func (r *reader) limits() {
	flags := r.byte()
	r.leb(10)
	if flags&1 != 0 {
		r.leb(10)
	}
}

// valtype skips a value type: one byte in WebAssembly 2.0.
func (r *reader) valtype() {
	switch r.byte() {
	case 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f:
	default:
		r.fail()
	}
}

// immediates skips the immediates of the instruction op, decoding as
// wazero does for the WebAssembly 2.0 features it enables by default (its
// SIMD opcode is one byte, not a LEB128). An instruction outside that set is
// an error: a body the rewrite cannot walk cannot be bounded.
func (r *reader) immediates(op byte) error {
	switch {
	case op == 0x00 || op == 0x01 || op == 0x05 || op == 0x0b || op == 0x0f || op == 0x1a || op == 0x1b:
	case op >= 0x02 && op <= 0x04: // block, loop, if: block type (s33)
		r.leb(5)
	case op == 0x0c || op == 0x0d: // br, br_if
		r.u32()
	case op == 0x0e: // br_table
		for range r.u32() {
			r.u32()
			if r.bad {
				break
			}
		}
		r.u32()
	case op == 0x10: // call
		r.u32()
	case op == 0x11: // call_indirect: type, table
		r.u32()
		r.u32()
	case op == 0x1c: // select with types
		for range r.u32() {
			r.valtype()
			if r.bad {
				break
			}
		}
	case op >= 0x20 && op <= 0x26: // local.*, global.*, table.get/set
		r.u32()
	case op >= 0x28 && op <= 0x3e: // loads and stores: align, offset
		r.u32()
		r.u32()
	case op == 0x3f || op == 0x40: // memory.size, memory.grow
		r.u32()
	case op == 0x41:
		r.leb(5)
	case op == 0x42:
		r.leb(10)
	case op == 0x43:
		r.skip(4)
	case op == 0x44:
		r.skip(8)
	case op >= 0x45 && op <= 0xc4: // numeric, sign extension
	case op == 0xd0: // ref.null: reftype
		r.byte()
	case op == 0xd1:
	case op == 0xd2: // ref.func
		r.u32()
	case op == 0xfc:
		return r.miscImmediates()
	case op == 0xfd:
		return r.vectorImmediates()
	default:
		return fmt.Errorf("%w 0x%02x", errUnknownInstruction, op)
	}
	return nil
}

// miscImmediates skips a 0xfc instruction: saturating truncations, bulk
// memory and table instructions.
func (r *reader) miscImmediates() error {
	switch sub := r.u32(); {
	case sub <= 7:
	case sub == 8 || sub == 10 || sub == 12 || sub == 14: // two indices
		r.u32()
		r.u32()
	case sub == 9 || sub == 11 || sub == 13 || (sub >= 15 && sub <= 17):
		r.u32()
	default:
		return fmt.Errorf("%w 0xfc %d", errUnknownInstruction, sub)
	}
	return nil
}

// vectorImmediates skips a 0xfd (SIMD) instruction.
func (r *reader) vectorImmediates() error {
	switch sub := r.byte(); {
	case sub <= 0x0b || sub == 0x5c || sub == 0x5d: // loads, store: memarg
		r.u32()
		r.u32()
	case sub == 0x0c || sub == 0x0d: // v128.const, i8x16.shuffle
		r.skip(16)
	case sub >= 0x15 && sub <= 0x22: // extract/replace lane
		r.byte()
	case sub >= 0x54 && sub <= 0x5b: // load/store lane: memarg, lane
		r.u32()
		r.u32()
		r.byte()
	}
	return nil
}
