package wasm

import (
	"context"
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
