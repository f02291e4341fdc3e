package engine_test

import (
	"context"
	"encoding/json"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
)

// slowApprover approves the first `quick` sets at once and never answers
// the later ones (it waits for its context, as a person who walked away).
type slowApprover struct {
	quick int64
	asked atomic.Int64
}

func (a *slowApprover) Approve(ctx context.Context, reqs []engine.ApprovalRequest) ([]engine.Decision, error) {
	if a.asked.Add(1) <= a.quick {
		out := make([]engine.Decision, len(reqs))
		for i := range out {
			out[i].Approved = true
		}
		return out, nil
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestHostileApprovalChain: the approval timeout bounds a run's approvals
// together. A script whose 25 gated calls are asked one after another,
// with nobody to decide, used to wait the timeout for each (25 × 200 ms, and
// with the defaults 200 calls × 5 min, about 17 hours, holding its board);
// now the first set waits the 200 ms, and every later call is denied at
// once with the same error, without asking the Approver again.
func TestHostileApprovalChain(t *testing.T) {
	const timeout = 200 * time.Millisecond
	codes := func(t *testing.T, ap *slowApprover, calls int) ([]string, time.Duration, *recorder) {
		t.Helper()
		f := newFixture(t)
		rec := &recorder{}
		e := build(t, f, func(b *engine.Builder) {
			b.WithApprover(ap).WithObserver(rec).WithConfig(engine.Config{ApprovalTimeout: engine.Duration(timeout)})
		})
		start := time.Now()
		res, err := e.Execute(context.Background(), engine.ExecuteRequest{Code: `
const out = [];
for (let i = 0; i < ` + strconv.Itoa(calls) + `; i++) {
  out.push(await tools.makeThing({name: "n" + i}).then(() => "ok", e => e.code + ": " + e.message));
}
return out;`})
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		if err := json.Unmarshal(res.Result, &got); err != nil {
			t.Fatalf("%v: %s", err, res.ModelText())
		}
		return got, took, rec
	}
	timedOut := `denied: call of "makeThing" was denied: approval timed out after 200ms`

	t.Run("nobody decides", func(t *testing.T) {
		ap := &slowApprover{}
		got, took, rec := codes(t, ap, 25)
		want := make([]string, 25)
		for i := range want {
			want[i] = timedOut
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
		if took > 3*time.Second {
			t.Errorf("the run took %v: its approvals waited more than their timeout of %v in all", took, timeout)
		}
		if n := ap.asked.Load(); n != 1 {
			t.Errorf("the Approver was asked %d times, want once (the later sets are denied at once)", n)
		}
		if n := len(rec.ofType(engine.EventApprovalRequired)); n != 1 {
			t.Errorf("%d approval_required events, want 1", n)
		}
	})

	t.Run("the budget is shared", func(t *testing.T) {
		// The first set is approved at once; the second waits what is
		// left of the timeout; the third is not asked.
		ap := &slowApprover{quick: 1}
		got, _, _ := codes(t, ap, 3)
		if diff := cmp.Diff([]string{"ok", timedOut, timedOut}, got); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
		if n := ap.asked.Load(); n != 2 {
			t.Errorf("the Approver was asked %d times, want 2", n)
		}
	})
}
