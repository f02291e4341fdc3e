// Package schema compiles tool input schemas and validates arguments against
// them with santhosh-tekuri/jsonschema/v6, reporting every violation with its
// data path. It never loads a schema from a file or the network.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Violation is one failed constraint: a JSON pointer into the instance and a message.
type Violation struct {
	Path    string
	Message string
}

// Schema is a compiled schema, safe for concurrent use.
type Schema struct {
	s *jsonschema.Schema
	// anyObject: the schema accepts every JSON object, so validating an
	// object needs no decoding at all (common for raw and upstream tools).
	anyObject bool
}

// refuseLoader refuses every external reference: schemas are self-contained.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema reference %q is not allowed: schemas must be self-contained", url)
}

// MaxObjects bounds the JSON objects of one schema document. The
// compiler's time grows with the square of a schema's size (santhosh-tekuri/
// jsonschema#266): measured, 4,000 properties 0.18 s, 16,000 1.7 s, and
// twice that when each is a $ref into $defs; a tool's schema from an
// upstream server or an API description could stall Build for minutes.
// GitHub's largest input schema has 267 objects.
const MaxObjects = 4000

// Doc is a schema document read, not yet compiled.
type Doc struct {
	v any
	// Objects is how many JSON objects it holds: what its compiling costs.
	Objects int
}

// Parse reads a schema document, refusing one of more than MaxObjects
// objects.
func Parse(doc json.RawMessage) (Doc, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return Doc{}, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	n := countObjects(v, MaxObjects+1)
	if n > MaxObjects {
		return Doc{}, fmt.Errorf("the schema has more than %d JSON objects, more than a tool's schema may have: compiling one takes time that grows with the square of its size", MaxObjects)
	}
	return Doc{v: v, Objects: n}, nil
}

// countObjects counts v's objects, stopping once there are max.
func countObjects(v any, max int) int {
	n := 0
	var walk func(any)
	walk = func(v any) {
		if n >= max {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			n++
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return n
}

// Compile compiles a JSON Schema document. Draft 2020-12 is assumed unless
// the document names another with "$schema".
func Compile(doc json.RawMessage) (*Schema, error) {
	d, err := Parse(doc)
	if err != nil {
		return nil, err
	}
	return d.Compile()
}

// Compile compiles d.
func (d Doc) Compile() (*Schema, error) {
	v := d.v
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	const url = "mem:///schema.json"
	if err := c.AddResource(url, v); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return &Schema{s: s, anyObject: acceptsAnyObject(v)}, nil
}

// acceptsAnyObject reports whether a schema document constrains nothing but
// "type": "object": only annotations, empty properties, additionalProperties
// true.
func acceptsAnyObject(doc any) bool {
	m, ok := doc.(map[string]any)
	if !ok || m["type"] != "object" {
		return false
	}
	for k, v := range m {
		switch k {
		case "type", "title", "description", "$schema", "$comment", "examples", "default":
		case "properties":
			if p, ok := v.(map[string]any); !ok || len(p) > 0 {
				return false
			}
		case "additionalProperties":
			if v != true {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// AcceptsAnyObject reports whether every JSON object is valid: a caller that
// knows its instance is an object can skip Decode and Validate.
func (s *Schema) AcceptsAnyObject() bool { return s.anyObject }

// Decode parses JSON for Validate. Numbers become float64, which the
// validator handles; json.Unmarshal is several times cheaper than the
// library's streaming decoder on the small documents tool arguments are.
func Decode(data []byte) (any, error) {
	var v any
	err := json.Unmarshal(data, &v)
	return v, err
}

var printer = message.NewPrinter(language.English)

// Validate checks an already decoded instance (see Decode) and returns every
// violation, sorted by path, or nil.
func (s *Schema) Validate(v any) []Violation {
	err := s.s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Violation{{Path: "", Message: err.Error()}}
	}
	var out []Violation
	collect(ve, &out)
	if len(out) == 0 {
		out = append(out, Violation{Path: pointer(ve.InstanceLocation), Message: ve.ErrorKind.LocalizedString(printer)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return dedupe(out)
}

// collect gathers the leaf errors: the concrete constraints that failed, not
// the "doesn't validate with ..." wrappers around them.
func collect(e *jsonschema.ValidationError, out *[]Violation) {
	if len(e.Causes) == 0 {
		switch e.ErrorKind.(type) {
		case *kind.Group, *kind.Reference, *kind.Schema:
			return
		}
		if k, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
			sort.Strings(k.Properties) // the library lists them in map order
		}
		*out = append(*out, Violation{Path: pointer(e.InstanceLocation), Message: e.ErrorKind.LocalizedString(printer)})
		return
	}
	for _, c := range e.Causes {
		collect(c, out)
	}
}

func dedupe(vs []Violation) []Violation {
	out := vs[:0]
	for i, v := range vs {
		if i > 0 && v == vs[i-1] {
			continue
		}
		out = append(out, v)
	}
	return out
}

func pointer(loc []string) string {
	if len(loc) == 0 {
		return ""
	}
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		tok = strings.ReplaceAll(tok, "~", "~0")
		b.WriteString(strings.ReplaceAll(tok, "/", "~1"))
	}
	return b.String()
}
