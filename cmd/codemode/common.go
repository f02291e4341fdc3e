package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/bindings/wasmtool"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/worker"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// common holds the flags every running command shares.
type common struct {
	config    string
	board     string
	timeout   time.Duration
	wasmDirs  dirList
	wasmCache string
	runner    string
	script    bool // --timeout bounds a script rather than a batch

	loader *wasmtool.Loader // set by setup when --wasm-dir is given
	pool   *worker.Pool     // set by setup for --runner worker
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", "", "engine limits as a JSON file")
	fs.StringVar(&c.board, "board", "", "load the board from FILE (if it exists) and save it back")
	fs.DurationVar(&c.timeout, "timeout", 0, "whole-run timeout, e.g. 5s")
	fs.Var(&c.wasmDirs, "wasm-dir", "load the WASM tools (*.tool.json and their modules) of DIR; repeatable")
	fs.StringVar(&c.wasmCache, "wasm-cache", defaultWasmCache(), `keep compiled WASM tools in DIR ("off": compile every time)`)
	fs.StringVar(&c.runner, "runner", "worker", `where scripts and WASM tool calls run: "worker" (worker processes with OS limits) or "inprocess"`)
}

// dirList is a repeatable flag.
type dirList []string

func (d *dirList) String() string { return strings.Join(*d, ",") }
func (d *dirList) Set(v string) error {
	*d = append(*d, v)
	return nil
}

// defaultWasmCache is where compiled WASM tools are kept between runs: a Go
// tool compiles in about a second, and loads from the cache in a fraction.
func defaultWasmCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "off"
	}
	return filepath.Join(dir, "codemode", "wasm")
}

// wasmCacheDir is --wasm-cache, "" for off.
func (c *common) wasmCacheDir() string {
	if c.wasmCache == "off" {
		return ""
	}
	return c.wasmCache
}

// loadWasm loads the tools of every --wasm-dir.
func (c *common) loadWasm(ctx context.Context) ([]engine.Tool, error) {
	if len(c.wasmDirs) == 0 {
		return nil, nil
	}
	opts := wasmtool.Options{CacheDir: c.wasmCacheDir(), Workers: c.pool}
	l, err := wasmtool.NewLoader(ctx, opts)
	if err != nil && c.wasmCache == defaultWasmCache() {
		// The default cache is a convenience: without it, compile every time.
		l, err = wasmtool.NewLoader(ctx, wasmtool.Options{Workers: c.pool})
	}
	if err != nil {
		return nil, err
	}
	c.loader = l
	var tools []engine.Tool
	for _, dir := range c.wasmDirs {
		ts, err := l.LoadDir(ctx, dir)
		if err != nil {
			return nil, err
		}
		tools = append(tools, ts...)
	}
	return tools, nil
}

// close releases what setup loaded.
func (c *common) close() {
	if c.loader != nil {
		c.loader.Close(context.Background())
	}
	if c.pool != nil {
		c.pool.Close()
	}
}

// newFlagSet makes a flag set that reports errors instead of exiting.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses flags wherever they stand among the positional arguments
// ("batch file.json --board b.json" works as well as the other order).
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// setup loads the config, the board and the WASM tools and builds the
// engine over them and the whiteboard tools. Call close when done.
func (c *common) setup() (*engine.Engine, *whiteboard.Board, error) {
	cfg := engine.DefaultConfig()
	if c.config != "" {
		var err error
		if cfg, err = engine.LoadConfig(c.config); err != nil {
			return nil, nil, err
		}
	}
	if c.timeout < 0 {
		return nil, nil, errors.New("--timeout must be positive")
	}
	if c.timeout > 0 {
		limit, what := &cfg.Limits.BatchTimeout, "batch"
		if c.script {
			limit, what = &cfg.Script.Timeout, "script"
		}
		if c.timeout > limit.D() {
			return nil, nil, fmt.Errorf("--timeout %v exceeds the configured %s timeout %v", c.timeout, what, limit.D())
		}
		*limit = engine.Duration(c.timeout)
	}
	board := whiteboard.NewBoard()
	if c.board != "" {
		f, err := os.Open(c.board)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, nil, err
		default:
			err = board.Load(f)
			f.Close()
			if err != nil {
				return nil, nil, fmt.Errorf("board %s: %w", c.board, err)
			}
		}
	}
	b := engine.NewBuilder()
	switch c.runner {
	case "inprocess":
	case "worker":
		// One script per command: one worker, started now, while the tools
		// load; a WASM call the script makes starts a second.
		pool, err := worker.New(worker.Config{Warm: 1, WasmCacheDir: c.wasmCacheDir()})
		if err != nil {
			return nil, nil, err
		}
		c.pool = pool
		b.WithScriptRunner(pool)
	default:
		return nil, nil, fmt.Errorf(`--runner must be "worker" or "inprocess", not %q`, c.runner)
	}
	wasmTools, err := c.loadWasm(context.Background())
	if err != nil {
		return nil, nil, err
	}
	eng, err := b.Add(whiteboard.Tools(board)...).Add(wasmTools...).WithConfig(cfg).Build()
	if err != nil {
		return nil, nil, err
	}
	return eng, board, nil
}

// saveBoard writes the board back to --board, atomically: a crash leaves
// either the old file or the new one.
func (c *common) saveBoard(b *whiteboard.Board) error {
	if c.board == "" {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.board), ".board-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	mode := os.FileMode(0o644) // CreateTemp makes 0600; keep the file's own mode
	if fi, err := os.Stat(c.board); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := b.Save(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), c.board)
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

// fail prints one line on stderr (multi-line errors, such as every problem
// Build found, are joined with "; ") and returns code.
func fail(stderr io.Writer, code int, format string, args ...any) int {
	msg := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", "; ")
	fmt.Fprintf(stderr, "codemode: %s\n", msg)
	return code
}

// helpRequested prints a command's usage for -h/--help; it reports whether
// err was that request.
func helpRequested(err error, stdout io.Writer, usageLine string) bool {
	if !errors.Is(err, flag.ErrHelp) {
		return false
	}
	fmt.Fprintf(stdout, "usage: %s\n\nSee \"codemode help\" for the flags.\n", usageLine)
	return true
}
