package wasm

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// stopSlack is how long past its deadline (or its caller's cancel) a call
// may take to stop before a test fails it as late. It is generous, for a busy
// machine: a process can get no CPU for a second or more. Broken stops are
// far later: loop-free code without check points never stops (2^40 calls
// and more), a sleep not cut short lasts 10 s, an unwinding without check
// points half a minute. How promptly calls stop is measured by
// BenchmarkTimeout and BenchmarkGCDuringLoopFreeCode, not asserted here.
const stopSlack = 5 * time.Second

// callOf starts m.Call in a goroutine; its error arrives on the channel.
func callOf(ctx context.Context, m *Module) <-chan *Error {
	res := make(chan *Error, 1)
	go func() {
		_, err := m.Call(ctx, []byte(`{}`))
		res <- err
	}()
	return res
}

// awaitCall waits for a call's error. A call still running after d runs
// native code that nothing stops: no later GC of this process could
// complete, and the test binary cannot go on, so it panics.
func awaitCall(res <-chan *Error, d time.Duration, what string) *Error {
	select {
	case err := <-res:
		return err
	case <-time.After(d):
		panic(fmt.Sprintf("%s: the call has not stopped after %v; it runs native code nothing stops, and no GC can complete while it does", what, d))
	}
}

// waitRunning waits until this process has used busy of CPU time since
// cpu0, which the module's code has, once it runs: nothing else in the
// test does much. It fails the test if the call ends first.
func waitRunning(t *testing.T, res <-chan *Error, cpu0, busy time.Duration) {
	t.Helper()
	for cpuTime()-cpu0 < busy {
		select {
		case err := <-res:
			t.Fatalf("the call ended (%v) before it had run for %v of CPU time", err, busy)
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// Modules that run without a loop (recursion, a DAG of calls, the start
// section, a reactor's _initialize) must stop at their deadline like a
// loop does, and must not freeze the host: while such code runs a GC, which
// has to stop every goroutine, the module's included, still completes; a GC
// that cannot stop the module would stop every other goroutine instead,
// until the call ended.
//
// Neither check depends on how fast the machine is. Without check points
// these modules never stop, so a stop within stopSlack of the deadline
// passes. And the GC is started once the module has run for a while (used
// CPU time) in a call with a long budget, which the test cancels only when
// the GC has completed: a GC that cannot stop the module cannot complete
// before the call ends, however long it is given.
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
			r := newRuntime(t)

			m := compile(t, r, tc.fixture, ModuleOptions{Pooled: tc.pooled, Limits: Limits{Timeout: limit}})
			start := time.Now()
			err := awaitCall(callOf(context.Background(), m), limit+time.Minute, tc.fixture)
			took := time.Since(start)
			if err == nil || err.Code != CodeTimeout {
				t.Fatalf("got %v, want timeout", err)
			}
			if took > limit+stopSlack {
				t.Errorf("stopped after %v, %v past its limit of %v", took, took-limit, limit)
			}

			long := compile(t, r, tc.fixture, ModuleOptions{Name: tc.fixture + "-long", Pooled: tc.pooled, Limits: Limits{Timeout: time.Minute}})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cpu0 := cpuTime()
			res := callOf(ctx, long)
			waitRunning(t, res, cpu0, 50*time.Millisecond)
			gc := make(chan time.Duration, 1)
			go func() {
				start := time.Now()
				runtime.GC()
				gc <- time.Since(start)
			}()
			select {
			case d := <-gc:
				t.Logf("a GC started while the module ran completed in %v", d)
			case err := <-res:
				<-gc
				t.Fatalf("a GC started while the module ran did not complete before the call ended (%v): the module froze the host", err)
			case <-time.After(2 * time.Minute):
				panic(tc.fixture + ": neither a GC started while the module ran nor the call (budget: a minute) has ended after 2 minutes: the module froze the host")
			}
			cancel()
			if err := awaitCall(res, time.Minute, tc.fixture); err == nil || err.Code != CodeCanceled {
				t.Errorf("after the cancel: got %v, want canceled", err)
			}
		})
	}
}

// BenchmarkGCDuringLoopFreeCode is how long a GC takes while loop-free code
// runs (exponential recursion), against one while nothing runs: the code
// between two check points is what the GC waits for.
func BenchmarkGCDuringLoopFreeCode(b *testing.B) {
	b.Run("idle", func(b *testing.B) {
		for b.Loop() {
			runtime.GC()
		}
	})
	b.Run("recursion", func(b *testing.B) {
		m := compile(b, newRuntime(b), "recursion", ModuleOptions{Limits: Limits{Timeout: time.Hour}})
		ctx, cancel := context.WithCancel(context.Background())
		cpu0 := cpuTime()
		res := callOf(ctx, m)
		for cpuTime()-cpu0 < 50*time.Millisecond {
			time.Sleep(2 * time.Millisecond)
		}
		for b.Loop() {
			runtime.GC()
		}
		b.StopTimer()
		cancel()
		if err := awaitCall(res, time.Minute, "recursion"); err == nil || err.Code != CodeCanceled {
			b.Errorf("got %v, want canceled", err)
		}
	})
}

// A call in progress is stopped as soon as its runtime is closed: Close
// does not wait for the deadline of loop-free code.
func TestCloseStopsLoopFreeCode(t *testing.T) {
	r, err := NewRuntime(context.Background(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	m := compile(t, r, "recursion", ModuleOptions{Limits: Limits{Timeout: time.Hour}})
	cpu0 := cpuTime()
	res := callOf(context.Background(), m)
	waitRunning(t, res, cpu0, 50*time.Millisecond)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := r.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	if took := time.Since(start); took > stopSlack {
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
	if took > limit+stopSlack {
		t.Errorf("stopped after %v, %v past its limit of %v", took, took-limit, limit)
	}
}
