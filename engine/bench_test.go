package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine"
)

// noopEngine has one no-op tool with an empty-object schema, so the benchmark
// measures the engine's own per-operation overhead.
func noopEngine(b *testing.B) *engine.Engine {
	e, err := engine.NewBuilder().Add(engine.Tool{
		Name: "noop", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: engine.Annotations{ReadOnlyHint: true},
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{}`), nil
		},
	}).WithConfig(engine.Config{Limits: engine.Limits{MaxOperations: 1000}}).Build()
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// BenchmarkBatchNoop reports the engine's overhead per operation (ns/op is per
// batch; the op-overhead metric divides by the batch size).
func BenchmarkBatchNoop(b *testing.B) {
	e := noopEngine(b)
	for _, mode := range []engine.ExecutionMode{engine.Sequential, engine.Parallel} {
		for _, n := range []int{1, 10, 100, 1000} {
			ops := strings.TrimSuffix(strings.Repeat(`{"tool":"noop","args":{}},`, n), ",")
			req, err := engine.ParseBatchRequest([]byte(fmt.Sprintf(`{"executionMode":%q,"operations":[%s]}`, mode, ops)))
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/%d", mode, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					res, err := e.Batch(context.Background(), req)
					if err != nil || res.Summary.Successful != n {
						b.Fatal(err, res.Summary)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/operation")
			})
		}
	}
}
