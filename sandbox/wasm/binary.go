package wasm

import "encoding/binary"

// The few parts of the WebAssembly binary format the sandbox rewrites before
// compiling a module (datamerge.go, tables.go). Anything it cannot parse it
// leaves alone: the compiler is the judge of a malformed module.

// Section ids.
const (
	tableSection     = 4
	dataSection      = 11
	dataCountSection = 12
)

// section is one section of a module: its id, where it stands in the
// binary (header included) and its contents.
type section struct {
	id         byte
	start, end int
	body       []byte
}

// sections splits a module into its sections; ok is false for anything that
// is not a well-framed module.
func sections(bin []byte) (secs []section, ok bool) {
	if len(bin) < 8 || string(bin[:4]) != "\x00asm" {
		return nil, false
	}
	for i := 8; i < len(bin); {
		size, n := binary.Uvarint(bin[i+1:])
		if n <= 0 || size > uint64(len(bin)-i-1-n) {
			return nil, false
		}
		end := i + 1 + n + int(size)
		secs = append(secs, section{id: bin[i], start: i, end: end, body: bin[i+1+n : end]})
		i = end
	}
	return secs, true
}

// replaceSection returns a copy of bin with s's contents replaced by body.
func replaceSection(bin []byte, s section, body []byte) []byte {
	out := make([]byte, 0, len(bin)-(s.end-s.start)+len(body)+binary.MaxVarintLen32+1)
	out = append(out, bin[:s.start]...)
	out = append(out, s.id)
	out = binary.AppendUvarint(out, uint64(len(body)))
	out = append(out, body...)
	return append(out, bin[s.end:]...)
}
