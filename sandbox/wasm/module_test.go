package wasm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fixture reads a committed WAT fixture's binary (testdata/wasm; rebuild
// with scripts/build-wasm-fixtures.sh).
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "wasm", name+".wasm"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newRuntime(t testing.TB) *Runtime {
	t.Helper()
	r, err := NewRuntime(context.Background(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.Background()) })
	return r
}

func compile(t testing.TB, r *Runtime, name string, opts ModuleOptions) *Module {
	t.Helper()
	if opts.Name == "" {
		opts.Name = name
	}
	m, err := r.Compile(context.Background(), fixture(t, name), opts)
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	return m
}

func TestEcho(t *testing.T) {
	m := compile(t, newRuntime(t), "echo", ModuleOptions{})
	for _, args := range []string{`{"a":1}`, `[1,2,3]`, `"` + strings.Repeat("x", 200_000) + `"`} {
		out, err := m.Call(context.Background(), []byte(args))
		if err != nil {
			t.Fatalf("echo: %v", err)
		}
		if string(out) != args {
			t.Errorf("echo gave %d bytes, want %d", len(out), len(args))
		}
	}
}

func TestEchoRejectsInvalidJSON(t *testing.T) {
	m := compile(t, newRuntime(t), "echo", ModuleOptions{})
	for args, want := range map[string]string{
		"":           "wrote nothing to stdout",
		"{not json}": "wrote invalid JSON",
		"1 2":        "wrote invalid JSON",
	} {
		_, err := m.Call(context.Background(), []byte(args))
		if err == nil || err.Code != CodeToolError || !strings.Contains(err.Message, want) {
			t.Errorf("echo %q: got %v, want tool_error with %q", args, err, want)
		}
	}
}

func TestBadExit(t *testing.T) {
	m := compile(t, newRuntime(t), "badexit", ModuleOptions{})
	_, err := m.Call(context.Background(), []byte(`{}`))
	if err == nil || err.Code != CodeToolError || err.Message != "something went wrong: bad input" || err.ExitCode != 3 {
		t.Fatalf("got %#v, want tool_error with the stderr text and exit code 3", err)
	}
}

func TestLoopTimesOut(t *testing.T) {
	m := compile(t, newRuntime(t), "loop", ModuleOptions{Limits: Limits{Timeout: 100 * time.Millisecond}})
	for range 2 { // the second call shows the first left nothing stuck behind
		start := time.Now()
		_, err := m.Call(context.Background(), []byte(`{}`))
		if err == nil || err.Code != CodeTimeout || !strings.Contains(err.Message, "100ms") {
			t.Fatalf("got %v, want timeout naming its limit", err)
		}
		if d := time.Since(start); d > 100*time.Millisecond+stopSlack {
			t.Fatalf("the loop ran %v past a 100ms timeout", d-100*time.Millisecond)
		}
	}
}

func TestSleepIsCutAtTheDeadline(t *testing.T) {
	m := compile(t, newRuntime(t), "sleep", ModuleOptions{Limits: Limits{Timeout: 100 * time.Millisecond}})
	start := time.Now()
	_, err := m.Call(context.Background(), []byte(`{}`))
	if err == nil || err.Code != CodeTimeout {
		t.Fatalf("got %v, want timeout", err)
	}
	if d := time.Since(start); d > 100*time.Millisecond+stopSlack {
		t.Fatalf("a 10 s sleep held the call for %v past its 100ms timeout", d-100*time.Millisecond)
	}
}

func TestSleepSleepsForReal(t *testing.T) {
	// Not a timing test of the sleep's length: it shows the sleep is not
	// wazero's no-op stand-in, which would return at once.
	m := compile(t, newRuntime(t), "sleep", ModuleOptions{Limits: Limits{Timeout: 300 * time.Millisecond}})
	start := time.Now()
	m.Call(context.Background(), []byte(`{}`))
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Fatalf("the call took %v: the 10 s sleep did not sleep", d)
	}
}

func TestCallerCancel(t *testing.T) {
	m := compile(t, newRuntime(t), "loop", ModuleOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := m.Call(ctx, []byte(`{}`))
	if err == nil || err.Code != CodeCanceled {
		t.Fatalf("got %v, want canceled", err)
	}
}

func TestMemoryHog(t *testing.T) {
	m := compile(t, newRuntime(t), "memhog", ModuleOptions{Limits: Limits{MemoryBytes: 8 << 20}})
	_, err := m.Call(context.Background(), []byte(`{}`))
	if err == nil || err.Code != CodeMemoryLimit || !strings.Contains(err.Message, "limit of 8 MiB") || !strings.Contains(err.Message, "out of memory") {
		t.Fatalf("got %v, want memory_limit naming the limit and quoting stderr", err)
	}
	// The instance is gone with its memory; the module works on.
	echo := compile(t, m.rt, "echo", ModuleOptions{Limits: Limits{MemoryBytes: 8 << 20}})
	if _, err := echo.Call(context.Background(), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Call(context.Background(), []byte(`{}`)); err == nil || err.Code != CodeMemoryLimit {
		t.Fatalf("second call: got %v, want memory_limit again", err)
	}
}

func TestOutputCap(t *testing.T) {
	m := compile(t, newRuntime(t), "bigout", ModuleOptions{Limits: Limits{MaxStdoutBytes: 100_000}})
	start := time.Now()
	_, err := m.Call(context.Background(), []byte(`{}`))
	if err == nil || err.Code != CodeOutputLimit || !strings.Contains(err.Message, "100000 bytes to stdout") {
		t.Fatalf("got %v, want output_limit", err)
	}
	if d := time.Since(start); d > stopSlack {
		t.Fatalf("a module past its output cap ran on for %v", d)
	}
}

func TestStderrCap(t *testing.T) {
	m := compile(t, newRuntime(t), "badexit", ModuleOptions{Limits: Limits{MaxStderrBytes: 10}})
	_, err := m.Call(context.Background(), []byte(`{}`))
	if err == nil || err.Code != CodeOutputLimit || !strings.Contains(err.Message, "stderr") {
		t.Fatalf("got %v, want output_limit for stderr", err)
	}
}

func TestNoHostAccess(t *testing.T) {
	r := newRuntime(t)
	out, err := compile(t, r, "envargs", ModuleOptions{}).Call(context.Background(), []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"env":0,"args":1}` { // argv[0] is the tool's name
		t.Errorf("envargs: %s, want no environment and only argv[0]", out)
	}
	t.Setenv("CODEMODE_SECRET", "x") // the host's environment does not leak in
	if out, _ := compile(t, r, "envargs", ModuleOptions{}).Call(context.Background(), []byte(`{}`)); string(out) != `{"env":0,"args":1}` {
		t.Errorf("envargs with a host variable set: %s", out)
	}
	out, err = compile(t, r, "openfile", ModuleOptions{}).Call(context.Background(), []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"errno":8`) { // EBADF: there is no directory to open anything in
		t.Errorf("openfile: %s, want errno 8 (no preopened directory)", out)
	}
}

func TestMountIsReadOnlyAndConfined(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "granted")
	if err := os.MkdirAll(filepath.Join(dir, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "etc", "passwd"), []byte("granted"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "passwd"), []byte("not granted"), 0o644); err != nil {
		t.Fatal(err)
	}
	// openfile opens etc/passwd relative to the first preopen (the mounted
	// directory's copy, never the host's), tries to create etc/new there,
	// and to open ../passwd, just outside it.
	m := compile(t, newRuntime(t), "openfile", ModuleOptions{Mounts: []Mount{{HostDir: dir, GuestPath: "/"}}})
	out, err := m.Call(context.Background(), []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Errno, Rel, Create, Escape int }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.Errno != 0 || got.Rel != 0 {
		t.Errorf("%s: want the granted file opened", out)
	}
	if got.Create == 0 {
		t.Errorf("%s: created a file in a read-only mount", out)
	}
	if got.Escape == 0 {
		t.Errorf("%s: opened a file outside the mount", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "etc", "new")); err == nil {
		t.Error("etc/new exists on the host")
	}
}

func TestCompileErrors(t *testing.T) {
	r := newRuntime(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		binary  []byte
		opts    ModuleOptions
		problem string
	}{
		{"garbage", []byte("not wasm"), ModuleOptions{}, "not a valid WebAssembly module"},
		// (import "wasi_snapshot_preview1" "no_such_call" (func)) and
		// (import "wasi_snapshot_preview1" "proc_exit" (func)): no such
		// function, and proc_exit without its i32 parameter.
		{"unknown WASI import", []byte("\x00asm\x01\x00\x00\x00\x01\x04\x01\x60\x00\x00" +
			"\x02\x4a\x02\x16wasi_snapshot_preview1\x0cno_such_call\x00\x00\x16wasi_snapshot_preview1\x09proc_exit\x00\x00"),
			ModuleOptions{}, "no_such_call, which WASI preview 1 does not have; imports wasi_snapshot_preview1.proc_exit with the wrong signature"},
		{"reactor as command", fixture(t, "reactor_echo"), ModuleOptions{}, "is a WASI reactor (it exports _initialize and codemode_call, not _start)"},
		{"command as pooled", fixture(t, "echo"), ModuleOptions{Pooled: true}, "is a WASI command (it exports _start), but pooled instances need a WASI reactor"},
		{"memory over limit", fixture(t, "echo"), ModuleOptions{Limits: Limits{MemoryBytes: MaxMemoryBytes + 1}}, "over WebAssembly's 4 GiB"},
		{"relative mount", fixture(t, "echo"), ModuleOptions{Mounts: []Mount{{HostDir: t.TempDir(), GuestPath: "data"}}}, "must be absolute"},
		{"missing mount", fixture(t, "echo"), ModuleOptions{Mounts: []Mount{{HostDir: "/does/not/exist", GuestPath: "/data"}}}, "no such file"},
		{"file mount", fixture(t, "echo"), ModuleOptions{Mounts: []Mount{{HostDir: "module_test.go", GuestPath: "/data"}}}, "not a directory"},
	} {
		m, err := r.Compile(ctx, tc.binary, tc.opts)
		if err == nil {
			m.Close(ctx)
			t.Errorf("%s: compiled, want an error with %q", tc.name, tc.problem)
			continue
		}
		if !strings.Contains(err.Error(), tc.problem) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.problem)
		}
	}
}

func TestPooled(t *testing.T) {
	m := compile(t, newRuntime(t), "reactor_echo", ModuleOptions{Pooled: true})
	if !m.Pooled() {
		t.Fatal("not pooled")
	}
	for i, args := range []string{`{"n":1}`, `{"n":2}`, `[]`} {
		out, err := m.Call(context.Background(), []byte(args))
		if err != nil || string(out) != args {
			t.Fatalf("call %d: %s, %v", i, out, err)
		}
	}
	if n := len(m.pool.idle); n != 1 {
		t.Errorf("%d idle instances after sequential calls, want 1 reused", n)
	}
	// A failed call discards its instance.
	if _, err := m.Call(context.Background(), []byte(`not json`)); err == nil {
		t.Fatal("invalid JSON output succeeded")
	}
	if n := len(m.pool.idle); n != 0 {
		t.Errorf("%d idle instances after a failed call, want 0", n)
	}
	if out, err := m.Call(context.Background(), []byte(`{"after":true}`)); err != nil || string(out) != `{"after":true}` {
		t.Fatalf("after a failure: %s, %v", out, err)
	}
}

func TestConcurrentCalls(t *testing.T) {
	r := newRuntime(t)
	for _, m := range []*Module{compile(t, r, "echo", ModuleOptions{}), compile(t, r, "reactor_echo", ModuleOptions{Pooled: true})} {
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Go(func() {
				args := `{"i":` + strings.Repeat("1", i+1) + `}`
				for range 20 {
					out, err := m.Call(context.Background(), []byte(args))
					if err != nil || string(out) != args {
						t.Errorf("pooled=%v: %s, %v; want %s", m.Pooled(), out, err, args)
						return
					}
				}
			})
		}
		wg.Wait()
		if m.Pooled() && len(m.pool.idle) > maxIdle {
			t.Errorf("%d idle instances, over %d", len(m.pool.idle), maxIdle)
		}
	}
}

func TestCacheDir(t *testing.T) {
	dir := t.TempDir()
	for range 2 {
		r, err := NewRuntime(context.Background(), Config{CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		m, err := r.Compile(context.Background(), fixture(t, "echo"), ModuleOptions{Name: "echo"})
		if err != nil {
			t.Fatal(err)
		}
		if out, err := m.Call(context.Background(), []byte(`1`)); err != nil || string(out) != "1" {
			t.Fatalf("%s, %v", out, err)
		}
		r.Close(context.Background())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) == 0 {
		t.Error("the cache directory stayed empty")
	}
}

// Modules see the host's wall clock and random source, not wazero's
// deterministic stand-ins.
func TestRealClockAndRandom(t *testing.T) {
	m := compile(t, newRuntime(t), "clockrand", ModuleOptions{})
	var first struct{ Seconds, Random int64 }
	for i := range 3 {
		out, err := m.Call(context.Background(), []byte(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Seconds, Random int64 }
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		if d := got.Seconds - time.Now().Unix(); d < -60 || d > 60 {
			t.Errorf("the module's clock says %d, the host's %d", got.Seconds, time.Now().Unix())
		}
		if i == 0 {
			first = got
		} else if got.Random == first.Random {
			t.Errorf("call %d drew the same random number as the first: %d", i, got.Random)
		}
	}
}

// A reactor that exits while initialising fails the call; it must not be
// called on its closed instance (whose memory is gone).
func TestReactorExitingInInitialize(t *testing.T) {
	m := compile(t, newRuntime(t), "reactor_exit", ModuleOptions{Pooled: true})
	for range 2 {
		_, err := m.Call(context.Background(), []byte(`{}`))
		if err == nil || err.Code != CodeToolError || !strings.Contains(err.Message, "exited instead of returning") {
			t.Fatalf("got %v, want tool_error: the reactor exited", err)
		}
	}
}

// Closing a runtime while modules run stops them first: the calls fail with
// canceled, later calls too, and nothing is released under a running module.
func TestCallAfterModuleClose(t *testing.T) {
	m := compile(t, newRuntime(t), "echo", ModuleOptions{})
	m.Close(context.Background())
	if _, err := m.Call(context.Background(), []byte(`1`)); err == nil || err.Code != CodeCanceled || !strings.Contains(err.Message, "the module was closed") {
		t.Fatalf("got %v, want canceled: the module was closed", err)
	}
}

func TestCloseWhileRunning(t *testing.T) {
	r, err := NewRuntime(context.Background(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	fresh := compile(t, r, "spin", ModuleOptions{})
	pooled := compile(t, r, "reactor_echo", ModuleOptions{Pooled: true})
	if _, err := pooled.Call(context.Background(), []byte(`1`)); err != nil { // leaves an idle instance
		t.Fatal(err)
	}
	errs := make(chan *Error, 4)
	for range 4 {
		go func() {
			_, err := fresh.Call(context.Background(), nil)
			errs <- err
		}()
	}
	time.Sleep(50 * time.Millisecond)
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if err := <-errs; err == nil || err.Code != CodeCanceled || !strings.Contains(err.Message, "runtime was closed") {
			t.Errorf("a running call: %v, want canceled", err)
		}
	}
	for _, m := range []*Module{fresh, pooled} {
		if _, err := m.Call(context.Background(), []byte(`1`)); err == nil || err.Code != CodeCanceled {
			t.Errorf("a call after Close: %v, want canceled", err)
		}
	}
}

// Tables are outside the memory limit: their growth is capped, and a module
// whose tables start too large is refused.
func TestTablesAreBounded(t *testing.T) {
	r := newRuntime(t)
	out, err := compile(t, r, "tablegrow", ModuleOptions{}).Call(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Size int }
	if err := json.Unmarshal(out, &got); err != nil || got.Size > tableGrowth || got.Size <= tableGrowth-1024 {
		t.Errorf("tablegrow: %s, want a table grown to within 1024 entries of %d", out, tableGrowth)
	}
	// A table of 2^21 entries with no maximum.
	bin := []byte("\x00asm\x01\x00\x00\x00" + "\x04\x07\x01\x70\x00\x80\x80\x80\x01")
	if _, err := r.Compile(context.Background(), bin, ModuleOptions{}); err == nil || !strings.Contains(err.Error(), "tables may start with 1048576") {
		t.Errorf("a 2^21-entry table: %v", err)
	}
}

// A named pipe in a mounted directory is refused at once rather than
// blocking the call in the host's open, where no deadline reaches.
func TestMountRefusesPipes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no named pipes")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "etc", "passwd"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	m := compile(t, newRuntime(t), "openfile", ModuleOptions{
		Mounts: []Mount{{HostDir: dir, GuestPath: "/"}}, Limits: Limits{Timeout: time.Second},
	})
	type result struct {
		out []byte
		err *Error
	}
	done := make(chan result, 1)
	go func() {
		out, err := m.Call(context.Background(), []byte(`{}`))
		done <- result{out, err}
	}()
	var out []byte
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		out = r.out
	case <-time.After(10 * time.Second):
		// Unblock the open so the goroutine can end, then fail.
		if f, err := os.OpenFile(filepath.Join(dir, "etc", "passwd"), os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("the call blocked opening a named pipe")
	}
	var got struct{ Rel int }
	json.Unmarshal(out, &got)
	if got.Rel != 2 { // EACCES
		t.Errorf("%s: want the pipe refused with EACCES (2)", out)
	}
}

// A module that makes wazero's validator panic (a function whose type index
// is out of range) is refused with an error; the host does not crash.
func TestCompileSurvivesCompilerPanics(t *testing.T) {
	// One type; function 0 of type 0 calls function 1, of type 48.
	bin := []byte("\x00asm\x01\x00\x00\x00\x01\x04\x01\x60\x00\x00\x03\x03\x02\x00\x30" +
		"\x0a\x09\x02\x04\x00\x10\x01\x0b\x02\x00\x0b")
	_, err := newRuntime(t).Compile(context.Background(), bin, ModuleOptions{Name: "bad"})
	if err == nil || !strings.Contains(err.Error(), "not a valid WebAssembly module: the compiler failed on it") {
		t.Errorf("got %v, want an invalid module on which the compiler failed", err)
	}
}
