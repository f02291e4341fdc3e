package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/codemode-dev/codemode/engine"
)

func cmdBatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("batch", stderr)
	var c common
	c.register(fs)
	const usageLine = "codemode batch [FILE|-] [--board FILE] [--config FILE] [--timeout DURATION] [--wasm-dir DIR]"
	pos, err := parse(fs, args)
	if helpRequested(err, stdout, usageLine) {
		return exitOK
	}
	if err != nil {
		return fail(stderr, exitUsage, "batch: %v (usage: %s)", err, usageLine)
	}
	data, err := readInput(pos, stdin)
	if err != nil {
		return fail(stderr, exitUsage, "batch: %v", err)
	}
	if len(data) > maxInput {
		return fail(stderr, exitUsage, "batch: the request is larger than %d MiB", maxInput>>20)
	}
	req, err := engine.ParseBatchRequest(data)
	if err != nil {
		return fail(stderr, exitUsage, "batch: %v", message(err))
	}
	eng, board, err := c.setup()
	defer c.close()
	if err != nil {
		return fail(stderr, exitUsage, "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := eng.Batch(ctx, req)
	if err != nil {
		return fail(stderr, exitUsage, "batch: %v", message(err))
	}
	out, _ := json.MarshalIndent(res, "", "  ")
	fmt.Fprintf(stdout, "%s\n", out)
	if err := c.saveBoard(board); err != nil {
		return fail(stderr, exitFailed, "saving the board: %v", err)
	}
	if res.Summary.Successful != res.Summary.Total {
		return exitFailed
	}
	return exitOK
}

// message is an error's text without the code prefix when it is an engine
// error whose code says no more than "the request is malformed".
func message(err error) string {
	var e *engine.Error
	if errors.As(err, &e) && e.Code == engine.CodeBadRequest {
		return e.Message
	}
	return err.Error()
}
