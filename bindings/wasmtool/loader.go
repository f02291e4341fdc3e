package wasmtool

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/wasm"
	"github.com/codemode-dev/codemode/sandbox/worker"
)

// Loader turns WASM modules and their manifests into engine tools. The tools
// stay usable until Close; one Loader serves any number of tools.
type Loader struct {
	cfg     wasm.Config
	workers func() (*worker.Pool, error) // nil: calls run in this process

	// The runtime is made at the first compile: a process whose tools are
	// never called makes none (≈ 1 ms: wazero's runtime and the WASI
	// functions).
	rtOnce sync.Once
	rt     *wasm.Runtime
	rtErr  error

	mu      sync.Mutex
	closed  bool
	loads   sync.WaitGroup // modules being compiled, at their first call
	modules []*wasm.Module
	lazies  []*lazyModule // every tool's module, for Preload
}

// Options configure a Loader.
type Options struct {
	// CacheDir keeps compiled machine code between processes: a Go tool
	// that takes a second to compile loads in a fraction of it the next time.
	// Created if missing.
	CacheDir string
	// CacheMaxBytes bounds CacheDir: past it, the least recently used
	// entries are removed when the loader starts and after each compile
	// (see wasm.TrimCache; a Go tool's entry is ≈ 15 MB). 0 means
	// wasm.DefaultCacheMaxBytes (256 MiB); negative, no bound.
	CacheMaxBytes int64
	// Workers, if set, runs the tools' calls in the pool's worker processes
	// instead of this one (give the pool the same CacheDir as WasmCacheDir).
	// A module is prepared here at its tool's first call (checked and
	// rewritten, or read from the cache; compiled once on a miss), and
	// compiled by each worker at the first call it runs.
	Workers *worker.Pool
	// WorkersFunc, if set instead of Workers, gives the pool when a
	// module is first needed, so that a program whose tools are never
	// called starts no worker for them. It is called at each tool's first
	// call (make it return one pool); an error fails that call.
	WorkersFunc func() (*worker.Pool, error)
}

// NewLoader makes a Loader, and trims its cache directory (see
// Options.CacheMaxBytes). Its error is an *engine.Error (bad_request): the
// cache directory cannot be used.
func NewLoader(ctx context.Context, opts Options) (*Loader, error) {
	cfg := wasm.Config{CacheDir: opts.CacheDir, CacheMaxBytes: opts.CacheMaxBytes}
	if cfg.CacheDir != "" {
		if err := wasm.CheckCacheDir(cfg.CacheDir); err != nil {
			return nil, engine.WrapError(engine.CodeBadRequest, err)
		}
		if cfg.CacheMaxBytes >= 0 {
			_, _ = wasm.TrimCache(cfg.CacheDir, cmp.Or(cfg.CacheMaxBytes, wasm.DefaultCacheMaxBytes)) // best effort, as the runtime's
		}
	}
	l := &Loader{cfg: cfg, workers: opts.WorkersFunc}
	if opts.Workers != nil {
		l.workers = func() (*worker.Pool, error) { return opts.Workers, nil }
	}
	return l, nil
}

// Close stops the calls still running (they fail with canceled), waits for
// them and for modules being compiled, and releases every module loaded;
// the tools fail from then on. If ctx ends first, nothing is released (see
// wasm.Runtime.Close).
func (l *Loader) Close(ctx context.Context) error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	loaded := make(chan struct{})
	go func() {
		l.loads.Wait()
		close(loaded)
	}()
	select {
	case <-loaded:
	case <-ctx.Done():
		return fmt.Errorf("wasmtool: closing the loader: modules still compiling: %w", ctx.Err())
	}
	if l.rt != nil { // no load runs any more: rt is set or never will be
		if err := l.rt.Close(ctx); err != nil {
			return err
		}
	}
	l.mu.Lock()
	mods := l.modules
	l.modules = nil
	l.mu.Unlock()
	for _, m := range mods {
		m.Close(ctx)
	}
	return nil
}

// Load reads a manifest (NAME.tool.json) and returns the tool, whose Origin
// is manifestPath. Its error is an *engine.Error (bad_request) whose message
// starts with manifestPath and names every problem of the manifest, or that
// its module is not a regular file within MaxModuleBytes, or that a mount's
// directory is missing. The module itself is read and compiled at the
// tool's first call (see the package's documentation), so the file must
// still be there then: a module that is gone, does not compile, or is not
// of the kind "pure" says, fails that call and every later one with
// tool_error.
func (l *Loader) Load(ctx context.Context, manifestPath string) (engine.Tool, error) {
	t, err := l.load(ctx, manifestPath)
	if err != nil {
		return engine.Tool{}, engine.WrapError(engine.CodeBadRequest, fileError{manifestPath, err})
	}
	t.Origin = manifestPath
	return t, nil
}

// fileError is what is wrong with one manifest or its module, on one line
// that starts with the manifest's path.
type fileError struct {
	path string
	err  error
}

func (e fileError) Error() string {
	msg := e.err.Error()
	if ee, ok := e.err.(*engine.Error); ok {
		msg = ee.Message // without the code: the whole is a bad_request
	}
	return e.path + ": " + strings.ReplaceAll(strings.TrimSpace(msg), "\n", "; ")
}

func (e fileError) Unwrap() error { return e.err }

// LoadDir loads every *.tool.json in dir (not in subdirectories) and returns the tools sorted by name, each with
// its manifest's path (dir joined with the file's name) as Origin. Its error
// is one *engine.Error (bad_request) naming every broken manifest, one line
// each; a directory without manifests is an error too.
func (l *Loader) LoadDir(ctx context.Context, dir string) ([]engine.Tool, error) {
	entries, err := os.ReadDir(dir) // sorted; and unlike a glob, any directory name works
	if err != nil {
		return nil, engine.WrapError(engine.CodeBadRequest, err)
	}
	var paths []string
	for _, e := range entries {
		// Not only regular files: a directory, pipe or device named like a
		// manifest is reported by Load with the other errors.
		if strings.HasSuffix(e.Name(), ManifestSuffix) {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	if len(paths) == 0 {
		return nil, engine.Errorf(engine.CodeBadRequest, "%s: no WASM tools (no *%s files)", dir, ManifestSuffix)
	}
	tools := make([]engine.Tool, len(paths))
	errs := make([]error, len(paths))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			tools[i], errs[i] = l.Load(ctx, p)
		})
	}
	wg.Wait()
	seen := map[string]string{}
	for i, t := range tools {
		if errs[i] != nil {
			continue
		}
		if first, dup := seen[t.Name]; dup {
			errs[i] = fileError{paths[i], fmt.Errorf("tool %q is also defined by %s", t.Name, first)}
		}
		seen[t.Name] = paths[i]
	}
	if err := joinLoadErrors(errs); err != nil {
		return nil, err
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	return tools, nil
}

// joinLoadErrors makes one *engine.Error (bad_request) of the errors of
// Load, one line each, or nil when there are none. It unwraps to them.
func joinLoadErrors(errs []error) error {
	var j loadErrors
	for _, err := range errs {
		if err != nil {
			j = append(j, err)
		}
	}
	if len(j) == 0 {
		return nil
	}
	return engine.WrapError(engine.CodeBadRequest, j)
}

// loadErrors are the per-manifest errors of LoadDir: their messages joined
// by "; " (without the code each repeats), so the error stays one line.
type loadErrors []error

func (j loadErrors) Error() string {
	lines := make([]string, len(j))
	for i, err := range j {
		if e, ok := err.(*engine.Error); ok {
			lines[i] = e.Message
		} else {
			lines[i] = err.Error()
		}
	}
	return strings.Join(lines, "; ")
}

func (j loadErrors) Unwrap() []error { return j }

func (l *Loader) load(ctx context.Context, manifestPath string) (engine.Tool, error) {
	data, err := readRegular(manifestPath, MaxManifestBytes)
	if err != nil {
		return engine.Tool{}, err
	}
	m, err := ParseManifest(data, filepath.Dir(manifestPath), filepath.Base(manifestPath))
	if err != nil {
		return engine.Tool{}, err
	}
	// What is cheap to check now is checked now; the module's contents
	// wait for the first call.
	if err := checkRegular(m.Module, MaxModuleBytes); err != nil {
		return engine.Tool{}, fmt.Errorf("module: %w", err)
	}
	for _, mt := range m.Mounts {
		if fi, err := os.Stat(mt.Host); err != nil {
			return engine.Tool{}, fmt.Errorf("mount %q: %w", mt.Guest, err)
		} else if !fi.IsDir() {
			return engine.Tool{}, fmt.Errorf("mount %q: %s is not a directory", mt.Guest, mt.Host)
		}
	}
	src := wasm.Source{Read: func() ([]byte, error) { return readRegular(m.Module, MaxModuleBytes) }}
	return m.tool(l.lazy(m, manifestPath, src)), nil
}

// Embedded is a tool whose manifest and module are inside the program
// (tools/wasm/builtin's are).
type Embedded struct {
	// Manifest is the tool's manifest, as in a NAME.tool.json; its
	// "module" is ignored, and it may not mount directories.
	Manifest []byte
	// Origin is where the tool comes from, for messages and listings
	// ("built-in WASM").
	Origin string
	// Module is the module, read (decompressed, say) at the first call of
	// the tool whose prepared module is not in the cache.
	Module wasm.Source
}

// LoadEmbedded returns the tool of an embedded manifest and module, whose
// Origin is e.Origin. Like Load, it reads nothing of the module: it is
// compiled at the tool's first call. Its error is an *engine.Error
// (bad_request) naming the manifest's problems after e.Origin.
func (l *Loader) LoadEmbedded(ctx context.Context, e Embedded) (engine.Tool, error) {
	m, err := ParseManifest(e.Manifest, "", "embedded"+ManifestSuffix)
	if err == nil && len(m.Mounts) > 0 {
		err = errors.New("an embedded tool cannot mount directories")
	}
	if err != nil {
		return engine.Tool{}, engine.WrapError(engine.CodeBadRequest, fileError{e.Origin, err})
	}
	m.Module = m.Name
	t := m.tool(l.lazy(m, e.Origin, e.Module))
	t.Origin = e.Origin
	return t, nil
}

// lazy is the module of manifest m, from src, compiled at its first call.
func (l *Loader) lazy(m Manifest, origin string, src wasm.Source) *lazyModule {
	mounts := make([]wasm.Mount, len(m.Mounts))
	for i, mt := range m.Mounts {
		mounts[i] = wasm.Mount{HostDir: mt.Host, GuestPath: mt.Guest}
	}
	z := &lazyModule{l: l, origin: origin, module: m.Module, src: src, opts: wasm.ModuleOptions{
		Name: m.Name,
		Limits: wasm.Limits{
			MemoryBytes:    int64(m.Memory),
			Timeout:        m.Timeout.D(),
			MaxStdoutBytes: int(m.MaxOutput),
		},
		Mounts: mounts,
		Pooled: m.Pure,
	}}
	l.mu.Lock()
	l.lazies = append(l.lazies, z)
	l.mu.Unlock()
	return z
}

// Preload does now, for the tools named (every tool loaded so far if none
// is), what their first call would do (read, prepare and compile the
// module), one after another, and returns the errors of those that fail,
// joined (their calls fail the same way). A benchmark preloads, so that no
// run it times pays for a compile; a program that calls its tools at once
// may too. ctx ends the wait, not a compile under way (it finishes for the
// tool's next call).
func (l *Loader) Preload(ctx context.Context, names ...string) error {
	l.mu.Lock()
	lazies := slices.Clone(l.lazies)
	l.mu.Unlock()
	var errs []error
	for _, z := range lazies {
		if len(names) > 0 && !slices.Contains(names, z.opts.Name) {
			continue
		}
		if _, werr := z.get(ctx); werr != nil {
			errs = append(errs, errors.New(werr.Message))
		}
		if ctx.Err() != nil {
			break
		}
	}
	return errors.Join(errs...)
}

// lazyModule is a tool's module, read and compiled at the tool's first call,
// once: calls that come while it compiles wait for it (or for their
// context). Loading it costs nothing before then — a process that never
// calls the tool never reads its module — and the cost of its first call is
// what wasm.Runtime.Prepare and Compile say (mostly wazero's: from a warm
// cache, it validates every function before it looks the code up).
//
// A module that fails to load fails its first call and every later one
// with the same tool_error: the same bytes would fail the same way, and a
// broken module compiled again at each call would make every call cost
// what its compile costs. The process must start again to try a fixed one.
type lazyModule struct {
	l      *Loader
	origin string // the manifest's path, or the embedded tool's Origin
	module string // the module's path, for messages
	src    wasm.Source
	opts   wasm.ModuleOptions

	mu   sync.Mutex
	done chan struct{} // closed once mod or err is set; nil before the first call
	mod  caller
	err  *wasm.Error
}

func (z *lazyModule) Call(ctx context.Context, args []byte) (json.RawMessage, *wasm.Error) {
	mod, err := z.get(ctx)
	if err != nil {
		return nil, err
	}
	return mod.Call(ctx, args)
}

// get returns the compiled module, compiling it if this is the first call.
// The compile is the tool's, not the first caller's: it runs to its end
// even if that caller's context ends meanwhile (the engine's timeout still
// answers the call), so that the next call finds it done.
func (z *lazyModule) get(ctx context.Context) (caller, *wasm.Error) {
	z.mu.Lock()
	if z.done == nil {
		done := make(chan struct{})
		z.done = done
		z.mu.Unlock()
		mod, err, again := z.load()
		z.mod, z.err = mod, err // read by others only after done is closed
		if again {
			// Not the module's fault (no worker pool now): the next call
			// tries again; the calls waiting now fail with this one.
			z.mu.Lock()
			z.done = nil
			z.mu.Unlock()
		}
		close(done)
		return mod, err
	}
	done := z.done
	z.mu.Unlock()
	select {
	case <-done:
		return z.mod, z.err
	case <-ctx.Done():
		code, verb := wasm.CodeCanceled, "canceled"
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			code, verb = wasm.CodeTimeout, "timed out"
		}
		return nil, &wasm.Error{Code: code, Message: fmt.Sprintf("tool %q %s while its module was being compiled for its first call", z.opts.Name, verb)}
	}
}

// load reads, prepares and compiles the module; its error is the message
// every call of the tool fails with from then on, unless again says the
// failure was not the module's (the worker pool could not be had).
func (z *lazyModule) load() (mod caller, werr *wasm.Error, again bool) {
	l := z.l
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, &wasm.Error{Code: wasm.CodeCanceled, Message: fmt.Sprintf("tool %q was stopped: its loader was closed", z.opts.Name)}, false
	}
	l.loads.Add(1)
	l.mu.Unlock()
	defer l.loads.Done()
	defer func() {
		if p := recover(); p != nil { // never expected; a crash of the process would be worse
			mod, werr, again = nil, z.loadError(fmt.Errorf("loading it failed: %v", p)), false
		}
	}()
	ctx := context.Background()
	l.rtOnce.Do(func() { l.rt, l.rtErr = wasm.NewRuntime(ctx, l.cfg) })
	if l.rtErr != nil {
		return nil, z.loadError(l.rtErr), false
	}
	if l.workers != nil {
		pool, err := l.workers()
		if err != nil {
			return nil, &wasm.Error{Code: wasm.CodeToolError, Message: fmt.Sprintf("tool %q cannot run: %v", z.opts.Name, err)}, true
		}
		p, err := l.rt.Prepare(ctx, z.src)
		if err != nil {
			return nil, z.loadError(err), false
		}
		remote, err := pool.PreparedModule(p, z.opts)
		if err != nil {
			return nil, z.loadError(err), false
		}
		return remote, nil, false
	}
	m, err := l.rt.CompileSource(ctx, z.src, z.opts)
	if err != nil {
		return nil, z.loadError(err), false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed { // cannot happen while Close waits for loads; kept for safety
		m.Close(ctx)
		return nil, &wasm.Error{Code: wasm.CodeCanceled, Message: fmt.Sprintf("tool %q was stopped: its loader was closed", z.opts.Name)}, false
	}
	l.modules = append(l.modules, m)
	return m, nil, false
}

// loadError is a module's failure to load as its calls report it: the
// manifest (or embedded origin) and the module, then what is wrong.
func (z *lazyModule) loadError(err error) *wasm.Error {
	return &wasm.Error{Code: wasm.CodeToolError, Message: fmt.Sprintf("tool %q cannot be loaded: %s", z.opts.Name, fileError{z.origin, moduleError(z.module, err)})}
}

// moduleError names the module that failed to compile and, when its kind
// does not match "pure", adds the manifest's way out to the build the
// sandbox names: the kind's problem is the last the sandbox lists.
func moduleError(module string, err error) error {
	switch {
	case errors.Is(err, wasm.ErrNotReactor):
		err = fmt.Errorf(`%w, or set "pure": false to run it as a command, a fresh instance per call`, err)
	case errors.Is(err, wasm.ErrNotCommand):
		err = fmt.Errorf(`%w, or, if the tool keeps no state between calls, set "pure": true to run it pooled`, err)
	}
	return fmt.Errorf("%s: %w", filepath.Base(module), err)
}

// caller runs a module's calls: in this process (*wasm.Module) or in a
// worker process (*worker.Module).
type caller interface {
	Call(ctx context.Context, args []byte) (json.RawMessage, *wasm.Error)
}

// tool is the engine's view of a loaded module.
func (m Manifest) tool(mod caller) engine.Tool {
	return engine.Tool{
		Name:         m.Name,
		Description:  m.Description,
		InputSchema:  m.InputSchema,
		OutputSchema: m.OutputSchema,
		Annotations:  m.Annotations,
		Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			out, err := mod.Call(ctx, args)
			if err != nil {
				return nil, &engine.Error{Code: engine.Code(err.Code), Message: err.Message}
			}
			return out, nil
		},
	}
}
