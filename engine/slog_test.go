package engine_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine"
)

func TestSlogObserver(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rec := &recorder{}
	e := build(t, newFixture(t), func(b *engine.Builder) {
		b.WithObserver(engine.Observers(engine.SlogObserver(logger), nil, rec))
	})
	mustBatch(t, e, `{"operations":[{"tool":"add","args":{"a":1,"b":2}},{"tool":"fail"}]}`)
	out := buf.String()
	for _, want := range []string{
		"level=INFO msg=run_start", "kind=batch",
		"level=DEBUG msg=tool_call_start", "tool=add",
		"level=DEBUG msg=tool_call_end", "success=true",
		"level=WARN msg=tool_call_end", "error.code=tool_error", `error.message="it broke"`,
		"level=WARN msg=run_end",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"a":1`) || strings.Contains(out, "sum") {
		t.Errorf("args or results were logged:\n%s", out)
	}
	// Observers fans out to every non-nil observer.
	if n := len(rec.ofType(engine.EventToolCallEnd)); n != 2 {
		t.Errorf("the second observer saw %d call ends, want 2", n)
	}
	if engine.Observers(rec) != engine.Observer(rec) {
		t.Error("Observers of one observer should be that observer")
	}
}
