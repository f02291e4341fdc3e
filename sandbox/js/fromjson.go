package js

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/dop251/goja"
)

// parseJSON is JSON.parse of JSON text the host made (a tool's result, the
// run's input), building the values in Go: plain objects and arrays made
// with NewObject and NewArray, never wrapped Go values. goja's JSON.parse
// goes through encoding/json's token decoder, which allocates for every
// token: ≈ 7 µs for {"ok":true,"n":3}, against ≈ 1 µs here. The decoder
// checks every 1024 values whether the run was ended, which goja's parse
// cannot, and refuses nesting deeper than maxJSONDepth (as JSON.parse in the
// sandbox does) instead of recursing natively without bound.
//
// The builtin stays the reference: text the decoder does not take as JSON,
// and numbers out of float64's range (which the builtin refuses), go to it,
// and get its value or its SyntaxError.
func (r *runner) parseJSON(text []byte) (goja.Value, error) {
	d := jsonDecoder{r: r, s: text}
	v := d.value(0)
	if d.space(); d.stop == nil && d.i == len(d.s) {
		return v, nil
	}
	switch d.stop {
	case errJSONKilled:
		return nil, r.killErr.Load()
	case errJSONTooDeep:
		return nil, d.stop
	}
	return r.jsonParse(goja.Undefined(), r.vm.ToValue(string(text)))
}

var (
	errJSONTooDeep = errors.New("JSON nested too deeply (the limit is " + strconv.Itoa(maxJSONDepth) + " levels)")
	errJSONKilled  = errors.New("the run was ended")
	errJSONOther   = errors.New("left to the builtin") // not JSON, or a number out of range
)

// jsonDecoder decodes JSON text into goja values.
type jsonDecoder struct {
	r    *runner
	s    []byte
	i    int
	made int   // values, for the check whether the run was ended
	stop error // why it stopped; nil while all is well
}

func (d *jsonDecoder) fail(err error) goja.Value {
	if d.stop == nil {
		d.stop = err
	}
	return nil
}

// next is the byte at d.i after white space, or 0 at the end.
func (d *jsonDecoder) next() byte {
	if d.space(); d.i < len(d.s) {
		return d.s[d.i]
	}
	return 0
}

// value decodes the value at d.i, nested in depth arrays and objects.
func (d *jsonDecoder) value(depth int) goja.Value {
	if d.made++; d.made%1024 == 0 && d.r.killErr.Load() != nil {
		return d.fail(errJSONKilled)
	}
	vm := d.r.vm
	switch c := d.next(); c {
	case '{':
		if depth++; depth > maxJSONDepth {
			return d.fail(errJSONTooDeep)
		}
		d.i++
		o := vm.NewObject()
		if d.next() == '}' {
			d.i++
			return o
		}
		for {
			if d.next() != '"' {
				return d.fail(errJSONOther)
			}
			k, ok := d.str()
			if !ok || d.next() != ':' {
				return d.fail(errJSONOther)
			}
			d.i++
			v := d.value(depth)
			if d.stop != nil {
				return nil
			}
			// Defined, not set: a key "__proto__" is an own property, as
			// JSON.parse makes it, and no setter of Object.prototype runs.
			_ = o.DefineDataProperty(k, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
			switch d.next() {
			case ',':
				d.i++
			case '}':
				d.i++
				return o
			default:
				return d.fail(errJSONOther)
			}
		}
	case '[':
		if depth++; depth > maxJSONDepth {
			return d.fail(errJSONTooDeep)
		}
		d.i++
		var items []any
		if d.next() == ']' {
			d.i++
			return vm.NewArray()
		}
		for {
			v := d.value(depth)
			if d.stop != nil {
				return nil
			}
			items = append(items, v)
			switch d.next() {
			case ',':
				d.i++
			case ']':
				d.i++
				return vm.NewArray(items...)
			default:
				return d.fail(errJSONOther)
			}
		}
	case '"':
		s, ok := d.str()
		if !ok {
			return d.fail(errJSONOther)
		}
		return vm.ToValue(s)
	case 't':
		return d.literal("true", vm.ToValue(true))
	case 'f':
		return d.literal("false", vm.ToValue(false))
	case 'n':
		return d.literal("null", goja.Null())
	default:
		return d.number()
	}
}

func (d *jsonDecoder) literal(word string, v goja.Value) goja.Value {
	if len(d.s)-d.i < len(word) || string(d.s[d.i:d.i+len(word)]) != word {
		return d.fail(errJSONOther)
	}
	d.i += len(word)
	return v
}

// number decodes -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *jsonDecoder) number() goja.Value {
	start := d.i
	digits := func() int {
		n := 0
		for d.i < len(d.s) && d.s[d.i] >= '0' && d.s[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.i < len(d.s) && d.s[d.i] == '-' {
		d.i++
	}
	if d.i < len(d.s) && d.s[d.i] == '0' {
		d.i++
	} else if digits() == 0 {
		return d.fail(errJSONOther)
	}
	if d.i < len(d.s) && d.s[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return d.fail(errJSONOther)
		}
	}
	if d.i < len(d.s) && (d.s[d.i] == 'e' || d.s[d.i] == 'E') {
		d.i++
		if d.i < len(d.s) && (d.s[d.i] == '+' || d.s[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return d.fail(errJSONOther)
		}
	}
	f, err := strconv.ParseFloat(string(d.s[start:d.i]), 64)
	if err != nil {
		return d.fail(errJSONOther) // out of range: the builtin throws
	}
	return d.r.vm.ToValue(f)
}

func (d *jsonDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// str decodes the string at d.i (at its opening quote). ASCII without
// escapes is copied as it is; the rest is unquoted by encoding/json, as the
// builtin's decoder does (invalid UTF-8 and lone surrogates become U+FFFD).
func (d *jsonDecoder) str() (string, bool) {
	start := d.i
	d.i++
	plain := true
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			if plain {
				return string(d.s[start+1 : d.i-1]), true
			}
			var s string
			if err := json.Unmarshal(d.s[start:d.i], &s); err != nil {
				return "", false
			}
			return s, true
		case c < 0x20:
			return "", false
		case c == '\\':
			plain = false
			d.i += 2 // the escape's letter (or the u of \uXXXX, whose digits follow): checked by Unmarshal
		case c >= 0x80:
			plain = false
			d.i++
		default:
			d.i++
		}
	}
	return "", false
}
