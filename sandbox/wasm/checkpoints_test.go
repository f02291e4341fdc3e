package wasm

import (
	"context"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tetratelabs/wazero"
)

// FuzzAddCheckpoints: on any input the rewrite neither panics nor loops,
// and a module wazero compiles still compiles once rewritten.
func FuzzAddCheckpoints(f *testing.F) {
	for _, name := range []string{"echo", "reactor_echo", "recursion", "indirect", "dag", "startrec", "tablegrow", "spin", "openfile"} {
		f.Add(fixture(f, name))
	}
	f.Add(genModule([]byte{2, 9, 4, 1, 7, 3, 200, 5, 6, 0, 8, 2, 2, 4}))
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	f.Cleanup(func() { rt.Close(ctx) })
	f.Fuzz(func(t *testing.T, bin []byte) {
		out, err := addCheckpoints(bin)
		cm, origErr := compileModule(ctx, rt, bin)
		if origErr != nil {
			return
		}
		cm.Close(ctx)
		if err != nil {
			t.Fatalf("a module wazero compiles was not rewritten: %v", err)
		}
		cm, err = compileModule(ctx, rt, out)
		if err != nil {
			t.Fatalf("the rewritten module does not compile: %v", err)
		}
		cm.Close(ctx)
	})
}

// FuzzCheckpointsKeepBehaviour runs generated terminating programs (calls,
// call_indirect, nested blocks, branches, loops, locals, globals) before
// and after the rewrite: the results are the same.
func FuzzCheckpointsKeepBehaviour(f *testing.F) {
	f.Add([]byte{2, 9, 4, 1, 7, 3, 200, 5, 6, 0, 8, 2, 2, 4})
	f.Add([]byte{6, 6, 6, 2, 2, 2, 4, 4, 4, 5, 5, 5, 3, 3, 8, 8, 9})
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(true))
	f.Cleanup(func() { rt.Close(ctx) })
	f.Fuzz(func(t *testing.T, prog []byte) {
		bin := genModule(prog)
		rewritten, err := addCheckpoints(bin)
		if err != nil {
			t.Fatalf("rewrite: %v", err)
		}
		for _, m := range [][]byte{bin, rewritten} { // honest counts pass the check
			if err := checkBounds(m); err != nil {
				t.Fatalf("refused: %v", err)
			}
		}
		want, werr := runGenerated(ctx, rt, bin)
		got, gerr := runGenerated(ctx, rt, rewritten)
		if werr != nil {
			t.Fatalf("the generated module fails: %v", werr)
		}
		if gerr != nil {
			t.Fatalf("the rewritten module fails: %v", gerr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("results differ (-original +rewritten):\n%s", diff)
		}
	})
}

// runGenerated calls f0 of a generated module with a few arguments.
func runGenerated(ctx context.Context, rt wazero.Runtime, bin []byte) ([]uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cm, err := rt.CompileModule(ctx, bin)
	if err != nil {
		return nil, err
	}
	defer cm.Close(ctx) // the runtime keeps compiled modules until closed
	mod, err := rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		return nil, err
	}
	defer mod.Close(ctx)
	var out []uint64
	for _, arg := range []uint64{0, 1, 7, 1 << 40} {
		res, err := mod.ExportedFunction("f0").Call(ctx, arg)
		if err != nil {
			return nil, err
		}
		out = append(out, res...)
	}
	return out, nil
}

// genModule builds a module of genFuncs functions (i64) -> i64 from prog.
// Function i may call only functions after it, directly or through the
// table, and its loops run a bounded number of times, so every program
// terminates. Each byte of prog is one construct, appended to the function
// it falls in.
func genModule(prog []byte) []byte {
	const genFuncs = 4
	bodies := make([][]byte, genFuncs)
	for i := range bodies {
		bodies[i] = []byte{0x20, 0} // local.get 0: the value being computed
	}
	for k, b := range prog {
		i := k % genFuncs
		callee := byte(min(genFuncs-1, i+1+int(b>>4)%genFuncs))
		c := int64(b>>3) + 1
		body := bodies[i]
		switch b % 10 {
		case 0: // i64.const c; i64.add
			body = appendSleb(append(body, 0x42), c)
			body = append(body, 0x7c)
		case 1: // i64.const c; i64.mul
			body = appendSleb(append(body, 0x42), c)
			body = append(body, 0x7e)
		case 2, 3: // call a later function (the last one returns its argument)
			if i < genFuncs-1 {
				body = append(body, 0x10, callee)
			}
		case 4: // call_indirect through the table (entry j is function j)
			if i < genFuncs-1 {
				body = append(body, 0x41, callee, 0x11, 0, 0)
			}
		case 5: // block (result i64): a br_if out of it on the low bit, then add
			body = append(body, 0x21, 1, // local.set 1
				0x02, 0x7e, // block (result i64)
				0x20, 1, 0x20, 1, 0xa7, 0x41, 1, 0x71, // value; cond = wrap(v) & 1
				0x0d, 0, // br_if 0
				0x42, byte(c), 0x7c, // i64.const c; i64.add
				0x0b)
		case 6: // if/else on the low bit of the value, each arm calling or not
			body = append(body, 0x21, 1, 0x20, 1, 0xa7, 0x41, 1, 0x71,
				0x04, 0x7e, 0x20, 1) // if (result i64) local.get 1
			if i < genFuncs-1 {
				body = append(body, 0x10, callee)
			}
			body = append(body, 0x05, 0x20, 1, 0x42, byte(c), 0x7e, 0x0b) // else v*c end
		case 7: // loop c%5 times adding c, with a br back to the header
			body = append(body, 0x21, 1, // local.set 1 (the value)
				0x41, byte(c%5), 0x21, 2, // counter
				0x03, 0x40, // loop
				0x20, 2, 0x45, 0x04, 0x40, 0x05, // if counter==0 then (nothing) else
				0x20, 1, 0x42, byte(c), 0x7c, 0x21, 1, // v += c
				0x20, 2, 0x41, 1, 0x6b, 0x21, 2, // counter--
				0x0c, 1, // br 1 (the loop)
				0x0b, 0x0b, 0x20, 1)
		case 8: // add and keep the global
			body = append(body, 0x23, 0, 0x7c, 0x22, 1, 0x24, 0, 0x20, 1) // global.get 0; add; local.tee 1; global.set 0; local.get 1
		case 9: // a call in a nested block, left with br 1 past a trailing add
			body = append(body, 0x21, 1, 0x02, 0x7e, 0x02, 0x7e, 0x20, 1)
			if i < genFuncs-1 {
				body = append(body, 0x10, callee)
			}
			body = append(body, 0x0c, 1, 0x0b, 0x42, 1, 0x7c, 0x0b)
		}
		bodies[i] = body
	}
	sec := func(out []byte, id byte, body []byte) []byte {
		out = append(out, id)
		out = binary.AppendUvarint(out, uint64(len(body)))
		return append(out, body...)
	}
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = sec(m, 1, []byte{1, 0x60, 1, 0x7e, 1, 0x7e})                   // type 0: (i64) -> i64
	m = sec(m, 3, append([]byte{genFuncs}, make([]byte, genFuncs)...)) // all of type 0
	m = sec(m, 4, []byte{1, 0x70, 0, genFuncs})                        // table of genFuncs funcrefs
	m = sec(m, 6, []byte{1, 0x7e, 1, 0x42, 0, 0x0b})                   // (global (mut i64) (i64.const 0))
	m = sec(m, 7, []byte{1, 2, 'f', '0', 0, 0})                        // export f0
	elem := []byte{1, 0, 0x41, 0, 0x0b, genFuncs}
	for i := range genFuncs {
		elem = append(elem, byte(i))
	}
	m = sec(m, 9, elem)
	code := []byte{genFuncs}
	for _, body := range bodies {
		fn := append([]byte{2, 1, 0x7e, 1, 0x7f}, body...) // locals: 1 i64, 1 i32
		fn = append(fn, 0x0b)
		code = binary.AppendUvarint(code, uint64(len(fn)))
		code = append(code, fn...)
	}
	return sec(m, 10, code)
}

// A module using an instruction outside what the rewrite knows is refused
// with a clear error, not run without check points.
func TestCheckpointsRefuseUnknownInstructions(t *testing.T) {
	// No locals, then an atomic fence (0xfe 0x03 0x00), which wazero does not
	// enable by default either.
	_, err := instrumentBody(nil, []byte{0, 0xfe, 0x03, 0x00, 0x0b}, 0)
	if !errors.Is(err, errUnknownInstruction) {
		t.Errorf("got %v, want an unknown instruction", err)
	}
}

// BenchmarkCheckpoints is the cost of the check points in their worst case,
// a call-heavy function of tiny bodies: fib(27), ≈ 630,000 calls, as sent
// and rewritten (docs/wasm.md, "Deadline").
func BenchmarkCheckpoints(b *testing.B) {
	orig := fixture(b, "fib")
	rewritten, err := addCheckpoints(orig)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(true))
	b.Cleanup(func() { rt.Close(ctx) })
	for _, bc := range []struct {
		name string
		bin  []byte
	}{{"as-sent", orig}, {"checkpoints", rewritten}} {
		mod, err := rt.InstantiateWithConfig(ctx, bc.bin, wazero.NewModuleConfig().WithName(""))
		if err != nil {
			b.Fatal(err)
		}
		fib := mod.ExportedFunction("fib")
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if res, err := fib.Call(ctx, 27); err != nil || res[0] != 196418 {
					b.Fatalf("fib(27) = %v, %v", res, err)
				}
			}
		})
	}
}

// BenchmarkAddCheckpoints is the rewrite's cost at compile time on a Go
// tool (≈ 3 MB), and how much code it adds (growth-%).
func BenchmarkAddCheckpoints(b *testing.B) {
	bin := goModule(b, false)
	var out []byte
	for b.Loop() {
		var err error
		if out, err = addCheckpoints(bin); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(100*float64(len(out)-len(bin))/float64(len(bin)), "growth-%")
}
