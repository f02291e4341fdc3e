// Command codemode runs tool calls for LLMs: a flat batch of operations, or
// a model-written script that calls tools as async functions. See
// "codemode help".
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/codemode-dev/codemode/cmd/codemode/internal/prestart"
	"github.com/codemode-dev/codemode/internal/suggest"
)

// usage is what "codemode help" prints.
func usage() string {
	var b strings.Builder
	b.WriteString(`codemode runs many tool calls in one step over the built-in whiteboard tools
and any WASM tools you add: a flat batch of operations with $ref between them,
or a JavaScript or TypeScript script that calls the tools as async functions.

Usage:
`)
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-34s%s\n", c.synopsis(), c.summary)
	}
	b.WriteString(flagHelp())
	b.WriteString(`
Exit status: 0 everything succeeded; 1 a batch operation or the script failed
(the result JSON is still printed on stdout), or writing the board or its --svg
picture failed after the run (stderr says where the work was kept); 2 nothing
ran: a usage error, a malformed request, or a problem found before the run,
such as a bad config or a --board or --svg file that cannot be written (one
line on stderr). serve exits 0 when stopped (Ctrl-C, SIGTERM), 2 when it cannot
start. bench exits 1 when a run failed (its reason is under the table).

Examples:
  codemode batch examples/retro.json
  codemode run examples/flowchart.ts --board board.json
  echo 'return await tools.getBoardState()' | codemode run --board board.json
  codemode run examples/graph.ts  (graph.layout, a built-in WASM tool)
  codemode serve                  (then open http://127.0.0.1:8080/)
  codemode bench --report bench.html   (then open bench.html)
`)
	return b.String()
}

func main() {
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	prestart.Discard() // the worker started for run at init, if the command did not use it
	os.Exit(code)
}

// run is the whole command, with its streams, so tests can drive it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return fail(stderr, exitUsage, `no command: want %s (see "codemode help")`, orList(commandNames()))
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "tools":
		return cmdTools(rest, stdout, stderr)
	case "batch":
		return cmdBatch(rest, stdin, stdout, stderr)
	case "run":
		return cmdRun(rest, stdin, stdout, stderr)
	case "serve":
		return cmdServe(rest, stdout, stderr)
	case "mcp":
		return cmdMCP(rest, stdin, stdout, stderr)
	case "bench":
		return cmdBench(rest, stdout, stderr)
	case "version", "--version", "-version":
		return cmdVersion(cmd, rest, stdout, stderr)
	case "help", "-h", "--help", "-help":
		return cmdHelp(rest, stdout, stderr)
	}
	if strings.HasPrefix(cmd, "-") {
		return fail(stderr, exitUsage, "%s before the command: flags come after it, as in \"codemode run --board b.json FILE\"", cmd)
	}
	return fail(stderr, exitUsage, "%s", unknownCommand(cmd))
}

// unknownCommand says that name is no command, with the one meant if it is
// a near miss, else the list of them.
func unknownCommand(name string) string {
	if s := suggest.Names(name, commandNames()); len(s) > 0 {
		return fmt.Sprintf("unknown command %q (did you mean %s?)", name, s[0])
	}
	return fmt.Sprintf("unknown command %q (commands: %s)", name, strings.Join(commandNames(), ", "))
}

// cmdHelp is "codemode help [COMMAND]".
func cmdHelp(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, usage())
	case len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help"):
		fmt.Fprint(stdout, commandHelp(findCommand("help")))
	case len(args) > 1:
		return fail(stderr, exitUsage, "help: want one COMMAND at most, got %d arguments", len(args))
	case findCommand(args[0]) == nil:
		return fail(stderr, exitUsage, "help: %s", unknownCommand(args[0]))
	default:
		fmt.Fprint(stdout, commandHelp(findCommand(args[0])))
	}
	return exitOK
}

// cmdVersion is "codemode version", and "codemode --version".
func cmdVersion(as string, args []string, stdout, stderr io.Writer) int {
	var o options
	err := parseFlagsOnly("version", &o, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, commandHelp(findCommand("version")))
		return exitOK
	}
	if err != nil {
		return usageError(stderr, strings.TrimLeft(as, "-"), err)
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprint(stdout, versionText(info))
	return exitOK
}

// versionText is what "codemode version" prints: the module's version (a
// release tag when installed as one, a pseudo-version when go build stamped
// the commit, "(devel)" otherwise), then the module, the Go version and
// platform, and the commit when the build recorded one. info may be nil.
func versionText(info *debug.BuildInfo) string {
	version, module, goVersion := "(unknown)", "github.com/codemode-dev/codemode", runtime.Version()
	var revision, modified string
	if info != nil {
		if info.Main.Version != "" {
			version = info.Main.Version
		}
		if info.Main.Path != "" {
			module = info.Main.Path
		}
		if info.GoVersion != "" {
			goVersion = info.GoVersion
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = " (with changes not committed)"
				}
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "codemode %s\n", version)
	fmt.Fprintf(&b, "  module  %s\n", module)
	fmt.Fprintf(&b, "  go      %s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	if revision != "" {
		fmt.Fprintf(&b, "  commit  %s%s\n", revision, modified)
	}
	return b.String()
}

// Exit statuses (see "codemode help").
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)
