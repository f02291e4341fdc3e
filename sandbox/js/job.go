package js

import (
	"context"
	"fmt"
	"time"
)

// billFrom is the compile time from which RunJob bills compiling to the
// run: below it (every ordinary script; only code built to be slow to
// compile takes longer) the run keeps its whole budget, and its messages
// quote the timeout as asked.
const billFrom = 100 * time.Millisecond

// RunJob compiles job's code through cache and runs it: what every runner
// that gets code rather than a Script does. Compiling is billed to the run's
// timeout (it cannot be interrupted, so a compile that used up the budget
// ends the run with timeout as soon as it returns).
func RunJob(ctx context.Context, cache *Cache, job Job) *Result {
	start := time.Now()
	s, err := cache.compile(job.Code, job.MaxCodeBytes, job.Options.Profile)
	if err != nil {
		return &Result{Err: err}
	}
	opt := job.Options
	budget := opt.Limits.withDefaults().Timeout
	took := time.Since(start)
	if took >= budget {
		return &Result{TypeScript: s.TypeScript, Err: &Error{Code: CodeTimeout, Message: fmt.Sprintf(
			"compiling the script took %v, past its timeout of %v", took.Round(time.Millisecond), budget)}}
	}
	if took >= billFrom {
		opt.Limits.Timeout = budget - took
	}
	res := Run(ctx, s, opt)
	res.TypeScript = s.TypeScript
	return res
}
