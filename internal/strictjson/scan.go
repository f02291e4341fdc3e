// Walking raw JSON: the members of an object, the elements of an array.

package strictjson

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// members calls fn for each member of the object raw, in order, with its
// path; a member given more than once is one problem, however often it is
// repeated, and its repeats are not passed on. raw is valid JSON (Decode
// checked it), which the scanning below relies on.
func (d *decoder) members(raw []byte, path string, fn func(name string, val []byte, at string)) {
	var seen map[string]bool
	var repeats map[string]*repeat
	i := skipSpace(raw, 1) // past '{'
	for i < len(raw) && raw[i] == '"' {
		end := skipString(raw, i)
		name := unquote(raw[i:end])
		i = skipSpace(raw, end)
		i = skipSpace(raw, i+1) // past ':'
		vend := skipValue(raw, i)
		val := raw[i:vend]
		i = skipSpace(raw, vend)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
		if seen[name] {
			if r := repeats[name]; r != nil {
				r.n++
				continue
			}
			if repeats == nil {
				repeats = make(map[string]*repeat)
			}
			repeats[name] = &repeat{n: 2, kept: -1}
			if len(d.p.list) < maxProblems {
				repeats[name].kept = len(d.p.list)
			}
			d.p.add(Member(path, name), "given twice")
			continue
		}
		at := Member(path, name)
		if seen == nil {
			seen = make(map[string]bool)
		}
		seen[name] = true
		fn(name, val, at)
	}
	for _, r := range repeats {
		if r.n > 2 && r.kept >= 0 {
			d.p.list[r.kept].Message = fmt.Sprintf("given %d times", r.n)
		}
	}
}

// repeat counts the members of one name in an object, and where its
// problem is kept (-1: past maxProblems, only counted).
type repeat struct{ n, kept int }

// elements calls fn for each element of the array raw, which is valid JSON.
func elements(raw []byte, fn func(i int, val []byte)) {
	i := skipSpace(raw, 1) // past '['
	for n := 0; i < len(raw) && raw[i] != ']'; n++ {
		end := skipValue(raw, i)
		fn(n, raw[i:end])
		i = skipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
}

// skipString returns the index after the string that starts at raw[i].
func skipString(raw []byte, i int) int {
	for i++; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(raw)
}

// skipValue returns the index after the value that starts at raw[i].
func skipValue(raw []byte, i int) int {
	switch raw[i] {
	case '"':
		return skipString(raw, i)
	case '{', '[':
		depth := 0
		for i < len(raw) {
			switch raw[i] {
			case '"':
				i = skipString(raw, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(raw)
	}
	for i < len(raw) { // a number or a literal
		switch raw[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// unquote is the string a JSON string literal stands for, as encoding/json
// reads it (escapes, invalid UTF-8 replaced).
func unquote(lit []byte) string {
	plain := true
	for _, c := range lit[1 : len(lit)-1] {
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return string(lit[1 : len(lit)-1])
	}
	var s string
	json.Unmarshal(lit, &s)
	return s
}
