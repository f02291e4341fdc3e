package wasm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
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

	cacheDir string // "" when there is no cache on disk
	cacheMax int64  // its bound; negative: none
	trimMu   sync.Mutex

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
	cacheDir := ""
	if cfg.CacheDir != "" {
		if fi, err := os.Stat(cfg.CacheDir); err == nil && !fi.IsDir() {
			return nil, fmt.Errorf("wasm: compilation cache %s: not a directory", cfg.CacheDir)
		}
		c, err := wazero.NewCompilationCacheWithDir(cfg.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("wasm: compilation cache %s: %w", cfg.CacheDir, err)
		}
		cache = c
		if cacheDir, err = filepath.Abs(cfg.CacheDir); err != nil { // as wazero does: a later chdir changes nothing
			c.Close(ctx)
			return nil, fmt.Errorf("wasm: compilation cache %s: %w", cfg.CacheDir, err)
		}
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
	r := &Runtime{rt: rt, cache: cache, closing: closing, stop: stop, cacheDir: cacheDir, cacheMax: cfg.CacheMaxBytes}
	if r.cacheMax == 0 {
		r.cacheMax = DefaultCacheMaxBytes
	}
	r.trimCache()
	return r, nil
}

// CheckCacheDir checks, as NewRuntime does, that dir can be a compilation
// cache (Config.CacheDir): a directory, made if missing. A host that makes
// its Runtime only when it first needs one (wasmtool's Loader) reports an
// unusable directory at its start with it.
func CheckCacheDir(dir string) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("wasm: compilation cache %s: not a directory", dir)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("wasm: compilation cache %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("wasm: compilation cache %s: %w", dir, err)
	}
	return nil
}

// trimCache bounds the cache directory, if there is one. It is best effort:
// a cache that cannot be trimmed still works.
func (r *Runtime) trimCache() {
	if r.cacheDir == "" || r.cacheMax < 0 {
		return
	}
	r.trimMu.Lock() // a process's own compiles, finishing together, trim once each in turn
	defer r.trimMu.Unlock()
	_, _ = TrimCache(r.cacheDir, r.cacheMax)
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
// initial memory fits its limit. Mount directories must exist. The module
// is prepared first (Prepare: checked and rewritten, or read from the
// cache).
func (r *Runtime) Compile(ctx context.Context, binary []byte, opts ModuleOptions) (*Module, error) {
	return r.CompileSource(ctx, BytesSource(binary), opts)
}

// CompileSource is Compile of a module read only if its prepared form is
// not in the cache (see Source).
func (r *Runtime) CompileSource(ctx context.Context, src Source, opts ModuleOptions) (*Module, error) {
	opts, fsc, err := checkOptions(opts)
	if err != nil {
		return nil, err
	}
	p, cm, err := r.prepare(ctx, src)
	if err != nil {
		return nil, err
	}
	if cm == nil {
		return r.compilePrepared(ctx, p, opts, fsc)
	}
	return r.newModule(ctx, cm, opts, fsc)
}

// CompilePrepared is Compile of a module Prepare made, here or in another
// process of the same program: it is compiled as it is, trusted to be what
// Prepare made.
func (r *Runtime) CompilePrepared(ctx context.Context, p Prepared, opts ModuleOptions) (*Module, error) {
	opts, fsc, err := checkOptions(opts)
	if err != nil {
		return nil, err
	}
	return r.compilePrepared(ctx, p, opts, fsc)
}

func (r *Runtime) compilePrepared(ctx context.Context, p Prepared, opts ModuleOptions, fsc wazero.FSConfig) (*Module, error) {
	cm, err := compileModule(ctx, r.rt, p.Binary)
	r.trimCache() // the compile may have added an entry
	if err != nil {
		return nil, fmt.Errorf("not a valid WebAssembly module: %w", err)
	}
	return r.newModule(ctx, cm, opts, fsc)
}

// checkOptions fills in the defaults of opts and checks its limit and
// mounts.
func checkOptions(opts ModuleOptions) (ModuleOptions, wazero.FSConfig, error) {
	opts.Limits = opts.Limits.withDefaults()
	if opts.Limits.MemoryBytes > MaxMemoryBytes {
		return opts, nil, fmt.Errorf("memory limit %d bytes is over WebAssembly's 4 GiB", opts.Limits.MemoryBytes)
	}
	fsc, err := mountConfig(opts.Mounts)
	return opts, fsc, err
}

// newModule checks a compiled module's shape and makes the Module; cm is
// closed if it cannot be one.
func (r *Runtime) newModule(ctx context.Context, cm wazero.CompiledModule, opts ModuleOptions, fsc wazero.FSConfig) (*Module, error) {
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

// rewriteAndCompile rewrites a module (bounded tables, check points for the
// deadline, merged data segments) and compiles it. A module that fails is
// compiled as sent, so that an invalid one is reported with its own error.
// One whose counts do not fit in its bytes is refused before the rewrites
// read it.
func (r *Runtime) rewriteAndCompile(ctx context.Context, binary []byte) ([]byte, wazero.CompiledModule, error) {
	if err := checkBounds(binary); err != nil {
		return nil, nil, fmt.Errorf("not a valid WebAssembly module: %w", err)
	}
	rewritten, err := boundTables(binary)
	if err != nil {
		return nil, nil, err
	}
	rewritten, err = addCheckpoints(rewritten)
	if err == nil {
		rewritten = mergeDataSegments(rewritten)
		var cm wazero.CompiledModule
		if cm, err = compileModule(ctx, r.rt, rewritten); err == nil {
			return rewritten, cm, nil
		}
	}
	cm, origErr := compileModule(ctx, r.rt, binary)
	if origErr != nil {
		return nil, nil, fmt.Errorf("not a valid WebAssembly module: %w", origErr)
	}
	cm.Close(ctx)
	if errors.Is(err, errUnknownInstruction) {
		return nil, nil, fmt.Errorf("module uses an instruction the sandbox cannot bound in time: %w", err)
	}
	return nil, nil, fmt.Errorf("module cannot be prepared for the sandbox: %w", err)
}

// compileModule is wazero's CompileModule, with its panics turned into
// errors: wazero v1.12.0's validator indexes the type section with a
// function's type index before checking it, so a module naming a type it
// does not have would crash the host. A module whose counts do not fit in
// its bytes never reaches wazero, whose decoder would allocate by them
// (bounds.go).
func compileModule(ctx context.Context, rt wazero.Runtime, bin []byte) (cm wazero.CompiledModule, err error) {
	if err := checkBounds(bin); err != nil {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			cm, err = nil, fmt.Errorf("the compiler failed on it: %v", p)
		}
	}()
	return rt.CompileModule(ctx, bin)
}

// Errors of a module whose kind is not the one its options ask for, wrapped
// by Compile's error: a host can add its own way out (wasmtool names the
// manifest's "pure").
var (
	// ErrNotReactor: a command (it exports _start) was given to be pooled.
	ErrNotReactor = errors.New("the module is a WASI command, not a reactor")
	// ErrNotCommand: a reactor (it exports CallExport and no _start) was
	// given to run a fresh instance per call.
	ErrNotCommand = errors.New("the module is a WASI reactor, not a command")
)

// shapeError lists everything that keeps a compiled module from being a
// tool of its kind; it wraps ErrNotReactor or ErrNotCommand when the kind is
// one of the problems (the last one listed).
type shapeError struct {
	problems []string
	kind     error
}

func (e *shapeError) Error() string { return "module " + strings.Join(e.problems, "; ") }
func (e *shapeError) Unwrap() error { return e.kind }

// checkShape reports, in one error, everything that keeps the compiled
// module from being a tool of its kind.
func (m *Module) checkShape() error {
	cm := m.compiled
	e := &shapeError{}
	wasi := m.rt.rt.Module(wasiModule).ExportedFunctionDefinitions()
	for _, f := range cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		w, ok := wasi[name]
		switch {
		case mod != wasiModule:
			e.problems = append(e.problems, fmt.Sprintf("imports %s.%s (a tool may import only %s)", mod, name, wasiModule))
		case !ok:
			e.problems = append(e.problems, fmt.Sprintf("imports %s.%s, which WASI preview 1 does not have", mod, name))
		case !slices.Equal(f.ParamTypes(), w.ParamTypes()) || !slices.Equal(f.ResultTypes(), w.ResultTypes()):
			e.problems = append(e.problems, fmt.Sprintf("imports %s.%s with the wrong signature", mod, name))
		}
	}
	if len(cm.ImportedMemories()) > 0 {
		e.problems = append(e.problems, "imports its memory (a tool must define and export its own)")
	}
	mem, ok := cm.ExportedMemories()["memory"]
	switch {
	case !ok:
		e.problems = append(e.problems, `exports no memory named "memory"`)
	case mem.Min() > m.limitPages:
		e.problems = append(e.problems, fmt.Sprintf("starts with %d KiB of memory, over its limit of %d KiB", mem.Min()*64, m.limitPages*64))
	}
	funcs := cm.ExportedFunctions()
	call, hasCall := funcs[CallExport]
	_, hasStart := funcs["_start"]
	_, hasInit := funcs["_initialize"]
	if hasCall && (len(call.ParamTypes()) != 0 || !slices.Equal(call.ResultTypes(), []api.ValueType{api.ValueTypeI32})) {
		e.problems = append(e.problems, fmt.Sprintf("exports %s with the wrong signature: want () -> i32", CallExport))
	}
	switch {
	case m.opts.Pooled && hasStart && !hasInit:
		// A command's runtime is set up by _start, which then runs main and
		// exits: an export called without it finds no runtime (Go: "wasmexport
		// function called before runtime initialization").
		e.problems = append(e.problems, fmt.Sprintf("is a WASI command (it exports _start), but pooled instances need a WASI reactor, "+
			"which exports _initialize and %s: build it as a reactor (Go: -buildmode=c-shared, with //go:wasmexport %s)", CallExport, CallExport))
		e.kind = ErrNotReactor
	case m.opts.Pooled && !hasCall:
		e.problems = append(e.problems, fmt.Sprintf("exports no %s function: a pooled tool must be a WASI reactor exporting %s() -> i32 "+
			"(Go: //go:wasmexport %s, built with -buildmode=c-shared)", CallExport, CallExport, CallExport))
	case m.opts.Pooled:
		if hasInit {
			m.initFuncs = []string{"_initialize"}
		}
	case !hasStart && (hasCall || hasInit):
		e.problems = append(e.problems, fmt.Sprintf("is a WASI reactor (it exports %s, not _start), but a fresh instance per call "+
			"needs a WASI command: build it as one (Go: without -buildmode=c-shared)", strings.Join(reactorExports(hasInit, hasCall), " and ")))
		e.kind = ErrNotCommand
	case !hasStart:
		e.problems = append(e.problems, "exports no _start function: a tool must be a WASI command")
	}
	if len(e.problems) > 0 {
		return e
	}
	return nil
}

func reactorExports(hasInit, hasCall bool) []string {
	var names []string
	if hasInit {
		names = append(names, "_initialize")
	}
	if hasCall {
		names = append(names, CallExport)
	}
	return names
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
