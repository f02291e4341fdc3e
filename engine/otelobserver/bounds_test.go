package otelobserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/engine"
)

// Through an engine, a client's huge tool name and a tool's huge error reach
// span names, attributes and statuses cut: the engine bounds every event.
func TestSpansOfHostileCallsAreBounded(t *testing.T) {
	o, rec, _ := setup(t, WithArgs(true), WithResults(true))
	fail := engine.Tool{Name: "fail", InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New(strings.Repeat("e", 4<<20))
		}}
	eng, err := engine.NewBuilder().Add(fail).WithObserver(o).Build()
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("n", 1<<20)
	req := engine.BatchRequest{Operations: []engine.Operation{
		{Tool: long, Label: long}, {Tool: "fail", Args: json.RawMessage(`{"x":"` + long + `"}`)}}}
	if _, err := eng.Batch(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	spans := rec.Ended()
	if len(spans) != 3 {
		t.Fatalf("%d spans, want the run's and two calls'", len(spans))
	}
	for _, s := range spans {
		if n := utf8.RuneCountInString(s.Name()); n > 300 {
			t.Errorf("span name of %d characters", n)
		}
		if n := utf8.RuneCountInString(s.Status().Description); n > engine.MaxErrorMessageChars+100 {
			t.Errorf("span %.40s: status of %d characters", s.Name(), n)
		}
		for _, a := range s.Attributes() {
			if n := len(a.Value.Emit()); n > MaxPayloadBytes+engine.MaxErrorMessageChars {
				t.Errorf("span %.40s: attribute %s of %d bytes", s.Name(), a.Key, n)
			}
		}
	}
}
