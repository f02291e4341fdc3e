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

// The first run of a fresh process is as hardened as any later one, while
// compileAhead compiles the hardening programs beside it: each attack is the
// first script of a process of its own, and one that got past the prelude
// (bind) or the wrappers (nested arrays) would kill the process or end
// otherwise.
func TestHostileFirstRunOfProcess(t *testing.T) {
	attacks := map[string]struct {
		code string
		want Code
	}{
		"bind":   {"let f = () => 1; for (let i = 0; i < 1e4; i++) f = f.bind(null); return f()", CodeLimitExceeded},
		"nested": {"let a = []; for (let i = 0; i < 1e5; i++) a = [a]; return String(a)", CodeLimitExceeded},
	}
	if name, ok := strings.CutPrefix(os.Getenv(childEnv), t.Name()+"/"); ok {
		s, err := Compile(attacks[name].code, 0)
		if err != nil {
			fmt.Println("compile error:", err)
			os.Exit(1)
		}
		res := Run(context.Background(), s, Options{Limits: Limits{Timeout: 20 * time.Second}, Host: newTestHost()})
		fmt.Printf("result: %s %v\n", res.Value, res.Err)
		os.Exit(0)
	}
	for name, a := range attacks {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+strings.Split(t.Name(), "/")[0]+"$", "-test.count=1")
			cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%.2000s", err, out)
			}
			if want := "result:  " + string(a.want) + ":"; !strings.Contains(string(out), want) {
				t.Errorf("the first run of the process did not end with %s:\n%.2000s", a.want, out)
			}
		})
	}
}

func medianMicros(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2]) / float64(time.Microsecond)
}
