package wasmtool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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
	rt      *wasm.Runtime
	workers *worker.Pool

	mu      sync.Mutex
	modules []*wasm.Module
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
	// Modules are still compiled here once, so that a broken one is reported
	// at load.
	Workers *worker.Pool
}

// NewLoader makes a Loader. Its error is an *engine.Error (bad_request): the
// cache directory cannot be used.
func NewLoader(ctx context.Context, opts Options) (*Loader, error) {
	rt, err := wasm.NewRuntime(ctx, wasm.Config{CacheDir: opts.CacheDir, CacheMaxBytes: opts.CacheMaxBytes})
	if err != nil {
		return nil, engine.WrapError(engine.CodeBadRequest, err)
	}
	return &Loader{rt: rt, workers: opts.Workers}, nil
}

// Close stops the calls still running (they fail with canceled), waits for
// them, and releases every module loaded; the tools fail from then on. If
// ctx ends first, nothing is released (see wasm.Runtime.Close).
func (l *Loader) Close(ctx context.Context) error {
	if err := l.rt.Close(ctx); err != nil {
		return err
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

// Load reads a manifest (NAME.tool.json), compiles the module it names and
// returns the tool, whose Origin is manifestPath. Its error is an
// *engine.Error (bad_request) whose message starts with manifestPath and
// names every problem of the manifest, or the module's.
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

// LoadDir loads every *.tool.json in dir (not in subdirectories), compiling
// the modules in parallel, and returns the tools sorted by name, each with
// its manifest's path (dir joined with the file's name) as Origin. Its error
// is one *engine.Error (bad_request) naming every broken manifest or module,
// one line each; a directory without manifests is an error too.
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
	binary, err := readRegular(m.Module, MaxModuleBytes)
	if err != nil {
		return engine.Tool{}, fmt.Errorf("module: %w", err)
	}
	mounts := make([]wasm.Mount, len(m.Mounts))
	for i, mt := range m.Mounts {
		mounts[i] = wasm.Mount{HostDir: mt.Host, GuestPath: mt.Guest}
	}
	opts := wasm.ModuleOptions{
		Name: m.Name,
		Limits: wasm.Limits{
			MemoryBytes:    int64(m.Memory),
			Timeout:        m.Timeout.D(),
			MaxStdoutBytes: int(m.MaxOutput),
		},
		Mounts: mounts,
		Pooled: m.Pure,
	}
	mod, err := l.rt.Compile(ctx, binary, opts)
	if err != nil {
		return engine.Tool{}, moduleError(m.Module, err)
	}
	if l.workers != nil {
		mod.Close(ctx) // it compiled: the workers run it
		remote, err := l.workers.Module(binary, opts)
		if err != nil {
			return engine.Tool{}, moduleError(m.Module, err)
		}
		return m.tool(remote), nil
	}
	l.mu.Lock()
	l.modules = append(l.modules, mod)
	l.mu.Unlock()
	return m.tool(mod), nil
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
