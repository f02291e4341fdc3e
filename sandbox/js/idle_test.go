package js

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"
)

// idleHost resolves each call after a pause, from a goroutine of its own
// (or at once, in Start, when inline), and counts the loop's Idle calls.
type idleHost struct {
	inline bool
	idles  atomic.Int32
	calls  atomic.Int32
}

func (h *idleHost) Start(calls []*Call) {
	for _, c := range calls {
		h.calls.Add(1)
		if h.inline {
			c.Resolve(json.RawMessage(`1`))
			continue
		}
		go func() {
			time.Sleep(time.Millisecond)
			c.Resolve(json.RawMessage(`1`))
		}()
	}
}

func (h *idleHost) Idle() { h.idles.Add(1) }

// TestIdler: a host that is an Idler hears from the loop each time the
// script has nothing to do but wait for a call, and not when an outcome is
// already waiting for the loop.
func TestIdler(t *testing.T) {
	s, err := Compile(`let n = 0; for (let i = 0; i < 5; i++) n += await tools.t({}); return n`, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, inline := range []bool{false, true} {
		h := &idleHost{inline: inline}
		res := Run(context.Background(), s, Options{Tools: []string{"t"}, Host: h})
		if res.Err != nil || string(res.Value) != "5" {
			t.Fatalf("inline %v: %s, %v", inline, res.Value, res.Err)
		}
		want := int32(5)
		if inline {
			want = 0
		}
		if got := h.idles.Load(); got != want {
			t.Errorf("inline %v: Idle called %d times for %d calls, want %d", inline, got, h.calls.Load(), want)
		}
	}
}
