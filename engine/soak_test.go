package engine_test

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/js"
	"github.com/codemode-dev/codemode/sandbox/worker"
)

// soakFor is how long TestSoak keeps running ordinary scripts after the
// hostile corpus.
const soakFor = 30 * time.Second

// TestSoak is the long-lived host: one engine per runner takes the whole
// hostile corpus, then serves ordinary scripts for soakFor. Every ordinary
// run must succeed, and afterwards the process must be back where it
// started: no goroutines left behind (the corpus's abandoned builtins
// included), the Go heap and the resident set near their starting size.
func TestSoak(t *testing.T) {
	if testing.Short() || raceSlowdown > 1 {
		t.Skip("a 30 s soak; not under -short or the race detector")
	}
	pool := newWorkerPool(t, worker.Config{Warm: 2, MemoryBytes: 512 << 20, StackBytes: 128 << 20})
	engines := map[string]*engine.Engine{
		"inprocess": build(t, newFixture(t)),
		"worker":    build(t, newFixture(t), func(b *engine.Builder) { b.WithScriptRunner(pool) }),
	}
	// A first run of each warms what is made once (builtins, a worker).
	for _, e := range engines {
		script(t, e, `return 1`)
	}
	runtime.GC()
	goroutines, heap, rss := runtime.NumGoroutine(), heapObjects(), residentBytes(t)

	for name, e := range engines {
		t.Run("hostile/"+name, func(t *testing.T) { runHostile(t, e, name == "worker", name == "worker" && pool.Profile() == js.Lean) })
	}

	ordinary := []struct{ code, want string }{
		{`return (await tools.add({a: 2, b: 3})).sum`, "5"},
		{`const r = await Promise.all([1, 2, 3].map((i) => tools.add({a: i, b: i}))); return r.map((x) => x.sum)`, "[2,4,6]"},
		{`const t = await tools.makeThing({name: "n"}); return t.items.length`, "2"},
		{`let n: number = 0; for (const w of ["a", "bb"]) n += w.length; return n`, "3"},
		{`try { await tools.fail({}) } catch (e) { return e.code }`, `"tool_error"`},
		{`const a = []; for (let i = 0; i < 1e5; i++) a.push({i}); return a.length`, "100000"},
	}
	runs := 0
	for end := time.Now().Add(soakFor); time.Now().Before(end); {
		for name, e := range engines {
			c := ordinary[runs%len(ordinary)]
			res := script(t, e, c.code)
			if !res.Success || string(res.Result) != c.want {
				t.Fatalf("%s run %d (%s): %s %v", name, runs, c.code, res.Result, res.Error)
			}
			runs++
		}
	}
	t.Logf("%d ordinary runs after the corpus; pool %+v", runs, pool.Stats())

	// Abandoned builtins and retired workers take a moment to end.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > goroutines+2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	runtime.GC()
	if n := runtime.NumGoroutine(); n > goroutines+2 {
		t.Errorf("%d goroutines after the soak, %d before", n, goroutines)
	}
	if grown := heapObjects() - heap; grown > 64<<20 {
		t.Errorf("the heap grew by %d MiB", grown>>20)
	}
	// The resident set keeps what the runtime has not returned yet: allow
	// for that, but not for the gigabytes a leaked bomb would hold.
	if grown := residentBytes(t) - rss; grown > 256<<20 {
		t.Errorf("the resident set grew by %d MiB", grown>>20)
	}
	t.Logf("goroutines %d → %d, heap %d → %d MiB, RSS %d → %d MiB", goroutines, runtime.NumGoroutine(),
		heap>>20, heapObjects()>>20, rss>>20, residentBytes(t)>>20)
}

// residentBytes is the process's resident set (Linux; 0 elsewhere).
func residentBytes(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	return 0
}
