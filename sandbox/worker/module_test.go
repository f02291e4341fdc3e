package worker

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/sandbox/wasm"
)

func wasmFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "wasm", name+".wasm"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestModuleCalls(t *testing.T) {
	p := newPool(t, Config{Warm: 1, Max: 2})
	for _, tc := range []struct {
		fixture string
		pooled  bool
		want    string // result, or error code
	}{
		{"echo", false, `{"x":1}`},
		{"reactor_echo", true, `{"x":1}`},
		{"loop", false, "timeout"},
		{"memhog", false, "memory_limit"},
		{"badexit", false, "tool_error"},
		{"echo", false, `{"x":1}`}, // the worker still works
	} {
		// Only the loop is ended by the clock: the others get a long budget,
		// so that a busy machine cannot make the clock end them first.
		lim := wasm.Limits{Timeout: time.Minute, MemoryBytes: 4 << 20}
		if tc.want == "timeout" {
			lim.Timeout = 300 * time.Millisecond
		}
		m, err := p.Module(wasmFixture(t, tc.fixture), wasm.ModuleOptions{Name: tc.fixture, Limits: lim, Pooled: tc.pooled})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the first call sends the module, the second finds it there
			out, werr := m.Call(context.Background(), []byte(`{"x":1}`))
			got := string(out)
			if werr != nil {
				got = string(werr.Code)
			}
			if got != tc.want {
				t.Errorf("%s: got %s (%v), want %s", tc.fixture, got, werr, tc.want)
			}
		}
	}
	if s := p.Stats(); s.Replaced != 0 {
		t.Errorf("workers were replaced: %+v", s)
	}
}

// A module the worker cannot stop in time (the host's backstop) or that
// takes the worker down fails that call only.
func TestModuleCancel(t *testing.T) {
	p := newPool(t, Config{Warm: 1})
	m, err := p.Module(wasmFixture(t, "loop"), wasm.ModuleOptions{Name: "loop", Limits: wasm.Limits{Timeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, werr := m.Call(ctx, []byte(`{}`))
	if werr == nil || werr.Code != wasm.CodeTimeout || time.Since(start) > 10*time.Second {
		t.Errorf("got %v after %v, want timeout soon after 100ms", werr, time.Since(start))
	}
}
