package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
)

// evCheck records tool events per run and checks one start + one end per call,
// and that run_end comes after every tool event of the run.
type evCheck struct {
	mu     sync.Mutex
	starts map[string]int
	ends   map[string]int
	ended  map[string]bool
	errs   []string
}

func newEvCheck() *evCheck {
	return &evCheck{starts: map[string]int{}, ends: map[string]int{}, ended: map[string]bool{}}
}

func (c *evCheck) Observe(_ context.Context, e engine.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := e.RunID + "/" + e.CallID
	switch e.Type {
	case engine.EventToolCallStart:
		c.starts[id]++
		if c.ended[e.RunID] {
			c.errs = append(c.errs, "start after run_end: "+id)
		}
	case engine.EventToolCallEnd:
		c.ends[id]++
		if c.ended[e.RunID] {
			c.errs = append(c.errs, "end after run_end: "+id)
		}
	case engine.EventRunEnd:
		c.ended[e.RunID] = true
	}
}

func (c *evCheck) check(t *testing.T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, n := range c.starts {
		if n != 1 || c.ends[id] != 1 {
			t.Errorf("%s: %d starts, %d ends", id, n, c.ends[id])
		}
	}
	for id, n := range c.ends {
		if c.starts[id] != 1 {
			t.Errorf("%s: %d ends, %d starts", id, n, c.starts[id])
		}
	}
	for _, e := range c.errs[:min(len(c.errs), 5)] {
		t.Error(e)
	}
}

func jitterTools(release chan struct{}) []engine.Tool {
	return []engine.Tool{
		writeTool("jit", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			d := time.Duration(rand.IntN(300)) * time.Microsecond
			if rand.IntN(2) == 0 {
				end := time.Now().Add(d)
				for time.Now().Before(end) {
				}
			} else {
				time.Sleep(d)
			}
			return json.RawMessage(`{"id":"x","n":[1,2]}`), nil
		}),
		rawTool("ctxjit", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			select {
			case <-time.After(time.Duration(rand.IntN(2000)) * time.Microsecond):
				return json.RawMessage(`{"id":"y"}`), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}),
		rawTool("stuckish", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			select {
			case <-time.After(time.Duration(rand.IntN(5000)) * time.Microsecond):
			case <-release:
			}
			return json.RawMessage(`{"id":"z"}`), nil
		}),
		rawTool("boom", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) { panic("x") }),
	}
}

func writeTool(name string, h engine.Handler) engine.Tool {
	t := rawTool(name, h)
	t.Annotations.ReadOnlyHint = false
	return t
}

func randBatch(r *rand.Rand, n int) string {
	tools := []string{"jit", "ctxjit", "stuckish", "boom", "nope"}
	ops := make([]string, n)
	seq := r.IntN(2) == 0
	for i := range ops {
		tool := tools[r.IntN(len(tools))]
		args := `{}`
		if i > 0 && r.IntN(3) == 0 {
			j := r.IntN(i)
			args = fmt.Sprintf(`{"p":{"$ref":"l%d.id"}}`, j)
		}
		ops[i] = fmt.Sprintf(`{"tool":%q,"label":"l%d","args":%s}`, tool, i, args)
	}
	mode := "parallel"
	if seq {
		mode = "sequential"
	}
	return fmt.Sprintf(`{"executionMode":%q,"stopOnError":%v,"timeout":%d,"safetyLimits":{"maxConcurrency":%d},"operations":[%s]}`,
		mode, r.IntN(4) == 0, 1+r.IntN(6), 1+r.IntN(8), strings.Join(ops, ","))
}

func checkBatch(t *testing.T, res *engine.BatchResult, n int) {
	if len(res.Results) != n {
		t.Fatalf("%d results for %d ops", len(res.Results), n)
	}
	s := res.Summary
	if s.Successful+s.Failed+s.Skipped != n {
		t.Errorf("summary %+v", s)
	}
	for i, r := range res.Results {
		if r.Index != i || (r.Success == (r.Error != nil)) {
			t.Errorf("result %d: %+v", i, r)
		}
	}
}

// Tiny per-tool timeouts and batch timeouts racing with handler returns.
func TestStressBatches(t *testing.T) {
	release := make(chan struct{})
	defer func() { close(release); time.Sleep(10 * time.Millisecond) }()
	ev := newEvCheck()
	e, err := engine.NewBuilder().WithObserver(ev).WithConfig(engine.Config{
		Limits: engine.Limits{MaxConcurrency: 8},
		Tools: map[string]engine.ToolLimits{
			"jit":      {Timeout: engine.Duration(time.Duration(1+rand.IntN(200)) * time.Microsecond)},
			"ctxjit":   {Timeout: engine.Duration(time.Microsecond)},
			"stuckish": {Timeout: engine.Duration(time.Millisecond)},
		}}).Add(jitterTools(release)...).Build()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(rand.Uint64(), 1))
	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		seed := r.Uint64()
		wg.Go(func() {
			r := rand.New(rand.NewPCG(seed, 2))
			for k := 0; k < 30; k++ {
				n := 1 + r.IntN(30)
				req, err := engine.ParseBatchRequest([]byte(randBatch(r, n)))
				if err != nil {
					t.Error(err)
					return
				}
				ctx, cancel := context.WithCancel(context.Background())
				if r.IntN(3) == 0 {
					time.AfterFunc(time.Duration(r.IntN(3000))*time.Microsecond, cancel)
				}
				done := make(chan struct{})
				go func() {
					select {
					case <-done:
					case <-time.After(10 * time.Second):
						panic("batch hung")
					}
				}()
				res, err := e.Batch(ctx, req)
				close(done)
				cancel()
				if err != nil {
					t.Error(err)
					continue
				}
				checkBatch(t, res, n)
			}
		})
	}
	wg.Wait()
	ev.check(t)
}

// HandleToolCalls: batches + direct calls sharing the semaphore, approvals, cancel.
func TestStressToolCalls(t *testing.T) {
	release := make(chan struct{})
	defer func() { close(release); time.Sleep(10 * time.Millisecond) }()
	ev := newEvCheck()
	approver := engine.ApproverFunc(func(ctx context.Context, reqs []engine.ApprovalRequest) ([]engine.Decision, error) {
		select {
		case <-time.After(time.Duration(rand.IntN(1000)) * time.Microsecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		out := make([]engine.Decision, len(reqs))
		for i := range out {
			out[i].Approved = rand.IntN(4) != 0
		}
		return out, nil
	})
	e, err := engine.NewBuilder().WithObserver(ev).WithApprover(approver).WithConfig(engine.Config{
		Limits: engine.Limits{MaxConcurrency: 3},
		Tools: map[string]engine.ToolLimits{
			"jit":      {Timeout: engine.Duration(50 * time.Microsecond)},
			"ctxjit":   {Timeout: engine.Duration(time.Microsecond)},
			"stuckish": {Timeout: engine.Duration(time.Millisecond)},
		}}).Add(jitterTools(release)...).Build()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		seed := rand.Uint64()
		wg.Go(func() {
			r := rand.New(rand.NewPCG(seed, 3))
			for k := 0; k < 30; k++ {
				var calls []engine.ToolCall
				for j := 0; j < 1+r.IntN(8); j++ {
					id := fmt.Sprint("c", j)
					if r.IntN(3) == 0 {
						calls = append(calls, engine.ToolCall{ID: id, Name: "batch", Arguments: json.RawMessage(randBatch(r, 1+r.IntN(10)))})
					} else {
						calls = append(calls, engine.ToolCall{ID: id, Name: []string{"jit", "ctxjit", "stuckish", "boom"}[r.IntN(4)]})
					}
				}
				ctx, cancel := context.WithCancel(context.Background())
				if r.IntN(2) == 0 {
					time.AfterFunc(time.Duration(r.IntN(3000))*time.Microsecond, cancel)
				}
				done := make(chan struct{})
				go func() {
					select {
					case <-done:
					case <-time.After(10 * time.Second):
						panic("HandleToolCalls hung")
					}
				}()
				out := e.HandleToolCalls(ctx, calls)
				close(done)
				cancel()
				if len(out) != len(calls) {
					t.Errorf("%d results for %d calls", len(out), len(calls))
				}
				for i, o := range out {
					if o.ID != calls[i].ID || len(o.Content) == 0 || !json.Valid(o.Content) {
						t.Errorf("result %d: %+v", i, o)
					}
				}
			}
		})
	}
	wg.Wait()
	ev.check(t)
}
