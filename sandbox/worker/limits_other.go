//go:build !unix

package worker

import (
	"runtime/debug"
	"time"
)

// applyLimits sets what Go itself can bound where there are no rlimits: the
// host's wall-clock backstop and its crash handling still hold.
func applyLimits(cfg configMsg) error {
	if cfg.MemoryBytes > 0 {
		debug.SetMemoryLimit(cfg.MemoryBytes * 3 / 4)
	}
	if cfg.StackBytes > 0 {
		debug.SetMaxStack(cfg.StackBytes)
	}
	return nil
}

func setCPULimit(time.Duration) {}

// dataLimited reports whether workers run under a data-segment limit: not
// here (a soft memory limit only guides Go's collector).
func dataLimited() bool { return false }

func closeInherited() {}
