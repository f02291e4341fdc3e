package wasm

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
)

// wasmModule is a module of the given sections (id, contents).
func wasmModule(secs ...[]byte) []byte {
	m := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range secs {
		m = append(m, s[0])
		m = binary.AppendUvarint(m, uint64(len(s)-1))
		m = append(m, s[1:]...)
	}
	return m
}

// sec is a section: its id, then its contents.
func sec(id byte, parts ...[]byte) []byte {
	s := []byte{id}
	for _, p := range parts {
		s = append(s, p...)
	}
	return s
}

// huge is 2^32-1 as an unsigned LEB128: a count a few bytes long that
// wazero would allocate by.
var huge = []byte{0xff, 0xff, 0xff, 0xff, 0x0f}

// localsModule has funcs functions, each declaring perFunc i32 locals.
func localsModule(funcs, perFunc int) []byte {
	fs := binary.AppendUvarint(nil, uint64(funcs))
	fs = append(fs, make([]byte, funcs)...)
	code := binary.AppendUvarint(nil, uint64(funcs))
	for range funcs {
		fn := binary.AppendUvarint([]byte{1}, uint64(perFunc))
		fn = append(fn, 0x7f, 0x0b)
		code = binary.AppendUvarint(code, uint64(len(fn)))
		code = append(code, fn...)
	}
	return wasmModule(sec(1, []byte{1, 0x60, 0, 0}), sec(3, fs), sec(10, code))
}

// nameSection is a "name" custom section of the given subsections.
func nameSection(subs ...[]byte) []byte {
	return sec(0, []byte{4}, []byte("name"), concat(subs...))
}

func concat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// hostileModules claim, in a few bytes, counts and sizes that wazero's
// decoder would allocate by, one per kind of claim, with the error each
// must be refused with.
var hostileModules = []struct {
	name, want string
	bin        []byte
}{
	{"types", "type section claims 4294967295 types in 0 bytes", wasmModule(sec(1, huge))},
	{"params", "type section claims 4294967295 params of type 0 in 1 bytes",
		wasmModule(sec(1, []byte{1, 0x60}, huge, []byte{0}))},
	{"results", "type section claims 4294967295 results of type 0 in 0 bytes",
		wasmModule(sec(1, []byte{1, 0x60, 0}, huge))},
	{"params over the limit", "declares 100000 params in type 0, over the limit of 1000",
		wasmModule(sec(1, []byte{1, 0x60, 0xa0, 0x8d, 0x06}, bytes.Repeat([]byte{0x7f}, 100000), []byte{0}))},
	{"results over the limit", "declares 1001 results in type 0, over the limit of 1000",
		wasmModule(sec(1, []byte{1, 0x60, 0, 0xe9, 0x07}, bytes.Repeat([]byte{0x7f}, 1001)))},
	{"recursion group", "type section claims 4294967295 types in the group of type 0 in 0 bytes",
		wasmModule(sec(1, []byte{1, 0x4e}, huge))},
	{"imports", "import section claims 4294967295 imports in 0 bytes", wasmModule(sec(2, huge))},
	{"import name", "import section claims a module name of 4294967295 bytes in 3 bytes",
		wasmModule(sec(2, []byte{1}, huge, []byte{0, 0, 0}))},
	{"functions", "function section claims 4294967295 functions in 0 bytes", wasmModule(sec(3, huge))},
	{"tables", "table section claims 4294967295 tables in 0 bytes", wasmModule(sec(4, huge))},
	{"globals", "global section claims 4294967295 globals in 0 bytes", wasmModule(sec(6, huge))},
	{"exports", "export section claims 4294967295 exports in 0 bytes", wasmModule(sec(7, huge))},
	{"export name", "export section claims an export name of 4294967295 bytes in 2 bytes",
		wasmModule(sec(7, []byte{1}, huge, []byte{0, 0}))},
	{"elements", "element section claims 4294967295 element segments in 0 bytes", wasmModule(sec(9, huge))},
	{"element indices", "element section claims 4294967295 elements in segment 0 in 0 bytes",
		wasmModule(sec(9, []byte{1, 0, 0x41, 0, 0x0b}, huge))},
	{"element expressions", "element section claims 4294967295 elements in segment 0 in 0 bytes",
		wasmModule(sec(9, []byte{1, 5, 0x70}, huge))},
	{"code", "code section claims 4294967295 functions in 0 bytes", wasmModule(sec(10, huge))},
	{"code body", "code section claims a body of 4294967295 bytes for function 0 in 2 bytes",
		wasmModule(sec(10, []byte{1}, huge, []byte{0, 0x0b}))},
	{"local declarations", "code section claims 4294967295 local declarations in function 0 in 1 bytes",
		wasmModule(sec(10, []byte{1, 6}, huge, []byte{0x0b}))},
	{"locals", "code section declares 4294967295 locals in function 0, over the limit of 50000",
		wasmModule(sec(3, []byte{1, 0}), sec(10, []byte{1, 8, 1}, huge, []byte{0x7f, 0x0b}))},
	{"locals in two declarations", "code section declares 60000 locals in function 0, over the limit of 50000",
		wasmModule(sec(3, []byte{1, 0}), sec(10, []byte{1, 10, 2, 0xb0, 0xea, 1, 0x7f, 0xb0, 0xea, 1, 0x7e, 0x0b}))},
	{"locals in the module", "code section declares 1050000 locals up to function 20, over the module's limit of 1048576",
		localsModule(30, maxFunctionLocals)},
	{"data", "data section claims 4294967295 data segments in 0 bytes", wasmModule(sec(11, huge))},
	{"data bytes", "data section claims data segment 0 of 4294967295 bytes in 0 bytes",
		wasmModule(sec(11, []byte{1, 1}, huge))},
	{"tags", "tag section claims 4294967295 tags in 0 bytes", wasmModule(sec(13, huge))},
	{"custom name", "custom section claims a section name of 4294967295 bytes in 0 bytes", wasmModule(sec(0, huge))},
	{"name subsection", `"name" section claims a subsection of 4294967295 bytes in 0 bytes`,
		wasmModule(nameSection([]byte{1}, huge))},
	{"module name", `"name" section claims a module name of 4294967295 bytes in 0 bytes`,
		wasmModule(nameSection([]byte{0, 5}, huge))},
	{"function names", `"name" section claims 4294967295 function names in 0 bytes`,
		wasmModule(nameSection([]byte{1, 5}, huge))},
	{"functions' local names", `"name" section claims 4294967295 functions' local names in 0 bytes`,
		wasmModule(nameSection([]byte{2, 5}, huge))},
	{"local names", `"name" section claims 4294967295 local names in 0 bytes`,
		wasmModule(nameSection([]byte{2, 7, 1, 0}, huge))},
	// wazero reads a function name map by its contents, not by the
	// subsection's size: after this empty map it would read the
	// subsection's remaining bytes as a subsection of 2^32-1 names.
	{"name subsection too short", `"name" section is malformed: subsection 1 does not fill its 8 bytes`,
		wasmModule(nameSection([]byte{1, 8, 0, 1, 0}, huge, []byte{7, 1, 0}))},
	{"section past the end", "a section runs past the end", []byte("\x00asm\x01\x00\x00\x00\x0a\x20\x01")},
}

// A module claiming more than its bytes hold, or too many locals, is
// refused before wazero decodes it: quickly, naming the section and the
// claim, and allocating little. Sent to wazero, most of these would
// allocate gigabytes and kill the process.
func TestHostileCounts(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { rt.Close(ctx) })
	for _, tc := range hostileModules {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			cm, err := compileModule(ctx, rt, tc.bin)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if err == nil {
				cm.Close(ctx)
				t.Fatal("compiled")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want %q", err, tc.want)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("allocated %d MiB", alloc>>20)
			}
			if elapsed > 5*time.Second {
				t.Errorf("took %v", elapsed)
			}
		})
	}
}

// The module fuzzing found (its code section claims 2^28-1 functions) is
// refused by Compile with the claim, and so is an import count that the
// check point rewrite used to loop over for a minute.
func TestHostileCountsCompile(t *testing.T) {
	r := newRuntime(t)
	for _, tc := range []struct {
		bin  []byte
		want string
	}{
		{fuzzSeed(t, "FuzzAddCheckpoints", "fa78b9d2658b21b5"), "code section claims 268435455 functions in 33 bytes"},
		{wasmModule(sec(2, huge), sec(10, []byte{0})), "import section claims 4294967295 imports in 0 bytes"},
	} {
		start := time.Now()
		_, err := r.Compile(context.Background(), tc.bin, ModuleOptions{Name: "hostile"})
		if err == nil || err.Error() != "not a valid WebAssembly module: "+tc.want {
			t.Errorf("got %v, want the claim %q", err, tc.want)
		}
		if elapsed := time.Since(start); elapsed > 5*time.Second {
			t.Errorf("took %v", elapsed)
		}
	}
}

// The check point rewrite stops at the end of an import section whose
// count claims more imports than its bytes hold: it used to read on, from
// nothing, 2^32-1 times (a minute of CPU).
func TestHostileImportCountRewrite(t *testing.T) {
	start := time.Now()
	if _, err := addCheckpoints(wasmModule(sec(2, huge), sec(10, []byte{0}))); err == nil {
		t.Error("rewritten")
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("took %v", elapsed)
	}
}

// fuzzSeed reads a []byte input of the fuzz corpus in testdata.
func fuzzSeed(t testing.TB, target, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fuzz", target, name))
	if err != nil {
		t.Fatal(err)
	}
	_, lit, ok := strings.Cut(strings.TrimSpace(string(b)), "[]byte(")
	if !ok {
		t.Fatalf("%s: not a []byte input", name)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return []byte(s)
}

// Honest modules pass: every fixture, the Go tool, generated programs, and
// each of them as the sandbox rewrites it; and the locals just within the
// limits.
func TestBoundsAcceptHonestModules(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "wasm", "*.wasm"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	mods := map[string][]byte{
		"generated":         genModule([]byte{2, 9, 4, 1, 7, 3, 200, 5, 6, 0, 8, 2, 2, 4}),
		"locals at limits":  localsModule(20, maxFunctionLocals),
		"module with names": wasmModule(nameSection([]byte{0, 2, 1, 'm'}, []byte{1, 4, 1, 0, 1, 'f'}, []byte{2, 6, 1, 0, 1, 0, 1, 'x'}, []byte{7, 1, 0})),
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		mods[filepath.Base(f)] = b
	}
	if !testing.Short() {
		mods["Go tool"] = goModule(t, false)
		mods["Go reactor"] = goModule(t, true)
	}
	for name, bin := range mods {
		if err := checkBounds(bin); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		rewritten, err := boundTables(bin)
		if err == nil {
			rewritten, err = addCheckpoints(rewritten)
		}
		if err != nil {
			continue // refused by the rewrite, not by the check
		}
		if err := checkBounds(mergeDataSegments(rewritten)); err != nil {
			t.Errorf("%s rewritten: %v", name, err)
		}
	}
}

// FuzzCheckBounds: on any input the check neither panics nor loops, and
// compiling (check, then wazero) allocates at most a bounded multiple of
// the input's size: what a module claims never counts, only its bytes.
func FuzzCheckBounds(f *testing.F) {
	for _, name := range []string{"echo", "reactor_echo", "indirect", "dag", "tablegrow", "openfile"} {
		f.Add(fixture(f, name))
	}
	f.Add(genModule([]byte{6, 6, 6, 2, 2, 2, 4, 4, 4, 5, 5, 5, 3, 3, 8, 8, 9}))
	f.Add(wasmModule(nameSection([]byte{0, 2, 1, 'm'}, []byte{1, 4, 1, 0, 1, 'f'}, []byte{2, 6, 1, 0, 1, 0, 1, 'x'})))
	for _, tc := range hostileModules {
		f.Add(tc.bin)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	f.Cleanup(func() { rt.Close(ctx) })
	f.Fuzz(func(t *testing.T, bin []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		cm, err := compileModule(ctx, rt, bin)
		runtime.ReadMemStats(&after)
		if err == nil {
			cm.Close(ctx)
		}
		// Compiling costs a few KiB per function of a few bytes: far below
		// this bound, and far above it when a count is trusted.
		if alloc, limit := after.TotalAlloc-before.TotalAlloc, uint64(64<<20+4096*len(bin)); alloc > limit {
			t.Fatalf("compiling %d bytes allocated %d MiB, over %d MiB (%v)", len(bin), alloc>>20, limit>>20, err)
		}
	})
}

// BenchmarkCheckBounds is the check's cost on a small WAT tool and on a Go
// tool (≈ 3.5 MB, tens of thousands of data segments), beside the rewrite's
// (BenchmarkAddCheckpoints).
func BenchmarkCheckBounds(b *testing.B) {
	for _, bc := range []struct {
		name string
		bin  func() []byte
	}{{"echo", func() []byte { return fixture(b, "echo") }}, {"go-tool", func() []byte { return goModule(b, false) }}} {
		b.Run(bc.name, func(b *testing.B) {
			bin := bc.bin()
			b.ReportAllocs()
			b.SetBytes(int64(len(bin)))
			for b.Loop() {
				if err := checkBounds(bin); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
