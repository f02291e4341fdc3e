package js

import (
	"context"
	"testing"
)

// BenchmarkSetup is the cost of a fresh hardened runtime with 12 tools,
// before any script runs.
func BenchmarkSetup(b *testing.B) {
	h := newTestHost()
	names := []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "b.c", "b.d"}
	for b.Loop() {
		r := newRunner(nil, Options{Tools: names, Host: h})
		if err := r.setup(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunEmpty is a whole run of "return 1".
func BenchmarkRunEmpty(b *testing.B) {
	s, err := Compile("return 1", 0)
	if err != nil {
		b.Fatal(err)
	}
	h := newTestHost()
	for b.Loop() {
		if res := Run(context.Background(), s, Options{Tools: h.names(), Host: h}); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}
