package defs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Schemas are edited as a tree of nil, bool, json.Number, string, []any and
// *object. object keeps its keys in document order: the order a model reads
// them in (and, under constrained decoding, writes them in) should be the
// order their authors chose, and goldens should not depend on map order.

type member struct {
	key string
	val any
}

type object struct{ members []member }

func obj(kv ...any) *object {
	o := &object{}
	for i := 0; i+1 < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o
}

func (o *object) get(k string) (any, bool) {
	for _, m := range o.members {
		if m.key == k {
			return m.val, true
		}
	}
	return nil, false
}

// set replaces k's value in place or appends k.
func (o *object) set(k string, v any) {
	for i := range o.members {
		if o.members[i].key == k {
			o.members[i].val = v
			return
		}
	}
	o.members = append(o.members, member{k, v})
}

func (o *object) del(k string) {
	for i, m := range o.members {
		if m.key == k {
			o.members = append(o.members[:i], o.members[i+1:]...)
			return
		}
	}
}

// maxParseDepth is how deeply parse nests arrays and objects: as deeply as
// encoding/json reads, which the engine validates arguments with, so
// nothing parse refuses would have passed validation.
const maxParseDepth = 10000

// parse decodes JSON into the tree, keeping numbers exact. A repeated key
// keeps its first position and its last value, as encoding/json reads it,
// so the tree, encoded again, repeats no key. It takes time linear in the
// size of data: Drop parses a model's arguments, whose size is the model's.
func parse(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	v, err := parseValue(d, 1)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

func parseValue(d *json.Decoder, depth int) (any, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'), json.Delim('['):
		if depth > maxParseDepth {
			return nil, fmt.Errorf("arrays and objects nest more than %d levels deep", maxParseDepth)
		}
	}
	switch t {
	case json.Delim('{'):
		var b objectBuilder
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := parseValue(d, depth+1)
			if err != nil {
				return nil, err
			}
			b.add(k.(string), v)
		}
		_, err := d.Token() // '}'
		return &b.o, err
	case json.Delim('['):
		a := []any{}
		for d.More() {
			v, err := parseValue(d, depth+1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := d.Token() // ']'
		return a, err
	}
	return t, nil // nil, bool, json.Number, string
}

// objectBuilder builds an object member by member, a repeated key keeping
// its first position and taking the last value. It finds repeats by
// scanning while the object is small and through an index from
// indexMembers members on, so an object of n members costs O(n), where
// calling set for each would cost O(n²).
type objectBuilder struct {
	o     object
	index map[string]int // position of each key, once the object has indexMembers members
}

const indexMembers = 16

func (b *objectBuilder) add(k string, v any) {
	if b.index == nil && len(b.o.members) >= indexMembers {
		b.index = make(map[string]int, 2*len(b.o.members))
		for i, m := range b.o.members {
			b.index[m.key] = i
		}
	}
	if b.index == nil {
		b.o.set(k, v)
		return
	}
	if i, ok := b.index[k]; ok {
		b.o.members[i].val = v
		return
	}
	b.index[k] = len(b.o.members)
	b.o.members = append(b.o.members, member{k, v})
}

func clone(v any) any {
	switch v := v.(type) {
	case *object:
		c := &object{members: make([]member, len(v.members))}
		for i, m := range v.members {
			c.members[i] = member{m.key, clone(m.val)}
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = clone(e)
		}
		return c
	}
	return v
}

// encode writes v as compact JSON without HTML escaping: schemas carry
// patterns and descriptions where "<" and "&" should stay readable.
func encode(buf *bytes.Buffer, v any) error {
	e := json.NewEncoder(buf)
	e.SetEscapeHTML(false)
	return encodeValue(buf, e, v)
}

// encodeValue writes v to buf, scalars through e, which writes to buf too.
func encodeValue(buf *bytes.Buffer, e *json.Encoder, v any) error {
	switch v := v.(type) {
	case *object:
		buf.WriteByte('{')
		for i, m := range v.members {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := encodeScalar(buf, e, m.key); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := encodeValue(buf, e, m.val); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case []any:
		buf.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := encodeValue(buf, e, x); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	}
	return encodeScalar(buf, e, v)
}

// encodeScalar writes v through e, without the newline e ends it with.
func encodeScalar(buf *bytes.Buffer, e *json.Encoder, v any) error {
	if err := e.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1)
	return nil
}

func marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := encode(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
