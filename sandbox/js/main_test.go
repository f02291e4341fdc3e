package js

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that runs leave no goroutines behind: their loops, host
// goroutines and timers. The heap watchdog (watchdog.watch) exits on its own
// within a tick (watchEvery) of the last run; goleak's retries wait for it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
