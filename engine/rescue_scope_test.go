package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
)

func rawTool(name string, h engine.Handler) engine.Tool {
	return engine.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: engine.Annotations{ReadOnlyHint: true}, Handler: h}
}

// Natural version: batch A's handlers return right around A's timeout while
// batch B (no timeouts possible: 1-minute limits, instant handlers) runs.
func TestScopeRescuesOnlyItsOwnCalls(t *testing.T) {
	var deadline atomic.Int64
	var events atomic.Int64
	obs := engine.ObserverFunc(func(ctx context.Context, e engine.Event) { events.Add(1) })
	e, err := engine.NewBuilder().WithObserver(obs).WithConfig(engine.Config{Limits: engine.Limits{MaxConcurrency: 500, MaxOperations: 1000}}).Add(
		rawTool("edge", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			for time.Now().UnixNano() < deadline.Load() {
				time.Sleep(50 * time.Microsecond)
			}
			return json.RawMessage(`1`), nil
		}),
		rawTool("fast", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			time.Sleep(20 * time.Microsecond)
			return json.RawMessage(`2`), nil
		}),
	).Build()
	if err != nil {
		t.Fatal(err)
	}
	mk := func(tool string, n int, extra string) engine.BatchRequest {
		ops := make([]string, n)
		for i := range ops {
			ops[i] = fmt.Sprintf(`{"tool":%q}`, tool)
		}
		req, err := engine.ParseBatchRequest([]byte(`{` + extra + `"operations":[` + strings.Join(ops, ",") + `]}`))
		if err != nil {
			t.Fatal(err)
		}
		return req
	}
	bad := 0
	for round := 0; round < 20; round++ {
		deadline.Store(time.Now().Add(20 * time.Millisecond).UnixNano())
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var mu sync.Mutex
		for g := 0; g < 8; g++ {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					res, _ := e.Batch(context.Background(), mk("fast", 100, `"safetyLimits":{"maxConcurrency":16},`))
					for _, r := range res.Results {
						if !r.Success {
							mu.Lock()
							bad++
							if bad < 4 {
								t.Errorf("batch B op failed: %+v", r.Error)
							}
							mu.Unlock()
						}
					}
				}
			})
		}
		e.Batch(context.Background(), mk("edge", 500, `"timeout":20,`))
		time.Sleep(5 * time.Millisecond)
		close(stop)
		wg.Wait()
	}
	t.Logf("bad=%d", bad)
}
