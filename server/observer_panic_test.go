package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/syncbuf"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// lockedBuffer collects what many goroutines write.
type lockedBuffer = syncbuf.Buffer

// TestHostileEventPanic: a bug on the server's own event path (here a change
// whose encoding fails: a NaN coordinate, which mustJSON cannot write) in a
// parallel batch, on a goroutine of the engine's, is logged with its stack
// on the server's logger, not fatal: the run ends as it would have (both
// calls ran, the board committed), the run's stream still ends with its
// run_end, and the board's watcher, who lost the change, gets the board
// whole after the run. An embedder's Options.Observer that panics costs the
// run nothing either.
func TestHostileEventPanic(t *testing.T) {
	logs := &lockedBuffer{}
	badChange := engine.Tool{
		Name:        "test.badChange",
		Description: "Report a change that cannot be encoded.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			sinkFrom(ctx).record(ctx, whiteboard.Change{Objects: []whiteboard.Object{{ID: "ghost", Type: "sticky", X: math.NaN()}}})
			return json.RawMessage(`{}`), nil
		},
	}
	var observerPanics atomic.Int64
	s := newTestServer(t, Options{
		Tools:   []engine.Tool{badChange},
		Approve: GateNone,
		Logger:  slog.New(slog.NewTextHandler(logs, nil)),
		Observer: engine.ObserverFunc(func(_ context.Context, ev engine.Event) {
			if ev.Type == engine.EventToolCallEnd {
				observerPanics.Add(1)
				panic("embedder's observer bug")
			}
		}),
	})
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	wres, sr := watchBoard(t, c, ts.URL, "b")
	// Bounded: without the board event the watcher's reads fail after 10 s.
	stop := time.AfterFunc(10*time.Second, func() { wres.Body.Close() })
	defer stop.Stop()
	if ev := next(t, sr); ev.Type != "board" {
		t.Fatalf("first event %s", ev.Type)
	}

	res := post(t, c, ts.URL+"/v1/boards/b/batch",
		`{"executionMode":"parallel","operations":[{"tool":"test.badChange"},`+sticky("kept", 0)+`]}`,
		"Accept", "text/event-stream")
	own := readAllSSE(t, res.Body)
	res.Body.Close()
	if len(own) == 0 || own[len(own)-1].Type != "run_end" {
		t.Fatalf("the run's stream: %q, want it to end with run_end", types(own))
	}
	end := own[len(own)-1].decode(t)
	result, _ := end["result"].(map[string]any)
	summary, _ := result["summary"].(map[string]any)
	board, _ := end["board"].(map[string]any)
	if summary["successful"] != 2.0 || board["committed"] != true {
		t.Errorf("run_end: result summary %v, board %v; want both calls successful and the board committed", summary, board)
	}

	// The watcher: the run's events but the lost tool_call_end, then the
	// board whole, with the sticky.
	var seen []string
	for {
		ev := next(t, sr)
		seen = append(seen, ev.Type)
		if ev.Type == "board" {
			var b struct{ Objects []whiteboard.Object }
			json.Unmarshal([]byte(ev.Data), &b)
			if len(b.Objects) != 1 || b.Objects[0].Text != "kept" {
				t.Errorf("board after the run: %s", ev.Data)
			}
			break
		}
		if len(seen) > 10 {
			t.Fatalf("no board event after the run: %q", seen)
		}
	}
	if n := strings.Count(strings.Join(seen, " "), "tool_call_end"); n != 1 {
		t.Errorf("watcher got %q: want one tool_call_end (the other was lost)", seen)
	}

	text := logs.String()
	if !strings.Contains(text, "server: panic reporting a run's event") || !strings.Contains(text, "event=tool_call_end") ||
		!strings.Contains(text, "goroutine ") {
		t.Errorf("the server's log lacks the panic with its stack:\n%.3000s", text)
	}
	if n := observerPanics.Load(); n != 2 {
		t.Errorf("Options.Observer panicked %d times, want 2 (it got both tool_call_end)", n)
	}

	// The server still answers.
	if res, body := do(t, s, "POST", "/v1/boards/b/batch", batchOf(sticky("next", 300))); res.StatusCode != 200 {
		t.Errorf("next run: %d %s", res.StatusCode, body)
	}
}
