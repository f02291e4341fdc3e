package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/codemode-dev/codemode/engine"
)

func cmdBatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runJob(job{cmd: "batch", what: "request", prepare: prepareBatch}, args, stdin, stdout, stderr)
}

// prepareBatch parses the batch request.
func prepareBatch(_ *options, data []byte) (runFunc, error) {
	req, err := engine.ParseBatchRequest(data)
	if err != nil {
		if bytes.HasPrefix(bytes.TrimSpace(data), []byte("[")) {
			// The operations alone: the likeliest mistake with a batch.
			return nil, fmt.Errorf(`%s (a batch request is an object: {"operations": [...]})`, message(err))
		}
		return nil, err
	}
	return func(ctx context.Context, eng *engine.Engine) (outcome, error) {
		res, err := eng.Batch(ctx, req)
		if err != nil {
			return outcome{}, err
		}
		out := outcome{result: res, ok: res.Summary.Successful == res.Summary.Total}
		for _, r := range res.Results {
			switch {
			case r.Error == nil:
			case r.Error.Code == engine.CodeUnknownTool:
				out.unknown = append(out.unknown, r.Tool)
			case r.Error.Code == engine.CodeTimeout:
				out.timedOut = true
			}
		}
		return out, nil
	}, nil
}
