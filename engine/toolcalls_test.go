package engine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
)

func TestHandleToolCalls(t *testing.T) {
	rec := &recorder{}
	e := build(t, newFixture(t), func(b *engine.Builder) { b.WithObserver(rec) })
	res := e.HandleToolCalls(context.Background(), []engine.ToolCall{
		{ID: "a", Name: "add", Arguments: json.RawMessage(`"{\"a\":2,\"b\":3}"`)}, // OpenAI: a string
		{ID: "b", Name: "board-getState", Arguments: json.RawMessage(`{}`)},       // wire name
		{ID: "c", Name: "batch", Arguments: json.RawMessage(`{"operations":[{"tool":"add","args":{"a":1,"b":1}},{"tool":"ad"}]}`)},
		{ID: "d", Name: "batch", Arguments: json.RawMessage(`{"operations":[]}`)},
		{ID: "e", Name: "adx", Arguments: nil},
		{ID: "a", Name: "add", Arguments: json.RawMessage(`{}`)},
		{ID: "f", Name: "add", Arguments: json.RawMessage(`"not json"`)},
	})
	type short struct {
		ID, Content string
		IsError     bool
	}
	var got []short
	for _, r := range res {
		s := short{ID: r.ID, IsError: r.IsError}
		if r.ID != "c" {
			s.Content = string(r.Content)
		}
		got = append(got, s)
	}
	want := []short{
		{"a", `{"sum":5}`, false},
		{"b", `{"objects":[],"count":0}`, false},
		{"c", "", true},
		{"d", `{"error":{"code":"bad_request","message":"operations: must list at least one operation"}}`, true},
		{"e", `{"error":{"code":"unknown_tool","message":"unknown tool \"adx\"","suggestions":["add"]}}`, true},
		{"a", `{"error":{"code":"bad_request","message":"tool call 5: the call id \"a\" is missing or used twice"}}`, true},
		{"f", `{"error":{"code":"bad_request","message":"arguments are a string that is not JSON: \"not json\""}}`, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	var br engine.BatchResult
	json.Unmarshal(res[2].Content, &br)
	if diff := cmp.Diff([]string{"ok", "unknown_tool"}, codes(&br)); diff != "" {
		t.Errorf("unwrapped batch (-want +got):\n%s", diff)
	}
	// The batch is transparent: its children are calls with parentId = the
	// batch call's id; no event names the batch itself as a tool.
	parents := map[string]string{}
	for _, ev := range rec.ofType(engine.EventToolCallEnd) {
		if ev.Tool == "batch" {
			t.Errorf("the batch emitted a tool event: %+v", ev)
		}
		parents[ev.CallID] = ev.ParentID
	}
	run := rec.ofType(engine.EventRunStart)[0].RunID
	wantParents := map[string]string{"a": run, "b": run, "c/0": "c", "c/1": "c", "e": run}
	if diff := cmp.Diff(wantParents, parents); diff != "" {
		t.Errorf("call ids → parents (-want +got):\n%s", diff)
	}
}
