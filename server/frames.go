package server

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/codemode-dev/codemode/engine"
)

// field is a member added to an event's JSON object.
type field struct {
	name  string
	value json.RawMessage
}

// withFields adds members at the end of a JSON object, leaving the rest
// byte for byte as it was: the engine's events keep their own encoding, and
// the server only appends what it knows (boardId, change, result, board).
func withFields(obj []byte, fields ...field) []byte {
	if len(fields) == 0 {
		return obj
	}
	var b bytes.Buffer
	b.Grow(len(obj) + 64)
	b.Write(obj[:len(obj)-1]) // without the closing brace
	for _, f := range fields {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(jsonString(f.name))
		b.WriteByte(':')
		b.Write(f.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// eventJSON is the engine's JSON of an event.
func eventJSON(ev engine.Event) []byte {
	return mustJSON(ev)
}

// mustJSON encodes values that cannot fail to encode (plain structs, valid
// raw JSON): a failure is a bug, reported as a panic the handler recovers.
// HTML is not escaped: SVG fragments read as SVG on the wire.
func mustJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("server: encoding %T: %v", v, err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func jsonString(s string) []byte { return mustJSON(s) }

// frame is one server-sent event: its id (none on a run's own stream, which
// cannot be resumed), its type and its data, which is one line of JSON.
func frame(id, typ string, data []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(data) + len(typ) + len(id) + 24)
	if id != "" {
		b.WriteString("id: ")
		b.WriteString(id)
		b.WriteByte('\n')
	}
	b.WriteString("event: ")
	b.WriteString(typ)
	b.WriteString("\ndata: ")
	b.Write(data)
	b.WriteString("\n\n")
	return b.Bytes()
}
