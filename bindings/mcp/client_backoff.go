package mcp

import "time"

// A server that cannot be (re)started is not tried by every call: after a
// failed connect, calls fail at once for restartBackoffMin, the interval
// doubling with each failure up to restartBackoffMax, so that a script's
// loop over a server that crashes at every start does not spawn a process
// per call. A connect that succeeds resets it.
const (
	restartBackoffMin = time.Second
	restartBackoffMax = 30 * time.Second
)

// backoff is when a server whose connect failed may be tried again.
// Upstream.lock guards it.
type backoff struct {
	wait  time.Duration // the current interval; 0 when the last connect succeeded
	until time.Time     // no connect before this
	why   string        // the last failure, for the calls that are not tried
}

// failed records a failed connect at now and returns the interval before
// the next try.
func (b *backoff) failed(now time.Time, why string) time.Duration {
	b.wait = min(max(2*b.wait, restartBackoffMin), restartBackoffMax)
	b.until = now.Add(b.wait)
	b.why = why
	return b.wait
}

// succeeded forgets the failures.
func (b *backoff) succeeded() { *b = backoff{} }

// left is how long calls must still wait before a try; 0 when they may try.
func (b *backoff) left(now time.Time) time.Duration {
	if b.wait == 0 || !now.Before(b.until) {
		return 0
	}
	// Rounded up, so that "tried again in 0s" is never said of a wait.
	return (b.until.Sub(now) + 99*time.Millisecond).Truncate(100 * time.Millisecond)
}
