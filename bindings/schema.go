package bindings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"
)

// SchemaFor reflects T into a JSON Schema (draft 2020-12) whose root is the
// type's own schema — not a $ref into $defs, which MCP and model APIs reject —
// with the definitions of nested named types kept under $defs.
func SchemaFor[T any]() (json.RawMessage, error) {
	return SchemaOf(reflect.TypeFor[T]())
}

// SchemaOf is SchemaFor for a reflect.Type. Types that cannot be described
// in JSON (channels, functions) are an error.
func SchemaOf(t reflect.Type) (doc json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil { // invopop panics on unsupported types
			doc, err = nil, fmt.Errorf("cannot describe %v as JSON Schema: %v", t, p)
		}
	}()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	r := &jsonschema.Reflector{Anonymous: true}
	s := r.ReflectFromType(t)
	s.Version = "" // draft 2020-12 is the engine's default; keep schemas short for models
	if name, ok := strings.CutPrefix(s.Ref, "#/$defs/"); ok && s.Definitions[name] != nil {
		return marshalInlined(s, name)
	}
	return json.Marshal(s)
}

// marshalInlined marshals s, a root that is only a $ref to $defs[name], as
// that definition, keeping $defs for nested types, and keeping the
// definition itself only when something still refers to it (a type that
// contains itself). Marshalling is most of reflecting a schema, so the
// usual case, where nothing refers to it, marshals once.
func marshalInlined(s *jsonschema.Schema, name string) (json.RawMessage, error) {
	root := *s.Definitions[name]
	others := make(jsonschema.Definitions, len(s.Definitions))
	for k, v := range s.Definitions {
		if k != name {
			others[k] = v
		}
	}
	root.Definitions = nil
	if len(others) > 0 {
		root.Definitions = others
	}
	doc, err := json.Marshal(&root)
	if err != nil || !bytes.Contains(doc, []byte(`"#/$defs/`+name+`"`)) {
		return doc, err
	}
	root.Definitions = s.Definitions
	return json.Marshal(&root)
}
