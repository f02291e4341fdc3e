package engine_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/engine")

// golden compares got with testdata/engine/NAME, after replacing timings and
// run ids, which change from run to run.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	got = regexp.MustCompile(`"elapsed_ms": [0-9.e-]+`).ReplaceAll(got, []byte(`"elapsed_ms": 0`))
	got = regexp.MustCompile(`run_[0-9a-z]{13}`).ReplaceAll(got, []byte(`run_ID`))
	path := filepath.Join("..", "testdata", "engine", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./engine -run %s -update to create it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got); if the change is intended, rerun with -update:\n%s", name, diff)
	}
}

func indent(t *testing.T, v any) []byte {
	t.Helper()
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// TestGoldenBatchResult pins the batch result wire format (docs/batch.md): a
// sequential retro batch with a $ref, a typo, invalid args, a dependency
// failure, a skipped operation and a cut result.
func TestGoldenBatchResult(t *testing.T) {
	e := whiteboardEngine(t)
	res := mustBatch(t, e, `{"executionMode":"sequential","stopOnError":true,"safetyLimits":{"maxResultChars":60,"maxOperations":500},"operations":[
		{"tool":"createFrame","args":{"title":"Retro","x":0,"y":0,"width":900,"height":600},"label":"frame"},
		{"tool":"createStickyNote","args":{"text":"Went well","x":20,"y":60,"parentId":{"$ref":"frame.id"}},"label":"note"},
		{"tool":"getBoardState","args":{}},
		{"tool":"createStikyNote","args":{"text":"typo","x":0,"y":0}},
		{"tool":"moveObject","args":{"objectId":{"$ref":"note.id"},"x":40}}]}`)
	golden(t, "batch_result.json", indent(t, res))

	res = mustBatch(t, e, `{"operations":[
		{"tool":"createShape","args":{"type":"hexagon","x":0,"y":0,"width":-5,"height":10},"label":"s"},
		{"tool":"createConnector","args":{"fromId":{"$ref":"s.id"},"toId":"frame-1"}},
		{"tool":"deleteObject","args":{"objectId":"nope-1"}}]}`)
	golden(t, "batch_errors.json", indent(t, res))
}

// TestGoldenToolCallsAndEvents pins the native tool call results and the
// event stream of one model step with an unwrapped batch.
func TestGoldenToolCallsAndEvents(t *testing.T) {
	rec := &recorder{}
	e := build(t, newFixture(t), func(b *engine.Builder) { b.WithObserver(rec) })
	res := e.HandleToolCalls(context.Background(), []engine.ToolCall{
		{ID: "call_1", Name: "batch", Arguments: json.RawMessage(`{"executionMode":"sequential","operations":[{"tool":"makeThing","args":{"name":"a"},"label":"a"},{"tool":"add","args":{"a":1,"b":{"$ref":"a.id"}}}]}`)},
	})
	golden(t, "toolcalls_result.json", indent(t, res))
	var lines []string
	for _, ev := range rec.events {
		b, _ := json.Marshal(struct {
			Type, RunID, CallID, ParentID, Tool, Label string
			Success                                    bool
			Code                                       string
		}{string(ev.Type), ev.RunID, ev.CallID, ev.ParentID, ev.Tool, ev.Label, ev.Success, code(ev.Error)})
		lines = append(lines, string(b))
	}
	golden(t, "toolcalls_events.jsonl", []byte(strings.Join(lines, "\n")+"\n"))
}

func code(e *engine.Error) string {
	if e == nil {
		return ""
	}
	return string(e.Code)
}
