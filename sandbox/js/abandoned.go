package js

import "sync/atomic"

// abandonedRuns counts runs whose goroutine was still inside a builtin when
// Run had to answer: each goes on using CPU and memory until the builtin
// returns. A worker process reports such runs so that its host retires it.
var abandonedRuns atomic.Int64

// Abandoned is the number of runs of this process that were answered while
// their goroutine was still running and that have not stopped yet.
func Abandoned() int { return int(abandonedRuns.Load()) }

// abandon counts r as abandoned until its loop returns.
func (r *runner) abandon() {
	abandonedRuns.Add(1)
	go func() {
		<-r.done
		abandonedRuns.Add(-1)
	}()
}
