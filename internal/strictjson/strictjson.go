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
	"unicode/utf8"
)

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
	if errors.Is(err, io.EOF) {
		return "empty input: want a JSON object"
	}
	where, why := SyntaxProblem(data, err)
	if where == "" {
		return "malformed JSON: " + why
	}
	return "malformed JSON at " + where + ": " + why
}

// SyntaxProblem says where and why data is not JSON, from the error
// encoding/json returned decoding it: where is "line 2, column 11" (columns
// in characters), or "" when the error names no place (the input ended
// early); why is "invalid character 'x' looking for beginning of value", or
// "unexpected end of input". A caller reading a large document (a 13 MB
// API description) needs the where to find its mistake.
func SyntaxProblem(data []byte, err error) (where, why string) {
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "", "unexpected end of input"
	case errors.As(err, &syn):
		return position(data, int(syn.Offset)-1), strings.TrimPrefix(syn.Error(), "json: ")
	}
	return "", strings.TrimPrefix(err.Error(), "json: ")
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
