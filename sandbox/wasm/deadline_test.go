package wasm

import (
	"context"
	"encoding/binary"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// Modules that run without a loop (recursion, a DAG of calls, the start
// section, a reactor's _initialize) must stop at their deadline like a
// loop does, and must not freeze the host: other goroutines keep running
// and a GC started meanwhile completes.
func TestLoopFreeCodeStopsAtTheDeadline(t *testing.T) {
	const limit = 300 * time.Millisecond
	for _, tc := range []struct {
		fixture string
		pooled  bool
	}{
		{"recursion", false},
		{"mutual", false},
		{"indirect", false},
		{"dag", false},
		{"startrec", false},
		{"reactor_recursion", true},
		{"reactor_initrec", true},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			r, err := NewRuntime(context.Background(), Config{})
			if err != nil {
				t.Fatal(err)
			}
			m := compile(t, r, tc.fixture, ModuleOptions{Pooled: tc.pooled, Limits: Limits{Timeout: limit}})

			stop := make(chan struct{})
			var ticks atomic.Int64
			go func() {
				for {
					select {
					case <-stop:
						return
					case <-time.After(time.Millisecond):
						ticks.Add(1)
					}
				}
			}()
			gcDone := make(chan time.Duration, 1)
			go func() {
				time.Sleep(limit / 3) // the module is running by now
				start := time.Now()
				runtime.GC()
				gcDone <- time.Since(start)
			}()

			start := time.Now()
			_, cerr := m.Call(context.Background(), []byte(`{}`))
			took := time.Since(start)
			close(stop)
			if cerr == nil || cerr.Code != CodeTimeout {
				t.Fatalf("got %v, want timeout", cerr)
			}
			if took > 2*limit {
				t.Errorf("stopped after %v, over twice its limit of %v", took, limit)
			}
			select {
			case gc := <-gcDone:
				if gc > limit {
					t.Errorf("a GC during the call took %v", gc)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("a GC started during the call has not completed")
			}
			if n := ticks.Load(); n < int64(limit/time.Millisecond)/10 {
				t.Errorf("another goroutine ticked %d times in %v: the host was frozen", n, took)
			}

			closed := make(chan error, 2)
			go func() {
				closed <- m.Close(context.Background())
				closed <- r.Close(context.Background())
			}()
			for range 2 {
				select {
				case err := <-closed:
					if err != nil {
						t.Errorf("close: %v", err)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("Close did not return")
				}
			}
		})
	}
}

// A call in progress is stopped as soon as its runtime is closed: Close
// does not wait for the deadline of loop-free code.
func TestCloseStopsLoopFreeCode(t *testing.T) {
	r, err := NewRuntime(context.Background(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	m := compile(t, r, "recursion", ModuleOptions{Limits: Limits{Timeout: time.Hour}})
	res := make(chan *Error, 1)
	go func() {
		_, err := m.Call(context.Background(), nil)
		res <- err
	}()
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Close took %v", took)
	}
	if err := <-res; err == nil || err.Code != CodeCanceled {
		t.Errorf("got %v, want canceled", err)
	}
}

// Linear recursion a billion calls deep runs out of wazero's call stack,
// which lives in host memory, and fails as a crash. The test logs the host
// memory that took (docs/wasm.md, "Stack").
func TestDeepRecursionTraps(t *testing.T) {
	m := compile(t, newRuntime(t), "deep", ModuleOptions{Limits: Limits{Timeout: 20 * time.Second}})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := m.Call(context.Background(), nil)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if err == nil || err.Code != CodeToolError {
		t.Fatalf("got %v, want tool_error (stack overflow)", err)
	}
	t.Logf("%v in %v; host memory obtained from the OS grew by %d MiB (total allocated %d MiB)",
		err, took, (after.Sys-before.Sys)>>20, (after.TotalAlloc-before.TotalAlloc)>>20)
}

// unwindModule is a command whose _start recurses depth deep, each frame
// running a long straight run of stores after its call returns: a deep
// stack whose unwinding has no loop and no call. Only the check points
// after calls see it.
func unwindModule(depth int32, stores int) []byte {
	sec := func(out []byte, id byte, body []byte) []byte {
		out = append(out, id)
		out = binary.AppendUvarint(out, uint64(len(body)))
		return append(out, body...)
	}
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = sec(m, 1, []byte{2, 0x60, 0, 0, 0x60, 1, 0x7f, 0}) // () -> (), (i32) -> ()
	m = sec(m, 3, []byte{2, 0, 1})
	m = sec(m, 5, []byte{1, 0, 1})
	m = sec(m, 7, []byte{2, 6, 'm', 'e', 'm', 'o', 'r', 'y', 2, 0, 6, '_', 's', 't', 'a', 'r', 't', 0, 0})
	start := appendSleb([]byte{0, 0x41}, int64(depth)) // no locals; i32.const depth
	start = append(start, 0x10, 1, 0x0b)               // call f; end
	// f: if n { f(n-1) } then stores × (i32.const 0; local.get 0; i32.store offset=k)
	f := []byte{0, 0x20, 0, 0x04, 0x40, 0x20, 0, 0x41, 1, 0x6b, 0x10, 1, 0x0b}
	for k := range stores {
		f = append(f, 0x41, 0, 0x20, 0, 0x36, 2)
		f = binary.AppendUvarint(f, uint64(k%16000)*4)
	}
	f = append(f, 0x0b)
	code := []byte{2}
	for _, body := range [][]byte{start, f} {
		code = binary.AppendUvarint(code, uint64(len(body)))
		code = append(code, body...)
	}
	return sec(m, 10, code)
}

// Unwinding a deep stack of frames that each run long straight code after
// their call returns stops at the deadline too.
func TestUnwindingStopsAtTheDeadline(t *testing.T) {
	const limit = 300 * time.Millisecond
	r := newRuntime(t)
	m, err := r.Compile(context.Background(), unwindModule(200_000, 20_000), ModuleOptions{Name: "unwind", Limits: Limits{Timeout: limit}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	start := time.Now()
	_, cerr := m.Call(context.Background(), nil)
	took := time.Since(start)
	if cerr == nil || cerr.Code != CodeTimeout {
		t.Fatalf("got %v, want timeout", cerr)
	}
	if took > 2*limit {
		t.Errorf("stopped after %v, over twice its limit of %v", took, limit)
	}
}
