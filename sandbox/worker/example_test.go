package worker_test

import (
	"context"
	"fmt"

	"github.com/codemode-dev/codemode/bindings"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/worker"
)

type addIn struct{ A, B int }

// An engine whose scripts run in worker processes: copies of this binary,
// which importing this package makes a worker (its init serves in a process
// started as one).
// A memory bomb is that run's memory_limit (from the sandbox's budget, or
// from the worker's OS limit when a script gets past it); the next run works.
func Example() {
	pool, err := worker.New(worker.Config{Warm: 1, MemoryBytes: 512 << 20})
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	add := bindings.MustFunc("add", "Add two numbers.", func(ctx context.Context, in addIn) (int, error) {
		return in.A + in.B, nil
	}, bindings.ReadOnly())
	cfg := engine.DefaultConfig()
	cfg.Script.MaxMemoryBytes = 64 << 20
	eng, err := engine.NewBuilder().Add(add).WithConfig(cfg).WithScriptRunner(pool).Build()
	if err != nil {
		panic(err)
	}
	for _, code := range []string{
		`return await tools.add({A: 2, B: 3})`,
		`const a = []; for (;;) a.push("x".repeat(1 << 16) + a.length)`,
		`return await tools.add({A: 20, B: 22})`,
	} {
		res, _ := eng.Execute(context.Background(), engine.ExecuteRequest{Code: code})
		if res.Success {
			fmt.Println("result:", string(res.Result))
		} else {
			fmt.Println("error:", res.Error.Code)
		}
	}
	// Output:
	// result: 5
	// error: memory_limit
	// result: 42
}
