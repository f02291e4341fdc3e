package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/engine/internal/defs/strictcheck"
	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
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

// noteAdd records the arguments it receives. Its schema has optional
// members at the top, in a nested object and in array items.
func noteAdd(mu *sync.Mutex, got *[]string) engine.Tool {
	return engine.Tool{
		Name:        "note.add",
		Description: "Add a note.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"text":{"type":"string"},
			"color":{"type":"string","enum":["yellow","pink"],"default":"yellow"},
			"size":{"type":"object","properties":{"w":{"type":"number"},"h":{"type":"number"}},"required":["w"],"additionalProperties":false},
			"tags":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"},"v":{"type":"string"}},"required":["k"],"additionalProperties":false}}},
			"required":["text"],"additionalProperties":false}`),
		Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			mu.Lock()
			*got = append(*got, string(args))
			mu.Unlock()
			return json.RawMessage(`{"ok":true}`), nil
		},
	}
}

func compileSchema(t *testing.T, doc json.RawMessage) *jsonschema.Schema {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(doc)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem:///s.json", v); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem:///s.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	return s
}

func validates(t *testing.T, s *jsonschema.Schema, doc string) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(v)
}

// TestStrictRoundTrip: the OpenAI export is strict; a call a model decoding
// under it sends — every member present, null for those it leaves out — is
// valid under the exported schema, and HandleToolCalls hands the tool its
// arguments without those nulls, directly and inside a batch.
func TestStrictRoundTrip(t *testing.T) {
	var mu sync.Mutex
	var got []string
	e, err := engine.NewBuilder().Add(noteAdd(&mu, &got)).Build()
	if err != nil {
		t.Fatal(err)
	}
	oa, err := e.ToolDefinitions().OpenAI()
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]json.RawMessage{}
	for _, f := range oa {
		if f.Function.Name != "execute_code" && !f.Function.Strict {
			t.Errorf("%s is not strict: %s", f.Function.Name, f.Function.NotStrict)
		}
		if f.Function.Strict {
			if p := strictcheck.Check(f.Function.Parameters); len(p) > 0 {
				t.Errorf("%s breaks strict mode's rules: %v", f.Function.Name, p)
			}
		}
		params[f.Function.Name] = f.Function.Parameters
	}

	direct := `{"text":"hi","color":null,"size":{"w":2,"h":null},"tags":[{"k":"a","v":null},{"k":"b","v":"c"}]}`
	batch := `{"operations":[{"tool":"note.add","args":` + direct + `,"label":null}],"executionMode":null,"stopOnError":null,"timeout":null,"safetyLimits":null}`
	for name, call := range map[string]string{"note-add": direct, "batch": batch} {
		if err := validates(t, compileSchema(t, params[name]), call); err != nil {
			t.Fatalf("%s: a model under the strict schema could not send %s: %v", name, call, err)
		}
	}
	quoted, _ := json.Marshal(direct) // OpenAI sends arguments as a string
	res := e.HandleToolCalls(context.Background(), []engine.ToolCall{
		{ID: "call_1", Name: "note-add", Arguments: quoted},
		{ID: "call_2", Name: "batch", Arguments: json.RawMessage(batch)},
		{ID: "call_3", Name: "note-add", Arguments: json.RawMessage(`{"text":null,"color":null,"size":null,"tags":null}`)},
	})
	if res[0].IsError || res[1].IsError {
		t.Fatalf("results: %s / %s", res[0].Content, res[1].Content)
	}
	want := `{"text":"hi","size":{"w":2},"tags":[{"k":"a"},{"k":"b","v":"c"}]}`
	if diff := cmp.Diff([]string{want, want}, got); diff != "" {
		t.Errorf("arguments the tool received (-want +got):\n%s", diff)
	}
	// A null for a required member is not the engine's to drop.
	if !res[2].IsError || res[2].Error.Code != engine.CodeInvalidArgs || !strings.Contains(res[2].Error.Message, "/text") {
		t.Errorf("a null for a required member: %s", res[2].Content)
	}
}

// TestWhiteboardDefinitionsAreStrict: the built-in tools and the batch
// meta-tool over them are exported strict and pass strict mode's rules;
// execute_code, whose input takes any JSON value, is not, and says why.
func TestWhiteboardDefinitionsAreStrict(t *testing.T) {
	oa, err := whiteboardEngine(t).ToolDefinitions().OpenAI()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range oa {
		switch {
		case f.Function.Name == "execute_code":
			if f.Function.Strict || !strings.Contains(f.Function.NotStrict, "/properties/input: accepts any JSON value") {
				t.Errorf("execute_code: strict %v, reason %q", f.Function.Strict, f.Function.NotStrict)
			}
		case !f.Function.Strict:
			t.Errorf("%s is not strict: %s", f.Function.Name, f.Function.NotStrict)
		default:
			if p := strictcheck.Check(f.Function.Parameters); len(p) > 0 {
				t.Errorf("%s breaks strict mode's rules: %v", f.Function.Name, p)
			}
		}
	}
}

// TestModelTextIsText: ModelText prints as the JSON text it is, ready to
// send as a tool result.
func TestModelTextIsText(t *testing.T) {
	e := build(t, newFixture(t))
	res, err := e.Execute(context.Background(), engine.ExecuteRequest{Code: `console.log("a -> b"); return (await tools.add({a: 1, b: 2})).sum`})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"success":true,"result":3,"logs":["log: a -> b"]}`
	if got := fmt.Sprintf("%v", res.ModelText()); got != want {
		t.Errorf("ModelText printed with %%v = %s, want %s", got, want)
	}
}
