// Package strictjson decodes the JSON documents people and models write to
// codemode — requests, configuration files, WASM tool manifests, board
// files — strictly, and reports every problem at once, each with its path:
//
//   - trailing data after the value ({…}] or {…}{…}), and malformed JSON;
//   - unknown fields, with the nearest known name ("did you mean");
//   - field names in the wrong case and fields given more than once
//     (encoding/json would take the last silently): one problem a name;
//   - values of the wrong type, in JSON's terms ("want a number, got the
//     string \"5\""), and numbers out of their type's range, each where it
//     is (an element of an array, a member of an untyped value);
//   - the errors of a field's own UnmarshalJSON (a duration, a size).
//
// A message shows a client's value by its first [MaxQuoteChars] characters
// ([Excerpt], [Quote]), so that one long value cannot crowd the other
// problems out of a message of bounded size.
//
// Decode fills in whatever it could read, so that a caller's own checks
// (negative limits, names) can run on the rest and be reported together with
// the decoding problems (see [Problems.Addf]).
//
// # Paths
//
// A path names a place in a document the way JavaScript would reach it:
// members with identifier names after a dot (limits.maxOperations), other
// names quoted in brackets (tools["graph.layout"]), array elements by index
// (mounts[0].guest). The document itself is "".
package strictjson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/internal/suggest"
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

// Decode decodes data, which must hold exactly one JSON value, into v, a
// non-nil pointer, and returns what is wrong with it. Whatever could be read
// is stored in v even when there are problems; unless p.Broken(), a caller may
// check the rest and add its own problems.
//
// v's type follows encoding/json's rules (json tags, embedded structs,
// json.Unmarshaler, encoding.TextUnmarshaler), with these differences: member
// names must match exactly, once each (in objects decoded into maps and
// empty interfaces too); unknown members are problems; a value of the wrong
// type is a problem naming its path; and a Go array given more elements than
// it holds is a problem (encoding/json drops the rest). The ",string" tag
// option is not supported.
func Decode(data []byte, v any) *Problems {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic("strictjson: Decode needs a non-nil pointer")
	}
	p := &Problems{}
	raw, trailing := data, -1
	if !json.Valid(data) {
		// Not one JSON value: the decoder says where it goes wrong, or
		// where the first value ends and something else follows.
		dec := json.NewDecoder(bytes.NewReader(data))
		var first json.RawMessage
		if err := dec.Decode(&first); err != nil {
			p.broken = true
			p.add("", syntaxMessage(data, err))
			return p
		}
		raw, trailing = data[:dec.InputOffset()], skipSpace(data, int(dec.InputOffset()))
	}
	d := decoder{p: p}
	if !d.value(raw, rv.Elem(), "") {
		p.broken = true
	}
	if trailing >= 0 {
		p.add("", "unexpected data after the JSON value, at "+position(data, trailing))
	}
	return p
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// position is "line L, column C" of byte offset off, columns counted in
// characters, both from 1.
func position(data []byte, off int) string {
	off = min(off, len(data))
	line, start := 1, 0
	for i := 0; i < off; i++ {
		if data[i] == '\n' {
			line, start = line+1, i+1
		}
	}
	return fmt.Sprintf("line %d, column %d", line, utf8.RuneCount(data[start:off])+1)
}

func syntaxMessage(data []byte, err error) string {
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return "empty input: want a JSON object"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "malformed JSON: unexpected end of input"
	case errors.As(err, &syn):
		return fmt.Sprintf("malformed JSON at %s: %s", position(data, int(syn.Offset)-1), strings.TrimPrefix(syn.Error(), "json: "))
	}
	return "malformed JSON: " + strings.TrimPrefix(err.Error(), "json: ")
}

type decoder struct {
	p *Problems
}

func (d *decoder) given(path string) {
	if d.p.given == nil {
		d.p.given = make(map[string]bool)
	}
	d.p.given[path] = true
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// value decodes raw, one syntactically valid JSON value, into v, which is
// addressable. It reports false when raw is of the wrong kind for v's type
// as a whole (nothing of it was stored).
func (d *decoder) value(raw []byte, v reflect.Value, path string) bool {
	raw = bytes.TrimSpace(raw)
	t := v.Type()
	if t.Kind() == reflect.Pointer {
		if raw[0] == 'n' {
			v.SetZero()
			return true
		}
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		return d.value(raw, v.Elem(), path)
	}
	pt := reflect.PointerTo(t)
	switch {
	case pt.Implements(unmarshalerType):
		if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
			d.p.add(path, foreign(err))
		}
		return true
	case pt.Implements(textUnmarshalerType):
		return d.std(raw, v, path)
	}
	if raw[0] == 'n' { // as encoding/json: null clears what can be nil, and leaves the rest
		switch t.Kind() {
		case reflect.Interface, reflect.Map, reflect.Slice:
			v.SetZero()
		}
		return true
	}
	switch t.Kind() {
	case reflect.Bool:
		if raw[0] != 't' && raw[0] != 'f' {
			return d.wrongType(raw, "true or false", path)
		}
		v.SetBool(raw[0] == 't')
	case reflect.String:
		if raw[0] != '"' {
			return d.wrongType(raw, "a string", path)
		}
		v.SetString(unquote(raw))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if !isNumber(raw) {
			return d.wrongType(raw, "an integer", path)
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || v.OverflowInt(n) {
			if !isInteger(raw) {
				return d.wrongType(raw, "an integer", path)
			}
			d.outOfRange(raw, path)
			return false
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if !isNumber(raw) {
			return d.wrongType(raw, "a non-negative integer", path)
		}
		n, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil || v.OverflowUint(n) {
			if !isInteger(raw) || raw[0] == '-' {
				return d.wrongType(raw, "a non-negative integer", path)
			}
			d.outOfRange(raw, path)
			return false
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		if !isNumber(raw) {
			return d.wrongType(raw, "a number", path)
		}
		f, err := strconv.ParseFloat(string(raw), t.Bits())
		if err != nil || v.OverflowFloat(f) {
			d.outOfRange(raw, path)
			return false
		}
		v.SetFloat(f)
	case reflect.Struct:
		if raw[0] != '{' {
			return d.wrongType(raw, "an object", path)
		}
		d.object(raw, v, path)
	case reflect.Map:
		if t.Key().Kind() != reflect.String || reflect.PointerTo(t.Key()).Implements(textUnmarshalerType) {
			return d.std(raw, v, path)
		}
		if raw[0] != '{' {
			return d.wrongType(raw, "an object", path)
		}
		d.mapping(raw, v, path)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(t.Elem()).Implements(unmarshalerType) &&
			!reflect.PointerTo(t.Elem()).Implements(textUnmarshalerType) {
			return d.std(raw, v, path) // base64
		}
		if raw[0] != '[' {
			return d.wrongType(raw, "an array", path)
		}
		d.array(raw, v, path)
	case reflect.Array:
		if raw[0] != '[' {
			return d.wrongType(raw, "an array", path)
		}
		d.fixedArray(raw, v, path)
	case reflect.Interface:
		if t.NumMethod() > 0 || holdsPointer(v) {
			return d.std(raw, v, path) // as encoding/json does
		}
		x, ok := d.generic(raw, path)
		if x == nil {
			v.SetZero()
		} else {
			v.Set(reflect.ValueOf(x))
		}
		return ok
	default: // what JSON cannot carry (channels, functions): as encoding/json does
		return d.std(raw, v, path)
	}
	return true
}

// holdsPointer reports whether the interface v holds a non-nil pointer,
// which encoding/json decodes into rather than replacing it.
func holdsPointer(v reflect.Value) bool {
	e := v.Elem()
	return e.IsValid() && e.Kind() == reflect.Pointer && !e.IsNil()
}

// outOfRange reports a number that does not fit the type it is for.
func (d *decoder) outOfRange(raw []byte, path string) {
	d.p.add(path, Excerpt(string(raw))+" is out of range")
}

// generic decodes raw, valid JSON, as encoding/json decodes into an empty
// interface (map[string]any, []any, float64, string, bool, nil), reporting
// each problem at its own path: a number out of float64's range, a member
// given twice. It reports false when raw itself is such a number.
func (d *decoder) generic(raw []byte, path string) (any, bool) {
	switch raw[0] {
	case '{':
		m := make(map[string]any)
		d.members(raw, path, func(name string, val []byte, at string) {
			m[name], _ = d.generic(val, at)
		})
		return m, true
	case '[':
		s := []any{}
		elements(raw, func(i int, val []byte) {
			x, _ := d.generic(val, Index(path, i))
			s = append(s, x)
		})
		return s, true
	case '"':
		return unquote(raw), true
	case 't', 'f':
		return raw[0] == 't', true
	case 'n':
		return nil, true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		d.outOfRange(raw, path)
		return nil, false
	}
	return f, true
}

// std decodes raw with encoding/json, for what this package does not walk
// itself; its error is reported at path in JSON's terms where it can be.
func (d *decoder) std(raw []byte, v reflect.Value, path string) bool {
	err := json.Unmarshal(raw, v.Addr().Interface())
	if err == nil {
		return true
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field == "" {
		return d.wrongType(raw, wantOf(typ.Type), path)
	}
	d.p.add(path, foreign(err))
	return false
}

// foreign is the message of an error this package did not word, cut to
// maxForeignChars: a type's own UnmarshalJSON may quote the value whole.
func foreign(err error) string {
	return Clip(strings.TrimPrefix(err.Error(), "json: "), maxForeignChars)
}

func wantOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "an array"
	case reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "another kind of value"
}

func (d *decoder) wrongType(raw []byte, want, path string) bool {
	d.p.add(path, "want "+want+", got "+Describe(raw))
	return false
}

// Describe says what a JSON value is, in JSON's terms, quoting short
// scalars: "an object", "an array", "the string \"5\"", "the number 5",
// "true", "null".
func Describe(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "a string"
		}
		return "the string " + strconv.Quote(Clip(s, 40))
	case 't', 'f', 'n':
		return string(raw)
	}
	return "the number " + Clip(string(raw), 40)
}

func isNull(raw []byte) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// isNumber reports whether raw, a valid JSON value, is a number.
func isNumber(raw []byte) bool { return raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9') }

// isInteger reports whether the number raw has no fraction or exponent.
func isInteger(raw []byte) bool { return !bytes.ContainsAny(raw, ".eE") }

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

func (d *decoder) object(raw []byte, v reflect.Value, path string) {
	info := structInfoOf(v.Type())
	d.members(raw, path, func(name string, val []byte, at string) {
		f, ok := info.byName[name]
		if !ok {
			d.p.add(at, unknownField(name, info.names))
			return
		}
		if !isNull(val) {
			d.given(at)
		}
		d.value(val, fieldByIndex(v, f), at)
	})
}

func (d *decoder) mapping(raw []byte, v reflect.Value, path string) {
	t := v.Type()
	if v.IsNil() {
		v.Set(reflect.MakeMap(t))
	}
	d.members(raw, path, func(name string, val []byte, at string) {
		if !isNull(val) {
			d.given(at)
		}
		e := reflect.New(t.Elem()).Elem()
		d.value(val, e, at)
		v.SetMapIndex(reflect.ValueOf(name).Convert(t.Key()), e)
	})
}

// fixedArray decodes into a Go array as encoding/json does, elements past
// the ones given zeroed, except that elements past its length are a problem
// rather than dropped.
func (d *decoder) fixedArray(raw []byte, v reflect.Value, path string) {
	n := 0
	elements(raw, func(i int, val []byte) {
		if i < v.Len() {
			d.value(val, v.Index(i), Index(path, i))
		}
		n++
	})
	for i := n; i < v.Len(); i++ {
		v.Index(i).SetZero()
	}
	if n > v.Len() {
		d.p.add(path, fmt.Sprintf("want at most %d elements, got %d", v.Len(), n))
	}
}

func (d *decoder) array(raw []byte, v reflect.Value, path string) {
	t := v.Type()
	s := reflect.MakeSlice(t, 0, 0)
	elements(raw, func(i int, val []byte) {
		e := reflect.New(t.Elem()).Elem()
		d.value(val, e, Index(path, i))
		s = reflect.Append(s, e)
	})
	v.Set(s)
}

// unknownField words an unknown member name: the nearest known name, or
// the known names when none is near.
func unknownField(name string, known []string) string {
	if s := suggest.Names(name, known); len(s) > 0 {
		if strings.EqualFold(s[0], name) {
			return fmt.Sprintf("unknown field (did you mean %q? names are case-sensitive)", s[0])
		}
		return fmt.Sprintf("unknown field (did you mean %q?)", s[0])
	}
	return "unknown field (the fields here are " + strings.Join(known, ", ") + ")"
}

// structInfo is a struct type's JSON members.
type structInfo struct {
	names  []string         // in declaration order
	byName map[string][]int // field index paths, through embedded structs
}

var structInfos sync.Map // reflect.Type → *structInfo

func structInfoOf(t reflect.Type) *structInfo {
	if v, ok := structInfos.Load(t); ok {
		return v.(*structInfo)
	}
	info := &structInfo{byName: make(map[string][]int)}
	collectFields(t, nil, info, map[reflect.Type]bool{})
	v, _ := structInfos.LoadOrStore(t, info)
	return v.(*structInfo)
}

// collectFields follows encoding/json: exported fields by their tag name (or
// Go name), "-" left out, untagged embedded structs flattened; a name at a
// shallower depth wins, and names clashing at one depth are left out.
func collectFields(t reflect.Type, index []int, info *structInfo, visiting map[reflect.Type]bool) {
	if visiting[t] {
		return
	}
	visiting[t] = true
	defer delete(visiting, t)
	type field struct {
		name  string
		index []int
	}
	var direct []field
	var embedded [][]int
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",string,") {
			panic(fmt.Sprintf("strictjson: %s.%s: the \",string\" option is not supported", t, f.Name))
		}
		idx := append(append([]int(nil), index...), i)
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				if !f.IsExported() {
					continue // a pointer to an unexported struct: encoding/json cannot set it either
				}
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				embedded = append(embedded, idx)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		direct = append(direct, field{name, idx})
	}
	for _, f := range direct {
		if _, dup := info.byName[f.name]; !dup {
			info.names = append(info.names, f.name)
			info.byName[f.name] = f.index
		}
	}
	shallow := make(map[string]bool, len(info.byName))
	for name := range info.byName {
		shallow[name] = true
	}
	deeper := &structInfo{byName: make(map[string][]int)}
	clash := map[string]bool{}
	for _, idx := range embedded {
		ft := t.FieldByIndex(idx[len(index):])
		et := ft.Type
		if et.Kind() == reflect.Pointer {
			et = et.Elem()
		}
		sub := &structInfo{byName: make(map[string][]int)}
		collectFields(et, idx, sub, visiting)
		for _, name := range sub.names {
			if shallow[name] {
				continue
			}
			if _, dup := deeper.byName[name]; dup {
				clash[name] = true
				continue
			}
			deeper.names = append(deeper.names, name)
			deeper.byName[name] = sub.byName[name]
		}
	}
	for _, name := range deeper.names {
		if !clash[name] {
			info.names = append(info.names, name)
			info.byName[name] = deeper.byName[name]
		}
	}
}

// fieldByIndex is v.FieldByIndex, allocating embedded pointers on the way.
func fieldByIndex(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}
