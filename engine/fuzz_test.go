package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
)

// FuzzBatch feeds arbitrary requests through parsing, planning and
// execution: the engine must never panic, must answer every request with
// either a request error (*engine.Error) or one result per operation, in order.
func FuzzBatch(f *testing.F) {
	for _, seed := range []string{
		`{"operations":[{"tool":"makeThing","args":{"name":"a"},"label":"a"},{"tool":"makeThing","args":{"name":{"$ref":"a.items.0"}}}]}`,
		`{"executionMode":"sequential","stopOnError":true,"operations":[{"tool":"fail"},{"tool":"add","args":{"a":1,"b":2}}]}`,
		`{"operations":[{"tool":"add","label":"x","args":{"a":{"$ref":"y"},"b":1}},{"tool":"add","label":"y","args":{"a":{"$ref":"x"},"b":1}}]}`,
		`{"operations":[{"tool":"shape","args":{"title":"t","kind":"box","points":[{"x":1,"y":2}]}}],"safetyLimits":{"maxResultChars":1}}`,
		`{"operations":[{"tool":"batch","args":{}},{"tool":"ad"},{"tool":"text","args":{"n":3}}],"timeout":"1s"}`,
		`{"operations":[{"tool":"add","args":[{"$ref":"a"}]}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fx := &fixture{release: make(chan struct{})}
		close(fx.release)
		e, err := engine.NewBuilder().Add(fx.tools()...).WithConfig(engine.Config{Limits: engine.Limits{
			CallTimeout: engine.Duration(50 * time.Millisecond), BatchTimeout: engine.Duration(200 * time.Millisecond)}}).Build()
		if err != nil {
			t.Fatal(err)
		}
		req, err := engine.ParseBatchRequest(data)
		if err != nil {
			if !errors.Is(err, engine.ErrBadRequest) {
				t.Fatalf("parse error %v is not bad_request", err)
			}
			return
		}
		for i := range req.Operations { // keep fuzzed runs short
			if req.Operations[i].Tool == "sleep" {
				req.Operations[i].Tool = "add"
			}
		}
		res, err := e.Batch(context.Background(), req)
		if err != nil {
			var ee *engine.Error
			if !errors.As(err, &ee) || (ee.Code != engine.CodeBadRequest && ee.Code != engine.CodeLimitExceeded) {
				t.Fatalf("request error %v", err)
			}
			return
		}
		if len(res.Results) != len(req.Operations) {
			t.Fatalf("%d results for %d operations", len(res.Results), len(req.Operations))
		}
		s := res.Summary
		if s.Successful+s.Failed+s.Skipped != s.Total {
			t.Fatalf("summary does not add up: %+v", s)
		}
		for i, r := range res.Results {
			if r.Index != i || r.Success == (r.Error != nil) {
				t.Fatalf("result %d: %+v", i, r)
			}
			if r.Success && !json.Valid(r.Result) {
				t.Fatalf("result %d is not JSON: %s", i, r.Result)
			}
		}
	})
}
