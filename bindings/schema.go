package bindings

import (
	"encoding/json"
	"reflect"

	"github.com/invopop/jsonschema"
)

// SchemaFor reflects T into a JSON Schema (draft 2020-12) whose root is the
// type's own schema — not a $ref into $defs, which MCP and model APIs reject —
// with the definitions of nested named types kept under $defs.
func SchemaFor[T any]() (json.RawMessage, error) {
	return SchemaOf(reflect.TypeFor[T]())
}

// SchemaOf is SchemaFor for a reflect.Type.
func SchemaOf(t reflect.Type) (json.RawMessage, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	r := &jsonschema.Reflector{Anonymous: true, ExpandedStruct: t.Kind() == reflect.Struct}
	s := r.ReflectFromType(t)
	s.Version = "" // draft 2020-12 is the engine's default; keep schemas short for models
	return json.Marshal(s)
}
