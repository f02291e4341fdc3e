package wasm

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// initialMemory instantiates a module without running it and returns its
// memory: what the data segments wrote.
func initialMemory(t *testing.T, bin []byte) []byte {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	mod, err := rt.InstantiateWithConfig(ctx, bin, wazero.NewModuleConfig().WithStartFunctions())
	if err != nil {
		t.Fatal(err)
	}
	mem, _ := mod.Memory().Read(0, mod.Memory().Size())
	return bytes.Clone(mem)
}

func TestMergeDataSegmentsKeepsMemory(t *testing.T) {
	orig := goModule(t, false)
	merged := mergeDataSegments(orig)
	before, _ := parseDataSegmentsOf(orig)
	after, _ := parseDataSegmentsOf(merged)
	t.Logf("data segments: %d → %d; binary %d → %d bytes", before, after, len(orig), len(merged))
	if after >= before || after == 0 {
		t.Fatalf("data segments %d → %d: nothing merged", before, after)
	}
	if !bytes.Equal(initialMemory(t, orig), initialMemory(t, merged)) {
		t.Fatal("the merged module starts with different memory")
	}
	if again := mergeDataSegments(merged); !bytes.Equal(again, merged) {
		t.Error("merging twice changed the module again")
	}
}

// parseDataSegmentsOf counts a module's data segments, for the test.
func parseDataSegmentsOf(bin []byte) (int, bool) {
	for i := 8; i < len(bin); {
		id := bin[i]
		size, n := binary.Uvarint(bin[i+1:])
		body := bin[i+1+n : i+1+n+int(size)]
		if id == 11 {
			segs, ok := parseDataSegments(body)
			return len(segs), ok
		}
		i += 1 + n + int(size)
	}
	return 0, false
}

func TestMergeDataSegmentsLeavesOthersAlone(t *testing.T) {
	for _, name := range []string{"echo", "openfile", "memhog"} {
		bin := fixture(t, name)
		if got := mergeDataSegments(bin); !bytes.Equal(got, bin) && len(got) >= len(bin)+maxGap {
			t.Errorf("%s: grew from %d to %d bytes", name, len(bin), len(got))
		}
	}
	for _, bin := range [][]byte{nil, []byte("\x00asm"), []byte("\x00asm\x01\x00\x00\x00\x0b\xff\xff\xff\xff\x0f")} {
		if got := mergeDataSegments(bin); !bytes.Equal(got, bin) {
			t.Errorf("%q was rewritten to %q", bin, got)
		}
	}
}

// FuzzMergeDataSegments: any input comes back unchanged or as a module whose
// merge is stable, never a panic; boundTables never panics either, and
// bounds a second time without change.
func FuzzMergeDataSegments(f *testing.F) {
	for _, name := range []string{"echo", "openfile", "envargs"} {
		f.Add(fixture(f, name))
	}
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x0b\x07\x02\x00\x41\x00\x0b\x01\x61\x00\x41\x02\x0b\x01\x62"))
	f.Add(fixture(f, "tablegrow"))
	f.Fuzz(func(t *testing.T, bin []byte) {
		if bounded, err := boundTables(bin); err == nil {
			if again, _ := boundTables(bounded); !bytes.Equal(again, bounded) {
				t.Fatalf("bounding tables is not stable for %q", bin)
			}
		}
		out := mergeDataSegments(bin)
		if !bytes.Equal(out, bin) && !bytes.Equal(mergeDataSegments(out), out) {
			t.Fatalf("merge is not stable for %q", bin)
		}
	})
}

// A module of empty segments 4 KiB apart would merge into gigabytes of
// zeros; it is left as it is.
func TestMergeDataSegmentsRefusesAmplification(t *testing.T) {
	var data []byte
	const n = 100_000
	data = binary.AppendUvarint(data, n)
	for i := range n {
		data = append(data, 0, 0x41)
		data = appendSleb(data, int64(i*maxGap))
		data = append(data, 0x0b, 0) // no bytes
	}
	bin := []byte("\x00asm\x01\x00\x00\x00")
	bin = append(bin, 5, 3, 1, 0, 0) // memory section: one memory, min 0
	bin = append(bin, 11)
	bin = binary.AppendUvarint(bin, uint64(len(data)))
	bin = append(bin, data...)
	if got := mergeDataSegments(bin); !bytes.Equal(got, bin) {
		t.Fatalf("rewritten from %d to %d bytes", len(bin), len(got))
	}
}

// An offset that is no i32 is the validator's to refuse, not ours to wrap.
func TestMergeDataSegmentsKeepsInvalidOffsets(t *testing.T) {
	bin := []byte("\x00asm\x01\x00\x00\x00" +
		"\x05\x03\x01\x00\x01" + // memory section: min 1
		"\x0b\x11\x02" + // data section (17 bytes), 2 segments
		"\x00\x41\x80\x80\x80\x80\x10\x0b\x01a" + // offset 2^32: no i32
		"\x00\x41\x08\x0b\x01b")
	if got := mergeDataSegments(bin); !bytes.Equal(got, bin) {
		t.Fatalf("rewrote a module with an invalid offset: %x", got)
	}
}
