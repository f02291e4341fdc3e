// Command codemode runs tool calls for LLMs: a flat batch of operations
// today, model-written scripts next. See "codemode help".
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `codemode runs many tool calls in one step: a flat batch of operations,
with $ref between them, over the built-in whiteboard tools.

Usage:
  codemode tools [--json]                 list the tools (--json: MCP shape, with the batch meta-tool)
  codemode batch [FILE|-] [flags]         run a batch request (JSON), print the batch result JSON
  codemode help                           show this text

Flags:
  --config FILE       engine limits as JSON (see docs/config.md)
  --board FILE        load the whiteboard from FILE (if it exists) and save it back after the run
  --timeout DURATION  whole-batch timeout, e.g. 5s (default 60s; may only tighten --config's)

Exit status: 0 every operation succeeded; 1 an operation failed (the result JSON
is still printed on stdout); 2 usage error or malformed request.

Examples:
  codemode batch examples/retro.json
  echo '{"operations":[{"tool":"getBoardState","args":{}}]}' | codemode batch --board board.json
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole command, with its streams, so tests can drive it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "tools":
		return cmdTools(rest, stdout, stderr)
	case "batch":
		return cmdBatch(rest, stdin, stdout, stderr)
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "codemode: unknown command %q (commands: tools, batch, help)\n", cmd)
	return exitUsage
}

// Exit statuses of the contract.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)
