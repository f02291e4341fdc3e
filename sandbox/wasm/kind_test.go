package wasm

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// A command given to be pooled is refused when compiled, with the way out,
// instead of loading and then crashing at every call: a command's runtime is
// set up by _start, which pooled instances never run. command_call is the
// shape of a Go command built from a source with //go:wasmexport
// codemode_call; the Go build itself is checked below.
func TestPooledCommandRefused(t *testing.T) {
	r := newRuntime(t)
	ctx := context.Background()
	m, err := r.Compile(ctx, fixture(t, "command_call"), ModuleOptions{Name: "cc", Pooled: true})
	if err == nil {
		_, cerr := m.Call(ctx, []byte(`{}`))
		m.Close(ctx)
		t.Fatalf("compiled as pooled; its call: %v", cerr)
	}
	if !errors.Is(err, ErrNotReactor) {
		t.Errorf("not ErrNotReactor: %v", err)
	}
	for _, want := range []string{"is a WASI command (it exports _start)", "_initialize", "-buildmode=c-shared"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	// The same module is a good command.
	m = compile(t, r, "command_call", ModuleOptions{})
	if out, cerr := m.Call(ctx, []byte(`{}`)); cerr != nil || string(out) != `{}` {
		t.Errorf("as a command: %s, %v", out, cerr)
	}
}

// The reverse: a reactor given to run a fresh instance per call.
func TestReactorAsCommandRefused(t *testing.T) {
	_, err := newRuntime(t).Compile(context.Background(), fixture(t, "reactor_echo"), ModuleOptions{Name: "re"})
	if !errors.Is(err, ErrNotCommand) || !strings.Contains(err.Error(), "without -buildmode=c-shared") {
		t.Errorf("got %v, want ErrNotCommand and the build to use", err)
	}
}

// The real thing: Go's command build of a tool with //go:wasmexport
// codemode_call is refused for pooling; its reactor build is taken.
func TestPooledGoCommandRefused(t *testing.T) {
	r := newRuntime(t)
	ctx := context.Background()
	m, err := r.Compile(ctx, goModule(t, false), ModuleOptions{Name: "graph.layout", Pooled: true})
	if err == nil {
		_, cerr := m.Call(ctx, []byte(`{"nodes":[{"id":"a"}]}`))
		m.Close(ctx)
		t.Fatalf("Go command compiled as pooled; its call: %v", cerr)
	}
	if !errors.Is(err, ErrNotReactor) {
		t.Errorf("not ErrNotReactor: %v", err)
	}
	m, err = r.Compile(ctx, goModule(t, true), ModuleOptions{Name: "graph.layout", Pooled: true})
	if err != nil {
		t.Fatalf("Go reactor: %v", err)
	}
	defer m.Close(ctx)
	if _, cerr := m.Call(ctx, []byte(`{"nodes":[{"id":"a"}]}`)); cerr != nil {
		t.Errorf("Go reactor's call: %v", cerr)
	}
	if _, err := r.Compile(ctx, goModule(t, true), ModuleOptions{Name: "graph.layout"}); !errors.Is(err, ErrNotCommand) {
		t.Errorf("Go reactor as a command: %v, want ErrNotCommand", err)
	}
}
