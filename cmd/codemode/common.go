package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/codemode-dev/codemode/bindings/mcp"
	"github.com/codemode-dev/codemode/bindings/wasmtool"
	"github.com/codemode-dev/codemode/cmd/codemode/internal/prestart"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/fserr"
	"github.com/codemode-dev/codemode/sandbox/worker"
	"github.com/codemode-dev/codemode/tools/wasm/builtin"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// A job is what batch and run differ in; runJob does the rest.
type job struct {
	cmd  string // "batch" or "run"
	what string // "request" or "script", for messages
	// prepare checks the input (and the options only this command has)
	// before anything is set up, and returns the run.
	prepare func(o *options, input []byte) (runFunc, error)
}

// A runFunc runs a prepared job on the engine. An error means it was
// rejected before anything ran.
type runFunc func(ctx context.Context, eng *engine.Engine) (outcome, error)

// outcome is what a job's run produced.
type outcome struct {
	result   any      // printed on stdout as indented JSON
	ok       bool     // every operation or the script succeeded
	unknown  []string // the tool names called that no tool has
	timedOut bool     // the run, or one of its calls, ended with timeout
}

// runJob is batch and run: flags, input, set-up, the run, its result, the
// board saved back.
func runJob(j job, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var o options
	pos, err := parseFlags(j.cmd, &o, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, commandHelp(findCommand(j.cmd)))
		return exitOK
	}
	if err != nil {
		return usageError(stderr, j.cmd, err)
	}
	if len(pos) == 0 || (len(pos) == 1 && pos[0] == "-") {
		refuse, hint := stdinPlan(pos, isTerminal(stdin))
		if refuse {
			return fail(stderr, exitUsage, "%s: no FILE, and stdin is a terminal: give a FILE, pipe the %s in, or use \"-\" to type it (end with %s)", j.cmd, j.what, eofKey())
		}
		if hint {
			fmt.Fprintf(stderr, "codemode: reading the %s from stdin; end it with %s\n", j.what, eofKey())
		}
	}
	data, err := readInput(pos, stdin)
	if err != nil {
		return fail(stderr, exitUsage, "%s: %v", j.cmd, err)
	}
	if len(data) > maxInput {
		return fail(stderr, exitUsage, "%s: the %s is larger than %d MiB", j.cmd, j.what, maxInput>>20)
	}
	timeoutOf := "batch"
	if j.cmd == "run" {
		timeoutOf = "script"
	}
	// The input's problems and the set-up's, all at once.
	exec, perr := j.prepare(&o, data)
	s, err := openSession(&o, timeoutOf, perr)
	defer s.close()
	if err != nil {
		return fail(stderr, exitUsage, "%s: %v", j.cmd, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	out, err := exec(ctx, s.eng)
	if err != nil {
		return fail(stderr, exitUsage, "%s: %v", j.cmd, message(err))
	}
	// An answer that cannot be written is a failure, said on stderr: an
	// empty line and exit 0 would read as a run that printed nothing.
	answered := true
	res, err := json.MarshalIndent(out.result, "", "  ")
	if err == nil {
		_, err = fmt.Fprintf(stdout, "%s\n", res)
	}
	if err != nil {
		answered = false
		fail(stderr, exitFailed, "%s: the result could not be written: %v", j.cmd, err)
	}
	// Only then the names: they come from the definitions, which the engine
	// makes on first use (execute_code's description declares every tool).
	if len(out.unknown) > 0 {
		if hint := unknownToolHint(out.unknown, s.toolNames(), o.wasmDirs, o.noBuiltinWasm); hint != "" {
			fmt.Fprintf(stderr, "codemode: %s\n", hint)
		}
	}
	if hint := o.timeout.secondsHint(); hint != "" && out.timedOut {
		fmt.Fprintf(stderr, "codemode: %s\n", hint)
	}
	if !s.save(j.cmd, stderr) || !out.ok || !answered {
		return exitFailed
	}
	return exitOK
}

// session is the set-up the commands share: the configuration, the board
// file, the runner, the WASM tools and the engine over them and the
// whiteboard tools.
type session struct {
	o         *options
	timeoutOf string // the limit --timeout sets: "batch", "script", or "" (tools); "serve" for serve
	cfg       engine.Config
	cache     string // the compilation cache's directory, "" for none
	eng       *engine.Engine
	board     *whiteboard.Board
	loader    *wasmtool.Loader // for the built-in WASM tools and --wasm-dir's
	// builtins are the built-in WASM tools (tools/wasm/builtin) that no
	// --wasm-dir or upstream tool of the same name replaces; none with
	// --no-builtin-wasm.
	builtins []engine.Tool
	// extraTools are the --wasm-dir tools and the upstream MCP servers'
	// (serve and bench give them to their engines).
	extraTools []engine.Tool
	upstreams  []*mcp.Upstream // the config's mcpServers, connected
	pool       *worker.Pool    // for --runner worker
	// lazyPool is the pool of a batch, started by the first call of a
	// built-in WASM tool (a batch runs no script: without a call to one it
	// needs no worker); it is closed with the session.
	lazyPool struct {
		sync.Mutex
		pool *worker.Pool
		err  error
		done bool
	}
}

// tools are the tools the session's engines serve beside the whiteboard's:
// the built-in WASM tools, the --wasm-dir tools and the upstream MCP
// servers'.
func (s *session) tools() []engine.Tool {
	return append(slices.Clip(s.builtins), s.extraTools...)
}

// openSession checks what can be checked before anything runs and sets up
// the rest: the configuration and --timeout, the cache directory, the board
// file (checked for being writable, and loaded, so that no run does work
// that could not be saved), the runner, the WASM tools of every --wasm-dir,
// and the engine over them and the whiteboard tools. timeoutOf is the limit
// --timeout sets, "batch" or "script"; "" for a command that runs nothing
// (tools: no board, no runner); "serve", which runs scripts for as long
// as it serves (no --timeout; its pool keeps a worker per CPU warm); or
// "bench", which runs its runs' scripts one after another (no --timeout,
// one warm worker; it builds its own engine over the session's set-up, see
// benchEngine). earlier
// are problems already found (in the input; nil ones are left out). The
// error reports every problem at once, one line each, without the code of
// engine errors. The session is returned with an error too: close it.
func openSession(o *options, timeoutOf string, earlier ...error) (*session, error) {
	s := &session{o: o, timeoutOf: timeoutOf, board: whiteboard.NewBoard()}
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, errors.New(message(err)))
		}
	}
	for _, err := range earlier {
		add(err)
	}
	var err error
	s.cfg, err = o.loadConfig(timeoutOf)
	add(err)
	s.cache, err = o.cacheDir()
	add(err)
	if o.board != "" {
		add(s.loadBoard())
	}
	if o.svg != "" {
		add(checkSVG(o))
	}
	// A batch runs no script (execute_code is refused inside one), so
	// without --wasm-dir tools nothing of it runs in a worker unless it
	// calls a built-in WASM tool: then that call starts the pool
	// (startLazyPool).
	needsWorkers := timeoutOf != "" && (timeoutOf != "batch" || len(o.wasmDirs) > 0)
	if len(errs) == 0 && needsWorkers && o.runner != "inprocess" {
		// One script per command: one worker, started now, while the tools
		// load (for run, started already while the binary initialised: see
		// internal/prestart); a WASM call the script makes starts a second.
		// (When a problem is known already nothing will run, and the tools
		// load only to report theirs.)
		wc := worker.Config{Warm: 1, WasmCacheDir: s.cache, Prestarted: prestart.Take()}
		if timeoutOf == "serve" {
			wc.Warm = 0 // the pool's default: one per CPU (and up to Max while busy, see worker.Config.IdleTimeout)
		}
		pool, err := worker.New(wc)
		add(err)
		s.pool = pool
	}
	wasmTools, wasmErrs := s.loadWasm(context.Background())
	for _, err := range wasmErrs {
		add(err)
	}
	upstreamTools, upstreamErrs := s.connectUpstreams(context.Background())
	for _, err := range upstreamErrs {
		add(err)
	}
	apiTools, apiErrs := s.bindOpenAPI()
	for _, err := range apiErrs {
		add(err)
	}
	s.extraTools = slices.Concat(wasmTools, upstreamTools, apiTools)
	// A --wasm-dir tool, an upstream MCP server's or an OpenAPI
	// operation's named like a built-in WASM tool takes its place (a
	// server "graph" with a tool "layout" worked before there were
	// built-ins).
	s.builtins = slices.DeleteFunc(s.builtins, func(b engine.Tool) bool {
		return slices.ContainsFunc(s.extraTools, func(t engine.Tool) bool { return t.Name == b.Name })
	})
	if len(errs) > 0 {
		return s, errors.Join(errs...)
	}
	tools := append(whiteboard.Tools(s.board), s.tools()...)
	s.eng, err = s.build(engine.NewBuilder().WithConfig(s.cfg), tools)
	return s, err
}

// build adds tools to b, gives it the session's script runner and builds
// it: every command's engine is made here, whatever else its builder has.
func (s *session) build(b *engine.Builder, tools []engine.Tool) (*engine.Engine, error) {
	b.Add(tools...)
	if s.pool != nil {
		b.WithScriptRunner(s.pool)
	}
	eng, err := b.Build()
	if err != nil {
		return nil, s.buildError(err, tools)
	}
	return eng, nil
}

// buildError is Build's error as the command says it: its problems with
// the configuration (tool overrides that name no tool) under one "config
// FILE:", followed, when an override names a tool of a namespace that no
// loaded tool is in, by where such tools come from; its other problems as
// they are.
func (s *session) buildError(err error, tools []engine.Tool) error {
	j, ok := errors.Unwrap(err).(interface{ Unwrap() []error }) // one *engine.Error each
	if !ok {
		return errors.New(message(err))
	}
	var lines, cfg []string
	for _, p := range j.Unwrap() {
		msg := message(p)
		if rest, ok := strings.CutPrefix(msg, "config: "); ok {
			cfg = append(cfg, rest)
		} else {
			lines = append(lines, msg)
		}
	}
	if len(cfg) > 0 {
		var loaded, unknown []string
		for _, t := range tools {
			loaded = append(loaded, t.Name)
		}
		for name := range s.cfg.Tools {
			if !slices.Contains(loaded, name) {
				unknown = append(unknown, name)
			}
		}
		slices.Sort(unknown)
		if hint := unknownToolHint(unknown, loaded, s.o.wasmDirs, s.o.noBuiltinWasm); hint != "" {
			cfg = append(cfg, hint)
		}
		lines = append(lines, configPrefix(s.o.config)+strings.Join(cfg, "; "))
	}
	return errors.New(strings.Join(lines, "\n"))
}

// configPrefix starts a message about the configuration: "config FILE: ",
// as the config file's own problems are reported, or "config: " for the
// defaults.
func configPrefix(file string) string {
	if file == "" {
		return "config: "
	}
	return "config " + file + ": "
}

// close releases what openSession started.
func (s *session) close() {
	for _, up := range s.upstreams {
		up.Close()
	}
	if s.loader != nil {
		s.loader.Close(context.Background())
	}
	if s.pool != nil {
		s.pool.Close()
	}
	s.lazyPool.Lock()
	s.lazyPool.done = true // none is started from now on
	if s.lazyPool.pool != nil {
		s.lazyPool.pool.Close()
	}
	s.lazyPool.Unlock()
}

// startLazyPool starts the batch's worker pool at the first call of a WASM
// tool, once, as openSession starts run's (one warm worker).
func (s *session) startLazyPool() (*worker.Pool, error) {
	s.lazyPool.Lock()
	defer s.lazyPool.Unlock()
	if s.lazyPool.done {
		if s.lazyPool.pool == nil && s.lazyPool.err == nil {
			return nil, errors.New("the command is ending")
		}
		return s.lazyPool.pool, s.lazyPool.err
	}
	s.lazyPool.done = true
	s.lazyPool.pool, s.lazyPool.err = worker.New(worker.Config{Warm: 1, WasmCacheDir: s.cache})
	return s.lazyPool.pool, s.lazyPool.err
}

// loadConfig reads --config and tightens the timeoutOf limit to --timeout.
func (o *options) loadConfig(timeoutOf string) (engine.Config, error) {
	cfg := engine.DefaultConfig()
	if o.config != "" {
		var err error
		if cfg, err = engine.LoadConfig(o.config); err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) { // the file could not be read
				return cfg, fmt.Errorf("--config %s: %v", o.config, fserr.Pathless(err))
			}
			return cfg, err
		}
	}
	timeout := o.timeout.d
	if timeout == 0 {
		return cfg, nil
	}
	limit := &cfg.Limits.BatchTimeout
	if timeoutOf == "script" {
		limit = &cfg.Script.Timeout
	}
	if timeout > *limit {
		return cfg, fmt.Errorf("--timeout %v exceeds the configured %s timeout %v", timeout.D(), timeoutOf, limit.D())
	}
	*limit = timeout
	return cfg, nil
}

// defaultWasmCache is where compiled WASM tools are kept between runs: a Go
// tool compiles in about a second, and loads from the cache in a fraction.
// "" when the system has no user cache directory.
func defaultWasmCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "codemode", "wasm")
}

// cacheDir is the directory of the compilation cache, "" for none: --wasm-cache,
// "off", or the default. A --wasm-cache that names something other than a
// directory is an error; the default is a convenience, skipped when unusable.
func (o *options) cacheDir() (string, error) {
	switch o.wasmCache {
	case "off":
		return "", nil
	case "":
		dir := defaultWasmCache()
		if fi, err := os.Stat(dir); dir == "" || (err == nil && !fi.IsDir()) {
			return "", nil
		}
		return dir, nil
	}
	fi, err := os.Stat(o.wasmCache)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return o.wasmCache, nil // made by the first compile
	case err != nil:
		return "", fmt.Errorf("--wasm-cache %s: %v", o.wasmCache, fserr.Pathless(err))
	case !fi.IsDir():
		return "", fmt.Errorf(`--wasm-cache %s: not a directory (give a directory, made if missing, or "off")`, o.wasmCache)
	}
	return o.wasmCache, nil
}

// loadWasm loads the built-in WASM tools (unless --no-builtin-wasm) and
// the tools of every --wasm-dir, and returns the latter, and the problems of
// every directory and manifest. (A --wasm-dir tool of a built-in tool's name
// replaces it: openSession.) Nothing of any module is read here: each is compiled at its
// tool's first call.
func (s *session) loadWasm(ctx context.Context) ([]engine.Tool, []error) {
	var errs []error
	var dirs []string
	for _, dir := range s.o.wasmDirs {
		if err := checkWasmDir(dir); err != nil {
			errs = append(errs, err)
		} else {
			dirs = append(dirs, dir)
		}
	}
	if len(dirs) == 0 && s.o.noBuiltinWasm {
		return nil, errs
	}
	opts := wasmtool.Options{CacheDir: s.cache, Workers: s.pool}
	if s.pool == nil && s.timeoutOf == "batch" && s.o.runner != "inprocess" {
		opts.WorkersFunc = s.startLazyPool
	}
	l, err := wasmtool.NewLoader(ctx, opts)
	if err != nil && s.o.wasmCache == "" && s.cache != "" {
		// The default cache is a convenience: without it, compile every time.
		opts.CacheDir = ""
		l, err = wasmtool.NewLoader(ctx, opts)
	}
	if err != nil {
		return nil, append(errs, err)
	}
	s.loader = l
	var tools []engine.Tool
	for _, dir := range dirs {
		ts, err := l.LoadDir(ctx, dir)
		if err != nil {
			// "DIR: no WASM tools" says which flag; a manifest's problems
			// start with its path, in DIR.
			msg := message(err)
			if rest, ok := strings.CutPrefix(msg, dir+": "); ok {
				err = fmt.Errorf("--wasm-dir %s: %s%s", dir, rest, buildHint(dir))
			}
			errs = append(errs, err)
			continue
		}
		tools = append(tools, ts...)
	}
	if !s.o.noBuiltinWasm {
		builtins, err := builtin.Load(ctx, l)
		if err != nil {
			return nil, append(errs, err)
		}
		s.builtins = builtins // less those another tool of the same name replaces (openSession)
	}
	return tools, errs
}

// checkWasmDir says what is wrong with a --wasm-dir that is no directory.
func checkWasmDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--wasm-dir %s: no such directory%s", dir, buildHint(dir))
	case err != nil:
		return fmt.Errorf("--wasm-dir %s: %v", dir, fserr.Pathless(err))
	case !fi.IsDir():
		return fmt.Errorf("--wasm-dir %s: not a directory (give the directory of the NAME%s manifests)", dir, wasmtool.ManifestSuffix)
	}
	return nil
}

// buildHint is a note for a --wasm-dir that is the repository's own build
// directory, tools/wasm/build, when it is missing or empty: on a fresh clone
// the example tools are not built yet. "" for any other directory.
func buildHint(dir string) string {
	clean := filepath.ToSlash(filepath.Clean(dir))
	if clean != "tools/wasm/build" && !strings.HasSuffix(clean, "/tools/wasm/build") {
		return ""
	}
	script := filepath.Join(dir, "..", "..", "..", "scripts", "build-wasm-tools.sh")
	if fi, err := os.Stat(script); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return fmt.Sprintf(" (run %s first: it builds the example tools there)", script)
}

// toolNames lists the engine's tools.
func (s *session) toolNames() []string {
	var names []string
	for _, t := range s.eng.ToolDefinitions().Tools {
		names = append(names, t.Name)
	}
	return names
}

// loadBoard checks that --board can be saved back (before anything runs,
// so that no work is done that could not be kept) and loads it: a missing
// file is an empty board, and so is an empty one.
func (s *session) loadBoard() error {
	if err := whiteboard.CheckFile(s.o.board); err != nil {
		return boardError(s.o.board, err)
	}
	if err := s.board.LoadFile(s.o.board); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return boardError(s.o.board, err)
	}
	return nil
}

// boardError is a board file's error as the CLI says it: the flag, the file,
// what is wrong.
func boardError(path string, err error) error {
	var fe *whiteboard.FileError
	if errors.As(err, &fe) {
		err = fe.Err
	}
	return fmt.Errorf("--board %s: %v", path, err)
}

// save writes the board back to --board and its picture to --svg after
// the run, says on stderr what could not be written and where the work was
// put instead, and reports whether everything was written.
func (s *session) save(cmd string, stderr io.Writer) bool {
	ok := true
	for _, msg := range []string{s.saveBoard(), s.saveSVG()} {
		if msg != "" {
			// Not fail: the board's last resort carries its JSON, on lines.
			fmt.Fprintf(stderr, "codemode: %s: %s\n", cmd, msg)
			ok = false
		}
	}
	return ok
}

// saveBoard writes the board back to --board, and returns "" or the line
// to print. A save that fails even so (the disk is full, the file was made
// read-only during the run) keeps the work: the board is written beside the
// file, or else into the temporary directory, or else onto stderr, and the
// line says where.
func (s *session) saveBoard() string {
	if s.o.board == "" {
		return ""
	}
	err := s.board.SaveFile(s.o.board)
	if err == nil {
		return ""
	}
	why := boardError(s.o.board, err)
	stamp := time.Now().Format("20060102-150405")
	for _, try := range []struct{ dir, pattern string }{
		{filepath.Dir(s.o.board), filepath.Base(s.o.board) + ".unsaved-" + stamp + "-*.json"},
		{os.TempDir(), "codemode-board-" + stamp + "-*.json"},
	} {
		if name, err := writeNew(try.dir, try.pattern, s.board.Save); err == nil {
			return fmt.Sprintf("%v: the board was not saved there; it is in %s", why, name)
		}
	}
	var b strings.Builder
	s.board.Save(&b)
	return fmt.Sprintf("%v: the board was not saved there, nor beside it or in %s; here it is:\n%s", why, os.TempDir(), strings.TrimSpace(b.String()))
}

// checkSVG checks that --svg can be written after the run, as loadBoard
// checks --board, and that it is not the board file, which the picture
// would replace.
func checkSVG(o *options) error {
	if o.board != "" && sameFile(o.board, o.svg) {
		return fmt.Errorf("--svg %s: is the --board file; give the picture a file of its own", o.svg)
	}
	if err := whiteboard.CheckSVGFile(o.svg); err != nil {
		return svgError(o.svg, err)
	}
	return nil
}

// sameFile reports whether two paths name one file: the same path, or
// existing files that are one (through a link).
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// svgError is an SVG file's error as the CLI says it.
func svgError(path string, err error) error {
	var fe *whiteboard.FileError
	if errors.As(err, &fe) {
		err = fe.Err
	}
	return fmt.Errorf("--svg %s: %v", path, err)
}

// saveSVG writes the board as a picture to --svg, and returns "" or the
// line to print. A write that fails even so puts the picture beside the
// file, or else into the temporary directory, and the line says where.
func (s *session) saveSVG() string {
	if s.o.svg == "" {
		return ""
	}
	err := s.board.SaveSVGFile(s.o.svg)
	if err == nil {
		return ""
	}
	why := svgError(s.o.svg, err)
	stamp := time.Now().Format("20060102-150405")
	for _, try := range []struct{ dir, pattern string }{
		{filepath.Dir(s.o.svg), filepath.Base(s.o.svg) + ".unsaved-" + stamp + "-*.svg"},
		{os.TempDir(), "codemode-board-" + stamp + "-*.svg"},
	} {
		if name, err := writeNew(try.dir, try.pattern, s.board.WriteSVG); err == nil {
			return fmt.Sprintf("%v: the picture was not written there; it is in %s", why, name)
		}
	}
	return fmt.Sprintf("%v: the picture was not written there, nor beside it or in %s", why, os.TempDir())
}

// writeNew writes a new file in dir named after pattern (as os.CreateTemp).
func writeNew(dir, pattern string, write func(io.Writer) error) (string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// unknownToolHint returns a hint for stderr when calls named tools in a
// namespace ("graph.layout") that no loaded tool is in: such tools are WASM
// tools (built in, or from --wasm-dir) or an MCP server's. It returns ""
// otherwise. The result the model reads stays as it is; this is for the
// person at the terminal.
func unknownToolHint(called, loaded, wasmDirs []string, noBuiltin bool) string {
	var missing []string
	builtinMissing := false
	for _, name := range called {
		i := strings.LastIndexByte(name, '.')
		if i <= 0 {
			continue
		}
		ns := name[:i+1]
		if slices.Contains(missing, ns+"*") || slices.ContainsFunc(loaded, func(t string) bool { return strings.HasPrefix(t, ns) }) {
			continue
		}
		missing = append(missing, ns+"*")
		builtinMissing = builtinMissing || slices.Contains(builtinNames(), name)
	}
	if len(missing) == 0 {
		return ""
	}
	tools := strings.Join(missing, ", ")
	if noBuiltin && builtinMissing {
		return fmt.Sprintf("hint: no tool %s is loaded: --no-builtin-wasm leaves out the built-in WASM tools (%s)", tools, strings.Join(builtinNames(), ", "))
	}
	if len(wasmDirs) == 0 {
		return fmt.Sprintf("hint: no tool %s is loaded; WASM tools of your own are loaded with --wasm-dir DIR (see docs/wasm.md)", tools)
	}
	return fmt.Sprintf("hint: no tool %s is in --wasm-dir %s", tools, strings.Join(wasmDirs, ", "))
}

// builtinNames are the names of the built-in WASM tools, from their
// manifests (nothing is compiled).
var builtinNames = sync.OnceValue(func() []string {
	tools, _ := builtin.Tools()
	var names []string
	for _, t := range tools {
		var m struct{ Name string }
		if json.Unmarshal(t.Manifest, &m) == nil {
			names = append(names, m.Name)
		}
	}
	slices.Sort(names)
	return names
})

// stdinPlan decides what to do when the input would come from stdin (pos
// is empty or "-") and whether stdin is a terminal. With no FILE it refuses:
// a command that waits silently for typing looks hung, and the user most
// likely forgot FILE. With "-" it reads, after a hint that it is waiting.
func stdinPlan(pos []string, terminal bool) (refuse, hint bool) {
	if !terminal {
		return false, false
	}
	if len(pos) == 0 {
		return true, false
	}
	return false, true
}

// isTerminal reports whether r is a terminal: a character device other than
// the null device (which is what "< /dev/null" gives).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}

// eofKey is how a terminal ends standard input.
func eofKey() string {
	if runtime.GOOS == "windows" {
		return "Ctrl-Z, Enter"
	}
	return "Ctrl-D"
}

// readInput reads FILE, or stdin for "-" or no argument.
func readInput(pos []string, stdin io.Reader) ([]byte, error) {
	switch {
	case len(pos) > 1:
		return nil, fmt.Errorf("want one input file, got %d", len(pos))
	case len(pos) == 0 || pos[0] == "-":
		return io.ReadAll(io.LimitReader(stdin, maxInput+1))
	}
	f, err := os.Open(pos[0])
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxInput+1))
}

// maxInput bounds a request read from a file or stdin.
const maxInput = 16 << 20

// message is an error's text without the code prefix when it is an engine
// error whose code says no more than "the request is malformed".
func message(err error) string {
	var e *engine.Error
	if errors.As(err, &e) && e.Code == engine.CodeBadRequest {
		return e.Message
	}
	return err.Error()
}

// fail prints one line on stderr (multi-line errors, such as every problem
// Build found, are joined with "; ") and returns code.
func fail(stderr io.Writer, code int, format string, args ...any) int {
	msg := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", "; ")
	fmt.Fprintf(stderr, "codemode: %s\n", msg)
	return code
}

// usageError prints a flag error: one line, with where to read the flags.
func usageError(stderr io.Writer, cmd string, err error) int {
	return fail(stderr, exitUsage, "%s: %v; see \"codemode %s --help\"", cmd, err, cmd)
}
