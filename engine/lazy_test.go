package engine_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
)

// lazyUses are what an engine makes on first use rather than at Build:
// the definitions (execute_code's description holds the TypeScript
// declarations), the declarations, the plan of which nulls to drop (the
// note's color: null would fail its schema if not dropped), and
// search_tools' index.
func lazyUses(t *testing.T, e *engine.Engine) any {
	defs, err := e.ToolDefinitions().OpenAI()
	if err != nil {
		t.Error(err)
	}
	calls := e.HandleToolCalls(context.Background(), []engine.ToolCall{
		{ID: "1", Name: "note-add", Arguments: json.RawMessage(`{"text":"a","color":null}`)},
		{ID: "2", Name: engine.MetaSearchTools, Arguments: json.RawMessage(`{"query":"note"}`)},
	})
	return []any{defs, e.Declarations(), calls[0].Content, calls[0].IsError, calls[1].Content}
}

func noteEngine(t *testing.T) *engine.Engine {
	e, err := engine.NewBuilder().Add(engine.Tool{
		Name: "note.add", Description: "Add a note.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"color":{"type":"string"}},"required":["text"],"additionalProperties":false}`),
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"ok":true}`), nil
		},
	}).Build()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestLazyDefinitionsUnderConcurrentUse: what an Engine makes on first use
// is made once, safely, when many goroutines use a fresh engine at once (run
// with -race), and is the same as one goroutine gets.
func TestLazyDefinitionsUnderConcurrentUse(t *testing.T) {
	want := lazyUses(t, noteEngine(t))
	if got := want.([]any)[3]; got != false {
		t.Fatalf("note.add with color: null failed: %s", want.([]any)[2])
	}
	e := noteEngine(t)
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Go(func() { got[i] = lazyUses(t, e) })
	}
	wg.Wait()
	for i := range got {
		if d := cmp.Diff(want, got[i]); d != "" {
			t.Errorf("goroutine %d (-one +concurrent):\n%s", i, d)
		}
	}
}
