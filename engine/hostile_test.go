package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/worker"
)

// hostileCase is a script of testdata/hostile with its header:
//
//	// expect: CODE | success
//	// timeout: DURATION   (default 30s)
//	// memory: NMiB        (default 64MiB)
//	// within: DURATION    (default: timeout + 5s, generous for a noisy machine)
//	// runner: worker      (only in worker processes: in process it would
//	//                      take the test binary down)
//
// Under the race detector both durations are scaled by raceSlowdown.
//
// A script that must end with timeout names its (short) timeout. For the
// others the timeout is a net: they end by a limit of their own, and the
// code they end with shows which. A busy machine runs them slowly (one that
// takes 0.5 s alone has taken over 2 s beside a full test run), and must
// not make the clock win: their timeout is long.
type hostileCase struct {
	code       string
	expect     string
	timeout    time.Duration
	memory     int64
	within     time.Duration
	workerOnly bool
}

func readHostile(t *testing.T, path string) hostileCase {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := hostileCase{code: string(b), timeout: 30 * time.Second, memory: 64 << 20}
	for _, line := range strings.Split(c.code, "\n") {
		key, val, ok := strings.Cut(strings.TrimPrefix(line, "// "), ": ")
		if !strings.HasPrefix(line, "// ") || !ok {
			continue
		}
		switch key {
		case "expect":
			c.expect = val
		case "timeout", "within":
			d, err := time.ParseDuration(val)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if key == "timeout" {
				c.timeout = d
			} else {
				c.within = d
			}
		case "runner":
			c.workerOnly = val == "worker"
		case "memory":
			var n int64
			for _, r := range strings.TrimSuffix(val, "MiB") {
				n = n*10 + int64(r-'0')
			}
			c.memory = n << 20
		}
	}
	if c.expect == "" {
		t.Fatalf("%s: no '// expect:' line", path)
	}
	if c.within == 0 {
		c.within = c.timeout + 5*time.Second
	}
	c.timeout *= raceSlowdown
	c.within *= raceSlowdown
	return c
}

// TestHostileScripts runs every script of testdata/hostile, in process and
// in worker processes: each must end with its expected code within its
// budget, and the engine must run a normal script right after it.
func TestHostileScripts(t *testing.T) {
	t.Run("inprocess", func(t *testing.T) {
		before := heapObjects()
		runHostile(t, build(t, newFixture(t)), false)
		runtime.GC()
		if grown := heapObjects() - before; grown > 64<<20 {
			t.Errorf("the heap grew by %d MiB over the suite", grown>>20)
		}
	})
	t.Run("worker", func(t *testing.T) {
		p := newWorkerPool(t, worker.Config{Warm: 1, MemoryBytes: 512 << 20})
		runHostile(t, build(t, newFixture(t), func(b *engine.Builder) { b.WithScriptRunner(p) }), true)
	})
}

// runHostile runs the corpus through one engine.
func runHostile(t *testing.T, e *engine.Engine, inWorkers bool) {
	files, err := filepath.Glob("../testdata/hostile/*.js")
	if err != nil || len(files) == 0 {
		t.Fatalf("no hostile scripts: %v", err)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".js"), func(t *testing.T) {
			c := readHostile(t, path)
			if c.workerOnly && !inWorkers {
				t.Skip("runs only in worker processes")
			}
			if c.workerOnly && worker.RaceDetector {
				t.Skip("needs the worker memory limit, which the race detector rules out")
			}
			start := time.Now()
			res, err := e.Execute(context.Background(), engine.ExecuteRequest{
				Code: c.code, Timeout: engine.Duration(c.timeout),
				Limits: &engine.ScriptLimits{MaxMemoryBytes: c.memory, MaxOutputChars: 10_000, MaxToolCalls: 50},
			})
			elapsed := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			got := "success"
			if !res.Success {
				got = string(res.Error.Code)
			}
			if got != c.expect {
				t.Errorf("ended with %s (%v), want %s; result %s", got, res.Error, c.expect, res.Result)
			}
			if elapsed > c.within {
				t.Errorf("took %v, budget %v", elapsed, c.within)
			}
			t.Logf("%s in %v: %v", got, elapsed.Round(time.Millisecond), res.Error)
			next := script(t, e, `return (await tools.add({a: 2, b: 3})).sum`)
			if !next.Success || string(next.Result) != "5" {
				t.Errorf("the next run failed: %s %v", next.Result, next.Error)
			}
		})
	}
}

func heapObjects() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}
