package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/suggest"
)

// options are the flags of the commands; each command registers only the
// flags it uses (commandFlags), so that any other is a usage error.
type options struct {
	config    string
	board     string
	svg       string
	timeout   timeoutFlag
	wasmDirs  dirList
	wasmCache string
	// noBuiltinWasm leaves out the built-in WASM tools (tools/wasm/builtin).
	noBuiltinWasm bool
	runner        runnerFlag
	input         string
	json, ts      bool
	// serve's
	addr, data, token string
	store             string
	allowOrigins      dirList
	approve           approveFlag
	maxRuns           positiveInt
	maxBody           sizeFlag
	// mcp's
	httpAddr string
	expose   exposeFlag
	// bench's
	scenarios, strategies                                   nameList
	catalog                                                 string
	report                                                  string
	repeat, maxTurns                                        positiveInt
	latencyRoundTrip, latencyInputToken, latencyOutputToken latencyFlag
	live                                                    bool
	baseURL, model                                          string
}

// A command is one of the CLI's commands, as its help shows it.
type command struct {
	name    string
	args    string // positional arguments, for the usage line
	summary string // one line, for the list of commands
	about   string // what --help says before the flags
}

var commands = []command{
	{"tools", "", "list the tools (whiteboard, built-in WASM and --wasm-dir tools)",
		`List the tools: name, access (read-only, writes, or meta for the batch and
execute_code meta-tools), where it comes from (the whiteboard, the built-in
WASM tools, a --wasm-dir manifest, an MCP server, the engine) and the first
sentence of the description.`},
	{"batch", "[FILE|-]", "run a batch request (JSON), print the batch result JSON",
		`Run a batch request (JSON) read from FILE, or from stdin when FILE is "-" or
missing, and print the batch result JSON. On a terminal a missing FILE is an
error, not a silent wait for typing: "-" reads what you type, up to Ctrl-D.`},
	{"run", "[FILE|-]", "run a script (JS or TS), print the code-mode result JSON",
		`Run a script (JavaScript or TypeScript, the body of an async function) read
from FILE, or from stdin when FILE is "-" or missing, and print the code-mode
result JSON. On a terminal a missing FILE is an error, not a silent wait for
typing: "-" reads what you type, up to Ctrl-D.`},
	{"serve", "", "serve the HTTP API and the whiteboard web app (docs/http.md)",
		`Serve the HTTP API and the whiteboard web app: boards kept in the data
directory (--data) or in PostgreSQL (--store, shared by every server given
the same URL), batches and scripts run on them by any client, every change
streamed live to every watcher (see docs/http.md). It listens on
127.0.0.1:8080 unless --addr says otherwise and prints the URL to open once
it is ready. Ctrl-C or SIGTERM stops it: new runs are refused, runs under way
have 10s to finish (then they are canceled), and it exits 0; a second Ctrl-C
or SIGTERM cancels them at once.
An address other than loopback needs a token (--token or CODEMODE_TOKEN).
A call that needs approval (--approve) waits for a client's decision at
most the approval timeout, "approvalTimeout" in the --config file (default
5m), then it is denied; its run holds its board meanwhile.
It exits 2 when it cannot start (the address in use included), with every
problem on one line.`},
	{"mcp", "", "serve the tools to an MCP host, on stdio or --http (docs/mcp.md)",
		`Serve the tools and the batch, execute_code and search_tools meta-tools (or
with --expose code only the last two) to an MCP host or client: on stdio by
default, the way hosts start MCP servers, or on streamable HTTP at --http.
Scripts run in worker processes (--runner), so no script can take the server
down. The whiteboard tools work on one board kept in memory while the server
runs; the config's mcpServers are served too. Calls that --approve gates are
put to the client's user through MCP elicitation, and denied when the client
cannot be asked (--approve none runs every call without asking).
It serves until the client closes stdin, or Ctrl-C or SIGTERM (calls under
way are then canceled); it exits 2 when it cannot start.`},
	{"bench", "", "measure per-call, search, batch and code mode on tasks",
		`Run the benchmark's whiteboard tasks with each strategy — per-call (one tool
call per model turn), batch (the batch meta-tool) and code (execute_code) —
or with --catalog a catalog's tasks, with search (search_tools, then the
tools it found) too, through the engine's real tool definitions and HandleToolCalls, and print a
table: round trips, tokens in and out (o200k_base, the whole request counted
each turn), tool calls, wall time and whether the checker agreed, with each
strategy's totals and how batch and code compare with per-call. The model is
each task's scripted model, unless --live; its wall time is the latency
model of the --latency-* flags plus the engine's measured time. A progress
line is shown on stderr while it runs when stderr is a terminal.
It exits 1 if any run failed (the reasons are under the table), 2 on a usage
error; see docs/strategies.md.`},
	{"version", "", "print codemode's version and the Go it was built with",
		`Print codemode's version (its module's: a release, a pseudo-version naming
the commit, or "(devel)" for a build without version control information),
the module, and the Go version and platform it was built with. "codemode
--version" is the same.`},
	{"help", "[COMMAND]", "show this text, or a command's flags",
		`Show the usage of every command with every flag, or with COMMAND the usage
of that command with exactly the flags it takes ("codemode COMMAND --help"
is the same).`},
}

// commandNames lists the commands, in usage order.
func commandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

// andList is "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// orList is "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func findCommand(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// A flagSpec is one flag: which commands take it, how it is bound, and its
// help text (the argument's name and lines of explanation).
type flagSpec struct {
	name string
	arg  string // "" for a switch
	help string
	cmds []string
	bind func(fs *flag.FlagSet, o *options, name string)
}

var flagSpecs = []flagSpec{
	{"config", "FILE", "engine limits as JSON (see docs/config.md)", []string{"tools", "batch", "run", "serve", "mcp", "bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var((*nonEmpty)(&o.config), n, "") }},
	{"wasm-dir", "DIR", "also load the WASM tools of DIR (NAME.tool.json manifests beside\ntheir modules; see docs/wasm.md); repeatable; a tool of DIR\nreplaces the built-in one of the same name", []string{"tools", "batch", "run", "serve", "mcp", "bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var(&o.wasmDirs, n, "") }},
	{"no-builtin-wasm", "", "leave out the built-in WASM tools, graph.layout and text.cluster\n(each is compiled at its first call, so having them costs nothing\nuntil then)", []string{"tools", "batch", "run", "serve", "mcp", "bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.BoolVar(&o.noBuiltinWasm, n, false, "") }},
	{"wasm-cache", "DIR", "keep compiled WASM tools in DIR between runs (default: the user\ncache directory; \"off\" compiles every time)", []string{"tools", "batch", "run", "serve", "mcp", "bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var((*nonEmpty)(&o.wasmCache), n, "") }},
	{"board", "FILE", "load the whiteboard from FILE (if it exists) and save it back\nafter the run", []string{"batch", "run"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var((*nonEmpty)(&o.board), n, "") }},
	{"svg", "FILE", "write the board as an SVG picture to FILE after the run (with\nor without --board)", []string{"batch", "run"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var((*nonEmpty)(&o.svg), n, "") }},
	{"timeout", "DURATION", "whole-run timeout: 5s, 1m30s, or a number of milliseconds\n(defaults: batch 60s, script 30s; may only tighten --config's)", []string{"batch", "run"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var(&o.timeout, n, "") }},
	{"runner", "worker|inprocess", "where scripts and WASM tool calls run (default worker: a worker\nprocess under OS limits, so a crash in it is that run's error)", []string{"batch", "run", "serve", "mcp", "bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var(&o.runner, n, "") }},
	{"input", "JSON|@FILE", `the script's global "input", inline or read from FILE`, []string{"run"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var((*nonEmpty)(&o.input), n, "") }},
	{"ts", "", "print the TypeScript declarations scripts see", []string{"tools"},
		func(fs *flag.FlagSet, o *options, n string) { fs.BoolVar(&o.ts, n, false, "") }},
	{"json", "", "print JSON: tools, the definitions as an MCP tools/list result,\n{\"tools\": [...]}, with the meta-tools; bench, the report\nwith every run's transcript instead of the table", []string{"tools", "bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.BoolVar(&o.json, n, false, "") }},
	{"addr", "HOST:PORT", "where to listen (default 127.0.0.1:8080; port 0: any free one);\nan address other than loopback needs a token", []string{"serve"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var((*nonEmpty)(&o.addr), n, "") }},
	{"data", "DIR", "keep the boards in DIR/boards.db (made if missing; default:\ncodemode in the user data directory, ~/.local/share/codemode)", []string{"serve"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var((*nonEmpty)(&o.data), n, "") }},
	{"store", "URL", "keep the boards in PostgreSQL at URL instead, shared with every\nserver given it: postgres://USER:PASSWORD@HOST:PORT/DATABASE\n(default: $CODEMODE_STORE, unless --data; not with --data)", []string{"serve"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var((*nonEmpty)(&o.store), n, "") }},
	{"token", "TOKEN", "clients must send \"Authorization: Bearer TOKEN\" (default:\n$CODEMODE_TOKEN; 16 or more of A-Z a-z 0-9 ._~+/=-)", []string{"serve"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var((*nonEmpty)(&o.token), n, "") }},
	{"allow-origin", "ORIGIN", "let web pages of ORIGIN (https://app.example.com) call the API\n(CORS; none by default); repeatable", []string{"serve"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var(&o.allowOrigins, n, "") }},
	{"approve", "destructive|writes|none", "which calls wait for a client's approval (default destructive:\ndeleteObject; writes: every call but reads), at most\n\"approvalTimeout\" of --config (default 5m)", []string{"serve", "mcp"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var(&o.approve, n, "") }},
	{"http", "HOST:PORT", "serve MCP over streamable HTTP at HOST:PORT instead of stdio;\nloopback only (127.0.0.1:0 picks a free port)", []string{"mcp"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var((*nonEmpty)(&o.httpAddr), n, "") }},
	{"expose", "all|code", "the tools listed: all (default: every tool and meta-tool) or\ncode (execute_code and search_tools only)", []string{"mcp"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var(&o.expose, n, "") }},
	{"max-runs", "N", "runs at once over all boards, waiting ones included; more get\n503 (default 64)", []string{"serve"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var(&o.maxRuns, n, "") }},
	{"max-body", "SIZE", "largest request body: bytes, or 512KiB, 4MiB; larger get 413\n(default 4MiB)", []string{"serve"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var(&o.maxBody, n, "") }},
	{"scenario", "NAME,...", "run only these scenarios (default: all; a wrong name lists\nthem); repeatable", []string{"bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var(&o.scenarios, n, "") }},
	{"catalog", "NAME", "run the scenarios of a tool catalog instead of the whiteboard's:\ngithub, GitHub's REST API, its 1,223 operations bound from its\nOpenAPI description (npm ci --prefix testdata/openapi-github\ninstalls it; $CODEMODE_GITHUB_SPEC names another copy)", []string{"bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var((*nonEmpty)(&o.catalog), n, "") }},
	{"strategy", "NAME,...", "run only these strategies: per-call, search, batch, code\n(default: all; search runs on catalogs only); repeatable", []string{"bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var(&o.strategies, n, "") }},
	{"report", "FILE", "also write the report as one HTML page to FILE: charts of the\nstrategies, each run's transcript and final board; it loads\nnothing, so it opens offline", []string{"bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var((*nonEmpty)(&o.report), n, "") }},
	{"repeat", "N", "run each scenario with each strategy N times (default 1):\na live model's success rate", []string{"bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var(&o.repeat, n, "") }},
	{"max-turns", "N", "count a run not done after N model turns as failed (default 250)", []string{"bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var(&o.maxTurns, n, "") }},
	{"latency-round-trip", "DURATION", "the latency model: what a model turn costs (default 500ms)", []string{"bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var(&o.latencyRoundTrip, n, "") }},
	{"latency-input-token", "DURATION", "... and each token of its input, the whole chat and the\ntool definitions (default 50µs)", []string{"bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var(&o.latencyInputToken, n, "") }},
	{"latency-output-token", "DURATION", "... and each token it writes (default 12.5ms)", []string{"bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var(&o.latencyOutputToken, n, "") }},
	{"live", "", "ask a live model instead of the scripted ones: any OpenAI-\ncompatible chat completions API with tools; the API key comes\nfrom $CODEMODE_BENCH_API_KEY, else $OPENAI_API_KEY", []string{"bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.BoolVar(&o.live, n, false, "") }},
	{"base-url", "URL", "the live model's API (https://api.openai.com/v1)", []string{"bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var((*nonEmpty)(&o.baseURL), n, "") }},
	{"model", "NAME", "the live model's name (gpt-4o)", []string{"bench"},
		func(fs *flag.FlagSet, o *options, n string) { fs.Var((*nonEmpty)(&o.model), n, "") }},
}

// commandFlags returns the flags of a command, in help order.
func commandFlags(cmd string) []flagSpec {
	var out []flagSpec
	for _, f := range flagSpecs {
		if slices.Contains(f.cmds, cmd) {
			out = append(out, f)
		}
	}
	return out
}

// parseFlags parses a command's arguments into o and returns the positional
// ones. Flags may stand anywhere among them ("batch file.json --board b.json"
// works as well as the other order). The error is one line for a usage
// error, or flag.ErrHelp.
func parseFlags(cmd string, o *options, args []string) ([]string, error) {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, f := range commandFlags(cmd) {
		f.bind(fs, o, f.name)
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, flagError(cmd, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// parseFlagsOnly is parseFlags for a command that takes flags only: a
// positional argument is a usage error.
func parseFlagsOnly(cmd string, o *options, args []string) error {
	pos, err := parseFlags(cmd, o, args)
	if err == nil && len(pos) > 0 {
		err = fmt.Errorf("unexpected argument %q", pos[0])
	}
	return err
}

// flagError rewrites the flag package's errors the way the help spells flags
// (--name), with the flag meant or the commands that take it.
func flagError(cmd string, err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		for _, f := range flagSpecs {
			if f.name == name {
				return fmt.Errorf("--%s is for %s only", name, andList(f.cmds))
			}
		}
		var names []string
		for _, f := range commandFlags(cmd) {
			names = append(names, f.name)
		}
		if s := suggest.Names(name, names); len(s) > 0 {
			return fmt.Errorf("unknown flag --%s (did you mean --%s?)", name, s[0])
		}
		return fmt.Errorf("unknown flag --%s", name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		if f := findFlag(strings.TrimLeft(name, "-")); f != nil {
			return fmt.Errorf("--%s needs a value (--%s %s)", f.name, f.name, f.arg)
		}
	}
	// An empty value (--board "") means nothing; it was silently ignored.
	if name, ok := strings.CutPrefix(msg, `invalid value "" for flag -`); ok {
		name, _, _ = strings.Cut(name, ":")
		if f := findFlag(name); f != nil && f.arg != "" {
			return fmt.Errorf(`--%s needs a value (--%s %s), not ""`, f.name, f.name, f.arg)
		}
	}
	// invalid value "x" for flag -name: why; invalid boolean value "x" for -name: why
	if strings.HasPrefix(msg, "invalid ") {
		for _, from := range []string{" for flag -", " for -"} {
			if i := strings.Index(msg, from); i >= 0 {
				return errors.New(msg[:i] + " for --" + msg[i+len(from):])
			}
		}
	}
	return err
}

// findFlag returns the flag named name, or nil.
func findFlag(name string) *flagSpec {
	for i := range flagSpecs {
		if flagSpecs[i].name == name {
			return &flagSpecs[i]
		}
	}
	return nil
}

// synopsis is a command's usage line without "usage: ": its name, its
// arguments, and "[flags]" if it takes any.
func (c *command) synopsis() string {
	s := strings.TrimSpace("codemode " + c.name + " " + c.args)
	if len(commandFlags(c.name)) > 0 {
		s += " [flags]"
	}
	return s
}

// commandHelp is what "codemode CMD --help" and "codemode help CMD" print.
func commandHelp(c *command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s\n\n%s\n", c.synopsis(), c.about)
	if flags := commandFlags(c.name); len(flags) > 0 {
		b.WriteString("\nFlags:\n")
		writeFlags(&b, flags)
	}
	return b.String()
}

// flagHelp is the flags part of "codemode help": the flags grouped by the
// commands that take them.
func flagHelp() string {
	var b strings.Builder
	for i := 0; i < len(flagSpecs); {
		cmds := flagSpecs[i].cmds
		j := i
		for j < len(flagSpecs) && slices.Equal(flagSpecs[j].cmds, cmds) {
			j++
		}
		fmt.Fprintf(&b, "\nFlags of %s:\n", andList(cmds))
		writeFlags(&b, flagSpecs[i:j])
		i = j
	}
	return b.String()
}

// writeFlags writes flags as a help list.
func writeFlags(b *strings.Builder, flags []flagSpec) {
	const col = 22
	for _, f := range flags {
		head := "  --" + f.name
		if f.arg != "" {
			head += " " + f.arg
		}
		if len(head) >= col {
			fmt.Fprintf(b, "%s\n", head)
			head = ""
		}
		for _, l := range strings.Split(f.help, "\n") {
			fmt.Fprintf(b, "%-*s%s\n", col, head, l)
			head = ""
		}
	}
}

// dirList is a repeatable flag.
type dirList []string

func (d *dirList) String() string { return strings.Join(*d, ",") }
func (d *dirList) Set(v string) error {
	if v == "" {
		return errEmpty
	}
	*d = append(*d, v)
	return nil
}

// nonEmpty is a string flag whose empty value is an error: no flag of the
// commands means anything by "" (--board "" was silently no board).
type nonEmpty string

func (s *nonEmpty) String() string { return string(*s) }
func (s *nonEmpty) Set(v string) error {
	if v == "" {
		return errEmpty
	}
	*s = nonEmpty(v)
	return nil
}

// errEmpty is the error of an empty flag value; flagError says it better.
var errEmpty = errors.New("empty")

// timeoutFlag is --timeout: an engine.Duration, with the text it was given,
// for the hint when a plain number (milliseconds) looks meant as seconds.
type timeoutFlag struct {
	d   engine.Duration
	raw string
}

func (t *timeoutFlag) String() string { return t.raw }
func (t *timeoutFlag) Set(v string) error {
	if v == "" {
		return errEmpty
	}
	if err := t.d.Set(v); err != nil {
		return err
	}
	t.raw = v
	return nil
}

// secondsHint returns a hint for a run that ended with a timeout when
// --timeout was a plain number under 1000, i.e. under a second: "--timeout 5"
// is 5 ms, most likely meant as 5s. It returns "" otherwise.
func (t *timeoutFlag) secondsHint() string {
	n := strings.TrimSpace(t.raw)
	if n == "" || t.d.D() >= time.Second {
		return ""
	}
	if _, err := strconv.ParseFloat(n, 64); err != nil {
		return "" // a duration with its unit: meant as written
	}
	return fmt.Sprintf("hint: --timeout %s is %v: a plain number is milliseconds; did you mean %ss?", n, t.d.D(), n)
}

// runnerFlag is --runner: "worker" (the default, also for "") or "inprocess".
type runnerFlag string

func (r *runnerFlag) String() string { return string(*r) }
func (r *runnerFlag) Set(v string) error {
	if v != "worker" && v != "inprocess" {
		return errors.New(`want "worker" or "inprocess"`)
	}
	*r = runnerFlag(v)
	return nil
}
