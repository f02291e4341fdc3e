package bench

import "time"

// DefaultLatency is the latency model of a fast hosted model of 2025 (the
// GPT-4o / Claude Sonnet class): about half a second before the first
// output token of a turn (network, queueing and time to first token), 80
// output tokens a second, and about 20,000 tokens a second of the input
// a turn re-sends. docs/strategies.md gives the sources and how to set
// other figures.
func DefaultLatency() Latency {
	return Latency{
		PerRoundTrip:   500 * time.Millisecond,
		PerInputToken:  50 * time.Microsecond,
		PerOutputToken: 12500 * time.Microsecond,
	}
}

// turn is the modelled wall time of one model turn.
func (l Latency) turn(in, out int) time.Duration {
	return l.PerRoundTrip + time.Duration(in)*l.PerInputToken + time.Duration(out)*l.PerOutputToken
}
