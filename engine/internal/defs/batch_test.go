package defs

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine/internal/schema"
)

var boardTools = []Tool{createFrame, createStickyNote, arrange}

var (
	unionOpts = DefaultBatchOptions()
	enumOpts  = BatchOptions{MaxOperations: 100} // union form off
)

func compileBatch(t *testing.T, tools []Tool, opt BatchOptions) *schema.Schema {
	t.Helper()
	doc, err := BatchSchema(tools, opt)
	if err != nil {
		t.Fatalf("BatchSchema: %v", err)
	}
	s, err := schema.Compile(doc)
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, doc)
	}
	return s
}

func violations(t *testing.T, s *schema.Schema, instance string) []schema.Violation {
	t.Helper()
	v, err := schema.Decode([]byte(instance))
	if err != nil {
		t.Fatalf("decode %s: %v", instance, err)
	}
	return s.Validate(v)
}

// request wraps operations into a minimal batch request.
func request(ops ...string) string {
	return `{"operations":[` + strings.Join(ops, ",") + `]}`
}

func TestBatchSchemaGolden(t *testing.T) {
	for _, tc := range []struct {
		file string
		opt  BatchOptions
	}{{"batch_union.json", unionOpts}, {"batch_enum.json", enumOpts}} {
		t.Run(tc.file, func(t *testing.T) {
			doc, err := BatchSchema(boardTools, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.file, doc)
		})
	}
}

func TestBatchSchemaValidates(t *testing.T) {
	frame := `{"tool":"createFrame","args":{"title":"Retro","x":0,"y":0,"width":900,"height":600},"label":"frame"}`
	for _, tc := range []struct {
		name      string
		instance  string
		union, en bool // accepted in union mode, in enum mode
	}{
		{"docs example", exampleRequest, true, true},
		{"misspelt tool", request(`{"tool":"createStikyNote","args":{"text":"a","x":0,"y":0}}`), false, false},
		{"wrong arg type", request(`{"tool":"createFrame","args":{"title":"T","x":"zero","y":0,"width":1,"height":1}}`), false, true},
		{"missing required arg", request(`{"tool":"createStickyNote","args":{"text":"a","x":0}}`), false, true},
		{"args of another tool", request(`{"tool":"createFrame","args":{"text":"a","x":0,"y":0}}`), false, true},
		{"top-level $ref", request(frame, `{"tool":"createStickyNote","args":{"text":{"$ref":"frame.title"},"x":{"$ref":"frame.x"},"y":0}}`), true, true},
		{"$ref with index path", request(`{"tool":"createStickyNote","args":{"text":{"$ref":"s.objects.0.text"},"x":0,"y":0}}`), true, true},
		{"nested $ref (documented limit)", request(`{"tool":"board.arrange","args":{"moves":[{"objectId":{"$ref":"n.id"},"to":{"x":0,"y":0}}]}}`), false, true},
		{"$ref with extra key", request(`{"tool":"createStickyNote","args":{"text":{"$ref":"a","b":1},"x":0,"y":0}}`), false, true},
		{"hoisted defs checked", request(`{"tool":"board.arrange","args":{"moves":[{"objectId":"o1","to":{"x":"1","y":0}}]}}`), false, true},
		{"hoisted defs pass", request(`{"tool":"board.arrange","args":{"moves":[{"objectId":"o1","to":{"x":1,"y":0}}]}}`), true, true},
		{"no operations", `{"operations":[]}`, false, false},
		{"no args", request(`{"tool":"createFrame"}`), false, false},
		{"bad label", request(`{"tool":"board.arrange","args":{"moves":[]},"label":"1x"}`), false, false},
		{"unknown op field", request(`{"tool":"board.arrange","args":{"moves":[]},"lable":"x"}`), false, false},
		{"unknown root field", `{"operations":[{"tool":"board.arrange","args":{"moves":[]}}],"mode":"x"}`, false, false},
		{"bad mode", `{"operations":[{"tool":"board.arrange","args":{"moves":[]}}],"executionMode":"serial"}`, false, false},
		{"zero timeout", `{"operations":[{"tool":"board.arrange","args":{"moves":[]}}],"timeout":0}`, false, false},
		{"unknown limit", `{"operations":[{"tool":"board.arrange","args":{"moves":[]}}],"safetyLimits":{"maxCalls":1}}`, false, false},
		{"all limits", `{"operations":[{"tool":"board.arrange","args":{"moves":[]}}],"stopOnError":true,"executionMode":"sequential",
			"safetyLimits":{"maxOperations":1,"maxAggregateChars":1,"maxConcurrency":1,"maxResultChars":1}}`, true, true},
	} {
		for _, m := range []struct {
			mode string
			opt  BatchOptions
			want bool
		}{{"union", unionOpts, tc.union}, {"enum", enumOpts, tc.en}} {
			t.Run(tc.name+"/"+m.mode, func(t *testing.T) {
				vs := violations(t, compileBatch(t, boardTools, m.opt), tc.instance)
				if got := len(vs) == 0; got != m.want {
					t.Errorf("accepted = %v, want %v; violations: %v", got, m.want, vs)
				}
			})
		}
	}
}

func TestBatchSchemaMaxOperations(t *testing.T) {
	s := compileBatch(t, boardTools, BatchOptions{MaxOperations: 2})
	op := `{"tool":"board.arrange","args":{"moves":[]}}`
	if vs := violations(t, s, request(op, op)); len(vs) != 0 {
		t.Errorf("2 operations: %v", vs)
	}
	if vs := violations(t, s, request(op, op, op)); len(vs) == 0 {
		t.Error("3 operations accepted with MaxOperations 2")
	}
}

// isUnion reports whether the schema uses the per-tool anyOf.
func isUnion(t *testing.T, doc json.RawMessage) bool {
	var s struct {
		Properties struct {
			Operations struct {
				Items struct {
					AnyOf []any `json:"anyOf"`
				} `json:"items"`
			} `json:"operations"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(doc, &s); err != nil {
		t.Fatal(err)
	}
	return s.Properties.Operations.Items.AnyOf != nil
}

func TestBatchSchemaThreshold(t *testing.T) {
	size := 0
	for _, tl := range boardTools {
		size += len(compact(t, tl.InputSchema))
	}
	for _, tc := range []struct {
		name string
		opt  BatchOptions
		want bool
	}{
		{"defaults", DefaultBatchOptions(), true},
		{"at both limits", BatchOptions{MaxUnionTools: 3, MaxUnionBytes: size}, true},
		{"one tool too many", BatchOptions{MaxUnionTools: 2, MaxUnionBytes: size}, false},
		{"one byte too many", BatchOptions{MaxUnionTools: 3, MaxUnionBytes: size - 1}, false},
		{"zero options", BatchOptions{}, false},
	} {
		doc, err := BatchSchema(boardTools, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := isUnion(t, doc); got != tc.want {
			t.Errorf("%s: union = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func compact(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestBatchSchemaErrors(t *testing.T) {
	tool := func(name, schema string) Tool { return Tool{Name: name, InputSchema: json.RawMessage(schema)} }
	for _, tc := range []struct {
		name  string
		tools []Tool
		want  string
	}{
		{"no tools", nil, "no tools"},
		{"bad name", []Tool{tool("a-b", `{"type":"object"}`)}, `"a-b"`},
		{"duplicate", []Tool{createFrame, createFrame}, "twice"},
		{"bad JSON", []Tool{tool("a", `{"type":`)}, `"a"`},
		{"not an object", []Tool{tool("a", `true`)}, "not a JSON object"},
		{"dangling $ref", []Tool{tool("a", `{"type":"object","properties":{"p":{"$ref":"#/$defs/Nope"}}}`)}, "no such definition"},
		{"$defs not an object", []Tool{tool("a", `{"type":"object","$defs":[]}`)}, "$defs"},
	} {
		_, err := BatchSchema(tc.tools, unionOpts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %s", tc.name, err, tc.want)
		}
	}
	// Errors that only the union form can see are not errors in enum form,
	// except for malformed JSON.
	if _, err := BatchSchema([]Tool{tool("a", `{"type":"object","properties":{"p":{"$ref":"#/$defs/Nope"}}}`)}, enumOpts); err != nil {
		t.Errorf("enum form: %v", err)
	}
}
