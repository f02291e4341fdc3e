package engine

import (
	"context"
	"encoding/json"
	"testing"
)

// TestDropNullsPlans: Build records a plan for every tool with optional
// members and for the batch meta-tool, whose own optional fields and whose
// operations' labels and args a model under its strict form sends as null.
func TestDropNullsPlans(t *testing.T) {
	noop := func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }
	e, err := NewBuilder().Add(Tool{Name: "note.add", Handler: noop, InputSchema: json.RawMessage(`{"type":"object",
		"properties":{"text":{"type":"string"},"color":{"type":"string"}},"required":["text"],"additionalProperties":false}`)}).Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, in, want string }{
		{"note.add", `{"text":"a","color":null}`, `{"text":"a"}`},
		{MetaBatch, `{"operations":[{"tool":"note.add","args":{"text":"a","color":null},"label":null}],"executionMode":null,"stopOnError":null,"timeout":null,"safetyLimits":{"maxOperations":null,"maxAggregateChars":2,"maxConcurrency":null,"maxResultChars":null}}`,
			`{"operations":[{"tool":"note.add","args":{"text":"a"}}],"safetyLimits":{"maxAggregateChars":2}}`},
		{MetaExecuteCode, `{"code":"return 1","input":null}`, `{"code":"return 1","input":null}`}, // input takes null: kept
		{"unknown", `{"a":null}`, `{"a":null}`},
	} {
		if got := string(e.dropNulls(tc.tool, json.RawMessage(tc.in))); got != tc.want {
			t.Errorf("dropNulls(%s, %s) = %s, want %s", tc.tool, tc.in, got, tc.want)
		}
	}
}
