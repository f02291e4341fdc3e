// Command codemode runs tool calls for LLMs: a flat batch of operations, or
// a model-written script that calls tools as async functions. See
// "codemode help".
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/codemode-dev/codemode/sandbox/worker"
)

const usage = `codemode runs many tool calls in one step over the built-in whiteboard
tools and any WASM tools you add: a flat batch of operations with $ref between them, or a JavaScript or
TypeScript script that calls the tools as async functions.

Usage:
  codemode tools [--json|--ts]            list the tools (--json: MCP shape, with the meta-tools;
                                          --ts: the TypeScript declarations scripts see)
  codemode batch [FILE|-] [flags]         run a batch request (JSON), print the batch result JSON
  codemode run   [FILE|-] [flags]         run a script (JS or TS), print the code-mode result JSON
  codemode help                           show this text

Flags:
  --config FILE       engine limits as JSON (see docs/config.md)
  --board FILE        load the whiteboard from FILE (if it exists) and save it back after the run
  --timeout DURATION  whole-run timeout, e.g. 5s (defaults: batch 60s, script 30s;
                      may only tighten --config's)
  --input JSON|@FILE  run only: the script's global "input"
  --wasm-dir DIR      also load the WASM tools of DIR (NAME.tool.json manifests beside
                      their modules; see docs/wasm.md); repeatable
  --wasm-cache DIR    keep compiled WASM tools in DIR between runs (default: the user
                      cache directory; "off" compiles every time)
  --runner worker|inprocess
                      where scripts and WASM tool calls run (default worker: a worker
                      process under OS limits, so a crash in it is that run's error)

Exit status: 0 everything succeeded; 1 a batch operation or the script failed
(the result JSON is still printed on stdout); 2 usage error or malformed request.

Examples:
  codemode batch examples/retro.json
  codemode run examples/flowchart.ts --board board.json
  echo 'return await tools.getBoardState()' | codemode run --board board.json
  scripts/build-wasm-tools.sh && codemode run --wasm-dir tools/wasm/build examples/graph.ts
`

func main() {
	worker.Main() // a worker process of --runner worker never returns from here
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
	case "run":
		return cmdRun(rest, stdin, stdout, stderr)
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "codemode: unknown command %q (commands: tools, batch, run, help)\n", cmd)
	return exitUsage
}

// Exit statuses of the contract.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)
