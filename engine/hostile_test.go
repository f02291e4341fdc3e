package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/js"
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
// Workers run scripts with the lean profile (js.Lean: goja's builtins
// unwrapped; the worker's process limits contain what the in-process
// guards stop early). A case whose outcome must differ there says so, and
// why, with lines that hold only in workers running it (not under the
// race detector, whose workers have no data limit and stay hardened):
//
//	// worker expect: CODE | success, or "CODE or CODE" when the outcome
//	//                  depends on when the watchdog reads the heap
//	// worker timeout: DURATION
//	// worker within: DURATION
//	// worker why: REASON  (required with any other worker line)
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

// readHostile reads a case for the runner (see parseHostile).
func readHostile(t *testing.T, path string, lean bool) hostileCase {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := parseHostile(string(b), lean)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}

// parseHostile reads a case's header for the runner: in workers running
// the lean profile, its worker lines replace the lines they name.
func parseHostile(code string, lean bool) (hostileCase, error) {
	c := hostileCase{code: code, timeout: 30 * time.Second, memory: 64 << 20}
	var workerLines []string // keys of the worker lines, but why
	why := ""
	lines := strings.Split(c.code, "\n")
	// The worker lines go last, so that they replace the others.
	slices.SortStableFunc(lines, func(a, b string) int {
		return cmpBool(strings.HasPrefix(a, "// worker "), strings.HasPrefix(b, "// worker "))
	})
	for _, line := range lines {
		key, val, ok := strings.Cut(strings.TrimPrefix(line, "// "), ": ")
		if !strings.HasPrefix(line, "// ") || !ok {
			continue
		}
		if k, ok := strings.CutPrefix(key, "worker "); ok {
			if k == "why" {
				why = val
				continue
			}
			workerLines = append(workerLines, k)
			if !lean {
				continue
			}
			key = k
		}
		switch key {
		case "expect":
			c.expect = val
		case "timeout", "within":
			d, err := time.ParseDuration(val)
			if err != nil {
				return c, err
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
		return c, errors.New("no '// expect:' line")
	}
	for _, k := range workerLines {
		if k != "expect" && k != "timeout" && k != "within" {
			return c, fmt.Errorf("'// worker %s:' is not a worker line (expect, timeout, within, why)", k)
		}
	}
	if len(workerLines) > 0 && why == "" {
		return c, fmt.Errorf("worker lines (%s) without '// worker why:'", strings.Join(workerLines, ", "))
	}
	if c.within == 0 {
		c.within = c.timeout + 5*time.Second
	}
	c.timeout *= raceSlowdown
	c.within *= raceSlowdown
	return c, nil
}

// TestParseHostile checks the header lines, the worker ones in particular:
// they hold only in workers, and only with a reason.
func TestParseHostile(t *testing.T) {
	const head = "// expect: memory_limit\n// timeout: 2s\n"
	for name, tc := range map[string]struct {
		code    string
		lean    bool
		expect  string
		timeout time.Duration
		err     string
	}{
		"in process":         {head + "// worker expect: timeout\n// worker timeout: 1s\n// worker why: r\nx", false, "memory_limit", 2 * time.Second, ""},
		"in workers":         {head + "// worker expect: timeout\n// worker timeout: 1s\n// worker why: r\nx", true, "timeout", time.Second, ""},
		"worker lines first": {"// worker expect: success\n// worker why: r\n" + head, true, "success", 2 * time.Second, ""},
		"no why":             {head + "// worker expect: timeout\n", true, "", 0, "without '// worker why:'"},
		"no why in process":  {head + "// worker expect: timeout\n", false, "", 0, "without '// worker why:'"},
		"unknown worker key": {head + "// worker memory: 1MiB\n// worker why: r\n", true, "", 0, "not a worker line"},
		"no expect":          {"// worker expect: timeout\n// worker why: r\n", false, "", 0, "no '// expect:' line"},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := parseHostile(tc.code, tc.lean)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.expect != tc.expect || c.timeout != tc.timeout*raceSlowdown {
				t.Errorf("expect %s, timeout %v; want %s, %v", c.expect, c.timeout, tc.expect, tc.timeout*raceSlowdown)
			}
		})
	}
}

// TestHostileScripts runs every script of testdata/hostile, in process and
// in worker processes: each must end with its expected code within its
// budget, and the engine must run a normal script right after it.
func TestHostileScripts(t *testing.T) {
	t.Run("inprocess", func(t *testing.T) {
		before := heapObjects()
		runHostile(t, build(t, newFixture(t)), false, false)
		runtime.GC()
		if grown := heapObjects() - before; grown > 64<<20 {
			t.Errorf("the heap grew by %d MiB over the suite", grown>>20)
		}
	})
	t.Run("worker", func(t *testing.T) {
		// The stack cap is a quarter of the memory limit, as in the
		// defaults (256 MiB of 1 GiB): a Go stack overflowing (its last
		// copy needs 1.5 times the cap) ends on the cap, not on the memory
		// limit.
		p := newWorkerPool(t, worker.Config{Warm: 1, MemoryBytes: 512 << 20, StackBytes: 128 << 20})
		runHostile(t, build(t, newFixture(t), func(b *engine.Builder) { b.WithScriptRunner(p) }), true, p.Profile() == js.Lean)
	})
}

// runHostile runs the corpus through one engine; lean says its runs have
// the lean profile (js.Lean: the worker lines of the cases hold).
func runHostile(t *testing.T, e *engine.Engine, inWorkers, lean bool) {
	files, err := filepath.Glob("../testdata/hostile/*.js")
	if err != nil || len(files) == 0 {
		t.Fatalf("no hostile scripts: %v", err)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".js"), func(t *testing.T) {
			c := readHostile(t, path, lean)
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
			if !slices.Contains(strings.Split(c.expect, " or "), got) {
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

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// TestSchemaObjectBounds: a tool's input schema of more than 4,000 JSON
// objects, or schemas of more than 200,000 together, are Build problems
// naming the tool — the schema compiler's time grows with the square of a
// schema's size: a chain of 100,000 $refs took Build 4 minutes 49 s.
func TestSchemaObjectBounds(t *testing.T) {
	tool := func(name string, schema json.RawMessage) engine.Tool {
		return engine.Tool{Name: name, InputSchema: schema, Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }}
	}
	if _, err := engine.NewBuilder().Add(tool("big", schemaOf("a", 3999))).Build(); err != nil {
		t.Errorf("3,999 objects: %v", err)
	}
	_, err := engine.NewBuilder().Add(tool("ok", schemaOf("a", 5)), tool("huge", schemaOf("b", 4001))).Build()
	if want := `tool "huge": input schema: the schema has more than 4000 JSON objects`; err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), `"ok"`) {
		t.Errorf("4,001 objects: %v, want %s", err, want)
	}
	// Objects in an annotation count too (cheap to compile, so the test
	// is quick): 51 distinct schemas of 3,999, and the 51st is over.
	annotated := func(tag string) json.RawMessage {
		return json.RawMessage(`{"type":"object","description":"` + tag + `","default":[` + strings.Repeat(`{},`, 3997) + `{}]}`)
	}
	var tools []engine.Tool
	for i := range 51 {
		tools = append(tools, tool(fmt.Sprintf("t%02d", i), annotated(fmt.Sprint(i))))
	}
	tools = append(tools, tool("same", annotated("0")), tool("small", schemaOf("c", 5)))
	_, err = engine.NewBuilder().Add(tools...).Build()
	const want = `tool "t50": input schema: the tools' input schemas before it hold 199950 JSON objects and this one 3999, more than the 200000`
	if err == nil || !strings.Contains(err.Error(), want) || strings.Count(err.Error(), "input schema:") != 1 {
		t.Errorf("51 schemas of 3,999 objects: %v, want only %s", err, want)
	}
}
