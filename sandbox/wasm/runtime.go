package wasm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// Runtime compiles and runs modules. One Runtime serves any number of
// modules with different limits (the memory limit is enforced per instance,
// not per runtime) and is safe for concurrent use. Close it when done.
type Runtime struct {
	rt    wazero.Runtime
	cache wazero.CompilationCache

	// closing ends every running call when Close starts; calls counts
	// them, so that Close frees nothing a running module still uses.
	closing context.Context
	stop    context.CancelFunc
	mu      sync.Mutex
	closed  bool
	calls   sync.WaitGroup
}

// wasiModule is the only module a tool may import from.
const wasiModule = "wasi_snapshot_preview1"

// NewRuntime makes a Runtime with the WASI host functions.
func NewRuntime(ctx context.Context, cfg Config) (*Runtime, error) {
	var cache wazero.CompilationCache
	if cfg.CacheDir != "" {
		c, err := wazero.NewCompilationCacheWithDir(cfg.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("wasm: compilation cache %s: %w", cfg.CacheDir, err)
		}
		cache = c
	} else {
		cache = wazero.NewCompilationCache()
	}
	// Close-on-done is what stops a guest in an endless loop at its deadline;
	// without it wazero never checks the context inside guest code.
	rc := wazero.NewRuntimeConfig().WithCloseOnContextDone(true).WithCompilationCache(cache)
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(ctx)
		cache.Close(ctx)
		return nil, fmt.Errorf("wasm: WASI: %w", err)
	}
	closing, stop := context.WithCancel(context.Background())
	return &Runtime{rt: rt, cache: cache, closing: closing, stop: stop}, nil
}

// Close stops the calls still running (they fail with canceled), waits for
// them to return, and releases every module compiled by r and the runtime
// itself. If ctx ends before the calls have returned (a module blocked in a
// host call), Close returns ctx's error and releases nothing: freeing memory
// and code a module still runs would crash the process.
func (r *Runtime) Close(ctx context.Context) error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.stop()
	done := make(chan struct{})
	go func() {
		r.calls.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("wasm: closing the runtime: calls still running: %w", ctx.Err())
	}
	err := r.rt.Close(ctx)
	if cerr := r.cache.Close(ctx); err == nil {
		err = cerr
	}
	return err
}

// enter registers a call; it fails once Close has started.
func (r *Runtime) enter() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.calls.Add(1)
	return true
}

// Compile compiles a module and checks that it can be a tool: it imports
// nothing but WASI functions, exports memory and the entry point of its
// kind (_start for a command, CallExport for a pooled reactor), and its
// initial memory fits its limit. Mount directories must exist.
func (r *Runtime) Compile(ctx context.Context, binary []byte, opts ModuleOptions) (*Module, error) {
	opts.Limits = opts.Limits.withDefaults()
	if opts.Limits.MemoryBytes > MaxMemoryBytes {
		return nil, fmt.Errorf("memory limit %d bytes is over WebAssembly's 4 GiB", opts.Limits.MemoryBytes)
	}
	fsc, err := mountConfig(opts.Mounts)
	if err != nil {
		return nil, err
	}
	cm, err := r.compile(ctx, binary)
	if err != nil {
		return nil, err
	}
	m := &Module{rt: r, compiled: cm, opts: opts, limitPages: pagesFor(opts.Limits.MemoryBytes)}
	if err := m.checkShape(); err != nil {
		cm.Close(ctx)
		return nil, err
	}
	m.base = wazero.NewModuleConfig().
		WithName(""). // anonymous: instances of one module never collide
		WithArgs(opts.Name).
		WithSysWalltime().WithSysNanotime().
		WithRandSource(cryptoRand{}).
		WithFSConfig(fsc)
	if opts.Pooled {
		m.base = m.base.WithStartFunctions(m.initFuncs...)
		m.pool = &pool{}
	}
	return m, nil
}

// compile rewrites a module (bounded tables, check points for the deadline,
// merged data segments) and compiles it. A module that fails is compiled
// as sent, so that an invalid one is reported with its own error.
func (r *Runtime) compile(ctx context.Context, binary []byte) (wazero.CompiledModule, error) {
	rewritten, err := boundTables(binary)
	if err != nil {
		return nil, err
	}
	rewritten, err = addCheckpoints(rewritten)
	if err == nil {
		var cm wazero.CompiledModule
		if cm, err = compileModule(ctx, r.rt, mergeDataSegments(rewritten)); err == nil {
			return cm, nil
		}
	}
	cm, origErr := compileModule(ctx, r.rt, binary)
	if origErr != nil {
		return nil, fmt.Errorf("not a valid WebAssembly module: %w", origErr)
	}
	cm.Close(ctx)
	if errors.Is(err, errUnknownInstruction) {
		return nil, fmt.Errorf("module uses an instruction the sandbox cannot bound in time: %w", err)
	}
	return nil, fmt.Errorf("module cannot be prepared for the sandbox: %w", err)
}

// compileModule is wazero's CompileModule, with its panics turned into
// errors: wazero v1.12.0's validator indexes the type section with a
// function's type index before checking it, so a module naming a type it
// does not have would crash the host.
func compileModule(ctx context.Context, rt wazero.Runtime, bin []byte) (cm wazero.CompiledModule, err error) {
	defer func() {
		if p := recover(); p != nil {
			cm, err = nil, fmt.Errorf("the compiler failed on it: %v", p)
		}
	}()
	return rt.CompileModule(ctx, bin)
}

// checkShape reports, in one error, everything that keeps the compiled
// module from being a tool of its kind.
func (m *Module) checkShape() error {
	cm := m.compiled
	var problems []string
	wasi := m.rt.rt.Module(wasiModule).ExportedFunctionDefinitions()
	for _, f := range cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		w, ok := wasi[name]
		switch {
		case mod != wasiModule:
			problems = append(problems, fmt.Sprintf("imports %s.%s (a tool may import only %s)", mod, name, wasiModule))
		case !ok:
			problems = append(problems, fmt.Sprintf("imports %s.%s, which WASI preview 1 does not have", mod, name))
		case !slices.Equal(f.ParamTypes(), w.ParamTypes()) || !slices.Equal(f.ResultTypes(), w.ResultTypes()):
			problems = append(problems, fmt.Sprintf("imports %s.%s with the wrong signature", mod, name))
		}
	}
	if len(cm.ImportedMemories()) > 0 {
		problems = append(problems, "imports its memory (a tool must define and export its own)")
	}
	mem, ok := cm.ExportedMemories()["memory"]
	switch {
	case !ok:
		problems = append(problems, `exports no memory named "memory"`)
	case mem.Min() > m.limitPages:
		problems = append(problems, fmt.Sprintf("starts with %d KiB of memory, over its limit of %d KiB", mem.Min()*64, m.limitPages*64))
	}
	funcs := cm.ExportedFunctions()
	if m.opts.Pooled {
		f, ok := funcs[CallExport]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("exports no %s function: a pooled (pure) tool must be a WASI reactor exporting %s() -> i32 (Go: //go:wasmexport %s, built with -buildmode=c-shared)", CallExport, CallExport, CallExport))
		case len(f.ParamTypes()) != 0 || !slices.Equal(f.ResultTypes(), []api.ValueType{api.ValueTypeI32}):
			problems = append(problems, fmt.Sprintf("exports %s with the wrong signature: want () -> i32", CallExport))
		}
		if _, ok := funcs["_initialize"]; ok {
			m.initFuncs = []string{"_initialize"}
		}
	} else if _, ok := funcs["_start"]; !ok {
		hint := ""
		if _, ok := funcs[CallExport]; ok {
			hint = " (it exports " + CallExport + ": declare the tool pure to run it pooled)"
		}
		problems = append(problems, "exports no _start function: a tool must be a WASI command"+hint)
	}
	if len(problems) > 0 {
		return fmt.Errorf("module %s", strings.Join(problems, "; "))
	}
	return nil
}

// mountConfig grants the mounts read-only; with none, the module gets no
// file system (no preopened directories at all).
func mountConfig(mounts []Mount) (wazero.FSConfig, error) {
	fsc := wazero.NewFSConfig()
	seen := map[string]bool{}
	for _, mt := range mounts {
		if !ValidGuestPath(mt.GuestPath) {
			return nil, fmt.Errorf("mount %q: the guest path must be absolute and clean (like /data)", mt.GuestPath)
		}
		if seen[mt.GuestPath] {
			return nil, fmt.Errorf("mount %q: mounted twice", mt.GuestPath)
		}
		seen[mt.GuestPath] = true
		fi, err := os.Stat(mt.HostDir)
		if err != nil {
			return nil, fmt.Errorf("mount %q: %w", mt.GuestPath, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("mount %q: %s is not a directory", mt.GuestPath, mt.HostDir)
		}
		fsc = withMount(fsc, mt.HostDir, mt.GuestPath)
	}
	return fsc, nil
}

// ValidGuestPath reports whether p can be a mount's guest path: absolute and
// clean, like /data.
func ValidGuestPath(p string) bool { return path.IsAbs(p) && path.Clean(p) == p }

// pagesFor rounds bytes up to 64 KiB pages.
func pagesFor(bytes int64) uint32 { return uint32((bytes + pageSize - 1) / pageSize) }

const pageSize = 64 << 10
