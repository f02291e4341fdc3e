package worker

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/codemode-dev/codemode/sandbox/js"
	"github.com/codemode-dev/codemode/sandbox/worker/spawn"
)

// prestart starts this test binary as a worker, as a command does before
// its pool exists.
func prestart(t *testing.T) *spawn.Process {
	t.Helper()
	self, err := spawn.Self()
	if err != nil {
		t.Fatal(err)
	}
	sp, err := spawn.Start(self)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// A prestarted worker is the pool's first: the run goes to it, and the pool
// starts no process of its own. It is configured as any worker is: its
// limits are the pool's, and it has no environment.
func TestPoolAdoptsPrestartedWorker(t *testing.T) {
	sp := prestart(t)
	const memory = 700 << 20
	p := newPool(t, Config{Warm: 1, Max: 1, MemoryBytes: memory, Prestarted: sp})
	if res := run(t, p, `return 1`, js.Limits{}); res.Err != nil || string(res.Value) != "1" {
		t.Fatalf("got %s, %v; want 1", res.Value, res.Err)
	}
	if d := cmp.Diff(Stats{Adopted: 1, Idle: 1}, p.Stats()); d != "" {
		t.Errorf("stats (-want +got):\n%s", d)
	}
	limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", sp.Pid))
	if err != nil {
		t.Skipf("cannot read the worker's limits: %v", err)
	}
	wantData := fmt.Sprint(memory)
	if RaceDetector {
		wantData = "unlimited"
	}
	for name, want := range map[string]string{"Max data size": wantData, "Max core file size": "0"} {
		if got := limit(string(limits), name); got != want {
			t.Errorf("the adopted worker's %s: %s, want %s", name, got, want)
		}
	}
	if env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", sp.Pid)); err != nil || len(env) != 0 {
		t.Errorf("the adopted worker's environment: %q (%v), want none", env, err)
	}
}

// limit is the soft limit called name in a /proc/PID/limits.
func limit(limits, name string) string {
	for _, l := range strings.Split(limits, "\n") {
		if rest, ok := strings.CutPrefix(l, name); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				return f[0]
			}
		}
	}
	return ""
}

// A prestarted worker that died before the pool took it costs only time:
// the pool starts one as it would have, and the run succeeds.
func TestPoolReplacesDeadPrestartedWorker(t *testing.T) {
	sp := prestart(t)
	if err := sp.Kill(); err != nil {
		t.Fatal(err)
	}
	p := newPool(t, Config{Warm: 1, Max: 1, Prestarted: sp})
	if res := run(t, p, `return 1`, js.Limits{}); res.Err != nil || string(res.Value) != "1" {
		t.Fatalf("got %s, %v; want 1", res.Value, res.Err)
	}
	if d := cmp.Diff(Stats{Started: 1, Idle: 1}, p.Stats()); d != "" {
		t.Errorf("stats (-want +got):\n%s", d)
	}
}

// A pool closed at once still ends the prestarted worker it was given.
func TestPoolClosedEndsPrestartedWorker(t *testing.T) {
	sp := prestart(t)
	p, err := New(Config{Warm: 1, Prestarted: sp})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", sp.Pid))
		if err != nil || strings.Contains(string(b), ") Z ") {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("the prestarted worker %d outlived its pool's Close", sp.Pid)
		}
	}
}
