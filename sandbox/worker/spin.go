package worker

import (
	"runtime"
	"sync/atomic"
	"time"
)

// spinFor is how long a reader of the worker protocol spins for a frame
// that is due before it parks (see spinReader). A tool call's round trip
// is two frames: each side waits for the other's work plus a pipe
// transfer, tens of microseconds; waking a parked goroutine on another
// thread costs about as much again, twice per call. Past spinFor the wait
// is a long one (a tool that takes time, a script computing), and the
// reader parks: it never spins more than this per frame it waits for.
const spinFor = 50 * time.Microsecond

// spinners counts the goroutines spinning in spinReader, at most one per
// processor the runtime may use: a host with many workers busy at once
// parks the rest rather than spin on every core.
var spinners spinCount

type spinCount struct{ n atomic.Int32 }

func (c *spinCount) enter() bool {
	if c.n.Add(1) > int32(runtime.GOMAXPROCS(0)) {
		c.n.Add(-1)
		return false
	}
	return true
}

func (c *spinCount) leave() { c.n.Add(-1) }

// spinPolicy decides whether a reader spins, from how its spins went: a
// spin that ends with a frame earns a credit, one that ends parked costs
// one, and the reader spins while it has credit. On a machine too busy for
// the other side to answer within spinFor, spinning only takes CPU from
// it: the reader then parks at once, and tries a spin again every
// spinProbe waits to see whether that changed.
type spinPolicy struct {
	credit int
	waits  int // waits without credit
}

const (
	spinCredit = 8  // the most credit a reader holds
	spinProbe  = 16 // waits between tries when out of credit
)

func (p *spinPolicy) allow() bool {
	if p.credit > 0 {
		return true
	}
	p.waits++
	return p.waits%spinProbe == 0
}

func (p *spinPolicy) hit() { p.credit = min(p.credit+1, spinCredit) }

func (p *spinPolicy) miss() { p.credit = max(p.credit-1, 0) }
