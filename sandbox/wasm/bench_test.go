package wasm

import (
	"context"
	"testing"
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
