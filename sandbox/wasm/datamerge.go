package wasm

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// mergeDataSegments rewrites a module's data section so that runs of nearby
// active data segments become one segment, the gaps between them filled with
// zeros. The memory the module starts with is byte for byte the same.
//
// Why: wazero evaluates every data segment's offset and copies its bytes at
// each instantiation. Go's linker emits one segment per run of non-zero data
// — about 39,000 for a small Go tool — which made applying them a third of a
// fresh Go instance's cost (≈ 1.5 ms). Merged, a Go tool has a handful.
//
// Only the plain case is rewritten: every segment active in memory 0 at an
// i32.const offset, no two overlapping, and no data count
// section (so no instruction can name a segment). Anything else, including
// a malformed module, is returned unchanged for the compiler to judge.
func mergeDataSegments(bin []byte) []byte {
	secs, ok := sections(bin)
	if !ok {
		return bin
	}
	var data *section
	for i := range secs {
		switch secs[i].id {
		case dataCountSection:
			return bin
		case dataSection:
			data = &secs[i]
		}
	}
	if data == nil {
		return bin
	}
	segs, ok := parseDataSegments(data.body)
	if !ok {
		return bin
	}
	merged := mergeNearby(segs)
	if len(merged) == len(segs) {
		return bin
	}
	return replaceSection(bin, *data, encodeDataSegments(merged))
}

// segment is an active data segment of memory 0.
type segment struct {
	offset uint32
	init   []byte
}

// maxGap is the longest run of zeros a merge writes out: longer gaps keep
// their segments apart, so the binary grows little.
const maxGap = 4096

func parseDataSegments(p []byte) ([]segment, bool) {
	count, n := binary.Uvarint(p)
	if n <= 0 || count > uint64(len(p)) {
		return nil, false
	}
	p = p[n:]
	segs := make([]segment, 0, count)
	for range count {
		// flags 0 (active, memory 0), then the offset expression
		// "i32.const N; end", then the bytes.
		if len(p) < 2 || p[0] != 0 || p[1] != 0x41 {
			return nil, false
		}
		off, n, ok := readSleb32(p[2:])
		if !ok || off < 0 || len(p) < 2+n+1 || p[2+n] != 0x0b {
			return nil, false
		}
		p = p[2+n+1:]
		size, m := binary.Uvarint(p)
		if m <= 0 || size > uint64(len(p)-m) {
			return nil, false
		}
		segs = append(segs, segment{offset: uint32(off), init: p[m : m+int(size)]})
		p = p[m+int(size):]
	}
	if len(p) != 0 {
		return nil, false
	}
	// Segments that do not overlap write the same memory in any order, so
	// they may be sorted; overlapping ones keep the module as it is.
	slices.SortStableFunc(segs, func(a, b segment) int { return cmp.Compare(a.offset, b.offset) })
	end := uint64(0)
	for _, s := range segs {
		if uint64(s.offset) < end {
			return nil, false
		}
		end = uint64(s.offset) + uint64(len(s.init))
	}
	return segs, true
}

// readSleb32 reads a WebAssembly signed LEB128 of at most 5 bytes.
func readSleb32(p []byte) (v int64, n int, ok bool) {
	var shift uint
	for i := 0; i < len(p) && i < 5; i++ {
		b := p[i]
		v |= int64(b&0x7f) << shift
		shift += 7
		if b < 0x80 {
			if shift < 64 && b&0x40 != 0 {
				v |= -1 << shift
			}
			if v != int64(int32(v)) { // an i32.const the validator refuses: leave it to refuse
				return 0, 0, false
			}
			return v, i + 1, true
		}
	}
	return 0, 0, false
}

// mergeNearby merges runs of segments whose gaps are at most maxGap; each
// merged segment is allocated once. It returns segs unchanged when merging
// would more than double the data (segments that are mostly gaps, such as
// empty ones 4 KiB apart): a hostile module must not make loading allocate
// gigabytes.
func mergeNearby(segs []segment) []segment {
	type run struct{ from, to int } // segs[from:to]
	var runs []run
	var data, merged uint64
	start := 0
	for i := 1; i <= len(segs); i++ {
		if i < len(segs) {
			prev := segs[i-1]
			if uint64(segs[i].offset)-(uint64(prev.offset)+uint64(len(prev.init))) <= maxGap {
				continue
			}
		}
		first, last := segs[start], segs[i-1]
		merged += uint64(last.offset-first.offset) + uint64(len(last.init))
		runs = append(runs, run{start, i})
		start = i
	}
	for _, s := range segs {
		data += uint64(len(s.init))
	}
	if len(runs) == len(segs) || merged > 2*data+maxGap {
		return segs
	}
	out := make([]segment, 0, len(runs))
	for _, r := range runs {
		first, last := segs[r.from], segs[r.to-1]
		if r.to-r.from == 1 {
			out = append(out, first)
			continue
		}
		init := make([]byte, last.offset-first.offset+uint32(len(last.init)))
		for _, s := range segs[r.from:r.to] {
			copy(init[s.offset-first.offset:], s.init)
		}
		out = append(out, segment{offset: first.offset, init: init})
	}
	return out
}

func encodeDataSegments(segs []segment) []byte {
	out := binary.AppendUvarint(nil, uint64(len(segs)))
	for _, s := range segs {
		out = append(out, 0, 0x41)
		out = appendSleb(out, int64(int32(s.offset)))
		out = append(out, 0x0b)
		out = binary.AppendUvarint(out, uint64(len(s.init)))
		out = append(out, s.init...)
	}
	return out
}

// appendSleb appends v as a WebAssembly signed LEB128.
func appendSleb(out []byte, v int64) []byte {
	for {
		b := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && b&0x40 == 0) || (v == -1 && b&0x40 != 0) {
			return append(out, b)
		}
		out = append(out, b|0x80)
	}
}
