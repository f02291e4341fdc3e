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
	"time"

	"github.com/codemode-dev/codemode/bindings/wasmtool"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/fserr"
	"github.com/codemode-dev/codemode/sandbox/worker"
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
	result  any      // printed on stdout as indented JSON
	ok      bool     // every operation or the script succeeded
	unknown []string // the tool names called that no tool has
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
	if perr != nil {
		perr = errors.New(message(perr))
	}
	s, err := newSession(&o, timeoutOf)
	if err := errors.Join(perr, err); err != nil {
		return fail(stderr, exitUsage, "%s: %v", j.cmd, err)
	}
	defer s.close()
	if err := s.start(); err != nil {
		return fail(stderr, exitUsage, "%s: %v", j.cmd, message(err))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	out, err := exec(ctx, s.eng)
	if err != nil {
		return fail(stderr, exitUsage, "%s: %v", j.cmd, message(err))
	}
	res, _ := json.MarshalIndent(out.result, "", "  ")
	fmt.Fprintf(stdout, "%s\n", res)
	if hint := unknownToolHint(out.unknown, s.toolNames(), o.wasmDirs); hint != "" {
		fmt.Fprintf(stderr, "codemode: %s\n", hint)
	}
	if msg := s.saveBoard(); msg != "" {
		// Not fail: the last resort carries the board's JSON, on lines.
		fmt.Fprintf(stderr, "codemode: %s: %s\n", j.cmd, msg)
		return exitFailed
	}
	if !out.ok {
		return exitFailed
	}
	return exitOK
}

// session is the set-up the commands share: the configuration, the board
// file, the runner, the WASM tools and the engine over them and the
// whiteboard tools.
type session struct {
	o         *options
	timeoutOf string // the limit --timeout sets: "batch", "script", or "" (tools)
	cfg       engine.Config
	cache     string // the compilation cache's directory, "" for none
	eng       *engine.Engine
	board     *whiteboard.Board
	loader    *wasmtool.Loader // when --wasm-dir is given
	pool      *worker.Pool     // for --runner worker
}

// newSession checks what can be checked before anything starts (the config,
// the timeout, the cache directory, the board file) and reports every
// problem at once. The board file is checked for being writable here, and
// loaded, so that no run does work that could not be saved. timeoutOf is the
// limit --timeout sets, "batch" or "script", or "" for a command that runs
// nothing (tools: no board, no runner). start does the rest.
func newSession(o *options, timeoutOf string) (*session, error) {
	s := &session{o: o, timeoutOf: timeoutOf, board: whiteboard.NewBoard()}
	var errs []error
	var err error
	if s.cfg, err = o.loadConfig(timeoutOf); err != nil {
		errs = append(errs, errors.New(message(err)))
	}
	if s.cache, err = o.cacheDir(); err != nil {
		errs = append(errs, err)
	}
	if o.board != "" {
		if err := s.loadBoard(); err != nil {
			errs = append(errs, err)
		}
	}
	return s, errors.Join(errs...)
}

// start starts the runner, loads the WASM tools and builds the engine.
// Call close when done, also after an error.
func (s *session) start() error {
	b := engine.NewBuilder()
	if s.timeoutOf != "" && s.o.runner != "inprocess" {
		// One script per command: one worker, started now, while the tools
		// load; a WASM call the script makes starts a second.
		pool, err := worker.New(worker.Config{Warm: 1, WasmCacheDir: s.cache})
		if err != nil {
			return err
		}
		s.pool = pool
		b.WithScriptRunner(pool)
	}
	wasmTools, err := s.loadWasm(context.Background(), s.cache)
	if err != nil {
		return err
	}
	s.eng, err = b.Add(whiteboard.Tools(s.board)...).Add(wasmTools...).WithConfig(s.cfg).Build()
	return err
}

// close releases what start started.
func (s *session) close() {
	if s.loader != nil {
		s.loader.Close(context.Background())
	}
	if s.pool != nil {
		s.pool.Close()
	}
}

// loadConfig reads --config and tightens the timeoutOf limit to --timeout.
func (o *options) loadConfig(timeoutOf string) (engine.Config, error) {
	cfg := engine.DefaultConfig()
	if o.config != "" {
		var err error
		if cfg, err = engine.LoadConfig(o.config); err != nil {
			return cfg, err
		}
	}
	if o.timeout == 0 {
		return cfg, nil
	}
	limit := &cfg.Limits.BatchTimeout
	if timeoutOf == "script" {
		limit = &cfg.Script.Timeout
	}
	if o.timeout > *limit {
		return cfg, fmt.Errorf("--timeout %v exceeds the configured %s timeout %v", o.timeout.D(), timeoutOf, limit.D())
	}
	*limit = o.timeout
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

// loadWasm loads the tools of every --wasm-dir.
func (s *session) loadWasm(ctx context.Context, cache string) ([]engine.Tool, error) {
	if len(s.o.wasmDirs) == 0 {
		return nil, nil
	}
	l, err := wasmtool.NewLoader(ctx, wasmtool.Options{CacheDir: cache, Workers: s.pool})
	if err != nil && s.o.wasmCache == "" && cache != "" {
		// The default cache is a convenience: without it, compile every time.
		l, err = wasmtool.NewLoader(ctx, wasmtool.Options{Workers: s.pool})
	}
	if err != nil {
		return nil, err
	}
	s.loader = l
	var tools []engine.Tool
	for _, dir := range s.o.wasmDirs {
		ts, err := l.LoadDir(ctx, dir)
		if err != nil {
			return nil, err
		}
		tools = append(tools, ts...)
	}
	return tools, nil
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
// tools, which come with --wasm-dir. It returns "" otherwise. The result
// the model reads stays as it is; this is for the person at the terminal.
func unknownToolHint(called, loaded, wasmDirs []string) string {
	var missing []string
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
	}
	if len(missing) == 0 {
		return ""
	}
	tools := strings.Join(missing, ", ")
	if len(wasmDirs) == 0 {
		return fmt.Sprintf("hint: no tool %s is loaded; WASM tools are loaded with --wasm-dir DIR (see docs/wasm.md)", tools)
	}
	return fmt.Sprintf("hint: no tool %s is in --wasm-dir %s", tools, strings.Join(wasmDirs, ", "))
}

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
