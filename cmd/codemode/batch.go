package main

import (
	"context"
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
		return nil, err
	}
	return func(ctx context.Context, eng *engine.Engine) (outcome, error) {
		res, err := eng.Batch(ctx, req)
		if err != nil {
			return outcome{}, err
		}
		var unknown []string
		for _, r := range res.Results {
			if r.Error != nil && r.Error.Code == engine.CodeUnknownTool {
				unknown = append(unknown, r.Tool)
			}
		}
		return outcome{result: res, ok: res.Summary.Successful == res.Summary.Total, unknown: unknown}, nil
	}, nil
}
