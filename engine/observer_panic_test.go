package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
)

// syncBuffer is a bytes.Buffer safe for the log lines of many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestHostileObserverPanic: an observer that panics on every tool_call_end —
// emitted, in a parallel batch, on a goroutine of the engine's where nothing
// above would recover it — neither takes the process down nor changes the
// run: the batch's and the script's results are what they would be, the
// observer registered after it still gets every event, and the panic is
// logged with its stack.
func TestHostileObserverPanic(t *testing.T) {
	logs := &syncBuffer{}
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(logs, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })

	var panics atomic.Int64
	bad := engine.ObserverFunc(func(_ context.Context, ev engine.Event) {
		if ev.Type == engine.EventToolCallEnd {
			panics.Add(1)
			panic("observer bug")
		}
	})
	rec := &recorder{}
	f := newFixture(t)
	e := build(t, f, func(b *engine.Builder) { b.WithObserver(bad).WithObserver(rec) })

	res := mustBatch(t, e, `{"executionMode":"parallel","operations":[
		{"tool":"add","args":{"a":1,"b":2}},
		{"tool":"sleep","args":{"ms":5}},
		{"tool":"add","args":{"a":3,"b":4}},
		{"tool":"fail"}]}`)
	if diff := cmp.Diff([]string{"ok", "ok", "ok", "tool_error"}, codes(res)); diff != "" {
		t.Errorf("batch codes (-want +got):\n%s", diff)
	}
	if got := string(res.Results[2].Result); got != `{"sum":7}` {
		t.Errorf("batch result 2 = %s, want {\"sum\":7}", got)
	}

	out, err := e.Execute(context.Background(), engine.ExecuteRequest{Code: `
const [a, b] = await Promise.all([tools.add({a: 1, b: 1}), tools.add({a: 2, b: 2})]);
const c = await tools.add({a: a.sum, b: b.sum});
return c.sum;`})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Success || string(out.Result) != "6" {
		t.Errorf("script: success %v, result %s, error %v; want 6", out.Success, out.Result, out.Error)
	}

	// 4 calls of the batch, 3 of the script: each tool_call_end panicked
	// once, and the recorder after the panicking observer got it anyway.
	if n := panics.Load(); n != 7 {
		t.Errorf("the observer panicked %d times, want 7", n)
	}
	if n := len(rec.ofType(engine.EventToolCallEnd)); n != 7 {
		t.Errorf("the next observer got %d tool_call_end, want 7", n)
	}
	ends := rec.ofType(engine.EventRunEnd)
	if len(ends) != 2 || ends[0].Success || !ends[1].Success {
		t.Errorf("run_end events: %+v; want the batch's (failed: one call did) and the script's (succeeded)", ends)
	}
	text := logs.String()
	if n := strings.Count(text, "codemode: observer panicked"); n != 7 {
		t.Errorf("%d log lines of a panicked observer, want 7:\n%s", n, text)
	}
	if !strings.Contains(text, "panic=\"observer bug\"") || !strings.Contains(text, "goroutine ") {
		t.Errorf("the log lines lack the panic or its stack:\n%.2000s", text)
	}
}

// TestObserversPanicAlone: Observers, composed by the host, keeps a panic of
// one observer from the ones after it too.
func TestObserversPanicAlone(t *testing.T) {
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&syncBuffer{}, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })

	rec := &recorder{}
	both := engine.Observers(engine.ObserverFunc(func(context.Context, engine.Event) { panic("first") }), rec)
	e := build(t, newFixture(t), func(b *engine.Builder) { b.WithObserver(both) })
	got, err := e.Call(context.Background(), "add", json.RawMessage(`{"a":1,"b":2}`))
	if err != nil || string(got) != `{"sum":3}` {
		t.Fatalf("Call = %s, %v; want {\"sum\":3}", got, err)
	}
	var types []engine.EventType
	for _, ev := range rec.events {
		types = append(types, ev.Type)
	}
	want := []engine.EventType{engine.EventRunStart, engine.EventToolCallStart, engine.EventToolCallEnd, engine.EventRunEnd}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("events after a panicking observer (-want +got):\n%s", diff)
	}
}
