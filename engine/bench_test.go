package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
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

// BenchmarkBatchWhiteboard is a realistic batch: a frame and n sticky notes
// placed in it through $ref, over a fresh board each time.
func BenchmarkBatchWhiteboard(b *testing.B) {
	for _, n := range []int{10, 99} { // with the frame: 100 operations, the default limit
		var ops strings.Builder
		ops.WriteString(`{"tool":"createFrame","args":{"title":"Retro","x":0,"y":0,"width":5000,"height":5000},"label":"f"}`)
		for i := range n {
			fmt.Fprintf(&ops, `,{"tool":"createStickyNote","args":{"text":"note %d","x":%d,"y":100,"color":"yellow","parentId":{"$ref":"f.id"}}}`, i, i*10)
		}
		req, err := engine.ParseBatchRequest([]byte(`{"operations":[` + ops.String() + `]}`))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			e := whiteboardEngine(b)
			for b.Loop() {
				ctx := whiteboard.NewContext(context.Background(), whiteboard.NewBoard())
				res, err := e.Batch(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				if res.Summary.Successful != n+1 {
					b.Fatalf("%+v", res.Summary)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(n+1)), "ns/operation")
		})
	}
}

// BenchmarkParseBatchRequest prices strict decoding (every problem at once,
// with paths) against plain encoding/json on the same 100-operation request.
func BenchmarkParseBatchRequest(b *testing.B) {
	var ops strings.Builder
	for i := range 100 {
		if i > 0 {
			ops.WriteByte(',')
		}
		fmt.Fprintf(&ops, `{"tool":"createStickyNote","args":{"text":"note %d","x":%d,"y":60,"color":"yellow","parentId":{"$ref":"f.id"}},"label":"n%d"}`, i, 20*i, i)
	}
	data := []byte(`{"executionMode":"parallel","stopOnError":false,"operations":[` + ops.String() + `]}`)
	b.Run("strict", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := engine.ParseBatchRequest(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var req engine.BatchRequest
			if err := json.Unmarshal(data, &req); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkBuildWhiteboard is the engine set-up of a CLI command: the
// whiteboard's tools made for a board, and an engine built over them, as
// "codemode run" does once per process. (Work done once per process, such as
// reflecting the tools' argument types, is in the first iteration only.)
func BenchmarkBuildWhiteboard(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := engine.NewBuilder().Add(whiteboard.Tools(whiteboard.NewBoard())...).Build(); err != nil {
			b.Fatal(err)
		}
	}
}

// schemaOf is an input schema of objects JSON objects (odd, at least 5):
// an object whose properties are each a $ref into $defs, the shape the
// schema compiler takes longest over; tag makes it distinct.
func schemaOf(tag string, objects int) json.RawMessage {
	k := (objects - 3) / 2
	var props, defs strings.Builder
	for i := range k {
		if i > 0 {
			props.WriteString(",")
			defs.WriteString(",")
		}
		fmt.Fprintf(&props, `"p%d":{"$ref":"#/$defs/d%d"}`, i, i)
		fmt.Fprintf(&defs, `"d%d":{"type":"string"}`, i)
	}
	return json.RawMessage(fmt.Sprintf(`{"type":"object","description":%q,"properties":{%s},"$defs":{%s}}`, tag, props.String(), defs.String()))
}

// BenchmarkBuildSchemaBounds is Build at the bounds on input schemas: 50
// distinct ones of 3,999 objects each, 199,950 in all, just under the
// engine's 200,000 — the longest a catalog's schemas can make Build take.
func BenchmarkBuildSchemaBounds(b *testing.B) {
	var tools []engine.Tool
	for i := range 50 {
		tools = append(tools, engine.Tool{
			Name: fmt.Sprintf("t%d", i), InputSchema: schemaOf(fmt.Sprint(i), 3999),
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil },
		})
	}
	for b.Loop() {
		if _, err := engine.NewBuilder().Add(tools...).Build(); err != nil {
			b.Fatal(err)
		}
	}
}
