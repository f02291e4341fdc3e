package js

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// firstRunEnv makes the test binary a child of BenchmarkFirstRun: it times
// its process's first Compile and Run and exits (TestMain).
const firstRunEnv = "CODEMODE_SANDBOX_JS_FIRST_RUN"

// BenchmarkFirstRun is the first script of a fresh process, as the CLI and
// every worker process pay it: each iteration starts this test binary again,
// which compiles and runs "return 1" once and reports how long each took
// (process start and package initialisation are not counted). The metrics
// are medians over the iterations; use -benchtime 20x or more.
func BenchmarkFirstRun(b *testing.B) {
	var compile, run []time.Duration
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), firstRunEnv+"=1")
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		var c, r int64
		if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "compile %d run %d", &c, &r); err != nil {
			b.Fatalf("child said %q: %v", out, err)
		}
		compile, run = append(compile, time.Duration(c)), append(run, time.Duration(r))
	}
	b.ReportMetric(medianMicros(compile), "compile-µs")
	b.ReportMetric(medianMicros(run), "run-µs")
}

// firstRun is the child's part of BenchmarkFirstRun.
func firstRun() {
	start := time.Now()
	s, err := Compile("return 1", 0)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	compiled := time.Now()
	res := Run(context.Background(), s, Options{Host: newTestHost()})
	if res.Err != nil {
		fmt.Println(res.Err)
		os.Exit(1)
	}
	fmt.Println("compile", strconv.FormatInt(int64(compiled.Sub(start)), 10), "run", strconv.FormatInt(int64(time.Since(compiled)), 10))
}

func medianMicros(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2]) / float64(time.Microsecond)
}
