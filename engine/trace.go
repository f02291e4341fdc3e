package engine

// CapTrace returns a copy of a script's call trace cut the way a batch
// result is, for a host that prints or sends it (the CLI does): each
// record's args and result to its tool's per-result cap, and all of them
// together, in order, to maxAggregateChars. A cut value becomes a JSON string
// holding the start of its JSON text and its record is marked Truncated; the
// second value reports whether anything was cut. The trace in ExecuteResult
// stays whole: it is the host's, and no output limit bounds it.
func (e *Engine) CapTrace(calls []CallRecord) ([]CallRecord, bool) {
	caps := newOutputCaps(e.cfg.Limits.MaxAggregateChars)
	out := make([]CallRecord, len(calls))
	var cut bool
	for i, c := range calls {
		limit := e.toolResultCap(c.Tool)
		var argsCut, resCut bool
		c.Args, argsCut = caps.cut(c.Args, limit)
		if len(c.Result) > 0 {
			c.Result, resCut = caps.cut(c.Result, limit)
		}
		c.Truncated = c.Truncated || argsCut || resCut
		cut = cut || c.Truncated
		out[i] = c
	}
	return out, cut
}
