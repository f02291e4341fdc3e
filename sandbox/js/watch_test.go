package js

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"
)

// With four runs side by side, a memory bomb ends with memory_limit and the
// three runs beside it, which allocate moderately (mostly garbage), succeed.
// Measured: 45 of 45 bombs ended, 135 of 135 innocent runs succeeded, at
// 64 MiB. At 32 MiB, the garbage the innocent runs allocate while a
// collection marks counts as live (Go marks new objects during a cycle),
// and about one innocent run in 30 was ended after the bomb.
func TestWatchdogBlamesTheBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("runs memory bombs for seconds")
	}
	code := `const keep = []; for (let i = 0; ; i++) keep.push({ i, s: "x".repeat(1000) + i })`
	if c := os.Getenv("WATCH_BOMB"); c != "" {
		code = c // to measure other bombs by hand
	}
	bomb, err := Compile(code, 0)
	if err != nil {
		t.Fatal(err)
	}
	innocent, err := Compile(`let n = 0, keep = [];
for (let i = 0; i < 3e5; i++) {
  const o = { i, s: "y".repeat(100) + i, a: [i, i + 1] };
  n += o.s.length;
  if (i % 100 === 0) keep.push(o);
}
return n > 0 && keep.length`, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The timeout is not what is tested: an innocent run takes 2-3 s alone on
	// a 2-core machine, and three beside a bomb on a machine busy with other
	// tests took past 30 s.
	lim := Limits{Timeout: 3 * time.Minute, MaxMemoryBytes: 64 << 20}
	for round := range 3 {
		var wg sync.WaitGroup
		results := make([]*Result, 4)
		for i := range results {
			s := innocent
			if i == round%4 {
				s = bomb
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = Run(context.Background(), s, Options{Limits: lim, Host: newTestHost()})
			}()
		}
		wg.Wait()
		for i, res := range results {
			if i == round%4 {
				if res.Err == nil || res.Err.Code != CodeMemoryLimit {
					t.Errorf("round %d: the bomb ended with %v, want memory_limit", round, res.Err)
				}
			} else if res.Err != nil {
				t.Errorf("round %d: an innocent run failed: %v", round, res.Err)
			}
		}
	}
}
