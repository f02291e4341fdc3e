package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// codemode run prints the trace cut like batch results: megabytes of
// arguments and results in a script's calls, and a 4 MB throw, print as a
// bounded document that says what it cut. (The megabyte of arguments is a
// call refused for its size; the results are of a board as large as the
// whiteboard's limits let texts be.)
func TestRunPrintsABoundedTrace(t *testing.T) {
	board := filepath.Join(t.TempDir(), "board.json")
	objs := make([]whiteboard.Object, 30)
	for i := range objs {
		objs[i] = whiteboard.Object{ID: fmt.Sprint("s", i), Type: whiteboard.TypeSticky, Width: 1, Height: 1,
			Text: strings.Repeat("é", whiteboard.MaxTextLength)}
	}
	b := whiteboard.NewBoard()
	if err := b.Restore(objs); err != nil {
		t.Fatal(err)
	}
	if err := b.SaveFile(board); err != nil {
		t.Fatal(err)
	}
	src := `const text = "é".repeat(1 << 20);
try { await tools.createStickyNote({text, x: 0, y: 0}); } catch {}
for (let i = 0; i < 20; i++) await tools.getBoardState({});
throw "x".repeat(4 << 20);`
	out, errs, code := cli(t, src, "run", "--board", board)
	if code != exitFailed || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	// maxAggregateChars (200,000) for the trace, maxOutputChars (50,000)
	// for result and logs, the bounded error, and the indentation.
	if n := utf8.RuneCountInString(out); n > 300_000 {
		t.Errorf("printed %d characters", n)
	}
	var res engine.ExecuteResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stdout is not a code-mode result: %v", err)
	}
	if len(res.Calls) != 21 || res.Stats.ToolCalls != 21 {
		t.Fatalf("%d calls in the trace, stats %d", len(res.Calls), res.Stats.ToolCalls)
	}
	for i, c := range res.Calls {
		if !c.Truncated {
			t.Errorf("call %d (%s) is not marked truncated", i, c.Tool)
		}
	}
	if !slicesContain(res.Warnings, "call trace was cut") {
		t.Errorf("no warning about the trace: %q", res.Warnings)
	}
	if e := res.Error; e == nil || !e.Truncated || utf8.RuneCountInString(e.Message) > engine.MaxErrorMessageChars+100 {
		t.Errorf("error not bounded: %+v", e)
	}
}

func slicesContain(list []string, part string) bool {
	for _, s := range list {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}
