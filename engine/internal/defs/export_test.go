package defs

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

var exported = []Tool{createFrame, arrange}

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
