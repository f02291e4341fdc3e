package defs

import (
	"fmt"
	"strings"
)

// WireName maps a tool name to the form used with model APIs that forbid dots
// in function names (OpenAI: ^[a-zA-Z0-9_-]{1,64}$, Anthropic:
// ^[a-zA-Z0-9_-]{1,128}$): every "." becomes "-", so "board.getState" is
// sent as "board-getState".
//
// The mapping is reversible because a valid tool name never contains "-".
// The popular alternative "__" is not: "_" is legal inside a segment, so
// "a.b" and the single segment "a__b" would both become "a__b", and "a._b"
// and "a_.b" would both become "a___b".
func WireName(name string) string { return strings.ReplaceAll(name, ".", "-") }

// CanonicalName reverses [WireName]: it turns a function name a model called
// back into the tool name ("board-getState" → "board.getState").
func CanonicalName(wire string) string { return strings.ReplaceAll(wire, "-", ".") }

// ValidName reports whether name is identifier segments
// ([A-Za-z_][A-Za-z0-9_]*) joined by single dots. engine.ValidName is this
// function: the rule lives here because this package cannot import the engine.
func ValidName(name string) bool {
	if name == "" {
		return false
	}
	for _, seg := range strings.Split(name, ".") {
		if seg == "" {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
			if !letter && (i == 0 || c < '0' || c > '9') {
				return false
			}
		}
	}
	return true
}

// checkWireNames rejects tool names a provider would refuse once mapped by
// WireName: invalid names, names longer than maxLen, and duplicates.
func checkWireNames(provider string, maxLen int, tools []Tool) error {
	seen := make(map[string]bool, len(tools))
	for _, t := range tools {
		if !ValidName(t.Name) {
			return fmt.Errorf("%s: tool name %q: want identifier segments ([A-Za-z_][A-Za-z0-9_]*) joined by dots", provider, t.Name)
		}
		w := WireName(t.Name)
		if len(w) > maxLen {
			return fmt.Errorf("%s: tool name %q is %d characters; at most %d are allowed", provider, t.Name, len(w), maxLen)
		}
		if seen[w] {
			return fmt.Errorf("%s: tool name %q appears twice", provider, t.Name)
		}
		seen[w] = true
	}
	return nil
}
