package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/codemode-dev/codemode/engine"
)

func cmdRun(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runJob(job{cmd: "run", what: "script", prepare: prepareRun}, args, stdin, stdout, stderr)
}

// prepareRun makes the request of the script and --input.
func prepareRun(o *options, code []byte) (runFunc, error) {
	req := engine.ExecuteRequest{Code: string(code)}
	if o.input != "" {
		data := []byte(o.input)
		if name, ok := strings.CutPrefix(o.input, "@"); ok {
			var err error
			if data, err = os.ReadFile(name); err != nil {
				return nil, fmt.Errorf("--input: %w", err)
			}
		}
		if !json.Valid(data) {
			return nil, errors.New("--input is not valid JSON")
		}
		req.Input = data
	}
	return func(ctx context.Context, eng *engine.Engine) (outcome, error) {
		res, err := eng.Execute(ctx, req)
		if err != nil {
			return outcome{}, err
		}
		// The trace is printed cut like batch results: a script's calls may
		// carry megabytes of arguments and results that no output limit bounds.
		var cut bool
		if res.Calls, cut = eng.CapTrace(res.Calls); cut {
			res.Warnings = append(res.Warnings, "the call trace was cut to fit the output limits (records marked truncated)")
		}
		var unknown []string
		for _, c := range res.Calls {
			if c.Error != nil && c.Error.Code == engine.CodeUnknownTool {
				unknown = append(unknown, c.Tool)
			}
		}
		return outcome{result: res, ok: res.Success, unknown: unknown}, nil
	}, nil
}
