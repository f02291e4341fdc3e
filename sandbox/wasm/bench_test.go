package wasm

import (
	"context"
	"testing"
	"time"
)

// BenchmarkCall is the cost of one call of a tiny WAT tool (echo of a small
// JSON object): a fresh instance per call, and a pooled reactor instance.
// The Go tools' numbers are in tools/wasm.
func BenchmarkCall(b *testing.B) {
	r := newRuntime(b)
	args := []byte(`{"text":"hello","x":10,"y":20}`)
	for _, bc := range []struct {
		name, fixture string
		pooled        bool
	}{{"fresh", "echo", false}, {"pooled", "reactor_echo", true}} {
		m := compile(b, r, bc.fixture, ModuleOptions{Pooled: bc.pooled})
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Call(context.Background(), args); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.name+"-parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := m.Call(context.Background(), args); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkTimeout is how long a call of an endless loop with a 10 ms
// timeout takes, and how far past its deadline it stopped (overrun-µs).
func BenchmarkTimeout(b *testing.B) {
	const limit = 10 * time.Millisecond
	m := compile(b, newRuntime(b), "loop", ModuleOptions{Limits: Limits{Timeout: limit}})
	var over time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := m.Call(context.Background(), nil); err == nil || err.Code != CodeTimeout {
			b.Fatalf("got %v, want timeout", err)
		}
		over += time.Since(start) - limit
	}
	b.ReportMetric(float64(over.Microseconds())/float64(b.N), "overrun-µs")
}
