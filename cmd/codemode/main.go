// Command codemode runs tool calls for LLMs: a flat batch of operations, or
// a model-written script that calls tools as async functions. See
// "codemode help".
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/codemode-dev/codemode/internal/suggest"
	"github.com/codemode-dev/codemode/sandbox/worker"
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
		fmt.Fprintf(&b, "  %-34s%s\n", strings.TrimSpace("codemode "+c.name+" "+c.args)+" [flags]", c.summary)
	}
	fmt.Fprintf(&b, "  %-34s%s\n", "codemode help [COMMAND]", "show this text, or a command's flags")
	b.WriteString(flagHelp())
	b.WriteString(`
Exit status: 0 everything succeeded; 1 a batch operation or the script failed
(the result JSON is still printed on stdout), or the board could not be saved;
2 usage error or malformed request (one line on stderr).

Examples:
  codemode batch examples/retro.json
  codemode run examples/flowchart.ts --board board.json
  echo 'return await tools.getBoardState()' | codemode run --board board.json
  scripts/build-wasm-tools.sh && codemode run --wasm-dir tools/wasm/build examples/graph.ts
`)
	return b.String()
}

func main() {
	worker.Main() // a worker process of --runner worker never returns from here
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole command, with its streams, so tests can drive it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return fail(stderr, exitUsage, `no command: want tools, batch, run or help (see "codemode help")`)
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "tools":
		return cmdTools(rest, stdout, stderr)
	case "batch":
		return cmdBatch(rest, stdin, stdout, stderr)
	case "run":
		return cmdRun(rest, stdin, stdout, stderr)
	case "help", "-h", "--help", "-help":
		switch {
		case len(rest) == 0:
			fmt.Fprint(stdout, usage())
		case len(rest) == 1 && findCommand(rest[0]) != nil:
			fmt.Fprint(stdout, commandHelp(findCommand(rest[0])))
		default:
			return fail(stderr, exitUsage, `help: want no argument or one of tools, batch, run, got %q`, strings.Join(rest, " "))
		}
		return exitOK
	}
	msg := fmt.Sprintf("unknown command %q (commands: tools, batch, run, help)", cmd)
	if s := suggest.Names(cmd, []string{"tools", "batch", "run", "help"}); len(s) > 0 {
		msg = fmt.Sprintf("unknown command %q (did you mean %s?)", cmd, s[0])
	}
	if strings.HasPrefix(cmd, "-") {
		msg = fmt.Sprintf("%s before the command: flags come after it, as in \"codemode run --board b.json FILE\"", cmd)
	}
	return fail(stderr, exitUsage, "%s", msg)
}

// Exit statuses (see "codemode help").
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)
