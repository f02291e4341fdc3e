package engine

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// outputCaps applies the per-result cap and an aggregate budget to results
// taken in order. A cut result becomes a JSON string holding the first
// characters of the full result's JSON text, so nothing is dropped silently:
// the caller sees both what fits and that more existed.
type outputCaps struct {
	left      int // aggregate budget left; < 0 means no aggregate cap
	exhausted bool
}

func newOutputCaps(aggregate int) *outputCaps {
	if aggregate <= 0 {
		aggregate = -1
	}
	return &outputCaps{left: aggregate}
}

// cut returns res, or its cut form and true when it exceeds perResult or the
// aggregate budget left. Sizes are counted in characters (code points).
func (c *outputCaps) cut(res json.RawMessage, perResult int) (json.RawMessage, bool) {
	n := utf8.RuneCount(res)
	limit := n
	if perResult > 0 && limit > perResult {
		limit = perResult
	}
	if c.left >= 0 && limit > c.left {
		limit = c.left
		c.exhausted = true
	}
	if c.left >= 0 {
		c.left -= limit
	}
	if limit == n {
		return res, false
	}
	return truncatedJSON(res, limit), true
}

// truncatedJSON is the first n characters of a JSON text, as a JSON string.
func truncatedJSON(res []byte, n int) json.RawMessage {
	end := 0
	for i := 0; i < n && end < len(res); i++ {
		_, size := utf8.DecodeRune(res[end:])
		end += size
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(string(res[:end])) // a string always encodes
	return bytes.TrimRight(buf.Bytes(), "\n")
}
