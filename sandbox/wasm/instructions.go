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
	if r.i < len(r.p) && r.p[r.i] < 0x80 { // the common one-byte case
		r.i++
		return uint32(r.p[r.i-1])
	}
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

// The immediates an opcode takes, for the table below.
const (
	immUnknown = iota
	immNone
	immU32   // an index or label
	immU32x2 // memarg (align, offset); call_indirect (type, table)
	immS33   // block type
	immS64   // i64.const
	imm4     // f32.const
	imm8     // f64.const
	immByte  // ref.null's type
	immBrTable
	immSelect // select with types
	immMisc   // 0xfc prefix
	immVector // 0xfd prefix
)

// immKinds maps each one-byte opcode of WebAssembly 2.0 to its immediates.
var immKinds = func() (k [256]uint8) {
	set := func(kind uint8, ops ...byte) {
		for _, op := range ops {
			k[op] = kind
		}
	}
	set(immNone, 0x00, 0x01, 0x05, 0x0b, 0x0f, 0x1a, 0x1b, 0xd1)
	for op := 0x45; op <= 0xc4; op++ { // numeric, sign extension
		k[op] = immNone
	}
	set(immS33, 0x02, 0x03, 0x04) // block, loop, if
	set(immU32, 0x0c, 0x0d, 0x10, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x3f, 0x40, 0xd2)
	k[0x41] = immS33 // i32.const: a signed LEB128 of at most 5 bytes
	k[0x11] = immU32x2
	for op := 0x28; op <= 0x3e; op++ { // loads and stores
		k[op] = immU32x2
	}
	k[0x42] = immS64
	k[0x43] = imm4
	k[0x44] = imm8
	k[0xd0] = immByte
	k[0x0e] = immBrTable
	k[0x1c] = immSelect
	k[0xfc] = immMisc
	k[0xfd] = immVector
	return k
}()

// immediates skips the immediates of the instruction op, decoding as
// wazero does for the WebAssembly 2.0 features it enables by default (its
// SIMD opcode is one byte, not a LEB128). An instruction outside that set is
// an error: a body the rewrite cannot walk cannot be bounded.
func (r *reader) immediates(op byte) error {
	switch immKinds[op] {
	case immNone:
	case immU32:
		r.u32()
	case immU32x2:
		r.u32()
		r.u32()
	case immS33:
		r.leb(5)
	case immS64:
		r.leb(10)
	case imm4:
		r.skip(4)
	case imm8:
		r.skip(8)
	case immByte:
		r.byte()
	case immBrTable:
		for range r.u32() {
			r.u32()
			if r.bad {
				break
			}
		}
		r.u32()
	case immSelect:
		for range r.u32() {
			r.valtype()
			if r.bad {
				break
			}
		}
	case immMisc:
		return r.miscImmediates()
	case immVector:
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
