package wasm

import (
	"encoding/binary"
	"fmt"
)

// Tables live outside linear memory, so the memory limit does not bound
// them, and table.grow is a single instruction that the deadline cannot
// interrupt: a module asking for 2^32 entries would make the host allocate
// gigabytes. boundTables caps them before compiling:
//
//   - a table may start with at most maxTableEntries entries (all tables
//     together), and a module may have at most maxTables tables;
//   - a table may grow to its initial size or tableGrowth entries, whichever
//     is larger: a declared maximum above that, or none, is lowered to it,
//     and a grow past it fails inside the module (table.grow returns -1), as
//     the standard allows.
//
// Go modules declare one table of a few thousand entries with no maximum and
// never grow it.
const (
	maxTableEntries = 1 << 20 // 8 MiB of references
	tableGrowth     = 1 << 16
	maxTables       = 16
)

// boundTables returns bin with its tables' maxima capped, or an error for a
// module whose tables are too large to start. A table section it cannot
// parse is left to the compiler.
func boundTables(bin []byte) ([]byte, error) {
	secs, ok := sections(bin)
	if !ok {
		return bin, nil
	}
	for _, s := range secs {
		if s.id != tableSection {
			continue
		}
		body, changed, err := capTables(s.body)
		if err != nil || !changed {
			return bin, err
		}
		return replaceSection(bin, s, body), nil
	}
	return bin, nil
}

// capTables rewrites a table section's limits; changed reports a rewrite.
func capTables(p []byte) (out []byte, changed bool, err error) {
	count, n := binary.Uvarint(p)
	if n <= 0 {
		return nil, false, nil
	}
	if count > maxTables {
		return nil, false, fmt.Errorf("module declares %d tables, over %d", count, maxTables)
	}
	p = p[n:]
	out = binary.AppendUvarint(nil, count)
	total := uint64(0)
	for i := range count {
		// reftype, then limits: 0x00 min | 0x01 min max. Other forms (64-bit
		// or shared tables, an inline init expression) are left to the compiler.
		if len(p) < 2 || (p[1] != 0 && p[1] != 1) {
			return nil, false, nil
		}
		ref, flags := p[0], p[1]
		p = p[2:]
		lo, n := binary.Uvarint(p)
		if n <= 0 || n > 5 {
			return nil, false, nil
		}
		p = p[n:]
		hi, hasMax := uint64(0), flags == 1
		if hasMax {
			if hi, n = binary.Uvarint(p); n <= 0 || n > 5 {
				return nil, false, nil
			}
			p = p[n:]
		}
		if total += lo; total > maxTableEntries {
			return nil, false, fmt.Errorf("table %d starts with %d entries; a module's tables may start with %d in all", i, lo, maxTableEntries)
		}
		limit := max(lo, tableGrowth)
		if !hasMax || hi > limit {
			hi, changed = limit, true
		}
		out = append(out, ref, 1)
		out = binary.AppendUvarint(out, lo)
		out = binary.AppendUvarint(out, hi)
	}
	if len(p) != 0 {
		return nil, false, nil
	}
	return out, changed, nil
}
