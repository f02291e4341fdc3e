package engine_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
)

func TestStressCall(t *testing.T) {
	release := make(chan struct{})
	defer func() { close(release); time.Sleep(10 * time.Millisecond) }()
	ev := newEvCheck()
	e, err := engine.NewBuilder().WithObserver(ev).WithConfig(engine.Config{
		Tools: map[string]engine.ToolLimits{
			"jit":      {Timeout: engine.Duration(100 * time.Microsecond)},
			"ctxjit":   {Timeout: engine.Duration(time.Microsecond)},
			"stuckish": {Timeout: engine.Duration(2 * time.Millisecond)},
		}}).Add(jitterTools(release)...).Build()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Go(func() {
			for k := 0; k < 100; k++ {
				ctx, cancel := context.WithCancel(context.Background())
				if rand.IntN(2) == 0 {
					time.AfterFunc(time.Duration(rand.IntN(500))*time.Microsecond, cancel)
				}
				tool := []string{"jit", "ctxjit", "stuckish", "boom", "nope"}[rand.IntN(5)]
				res, err := e.Call(ctx, tool, nil)
				cancel()
				if (err == nil) == (res == nil) {
					t.Errorf("%s: res %s err %v", tool, res, err)
				}
			}
		})
	}
	wg.Wait()
	ev.check(t)
}
