package bindings_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codemode-dev/codemode/bindings"
	"github.com/codemode-dev/codemode/engine"
)

type point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

type noteArgs struct {
	Text     string   `json:"text" jsonschema_description:"What the note says, in full."`
	ParentID string   `json:"parentId,omitempty"`
	At       point    `json:"at"`
	Color    string   `json:"color,omitempty" jsonschema:"enum=red,enum=blue"`
	Tags     []string `json:"tags,omitempty"`
}

type created struct {
	ID   string `json:"id"`
	Note string `json:"note,omitempty"`
}

// decode turns a schema into generic JSON so comparisons ignore key order.
func decode(t *testing.T, doc json.RawMessage) any {
	t.Helper()
	if doc == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("schema %s is not JSON: %v", doc, err)
	}
	return v
}

func noop[In, Out any](context.Context, In) (Out, error) {
	var zero Out
	return zero, nil
}

func TestFuncStructSchemas(t *testing.T) {
	tool, err := bindings.Func("createNote", "Create a note.", noop[noteArgs, created])
	if err != nil {
		t.Fatal(err)
	}
	if tool.Name != "createNote" || tool.Description != "Create a note." {
		t.Errorf("name, description = %q, %q", tool.Name, tool.Description)
	}
	wantIn := map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []any{"text", "at"},
		"properties": map[string]any{
			"text":     map[string]any{"type": "string", "description": "What the note says, in full."},
			"parentId": map[string]any{"type": "string"},
			"at":       map[string]any{"$ref": "#/$defs/point"},
			"color":    map[string]any{"type": "string", "enum": []any{"red", "blue"}},
			"tags":     map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		},
		"$defs": map[string]any{
			"point": map[string]any{
				"type":                 "object",
				"additionalProperties": false,
				"required":             []any{"x", "y"},
				"properties": map[string]any{
					"x": map[string]any{"type": "number"},
					"y": map[string]any{"type": "number"},
				},
			},
		},
	}
	if diff := cmp.Diff(wantIn, decode(t, tool.InputSchema)); diff != "" {
		t.Errorf("input schema mismatch (-want +got):\n%s", diff)
	}
	wantOut := map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []any{"id"},
		"properties": map[string]any{
			"id":   map[string]any{"type": "string"},
			"note": map[string]any{"type": "string"},
		},
	}
	if diff := cmp.Diff(wantOut, decode(t, tool.OutputSchema)); diff != "" {
		t.Errorf("output schema mismatch (-want +got):\n%s", diff)
	}
}

func TestFuncSchemas(t *testing.T) {
	objOut := map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []any{"id"},
		"properties": map[string]any{
			"id":   map[string]any{"type": "string"},
			"note": map[string]any{"type": "string"},
		},
	}
	pointIn := map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []any{"x", "y"},
		"properties": map[string]any{
			"x": map[string]any{"type": "number"},
			"y": map[string]any{"type": "number"},
		},
	}
	for _, tc := range []struct {
		desc      string
		tool      func() (engine.Tool, error)
		wantIn    any
		wantOut   any
		wantNoOut bool
	}{
		{
			desc:    "pointer to struct in and out",
			tool:    func() (engine.Tool, error) { return bindings.Func("f", "", noop[*point, *created]) },
			wantIn:  pointIn,
			wantOut: objOut,
		},
		{
			desc: "map input",
			tool: func() (engine.Tool, error) { return bindings.Func("f", "", noop[map[string]int, created]) },
			wantIn: map[string]any{
				"type":                 "object",
				"additionalProperties": map[string]any{"type": "integer"},
			},
			wantOut: objOut,
		},
		{
			desc:    "empty struct input",
			tool:    func() (engine.Tool, error) { return bindings.Func("f", "", noop[struct{}, created]) },
			wantIn:  map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{}},
			wantOut: objOut,
		},
		{
			desc:      "number output has no output schema",
			tool:      func() (engine.Tool, error) { return bindings.Func("f", "", noop[point, float64]) },
			wantIn:    pointIn,
			wantNoOut: true,
		},
		{
			desc:      "string output has no output schema",
			tool:      func() (engine.Tool, error) { return bindings.Func("f", "", noop[point, string]) },
			wantIn:    pointIn,
			wantNoOut: true,
		},
		{
			desc:      "slice of structs output has no output schema",
			tool:      func() (engine.Tool, error) { return bindings.Func("f", "", noop[point, []created]) },
			wantIn:    pointIn,
			wantNoOut: true,
		},
		{
			desc:    "map output gets an output schema",
			tool:    func() (engine.Tool, error) { return bindings.Func("f", "", noop[point, map[string]string]) },
			wantIn:  pointIn,
			wantOut: map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
		},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			tool, err := tc.tool()
			if err != nil {
				t.Fatal(err)
			}
			got := decode(t, tool.InputSchema).(map[string]any)
			if _, ok := got["$ref"]; ok {
				t.Errorf("input schema root is a $ref: %s", tool.InputSchema)
			}
			if _, ok := got["$schema"]; ok {
				t.Errorf("input schema names its draft: %s", tool.InputSchema)
			}
			if diff := cmp.Diff(tc.wantIn, got); diff != "" {
				t.Errorf("input schema mismatch (-want +got):\n%s", diff)
			}
			if tc.wantNoOut {
				if tool.OutputSchema != nil {
					t.Errorf("output schema = %s, want none", tool.OutputSchema)
				}
				return
			}
			if diff := cmp.Diff(tc.wantOut, decode(t, tool.OutputSchema)); diff != "" {
				t.Errorf("output schema mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFuncRejectsNonObjectInput(t *testing.T) {
	for _, tc := range []struct {
		desc string
		fn   func() (engine.Tool, error)
	}{
		{"int", func() (engine.Tool, error) { return bindings.Func("bad", "", noop[int, created]) }},
		{"string", func() (engine.Tool, error) { return bindings.Func("bad", "", noop[string, created]) }},
		{"slice", func() (engine.Tool, error) { return bindings.Func("bad", "", noop[[]point, created]) }},
		{"pointer to int", func() (engine.Tool, error) { return bindings.Func("bad", "", noop[*int, created]) }},
		{"interface", func() (engine.Tool, error) { return bindings.Func("bad", "", noop[any, created]) }},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			tool, err := tc.fn()
			if err == nil {
				t.Fatalf("Func accepted input type %s: %s", tc.desc, tool.InputSchema)
			}
			if msg := err.Error(); !strings.Contains(msg, `"bad"`) || !strings.Contains(msg, "must be a struct") {
				t.Errorf("error = %q, want it to name the tool and say the input must be a struct", msg)
			}
		})
	}
}

func TestMustFunc(t *testing.T) {
	tool := bindings.MustFunc("ok", "", noop[point, created])
	if tool.Name != "ok" || tool.Handler == nil {
		t.Errorf("MustFunc = %+v", tool)
	}

	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("MustFunc with an int input did not panic")
		}
		err, ok := r.(error)
		if !ok || !strings.Contains(err.Error(), "must be a struct") {
			t.Errorf("panic value = %#v, want the error Func returns", r)
		}
	}()
	bindings.MustFunc("bad", "", noop[int, created])
}

func TestFuncOptions(t *testing.T) {
	for _, tc := range []struct {
		desc string
		opts []bindings.Option
		want engine.Annotations
	}{
		{"none", nil, engine.Annotations{}},
		{
			"read-only",
			[]bindings.Option{bindings.ReadOnly()},
			engine.Annotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: engine.Bool(false)},
		},
		{"destructive", []bindings.Option{bindings.Destructive(true)}, engine.Annotations{DestructiveHint: engine.Bool(true)}},
		{"not destructive", []bindings.Option{bindings.Destructive(false)}, engine.Annotations{DestructiveHint: engine.Bool(false)}},
		{"idempotent", []bindings.Option{bindings.Idempotent()}, engine.Annotations{IdempotentHint: true}},
		{"open world", []bindings.Option{bindings.OpenWorld(true)}, engine.Annotations{OpenWorldHint: engine.Bool(true)}},
		{"closed world", []bindings.Option{bindings.OpenWorld(false)}, engine.Annotations{OpenWorldHint: engine.Bool(false)}},
		{"title", []bindings.Option{bindings.Title("Create note")}, engine.Annotations{Title: "Create note"}},
		{
			"options compose in order",
			[]bindings.Option{bindings.ReadOnly(), bindings.Destructive(true), bindings.Title("T"), bindings.OpenWorld(false)},
			engine.Annotations{Title: "T", ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: engine.Bool(true), OpenWorldHint: engine.Bool(false)},
		},
		{
			"annotations replace all",
			[]bindings.Option{bindings.ReadOnly(), bindings.Title("gone"), bindings.Annotations(engine.Annotations{Title: "Only", OpenWorldHint: engine.Bool(true)})},
			engine.Annotations{Title: "Only", OpenWorldHint: engine.Bool(true)},
		},
		{
			"options after annotations still apply",
			[]bindings.Option{bindings.Annotations(engine.Annotations{Title: "A"}), bindings.Idempotent()},
			engine.Annotations{Title: "A", IdempotentHint: true},
		},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			tool, err := bindings.Func("f", "", noop[point, created], tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, tool.Annotations); diff != "" {
				t.Errorf("annotations mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

type ctxKey struct{}

func TestFuncHandler(t *testing.T) {
	var got []noteArgs
	tool := bindings.MustFunc("createNote", "", func(ctx context.Context, in noteArgs) (created, error) {
		got = append(got, in)
		id, _ := ctx.Value(ctxKey{}).(string)
		return created{ID: id, Note: in.Text}, nil
	})
	ctx := context.WithValue(context.Background(), ctxKey{}, "n-1")

	for _, tc := range []struct {
		desc, args string
		wantIn     noteArgs
		wantOut    string
	}{
		{
			desc:    "all fields",
			args:    `{"text":"hi","parentId":"f-1","at":{"x":1,"y":2.5},"color":"red","tags":["a"]}`,
			wantIn:  noteArgs{Text: "hi", ParentID: "f-1", At: point{X: 1, Y: 2.5}, Color: "red", Tags: []string{"a"}},
			wantOut: `{"id":"n-1","note":"hi"}`,
		},
		{
			desc:    "empty args are the zero value",
			args:    ``,
			wantOut: `{"id":"n-1"}`,
		},
		{
			desc:    "unknown fields are ignored by the decoder",
			args:    `{"text":"x","bogus":1}`,
			wantIn:  noteArgs{Text: "x"},
			wantOut: `{"id":"n-1","note":"x"}`,
		},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			got = nil
			out, err := tool.Handler(ctx, json.RawMessage(tc.args))
			if err != nil {
				t.Fatalf("Handler(%s): %v", tc.args, err)
			}
			if diff := cmp.Diff([]noteArgs{tc.wantIn}, got); diff != "" {
				t.Errorf("fn got (-want +got):\n%s", diff)
			}
			if string(out) != tc.wantOut {
				t.Errorf("Handler(%s) = %s, want %s", tc.args, out, tc.wantOut)
			}
		})
	}
}

func TestFuncHandlerScalarResult(t *testing.T) {
	tool := bindings.MustFunc("sum", "", func(ctx context.Context, in map[string]float64) (float64, error) {
		s := 0.0
		for _, v := range in {
			s += v
		}
		return s, nil
	})
	out, err := tool.Handler(context.Background(), json.RawMessage(`{"a":1.5,"b":2}`))
	if err != nil || string(out) != "3.5" {
		t.Errorf("Handler = %s, %v; want 3.5, nil", out, err)
	}
}

func TestFuncHandlerUndecodableArgs(t *testing.T) {
	called := false
	tool := bindings.MustFunc("createNote", "", func(ctx context.Context, in noteArgs) (created, error) {
		called = true
		return created{}, nil
	})
	for _, args := range []string{`{"text":5}`, `not json`, `[1,2]`, `{"at":{"x":"1"}}`, `{"text":"a"`} {
		out, err := tool.Handler(context.Background(), json.RawMessage(args))
		if err == nil {
			t.Errorf("Handler(%s) = %s, want an error", args, out)
			continue
		}
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.CodeInvalidArgs {
			t.Errorf("Handler(%s) error = %#v, want an *engine.Error with code %s", args, err, engine.CodeInvalidArgs)
		}
		if !errors.Is(err, engine.ErrInvalidArgs) {
			t.Errorf("Handler(%s): errors.Is(err, ErrInvalidArgs) = false", args)
		}
	}
	if called {
		t.Error("fn was called with undecodable arguments")
	}
}

var errBoom = errors.New("boom")

func TestFuncHandlerPassesErrorsThrough(t *testing.T) {
	denied := engine.Errorf(engine.CodeDenied, "not yours")
	for _, tc := range []struct {
		desc   string
		err    error
		target error
	}{
		{"plain error", errBoom, errBoom},
		{"wrapped error", errors.Join(errors.New("ctx"), errBoom), errBoom},
		{"engine error", denied, engine.ErrDenied},
		{"context error", context.DeadlineExceeded, context.DeadlineExceeded},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			tool := bindings.MustFunc("f", "", func(ctx context.Context, in point) (created, error) {
				return created{ID: "ignored"}, tc.err
			})
			out, err := tool.Handler(context.Background(), json.RawMessage(`{"x":1,"y":2}`))
			if out != nil {
				t.Errorf("Handler returned %s alongside an error", out)
			}
			if err != tc.err {
				t.Errorf("Handler error = %#v, want %#v unchanged", err, tc.err)
			}
			if !errors.Is(err, tc.target) {
				t.Errorf("errors.Is(%v, %v) = false", err, tc.target)
			}
		})
	}
}

func TestFuncToolsBuild(t *testing.T) {
	tools := []engine.Tool{
		bindings.MustFunc("createNote", "Create a note.", func(ctx context.Context, in noteArgs) (created, error) {
			return created{ID: "n-1", Note: in.Text}, nil
		}),
		bindings.MustFunc("board.move", "Move to a point.", noop[*point, float64], bindings.ReadOnly()),
		bindings.MustFunc("sum", "Sum values.", noop[map[string]int, int], bindings.Destructive(false)),
		bindings.MustFunc("nothing", "Take nothing.", noop[struct{}, []string]),
	}
	eng, err := engine.NewBuilder().Add(tools...).Build()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	ctx := context.Background()

	out, err := eng.Call(ctx, "createNote", json.RawMessage(`{"text":"hi","at":{"x":1,"y":2}}`))
	if err != nil || string(out) != `{"id":"n-1","note":"hi"}` {
		t.Errorf("Call(createNote) = %s, %v", out, err)
	}

	// The engine validates against the reflected schema before the handler runs.
	for _, tc := range []struct {
		tool, args string
		want       []engine.Violation
	}{
		{"createNote", `{"text":"hi"}`, []engine.Violation{{Path: "", Message: "missing property 'at'"}}},
		{"createNote", `{"text":"hi","at":{"x":1,"y":2},"color":"green"}`, []engine.Violation{{Path: "/color", Message: "value must be one of 'red', 'blue'"}}},
		{"createNote", `{"text":"hi","at":{"x":1},"extra":true}`, []engine.Violation{
			{Path: "", Message: "additional properties 'extra' not allowed"},
			{Path: "/at", Message: "missing property 'y'"},
		}},
		{"sum", `{"a":1.5}`, []engine.Violation{{Path: "/a", Message: "got number, want integer"}}},
		{"nothing", `{"a":1}`, []engine.Violation{{Path: "", Message: "additional properties 'a' not allowed"}}},
	} {
		_, err := eng.Call(ctx, tc.tool, json.RawMessage(tc.args))
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.CodeInvalidArgs {
			t.Errorf("Call(%s, %s) error = %v, want invalid_args", tc.tool, tc.args, err)
			continue
		}
		if diff := cmp.Diff(tc.want, e.Details); diff != "" {
			t.Errorf("Call(%s, %s) details mismatch (-want +got):\n%s", tc.tool, tc.args, diff)
		}
	}
}

type treeNode struct {
	Name string     `json:"name"`
	Kids []treeNode `json:"kids,omitempty"`
}

// A type that contains itself keeps its definition so the reference resolves.
func TestFuncSelfReferentialType(t *testing.T) {
	tool, err := bindings.Func("tree", "Count nodes.", func(ctx context.Context, in treeNode) (treeNode, error) { return in, nil })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.NewBuilder().Add(tool).Build(); err != nil {
		t.Fatalf("Build: %v\nschema: %s", err, tool.InputSchema)
	}
	if !strings.Contains(string(tool.InputSchema), `"$defs":{"treeNode"`) || strings.HasPrefix(string(tool.InputSchema), `{"$ref"`) {
		t.Errorf("schema %s", tool.InputSchema)
	}
}

// Types JSON cannot describe are errors, not panics.
func TestFuncUnsupportedTypes(t *testing.T) {
	type withChan struct {
		C chan int `json:"c"`
	}
	if _, err := bindings.Func("c", "", func(ctx context.Context, in withChan) (int, error) { return 0, nil }); err == nil || !strings.Contains(err.Error(), "cannot describe") {
		t.Errorf("chan field: %v", err)
	}
	if _, err := bindings.Func("c", "", func(ctx context.Context, in struct{}) (chan int, error) { return nil, nil }); err == nil {
		t.Error("chan output: no error")
	}
}
