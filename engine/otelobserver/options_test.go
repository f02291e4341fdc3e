package otelobserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/codemode-dev/codemode/engine"
)

func TestWithArgsAndResults(t *testing.T) {
	o, rec, _ := setup(t, WithArgs(true), WithResults(true))
	ctx := context.Background()
	o.Observe(ctx, callStart("r", "c1", "t", ms(1)))
	o.Observe(ctx, callEnd("r", "c1", "t", nil, ms(2)))
	o.Observe(ctx, callStart("r", "c2", "t", ms(3)))
	o.Observe(ctx, callEnd("r", "c2", "t", engine.Errorf(engine.CodeToolError, "x"), ms(4)))

	got := spans(rec)
	want := map[string]any{
		"gen_ai.tool.call.arguments": `{"q":1}`,
		"gen_ai.tool.call.result":    `{"ok":true}`,
	}
	if diff := cmp.Diff(want, pick(got[0].Attrs, want)); diff != "" {
		t.Errorf("successful call (-want +got):\n%s", diff)
	}
	// A failed call has no result; its error is in status and error.type.
	if _, ok := got[1].Attrs["gen_ai.tool.call.result"]; ok {
		t.Errorf("failed call has a result attribute")
	}
}

// Large payloads are cut to MaxPayloadBytes of valid UTF-8, marked with "…".
func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
	}{
		{"ascii", strings.Repeat("a", 10_000)},
		{"multibyte", strings.Repeat("é€😀", 1_000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, rec, _ := setup(t, WithArgs(true))
			e := callStart("r", "c", "t", ms(1))
			e.Args = json.RawMessage(`"` + tc.in + `"`)
			o.Observe(context.Background(), e)
			o.Observe(context.Background(), callEnd("r", "c", "t", nil, ms(2)))

			got := spans(rec)[0].Attrs["gen_ai.tool.call.arguments"].(string)
			if len(got) > MaxPayloadBytes || len(got) < MaxPayloadBytes-utf8.UTFMax-len("…") {
				t.Errorf("len = %d, want just under %d", len(got), MaxPayloadBytes)
			}
			if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
				t.Errorf("got %q…%q, want valid UTF-8 ending in …", got[:10], got[len(got)-10:])
			}
		})
	}
	if s := truncate("short"); s != "short" {
		t.Errorf("truncate(short) = %q", s)
	}
}

// A nil TracerProvider means the global one.
func TestNilProviderUsesGlobal(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })

	o := New(nil)
	o.Observe(context.Background(), runStart("r", engine.RunCall, ms(0)))
	o.Observe(context.Background(), runEnd("r", engine.RunCall, nil, ms(1)))
	if n := len(rec.Ended()); n != 1 {
		t.Errorf("global provider got %d spans, want 1", n)
	}
}

// pick returns the entries of m whose keys are in keys.
func pick(m, keys map[string]any) map[string]any {
	out := map[string]any{}
	for k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}
