package defs

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/engine/internal/defs/strictcheck"
)

// tagged has no strict form: its tags are a map.
var tagged = Tool{
	Name:        "note.tag",
	Description: "Set a note's tags.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"noteId":{"type":"string"},"tags":{"type":"object","additionalProperties":{"type":"string"}}},"required":["noteId","tags"],"additionalProperties":false}`),
}

var exported = []Tool{createFrame, createStickyNote, arrange, tagged}

func TestExportGolden(t *testing.T) {
	openai, err := OpenAI(exported)
	if err != nil {
		t.Fatal(err)
	}
	anthropic, err := Anthropic(exported)
	if err != nil {
		t.Fatal(err)
	}
	for file, v := range map[string]any{
		"mcp.json":       MCP(exported),
		"openai.json":    openai,
		"anthropic.json": anthropic,
	} {
		t.Run(file, func(t *testing.T) {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, file, b)
		})
	}
}

// TestOpenAIStrict: every tool with a strict form is exported with it and
// marked strict; the others are sent as they are, strict false (not left
// out: the Responses API takes a missing strict as true), with the reason.
func TestOpenAIStrict(t *testing.T) {
	out, err := OpenAI(exported)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range out {
		b, _ := json.Marshal(f)
		switch f.Function.Name {
		case "note-tag":
			if f.Function.Strict || !strings.Contains(f.Function.NotStrict, "/properties/tags: additionalProperties admits members") {
				t.Errorf("%s: strict %v, reason %q", f.Function.Name, f.Function.Strict, f.Function.NotStrict)
			}
			if !strings.Contains(string(b), `"strict":false`) || string(f.Function.Parameters) != string(exported[i].InputSchema) {
				t.Errorf("%s: want the schema as it is and strict false: %s", f.Function.Name, b)
			}
		default:
			if !f.Function.Strict || f.Function.NotStrict != "" || !strings.Contains(string(b), `"strict":true`) {
				t.Errorf("%s: strict %v, reason %q", f.Function.Name, f.Function.Strict, f.Function.NotStrict)
			}
			if p := strictcheck.Check(f.Function.Parameters); len(p) > 0 {
				t.Errorf("%s: %v", f.Function.Name, p)
			}
		}
	}
}

func TestExportNoSchema(t *testing.T) {
	tl := []Tool{{Name: "ping", Description: "Ping."}}
	b, err := json.Marshal(MCP(tl))
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"name":"ping","description":"Ping.","inputSchema":{"type":"object"}}]`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func TestExportNames(t *testing.T) {
	name64 := strings.Repeat("a", 30) + "." + strings.Repeat("b", 33)
	name128 := strings.Repeat("a", 60) + "." + strings.Repeat("b", 67)
	for _, tc := range []struct {
		name             string
		openai, anthropc bool // accepted
	}{
		{"board.getState", true, true},
		{name64, true, true},
		{name64 + "c", false, true},
		{name128, false, true},
		{name128 + "c", false, false},
		{"a-b", false, false},
		{"", false, false},
		{"a..b", false, false},
	} {
		tools := []Tool{{Name: tc.name, InputSchema: json.RawMessage(`{"type":"object"}`)}}
		if _, err := OpenAI(tools); (err == nil) != tc.openai {
			t.Errorf("OpenAI(%q): err = %v, want accepted %v", tc.name, err, tc.openai)
		}
		if _, err := Anthropic(tools); (err == nil) != tc.anthropc {
			t.Errorf("Anthropic(%q): err = %v, want accepted %v", tc.name, err, tc.anthropc)
		}
	}
	dup := []Tool{createFrame, createFrame}
	if _, err := OpenAI(dup); err == nil {
		t.Error("OpenAI accepted a repeated name")
	}
	if _, err := Anthropic(dup); err == nil {
		t.Error("Anthropic accepted a repeated name")
	}
}

func TestBatchDescription(t *testing.T) {
	d := BatchDescription(DefaultBatchOptions())
	golden(t, "batch_description.txt", []byte(d))
	if n := utf8.RuneCountInString(d); n > 1200 {
		t.Errorf("description is %d characters, want at most 1200", n)
	}
	for _, want := range []string{"At most 100 operations", `{"$ref":"label.path.0.field"}`, "sequential", "stopOnError", "truncated", "request order"} {
		if !strings.Contains(d, want) {
			t.Errorf("description lacks %q", want)
		}
	}
	if d := BatchDescription(BatchOptions{}); strings.Contains(d, "At most") {
		t.Errorf("unbounded description names a limit: %s", d)
	}
}
