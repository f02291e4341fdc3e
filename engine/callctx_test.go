package engine

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

type ctxKey struct{}

func TestCallCtxFollowsTheContextRules(t *testing.T) {
	parent, cancelParent := context.WithCancelCause(context.WithValue(context.Background(), ctxKey{}, "v"))
	defer cancelParent(nil)
	deadline := time.Now().Add(time.Hour)
	c := newCallCtx(parent, deadline)

	if d, ok := c.Deadline(); !ok || !d.Equal(deadline) {
		t.Errorf("Deadline = %v %v, want the call's", d, ok)
	}
	if c.Value(ctxKey{}) != "v" {
		t.Error("Value does not reach the parent")
	}
	if c.Err() != nil || context.Cause(c) != nil {
		t.Error("a live context has an error")
	}
	// Contexts derived from it are canceled with it, without a goroutine of
	// their own (through AfterFunc), and stop hooks work.
	child, cancelChild := context.WithCancel(c)
	defer cancelChild()
	stopped := 0
	stop := context.AfterFunc(c, func() { stopped++ })
	if !stop() {
		t.Error("stop of a pending AfterFunc returned false")
	}
	c.cancel(context.DeadlineExceeded)
	c.cancel(context.Canceled) // later cancels do nothing
	select {
	case <-c.Done():
	default:
		t.Fatal("Done not closed")
	}
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a derived context was not canceled")
	}
	if !errors.Is(c.Err(), context.DeadlineExceeded) || !errors.Is(child.Err(), context.DeadlineExceeded) {
		t.Errorf("Err = %v, child %v", c.Err(), child.Err())
	}
	if !errors.Is(context.Cause(c), context.DeadlineExceeded) {
		t.Errorf("Cause = %v", context.Cause(c))
	}
	if stopped != 0 {
		t.Error("a stopped AfterFunc ran")
	}
	ran := make(chan struct{})
	if context.AfterFunc(c, func() { close(ran) })() {
		t.Error("stop after the end returned true")
	}
	<-ran // registered after the end: runs at once

	// The earlier deadline wins.
	short, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pd, _ := short.Deadline()
	if d, _ := newCallCtx(short, time.Now().Add(time.Hour)).Deadline(); !d.Equal(pd) {
		t.Errorf("Deadline = %v, want the parent's earlier %v", d, pd)
	}
}

// A handler sees its context end at the call's deadline, with an error it
// can recognise, and the call fails with timeout.
func TestHandlerSeesItsDeadline(t *testing.T) {
	seen := make(chan error, 1)
	e, err := NewBuilder().Add(Tool{
		Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			if _, ok := ctx.Deadline(); !ok {
				t.Error("no deadline")
			}
			<-ctx.Done()
			seen <- ctx.Err()
			return nil, ctx.Err()
		},
	}).WithConfig(Config{Limits: Limits{CallTimeout: Duration(20 * time.Millisecond)}}).Build()
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Call(context.Background(), "wait", nil)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("got %v", err)
	}
	if got := <-seen; !errors.Is(got, context.DeadlineExceeded) {
		t.Errorf("handler saw %v", got)
	}
}

func TestCallFromContext(t *testing.T) {
	var got CallInfo
	var ok bool
	eng, err := NewBuilder().Add(Tool{
		Name:        "probe",
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			inner, cancel := context.WithCancel(ctx) // derived contexts still answer
			defer cancel()
			got, ok = CallFromContext(inner)
			return json.RawMessage(`{}`), nil
		},
	}).WithObserver(ObserverFunc(func(_ context.Context, e Event) {
		if e.Type == EventToolCallEnd {
			if !ok || got.CallID != e.CallID || got.RunID != e.RunID || got.ParentID != e.ParentID || got.Tool != "probe" {
				t.Errorf("handler saw %+v (ok %v), its end event has run %q call %q parent %q", got, ok, e.RunID, e.CallID, e.ParentID)
			}
		}
	})).Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Batch(context.Background(), BatchRequest{Operations: []Operation{{Tool: "probe", Args: json.RawMessage(`{}`)}}}); err != nil {
		t.Fatal(err)
	}
	if !ok || got.CallID == "" || got.RunID == "" {
		t.Fatalf("CallFromContext in a handler = %+v, %v", got, ok)
	}
	if _, ok := CallFromContext(context.Background()); ok {
		t.Error("CallFromContext outside a handler reported a call")
	}
}
