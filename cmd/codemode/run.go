package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/fserr"
	"github.com/codemode-dev/codemode/internal/strictjson"
)

func cmdRun(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runJob(job{cmd: "run", what: "script", prepare: prepareRun}, args, stdin, stdout, stderr)
}

// prepareRun makes the request of the script and --input.
func prepareRun(o *options, code []byte) (runFunc, error) {
	req := engine.ExecuteRequest{Code: string(code)}
	if o.input != "" {
		data, flag := []byte(o.input), "--input"
		if name, ok := strings.CutPrefix(o.input, "@"); ok {
			flag = "--input @" + name
			var err error
			if data, err = os.ReadFile(name); err != nil {
				return nil, fmt.Errorf("%s: %v", flag, fserr.Pathless(err))
			}
		}
		// Where and why, as for a request: "{bad" is not valid JSON at
		// line 1, column 2.
		var v any
		if err := strictjson.Decode(data, &v).Err(); err != nil {
			return nil, fmt.Errorf("%s is not valid JSON: %v", flag, err)
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
		out := outcome{result: res, ok: res.Success, timedOut: res.Error != nil && res.Error.Code == engine.CodeTimeout}
		for _, c := range res.Calls {
			if c.Error != nil && c.Error.Code == engine.CodeUnknownTool {
				out.unknown = append(out.unknown, c.Tool)
			}
		}
		return out, nil
	}, nil
}
