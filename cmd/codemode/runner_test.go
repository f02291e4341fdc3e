package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/worker"
)

// Both runners give the same result; only where the script ran differs.
func TestRunnersAgree(t *testing.T) {
	const code = `const f = await tools.createFrame({title: "T", x: 0, y: 0, width: 400, height: 300});
const n = [];
for (const [i, t] of ["a", "b"].entries()) n.push(await tools.createStickyNote({text: t, x: 10 + 210 * i, y: 40, parentId: f.id}));
console.log("made", n.length);
return n.map((x) => x.id);`
	in := runScript(t, code, exitOK, "--runner", "inprocess")
	wk := runScript(t, code, exitOK, "--runner", "worker")
	ignore := cmpopts.IgnoreFields(engine.ExecuteResult{}, "Stats")
	ignoreCall := cmpopts.IgnoreFields(engine.CallRecord{}, "ElapsedMS")
	if d := cmp.Diff(in, wk, ignore, ignoreCall); d != "" {
		t.Errorf("worker differs from in process (-inprocess +worker):\n%s", d)
	}
}

// A script that takes its worker down — past the worker's memory limit —
// is that run's memory_limit: the command still prints its result and
// exits 1. The run's timeout only bounds a failure: what ends the run is
// the limit, which a busy machine makes the script reach later (with the
// whole of go test ./... beside it on two cores, it had not within 20 s).
func TestRunnerWorkerContainsACrash(t *testing.T) {
	if worker.RaceDetector {
		t.Skip("the race detector's shadow memory rules out a worker memory limit")
	}
	cfg := writeFile(t, t.TempDir()+"/config.json", `{"script": {"maxMemoryBytes": 8589934592, "timeout": "3m"}}`)
	start := time.Now()
	res := runScript(t, `const a = []; for (;;) a.push("x".repeat(100000) + a.length)`, exitFailed, "--config", cfg)
	if res.Error == nil || res.Error.Code != engine.CodeMemoryLimit || !strings.Contains(res.Error.Message, "worker") {
		t.Errorf("got %+v, want memory_limit from the worker", res.Error)
	}
	t.Logf("%v after %v", res.Error, time.Since(start))
}

func TestRunnerFlag(t *testing.T) {
	_, errs, code := cli(t, "return 1", "run", "--runner", "vm")
	if code != exitUsage || errs != "codemode: run: invalid value \"vm\" for --runner: want \"worker\" or \"inprocess\"; see \"codemode run --help\"\n" {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// A batch runs no script, so without WASM tools the worker runner starts no
// worker process for it; run starts one for its script.
func TestRunnerWorkerStartsOnlyWhatRuns(t *testing.T) {
	for _, tc := range []struct {
		cmd, timeoutOf string
		wantPool       bool
	}{
		{"batch", "batch", false},
		{"run", "script", true},
	} {
		var o options
		if _, err := parseFlags(tc.cmd, &o, []string{"--wasm-cache", "off"}); err != nil {
			t.Fatal(err)
		}
		s, err := openSession(&o, tc.timeoutOf)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.pool != nil; got != tc.wantPool {
			t.Errorf("%s: a worker pool: %v, want %v", tc.cmd, got, tc.wantPool)
		}
		s.close()
	}
}
