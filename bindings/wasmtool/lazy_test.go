package wasmtool

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/wasm"
	"github.com/codemode-dev/codemode/sandbox/worker"
)

// counted is a module source that counts its reads; block, if set, holds
// each read until it is closed, and reading is closed at the first read.
type counted struct {
	bin     []byte
	reads   atomic.Int32
	block   chan struct{}
	reading chan struct{}
}

// blocked is a counted source of bin whose reads wait for block.
func blocked(bin []byte) *counted {
	return &counted{bin: bin, block: make(chan struct{}), reading: make(chan struct{})}
}

func (c *counted) source() wasm.Source {
	return wasm.Source{Read: func() ([]byte, error) {
		if c.reads.Add(1) == 1 && c.reading != nil {
			close(c.reading)
		}
		if c.block != nil {
			<-c.block
		}
		return c.bin, nil
	}}
}

func fixtureBytes(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name+".wasm"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const echoManifest = `{"name": "fx.echo", "description": "Echo.", "inputSchema": {"type": "object"}}`

func loadEmbedded(t *testing.T, l *Loader, manifest string, src wasm.Source) engine.Tool {
	t.Helper()
	tool, err := l.LoadEmbedded(context.Background(), Embedded{Manifest: []byte(manifest), Origin: "built-in WASM", Module: src})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// A tool costs nothing until it is called: loading it and building an
// engine over it (its definitions, its TypeScript) read nothing of its
// module. Its first call compiles it, once, however many calls come at the
// same time; they all succeed.
func TestLazyCompileOnce(t *testing.T) {
	src := blocked(fixtureBytes(t, "echo"))
	tool := loadEmbedded(t, newLoader(t), echoManifest, src.source())
	if tool.Origin != "built-in WASM" {
		t.Errorf("Origin %q", tool.Origin)
	}
	eng, err := engine.NewBuilder().Add(tool).Build()
	if err != nil {
		t.Fatal(err)
	}
	_ = eng.ToolDefinitions()
	_ = eng.Declarations()
	if n := src.reads.Load(); n != 0 {
		t.Fatalf("the module was read %d times before any call", n)
	}
	const calls = 16
	var wg sync.WaitGroup
	errs := make([]error, calls)
	for i := range calls {
		wg.Go(func() {
			out, err := tool.Handler(context.Background(), []byte(`{"i":1}`))
			if err == nil && string(out) != `{"i":1}` {
				err = errors.New("echoed " + string(out))
			}
			errs[i] = err
		})
	}
	<-src.reading // the first call is reading; the others wait for it
	close(src.block)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	if n := src.reads.Load(); n != 1 {
		t.Errorf("the module was read %d times, want once", n)
	}
}

// A call that comes while another compiles the module waits at most for
// its own context; the compile goes on for the next calls.
func TestLazyWaiterCanceled(t *testing.T) {
	src := blocked(fixtureBytes(t, "echo"))
	tool := loadEmbedded(t, newLoader(t), echoManifest, src.source())
	first := make(chan error, 1)
	go func() {
		_, err := tool.Handler(context.Background(), []byte(`{}`))
		first <- err
	}()
	<-src.reading
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tool.Handler(ctx, []byte(`{}`))
	if e := engine.AsError(err, ""); e == nil || e.Code != engine.CodeCanceled || !strings.Contains(e.Message, "being compiled") {
		t.Errorf("waiter with a canceled context: %v, want canceled", err)
	}
	close(src.block)
	if err := <-first; err != nil {
		t.Errorf("first call: %v", err)
	}
	if out, err := tool.Handler(context.Background(), []byte(`{"a":2}`)); err != nil || string(out) != `{"a":2}` {
		t.Errorf("after the compile: %s, %v", out, err)
	}
}

// A corrupt module — garbage, cut short, empty, a valid module of the wrong
// kind — fails its first call with a tool_error that names its origin and
// says what is wrong, never a panic; later calls fail the same way without
// reading it again.
func TestLazyCorruptModule(t *testing.T) {
	echo := fixtureBytes(t, "echo")
	for name, tc := range map[string]struct {
		bin  []byte
		want string
	}{
		"garbage":   {[]byte("this is not WebAssembly at all"), "not a valid WebAssembly module"},
		"truncated": {echo[:len(echo)/2], "not a valid WebAssembly module"},
		"empty":     {nil, "not a valid WebAssembly module"},
		"reactor":   {fixtureBytes(t, "reactor_echo"), "module is a WASI reactor"},
		"bad count": {[]byte("\x00asm\x01\x00\x00\x00\x01\xff\xff\xff\xff\x0f"), "not a valid WebAssembly module"},
	} {
		t.Run(name, func(t *testing.T) {
			src := &counted{bin: tc.bin}
			tool := loadEmbedded(t, newLoader(t), echoManifest, src.source())
			for range 2 {
				_, err := tool.Handler(context.Background(), []byte(`{}`))
				e := engine.AsError(err, "")
				if e == nil || e.Code != engine.CodeToolError || !strings.HasPrefix(e.Message, `tool "fx.echo" cannot be loaded: built-in WASM: fx.echo: `) ||
					!strings.Contains(e.Message, tc.want) {
					t.Errorf("got %v, want tool_error naming the origin and %q", err, tc.want)
				}
			}
			if n := src.reads.Load(); n != 1 {
				t.Errorf("read %d times, want once: the failure is remembered", n)
			}
		})
	}
}

// With a cache, a module prepared by one loader is not read by the next
// (another process): the embedded tool's first call finds it by its hash.
func TestLazyEmbeddedFromCache(t *testing.T) {
	dir := t.TempDir()
	bin := fixtureBytes(t, "echo")
	for i, wantReads := range []int32{1, 0} {
		l, err := NewLoader(context.Background(), Options{CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		src := &counted{bin: bin}
		s := src.source()
		s.Hash = sha(bin)
		tool := loadEmbedded(t, l, echoManifest, s)
		if out, err := tool.Handler(context.Background(), []byte(`{}`)); err != nil || string(out) != `{}` {
			t.Errorf("loader %d: %s, %v", i, out, err)
		}
		if n := src.reads.Load(); n != wantReads {
			t.Errorf("loader %d: the module was read %d times, want %d", i, n, wantReads)
		}
		l.Close(context.Background())
	}
}

// An embedded manifest is checked as a file's is, and may not mount.
func TestLoadEmbeddedErrors(t *testing.T) {
	l := newLoader(t)
	for manifest, want := range map[string]string{
		`{"name": "x"}`: "built-in WASM: description: missing",
		`{"name": "x", "description": "d", "inputSchema": {"type": "object"}, "mounts": [{"host": "/tmp", "guest": "/data"}]}`: "built-in WASM: an embedded tool cannot mount directories",
	} {
		_, err := l.LoadEmbedded(context.Background(), Embedded{Manifest: []byte(manifest), Origin: "built-in WASM", Module: wasm.BytesSource(nil)})
		if e := engine.AsError(err, ""); e == nil || e.Code != engine.CodeBadRequest || !strings.HasPrefix(e.Message, want) {
			t.Errorf("%s: %v, want bad_request starting %q", manifest, err, want)
		}
	}
}

// Close waits for a module being compiled, and the tool fails after it.
func TestCloseWaitsForCompile(t *testing.T) {
	l, err := NewLoader(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := blocked(fixtureBytes(t, "echo"))
	tool := loadEmbedded(t, l, echoManifest, src.source())
	go tool.Handler(context.Background(), []byte(`{}`))
	<-src.reading
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := l.Close(ctx); err == nil || !strings.Contains(err.Error(), "still compiling") {
		t.Errorf("Close during a compile, with a short context: %v", err)
	}
	close(src.block)
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := tool.Handler(context.Background(), []byte(`{}`)); err == nil {
		t.Error("the tool still works after Close")
	}
}

// In worker mode too a module loads at its first call, and one that does
// not load in the worker fails later calls at once, without sending it to
// a worker again.
func TestLazyInWorkers(t *testing.T) {
	pool, err := worker.New(worker.Config{Warm: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	l, err := NewLoader(context.Background(), Options{Workers: pool})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(context.Background())
	good := &counted{bin: fixtureBytes(t, "echo")}
	tool := loadEmbedded(t, l, echoManifest, good.source())
	if good.reads.Load() != 0 {
		t.Fatal("read before its first call")
	}
	if out, err := tool.Handler(context.Background(), []byte(`{"w":1}`)); err != nil || string(out) != `{"w":1}` {
		t.Errorf("in a worker: %s, %v", out, err)
	}
	kind := loadEmbedded(t, l, `{"name": "fx.re", "description": "d", "inputSchema": {"type": "object"}}`, (&counted{bin: fixtureBytes(t, "reactor_echo")}).source())
	for i := range 2 {
		start := time.Now()
		_, err := kind.Handler(context.Background(), []byte(`{}`))
		if e := engine.AsError(err, ""); e == nil || e.Code != engine.CodeToolError || !strings.Contains(e.Message, "module is a WASI reactor") {
			t.Errorf("call %d of a reactor not declared pure: %v", i, err)
		}
		if i == 1 && time.Since(start) > 100*time.Millisecond {
			t.Errorf("the second call took %v: the failure should be remembered", time.Since(start))
		}
	}
}

func sha(b []byte) [32]byte { return sha256.Sum256(b) }

// TestPreload: Preload compiles the named tools' modules now (a later call
// reads nothing), leaves the others for their first call, and reports a
// module that cannot load by its tool, as its calls will.
func TestPreload(t *testing.T) {
	l := newLoader(t)
	good := &counted{bin: fixtureBytes(t, "echo")}
	other := &counted{bin: fixtureBytes(t, "echo")}
	bad := &counted{bin: []byte("not WebAssembly")}
	tool := loadEmbedded(t, l, echoManifest, good.source())
	loadEmbedded(t, l, `{"name": "fx.other", "description": "Echo.", "inputSchema": {"type": "object"}}`, other.source())
	loadEmbedded(t, l, `{"name": "fx.bad", "description": "Broken.", "inputSchema": {"type": "object"}}`, bad.source())

	if err := l.Preload(context.Background(), "fx.echo", "createStickyNote"); err != nil {
		t.Fatalf("Preload: %v", err)
	}
	if good.reads.Load() != 1 || other.reads.Load() != 0 || bad.reads.Load() != 0 {
		t.Fatalf("reads after preloading fx.echo: %d, %d, %d; want 1, 0, 0", good.reads.Load(), other.reads.Load(), bad.reads.Load())
	}
	if _, err := tool.Handler(context.Background(), []byte(`{}`)); err != nil {
		t.Fatalf("call after Preload: %v", err)
	}
	err := l.Preload(context.Background())
	if err == nil || !strings.Contains(err.Error(), `tool "fx.bad" cannot be loaded`) || strings.Contains(err.Error(), "fx.echo") {
		t.Errorf("Preload of every tool: %v, want fx.bad's error alone", err)
	}
	if good.reads.Load() != 1 || other.reads.Load() != 1 || bad.reads.Load() != 1 {
		t.Errorf("reads after preloading every tool: %d, %d, %d; want 1 each", good.reads.Load(), other.reads.Load(), bad.reads.Load())
	}
}
