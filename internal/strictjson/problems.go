// Problems, their messages and paths: what Decode reports and callers add to.

package strictjson

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Problem is one thing wrong with a document: where, and what.
type Problem struct {
	Path    string // see the package documentation; "" for the document itself
	Message string
}

// Error is "path: message", or the message alone for the document itself.
func (p Problem) Error() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// maxProblems is how many problems a document keeps; more are counted.
const maxProblems = 50

// maxPathChars bounds a path kept with a problem: member names are cut
// already (see [Member]), but a document may nest ten thousand deep.
const maxPathChars = 1000

// maxForeignChars bounds the message of an error that is not this package's
// own, such as a field's UnmarshalJSON's, which may quote the value whole.
const maxForeignChars = 500

// Problems collects what is wrong with a document: Decode's findings, then the
// caller's own. The zero value is ready to use (for checking a value that was
// not decoded).
type Problems struct {
	list   []Problem
	more   int
	broken bool
	given  map[string]bool
}

// Addf adds a problem at path, unless path or a place that contains it
// already has one: a value that could not be decoded is not also reported as,
// say, missing.
func (p *Problems) Addf(path, format string, args ...any) {
	if p.covered(path) {
		return
	}
	p.add(path, fmt.Sprintf(format, args...))
}

func (p *Problems) add(path, msg string) {
	if len(p.list) >= maxProblems {
		p.more++
		return
	}
	p.list = append(p.list, Problem{Path: Clip(path, maxPathChars), Message: msg})
}

// covered reports whether path or a place containing it has a problem. A
// problem of the document itself covers nothing: it is trailing data, or the
// document is broken and callers check nothing further.
func (p *Problems) covered(path string) bool {
	for _, q := range p.list {
		if q.Path == "" {
			continue
		}
		if path == q.Path || (strings.HasPrefix(path, q.Path) && (path[len(q.Path)] == '.' || path[len(q.Path)] == '[')) {
			return true
		}
	}
	return false
}

// Broken reports whether the document could not be read as a whole (it is
// not JSON, or not the kind of value wanted): then nothing was decoded, and a
// caller's own checks would only repeat the problem in other words.
func (p *Problems) Broken() bool { return p.broken }

// Given reports whether the document had a member at path (a struct field or
// map entry, even one whose value had a problem). A member whose value is
// null counts as not given, as encoding/json leaves such a field alone.
func (p *Problems) Given(path string) bool { return p.given[path] }

// Len is the number of problems, counting those past the 50 kept.
func (p *Problems) Len() int { return len(p.list) + p.more }

// List returns the problems kept, in document order (Decode's), then in the
// order they were added.
func (p *Problems) List() []Problem { return p.list }

// Err returns nil when there is no problem, else an Error listing them.
func (p *Problems) Err() error {
	if p.Len() == 0 {
		return nil
	}
	return &Error{Problems: p.list, More: p.more}
}

// Error is every problem of a document.
type Error struct {
	Problems []Problem
	More     int // problems past the 50 kept
}

// Error lists the problems separated by "; ".
func (e *Error) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Error())
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "; and %d more problems", e.More)
	}
	return b.String()
}

// Unwrap returns the problems, one error each.
func (e *Error) Unwrap() []error {
	out := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p
	}
	return out
}

// NotPositive is the one message for a limit or a timeout that is not
// positive, wherever it was given (a request, a config file, a manifest, a
// command-line flag): given is the value as written (a string quoted with
// [Quote]). It is cut as [Excerpt] cuts, should a caller forget.
func NotPositive(given string) string {
	return "must be positive, not " + Excerpt(given) + " (leave it out for the default)"
}

// MaxQuoteChars bounds what a message shows of a client's value — a number
// as written, a string, a member name in a path: a client can send megabytes,
// and one long value must not crowd the other problems out of a message.
const MaxQuoteChars = 200

// Clip returns s, or its first n characters followed by "…" when it has
// more. It never splits a UTF-8 sequence.
func Clip(s string, n int) string {
	if len(s) <= n { // bytes ≥ characters: the common case costs nothing
		return s
	}
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if i >= len(s) {
		return s
	}
	return s[:i] + "…"
}

// Excerpt is what a message shows of a client's value written as is (a
// number, a duration): its first [MaxQuoteChars] characters.
func Excerpt(s string) string { return Clip(s, MaxQuoteChars) }

// Quote is what a message shows of a client's string: strconv.Quote of its
// first [MaxQuoteChars] characters. A cut one ends in "…" inside the quotes.
func Quote(s string) string { return strconv.Quote(Clip(s, MaxQuoteChars)) }

// Member is the path of the member name of the value at parent.
func Member(parent, name string) string {
	if isIdent(name) && len(name) <= MaxQuoteChars {
		if parent == "" {
			return name
		}
		return parent + "." + name
	}
	return parent + "[" + Quote(name) + "]"
}

// Index is the path of element i of the array at parent.
func Index(parent string, i int) string { return parent + "[" + strconv.Itoa(i) + "]" }

func isIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')) {
			return false
		}
	}
	return s != ""
}
