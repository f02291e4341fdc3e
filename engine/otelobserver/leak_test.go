package otelobserver

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/engine"
)

// assertEmpty fails unless the observer holds no open span: whatever ended
// must have been forgotten.
func assertEmpty(t *testing.T, o *observer) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.runs) != 0 || len(o.calls) != 0 {
		t.Errorf("observer still holds %d runs and %d runs' calls: %v %v", len(o.runs), len(o.calls), o.runs, o.calls)
	}
}

// Many goroutines report calls of one run at once, as a batch or a script's
// Promise.all does; run with -race. Every call gets its span under the run.
func TestConcurrentCalls(t *testing.T) {
	o, rec, _ := setup(t)
	ctx := context.Background()
	const run, workers, perWorker = "run_c", 50, 20

	o.Observe(ctx, runStart(run, engine.RunScript, ms(0)))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				id := fmt.Sprintf("c%d_%d", w, i)
				o.Observe(ctx, callStart(run, id, "t", ms(1)))
				if i == 0 { // one log per worker: the SDK keeps at most 128 events
					o.Observe(ctx, engine.Event{Type: engine.EventLog, RunID: run, Message: id})
				}
				var err *engine.Error
				if i%3 == 0 {
					err = engine.Errorf(engine.CodeToolError, "boom")
				}
				o.Observe(ctx, callEnd(run, id, "t", err, ms(2)))
			}
		})
	}
	wg.Wait()
	o.Observe(ctx, runEnd(run, engine.RunScript, nil, ms(3)))

	got := spans(rec)
	if want := workers*perWorker + 1; len(got) != want {
		t.Fatalf("got %d spans, want %d", len(got), want)
	}
	runSpan := got[len(got)-1]
	if runSpan.Name != "codemode.script" || len(runSpan.Events) != workers {
		t.Errorf("last span %q with %d events, want codemode.script with %d", runSpan.Name, len(runSpan.Events), workers)
	}
	for _, s := range got[:len(got)-1] {
		if s.Parent != "codemode.script" {
			t.Fatalf("span %q has parent %q, want codemode.script", s.Name, s.Parent)
		}
	}
	assertEmpty(t, o)
}

// Concurrent runs, each with calls, some runs ending with calls still open:
// once every run has ended, nothing is left in the maps.
func TestNoLeak(t *testing.T) {
	o, rec, _ := setup(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for r := range 20 {
		wg.Go(func() {
			run := fmt.Sprintf("run_%d", r)
			o.Observe(ctx, runStart(run, engine.RunBatch, ms(0)))
			for i := range 10 {
				id := fmt.Sprint(i)
				o.Observe(ctx, callStart(run, id, "t", ms(1)))
				if i%2 == 0 || r%2 == 0 { // odd runs leave odd calls open
					o.Observe(ctx, callEnd(run, id, "t", nil, ms(2)))
				}
			}
			o.Observe(ctx, runEnd(run, engine.RunBatch, nil, ms(3)))
		})
	}
	// Calls of a run never started are kept only until they end.
	o.Observe(ctx, callStart("orphan", "c", "t", ms(1)))
	o.Observe(ctx, callEnd("orphan", "c", "t", nil, ms(2)))
	wg.Wait()

	assertEmpty(t, o)
	if got, want := len(rec.Ended()), 20*11+1; got != want {
		t.Errorf("%d spans ended, want %d", got, want)
	}
	if started, ended := len(rec.Started()), len(rec.Ended()); started != ended {
		t.Errorf("%d spans started but %d ended", started, ended)
	}
}
