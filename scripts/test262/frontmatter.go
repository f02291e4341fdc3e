package main

import (
	"errors"
	"fmt"
	"strings"
)

// Meta is the part of a test262 test's front matter (the YAML between
// "/*---" and "---*/") that decides how the test is run.
type Meta struct {
	Includes []string  `json:"includes,omitempty"`
	Flags    []string  `json:"flags,omitempty"`
	Features []string  `json:"features,omitempty"`
	Negative *Negative `json:"negative,omitempty"`
}

// Negative is what a negative test expects: an error of Type thrown in
// Phase (parse, resolution or runtime).
type Negative struct {
	Phase string `json:"phase"`
	Type  string `json:"type"`
}

// Has reports whether the test has the flag.
func (m Meta) Has(flag string) bool {
	for _, f := range m.Flags {
		if f == flag {
			return true
		}
	}
	return false
}

// parseMeta reads a test's front matter. test262 writes it in a small,
// regular subset of YAML — top-level keys whose values are a scalar, a flow
// list ([a, b]), a block list (lines "- a"), a map one level deep (negative)
// or a block scalar (| or >, for description and info) — so a line-based
// reader is enough and the harness needs no YAML dependency. Keys other
// than includes, flags, features and negative are read past.
func parseMeta(src string) (Meta, error) {
	var m Meta
	start := strings.Index(src, "/*---")
	if start < 0 {
		return m, errors.New("no front matter (/*--- ... ---*/)")
	}
	rest := src[start+len("/*---"):]
	end := strings.Index(rest, "---*/")
	if end < 0 {
		return m, errors.New("front matter not closed (no ---*/)")
	}
	lines := strings.Split(strings.ReplaceAll(rest[:end], "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimSpace(line) == "" || indented(line) || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue // continuation of a key read past, or a comment
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return m, fmt.Errorf("front matter line %d: %q is not \"key: value\"", i+1, line)
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(stripComment(value))
		// The lines that belong to this key: the indented ones that follow,
		// and list items ("- a"), which YAML allows at the key's indentation.
		j := i + 1
		for j < len(lines) && (strings.TrimSpace(lines[j]) == "" || indented(lines[j]) || strings.HasPrefix(lines[j], "-")) {
			j++
		}
		block := lines[i+1 : j]
		if strings.HasPrefix(value, "[") {
			// A flow list may span lines: join until the closing bracket.
			text := value
			for k := i + 1; !strings.Contains(text, "]") && k < len(lines); k++ {
				text += " " + strings.TrimSpace(stripComment(lines[k]))
				j = max(j, k+1)
			}
			block = nil
			value = text
		}
		i = j - 1
		switch key {
		case "includes", "flags", "features":
			list, err := parseList(value, block)
			if err != nil {
				return m, fmt.Errorf("front matter %s: %w", key, err)
			}
			switch key {
			case "includes":
				m.Includes = list
			case "flags":
				m.Flags = list
			case "features":
				m.Features = list
			}
		case "negative":
			neg := &Negative{}
			for _, l := range block {
				k, v, ok := strings.Cut(strings.TrimSpace(stripComment(l)), ":")
				if !ok {
					continue
				}
				switch strings.TrimSpace(k) {
				case "phase":
					neg.Phase = unquote(strings.TrimSpace(v))
				case "type":
					neg.Type = unquote(strings.TrimSpace(v))
				}
			}
			if neg.Phase == "" || neg.Type == "" {
				return m, fmt.Errorf("front matter negative: needs phase and type, got %+v", *neg)
			}
			m.Negative = neg
		}
	}
	return m, nil
}

// parseList reads a list given inline ([a, b] or one scalar) or as the
// block lines "- a" that follow its key.
func parseList(value string, block []string) ([]string, error) {
	var out []string
	switch {
	case strings.HasPrefix(value, "["):
		inner, ok := strings.CutSuffix(strings.TrimSpace(value), "]")
		if !ok {
			return nil, fmt.Errorf("flow list %q not closed", value)
		}
		for _, item := range strings.Split(inner[1:], ",") {
			if item = unquote(strings.TrimSpace(item)); item != "" {
				out = append(out, item)
			}
		}
	case value != "":
		out = append(out, unquote(value))
	default:
		for _, l := range block {
			l = strings.TrimSpace(stripComment(l))
			if l == "" {
				continue
			}
			item, ok := strings.CutPrefix(l, "-")
			if !ok {
				return nil, fmt.Errorf("block list line %q does not start with -", l)
			}
			out = append(out, unquote(strings.TrimSpace(item)))
		}
	}
	return out, nil
}

func indented(line string) bool {
	return strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")
}

// stripComment drops a YAML comment: a # at the start or after a space.
func stripComment(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t') {
			return s[:i]
		}
	}
	return s
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}
