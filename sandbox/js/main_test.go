package js

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that runs leave no goroutines behind: their loops, host
// goroutines and timers. The heap watchdog (watchdog.watch) exits on its own
// within a tick (watchEvery) of the last run; goleak's retries wait for it.
// A child of BenchmarkFirstRun does its one run and exits.
func TestMain(m *testing.M) {
	if os.Getenv(firstRunEnv) != "" {
		firstRun()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
