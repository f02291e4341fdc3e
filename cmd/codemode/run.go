package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/codemode-dev/codemode/engine"
)

func cmdRun(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", stderr)
	var c common
	c.register(fs)
	var input string
	fs.StringVar(&input, "input", "", "the script's `input` as JSON, or @FILE to read it from a file")
	const usageLine = "codemode run [FILE|-] [--input JSON|@FILE] [--board FILE] [--config FILE] [--timeout DURATION] [--wasm-dir DIR]"
	pos, err := parse(fs, args)
	if helpRequested(err, stdout, usageLine) {
		return exitOK
	}
	if err != nil {
		return fail(stderr, exitUsage, "run: %v (usage: %s)", err, usageLine)
	}
	code, err := readInput(pos, stdin)
	if err != nil {
		return fail(stderr, exitUsage, "run: %v", err)
	}
	if len(code) > maxInput {
		return fail(stderr, exitUsage, "run: the script is larger than %d MiB", maxInput>>20)
	}
	req := engine.ExecuteRequest{Code: string(code)}
	if input != "" {
		data := []byte(input)
		if name, ok := strings.CutPrefix(input, "@"); ok {
			if data, err = os.ReadFile(name); err != nil {
				return fail(stderr, exitUsage, "run: --input: %v", err)
			}
		}
		if !json.Valid(data) {
			return fail(stderr, exitUsage, "run: --input is not valid JSON")
		}
		req.Input = data
	}
	c.script = true
	eng, board, err := c.setup()
	defer c.close()
	if err != nil {
		return fail(stderr, exitUsage, "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := eng.Execute(ctx, req)
	if err != nil {
		return fail(stderr, exitUsage, "run: %v", message(err))
	}
	// The trace is printed cut like batch results: a script's calls may carry
	// megabytes of arguments and results that no output limit bounds.
	var cut bool
	if res.Calls, cut = eng.CapTrace(res.Calls); cut {
		res.Warnings = append(res.Warnings, "the call trace was cut to fit the output limits (records marked truncated)")
	}
	out, _ := json.MarshalIndent(res, "", "  ")
	fmt.Fprintf(stdout, "%s\n", out)
	if err := c.saveBoard(board); err != nil {
		return fail(stderr, exitFailed, "saving the board: %v", err)
	}
	if !res.Success {
		return exitFailed
	}
	return exitOK
}
