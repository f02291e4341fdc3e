package engine

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/internal/strictjson"
)

// Bounds on what an error may carry (docs/errors.md, "Size"). A tool, a
// script or a client can put megabytes into a message; every *Error that
// leaves the engine — in a result, a trace, an event, a log — is cut to these
// once, where it enters (Errorf, WrapError, a call's completion, the
// sandbox's error), and marked Truncated.
const (
	MaxErrorMessageChars = 2000 // characters of Error.Message kept
	maxSuggestions       = 5
	maxSuggestionChars   = 100
	maxDetails           = 20
	maxDetailPathChars   = 200
	maxDetailMsgChars    = 300
	// maxQuoteChars bounds a client's string (a tool name, label, $ref, call
	// id) quoted in a message or echoed in a result or event.
	maxQuoteChars = strictjson.MaxQuoteChars
)

// clip returns s, or its first n characters followed by "…" when it has more.
// It never splits a UTF-8 sequence.
func clip(s string, n int) string { return strictjson.Clip(s, n) }

// quote is strconv.Quote of at most maxQuoteChars characters of s: what a
// message says of a client's string. A cut one ends in "…" inside the quotes.
func quote(s string) string { return strictjson.Quote(s) }

// bounded returns e, or when any field passes the bounds a copy cut to them
// and marked Truncated. e itself is never changed: a tool may return one
// shared value.
func (e *Error) bounded() *Error {
	if e == nil || e.withinBounds() {
		return e
	}
	c := *e
	c.Truncated = true
	if !fits(c.Message, MaxErrorMessageChars) {
		n := utf8.RuneCountInString(c.Message)
		c.Message = clip(c.Message, MaxErrorMessageChars) + " [message cut: " + strconv.Itoa(n) + " characters in all]"
	}
	if len(c.Suggestions) > 0 {
		s := c.Suggestions[:min(len(c.Suggestions), maxSuggestions)]
		c.Suggestions = make([]string, len(s))
		for i, x := range s {
			c.Suggestions[i] = clip(x, maxSuggestionChars)
		}
	}
	if len(c.Details) > 0 {
		d := c.Details[:min(len(c.Details), maxDetails)]
		c.Details = make([]Violation, len(d))
		for i, v := range d {
			c.Details[i] = Violation{Path: clip(v.Path, maxDetailPathChars), Message: clip(v.Message, maxDetailMsgChars)}
		}
		if more := len(e.Details) - len(d); more > 0 {
			c.Message += " [" + strconv.Itoa(more) + " more violations not listed]"
		}
	}
	return &c
}

func (e *Error) withinBounds() bool {
	if !fits(e.Message, MaxErrorMessageChars) || len(e.Suggestions) > maxSuggestions || len(e.Details) > maxDetails {
		return false
	}
	for _, s := range e.Suggestions {
		if !fits(s, maxSuggestionChars) {
			return false
		}
	}
	for _, v := range e.Details {
		if !fits(v.Path, maxDetailPathChars) || !fits(v.Message, maxDetailMsgChars) {
			return false
		}
	}
	return true
}

// fits reports whether s has at most n characters.
func fits(s string, n int) bool { return len(s) <= n || utf8.RuneCountInString(s) <= n }

// toolResultCap is the per-result cap of a tool: its own, or the configured
// one for a name that is no tool.
func (e *Engine) toolResultCap(tool string) int {
	if t, ok := e.tools[tool]; ok {
		return t.maxResultChars
	}
	return e.cfg.Limits.MaxResultChars
}

// capShown cuts a JSON value shown outside the result it belongs to (an
// event, a printed trace) to limit characters, like a batch result. Most
// values are shorter in bytes than the limit, which costs no counting.
func capShown(v json.RawMessage, limit int) (json.RawMessage, bool) {
	if len(v) <= limit || limit <= 0 {
		return v, false
	}
	return newOutputCaps(0).cut(v, limit)
}

// bound cuts what an event carries from a client, a tool or a script before
// any observer sees it: names, labels and ids to maxQuoteChars, args and
// results to the tool's result cap, a log line to the configured
// maxOutputChars, the error to the error bounds. Truncated marks cut args or
// results. The Approver itself gets the approval requests whole.
func (e *Engine) bound(ev *Event) {
	limit := e.toolResultCap(ev.Tool)
	var cut bool
	ev.Args, cut = capShown(ev.Args, limit)
	ev.Truncated = ev.Truncated || cut
	ev.Result, cut = capShown(ev.Result, limit)
	ev.Truncated = ev.Truncated || cut
	ev.Tool, ev.Label = clip(ev.Tool, maxQuoteChars), clip(ev.Label, maxQuoteChars)
	ev.CallID, ev.ParentID = clip(ev.CallID, maxQuoteChars), clip(ev.ParentID, maxQuoteChars)
	ev.Message = clip(ev.Message, e.cfg.Script.MaxOutputChars)
	ev.Error = ev.Error.bounded()
	if len(ev.Approvals) > 0 {
		reqs := make([]ApprovalRequest, len(ev.Approvals)) // a copy: the Approver's is whole
		for i, a := range ev.Approvals {
			a.Args, a.Truncated = capShown(a.Args, e.toolResultCap(a.Tool))
			a.CallID, a.ParentID = clip(a.CallID, maxQuoteChars), clip(a.ParentID, maxQuoteChars)
			reqs[i] = a
		}
		ev.Approvals = reqs
	}
}
