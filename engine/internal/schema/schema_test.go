package schema

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustCompile(t testing.TB, doc string) *Schema {
	t.Helper()
	s, err := Compile(json.RawMessage(doc))
	if err != nil {
		t.Fatalf("Compile(%s): %v", doc, err)
	}
	return s
}

func validate(t testing.TB, s *Schema, instance string) []Violation {
	t.Helper()
	v, err := Decode([]byte(instance))
	if err != nil {
		t.Fatalf("Decode(%s): %v", instance, err)
	}
	return s.Validate(v)
}

func TestCompileRefusesExternalReferences(t *testing.T) {
	// A file the default loader could read and that would compile fine: if
	// Compile read it, it would succeed.
	dir := t.TempDir()
	local := filepath.Join(dir, "string.json")
	if err := os.WriteFile(local, []byte(`{"type":"string"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	localURL := "file://" + filepath.ToSlash(local)

	for _, tc := range []struct {
		desc, doc, url string
	}{
		{"file in a property", `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`, "file:///etc/passwd"},
		{"readable local file", `{"type":"object","properties":{"a":{"$ref":"` + localURL + `"}}}`, localURL},
		{"http at the root", `{"$ref":"http://example.com/schema.json"}`, "http://example.com/schema.json"},
		{"https in $defs", `{"type":"object","$defs":{"x":{"$ref":"https://example.com/x.json#/y"}},"properties":{"a":{"$ref":"#/$defs/x"}}}`, "https://example.com/x.json"},
		{"relative reference", `{"type":"object","properties":{"a":{"$ref":"other.json"}}}`, "other.json"},
		{"unknown metaschema", `{"$schema":"http://example.com/meta","type":"object"}`, "http://example.com/meta"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, err := Compile(json.RawMessage(tc.doc))
			if err == nil {
				t.Fatalf("Compile(%s) = %v, want an error", tc.doc, s)
			}
			msg := err.Error()
			if !strings.Contains(msg, "is not allowed") || !strings.Contains(msg, "self-contained") {
				t.Errorf("Compile(%s) error = %q, want it to say external references are not allowed", tc.doc, msg)
			}
			if !strings.Contains(msg, tc.url) {
				t.Errorf("Compile(%s) error = %q, want it to name %q", tc.doc, msg, tc.url)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct {
		desc, doc, want string
	}{
		{"truncated", `{"type":`, "not valid JSON"},
		{"trailing garbage", `{"type":"object"} x`, "not valid JSON"},
		{"empty", ``, "not valid JSON"},
		{"not JSON at all", `type: object`, "not valid JSON"},
		{"dangling local ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/nope"}}}`, "not found"},
		{"invalid against the metaschema", `{"type":"frob"}`, "metaschema"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := Compile(json.RawMessage(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Compile(%s) error = %v, want one containing %q", tc.doc, err, tc.want)
			}
		})
	}
}

func TestCompileDefaultsToDraft2020(t *testing.T) {
	for _, tc := range []struct {
		desc, doc, instance string
		want                []Violation
	}{
		{
			desc:     "prefixItems without $schema",
			doc:      `{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}`,
			instance: `[1, "x", true]`,
			want: []Violation{
				{Path: "/0", Message: "got number, want string"},
				{Path: "/1", Message: "got string, want integer"},
			},
		},
		{
			desc:     "items after prefixItems",
			doc:      `{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`,
			instance: `["a", 1, "b"]`,
			want:     []Violation{{Path: "/2", Message: "got string, want integer"}},
		},
		{
			desc:     "$defs and dependentRequired",
			doc:      `{"type":"object","$defs":{"pos":{"type":"integer","minimum":1}},"properties":{"n":{"$ref":"#/$defs/pos"}},"dependentRequired":{"n":["m"]}}`,
			instance: `{"n": 0}`,
			want: []Violation{
				{Path: "", Message: "properties 'm' required, if 'n' exists"},
				{Path: "/n", Message: "minimum: got 0, want 1"},
			},
		},
		{
			desc:     "draft-07 when asked: array items is a tuple",
			doc:      `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"string"}]}`,
			instance: `[1]`,
			want:     []Violation{{Path: "/0", Message: "got number, want string"}},
		},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s := mustCompile(t, tc.doc)
			if diff := cmp.Diff(tc.want, validate(t, s, tc.instance)); diff != "" {
				t.Errorf("Validate(%s) mismatch (-want +got):\n%s", tc.instance, diff)
			}
		})
	}
}

const shapes = `{
	"type": "object",
	"required": ["name", "points"],
	"properties": {
		"name": {"type": "string", "minLength": 1},
		"color": {"enum": ["red", "blue"]},
		"points": {
			"type": "array",
			"items": {
				"type": "object",
				"required": ["x", "y"],
				"properties": {"x": {"type": "number"}, "y": {"type": "number"}},
				"additionalProperties": false
			}
		},
		"grid": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
		"meta": {"type": "object", "additionalProperties": {"type": "integer"}}
	},
	"additionalProperties": false
}`

func TestValidate(t *testing.T) {
	s := mustCompile(t, shapes)
	for _, tc := range []struct {
		desc, instance string
		want           []Violation
	}{
		{
			desc:     "valid",
			instance: `{"name":"n","points":[{"x":1,"y":2.5}],"grid":[[1,2],[]],"meta":{"a/b":1,"c~d":2},"color":"red"}`,
			want:     nil,
		},
		{
			desc:     "required at the root",
			instance: `{}`,
			want:     []Violation{{Path: "", Message: "missing properties 'name', 'points'"}},
		},
		{
			desc:     "not an object",
			instance: `[]`,
			want:     []Violation{{Path: "", Message: "got array, want object"}},
		},
		{
			desc:     "null",
			instance: `null`,
			want:     []Violation{{Path: "", Message: "got null, want object"}},
		},
		{
			desc: "every violation, sorted by path",
			instance: `{
				"zz": 1,
				"name": "",
				"color": "green",
				"points": [{"x": 1, "y": "2"}, {"x": 1, "z": 3}, [], {"x": 1, "y": 2}],
				"grid": [[1, 2], [3, "four", 5.5]],
				"meta": {"a/b": "x", "c~d": 1.5, "ok": 1, "~/": true, "": null}
			}`,
			want: []Violation{
				{Path: "", Message: "additional properties 'zz' not allowed"},
				{Path: "/color", Message: "value must be one of 'red', 'blue'"},
				{Path: "/grid/1/1", Message: "got string, want integer"},
				{Path: "/grid/1/2", Message: "got number, want integer"},
				{Path: "/meta/", Message: "got null, want integer"},
				{Path: "/meta/a~1b", Message: "got string, want integer"},
				{Path: "/meta/c~0d", Message: "got number, want integer"},
				{Path: "/meta/~0~1", Message: "got boolean, want integer"},
				{Path: "/name", Message: "minLength: got 0, want 1"},
				{Path: "/points/0/y", Message: "got string, want number"},
				{Path: "/points/1", Message: "missing property 'y'"},
				{Path: "/points/1", Message: "additional properties 'z' not allowed"},
				{Path: "/points/2", Message: "got array, want object"},
			},
		},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			got := validate(t, s, tc.instance)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Validate(%s) mismatch (-want +got):\n%s", tc.instance, diff)
			}
		})
	}
}

func TestValidateCombinators(t *testing.T) {
	// Violations come from the failed leaves, not the "doesn't validate"
	// wrappers of allOf/$ref.
	s := mustCompile(t, `{
		"type": "object",
		"$defs": {"id": {"type": "string", "pattern": "^[a-z]+$"}},
		"properties": {
			"id": {"$ref": "#/$defs/id"},
			"n": {"allOf": [{"type": "integer"}, {"minimum": 10}]}
		}
	}`)
	got := validate(t, s, `{"id":"ABC","n":2.5}`)
	want := []Violation{
		{Path: "/id", Message: "'ABC' does not match pattern '^[a-z]+$'"},
		{Path: "/n", Message: "got number, want integer"},
		{Path: "/n", Message: "minimum: got 2.5, want 10"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Validate mismatch (-want +got):\n%s", diff)
	}
}

func TestValidateFalseSchema(t *testing.T) {
	s := mustCompile(t, `false`)
	got := validate(t, s, `{}`)
	if len(got) != 1 || got[0].Path != "" || got[0].Message == "" {
		t.Errorf("Validate against false = %+v, want one violation at the root", got)
	}
}

func TestAcceptsAnyObject(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want bool
	}{
		{`{"type":"object"}`, true},
		{`{"type":"object","properties":{},"description":"x"}`, true},
		{`{"type":"object","title":"t","$comment":"c","examples":[{}],"default":{}}`, true},
		{`{"type":"object","additionalProperties":true}`, true},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`, true},

		{`{"type":"object","required":["a"]}`, false},
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, false},
		{`{"type":"object","additionalProperties":false}`, false},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, false},
		{`{"type":"object","minProperties":1}`, false},
		{`{"type":"object","maxProperties":3}`, false},
		{`{"type":"object","patternProperties":{"^a":{"type":"string"}}}`, false},
		{`{"type":"object","propertyNames":{"pattern":"^a"}}`, false},
		{`{"type":"object","not":{}}`, false},
		{`{"type":"object","allOf":[{"required":["a"]}]}`, false},
		{`{"type":"object","$ref":"#/$defs/x","$defs":{"x":{"required":["a"]}}}`, false},
		{`{"type":"object","unevaluatedProperties":false}`, false},
		{`{"type":["object"]}`, false}, // conservative
		{`{"type":"array"}`, false},
		{`{}`, false}, // accepts every object, but also non-objects; conservative
		{`true`, false},
	} {
		s := mustCompile(t, tc.doc)
		if got := s.AcceptsAnyObject(); got != tc.want {
			t.Errorf("Compile(%s).AcceptsAnyObject() = %v, want %v", tc.doc, got, tc.want)
		}
		if s.AcceptsAnyObject() {
			for _, obj := range []string{`{}`, `{"a":1,"b":[null,{"c":"d"}]}`} {
				if vs := validate(t, s, obj); vs != nil {
					t.Errorf("Compile(%s) accepts any object, but Validate(%s) = %v", tc.doc, obj, vs)
				}
			}
		}
	}
}

func TestDecode(t *testing.T) {
	v, err := Decode([]byte(`{"a":[1,2.5,"x",true,null]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": []any{1.0, 2.5, "x", true, nil}}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("Decode mismatch (-want +got):\n%s", diff)
	}
	if _, err := Decode([]byte(`{"a":`)); err == nil {
		t.Error("Decode of truncated JSON: no error")
	}
}

func TestPointer(t *testing.T) {
	for _, tc := range []struct {
		loc  []string
		want string
	}{
		{nil, ""},
		{[]string{""}, "/"},
		{[]string{"a", "0", "b"}, "/a/0/b"},
		{[]string{"a/b"}, "/a~1b"},
		{[]string{"c~d"}, "/c~0d"},
		{[]string{"~1"}, "/~01"}, // ~ first, so a literal "~1" stays distinct from "/"
		{[]string{"/~"}, "/~1~0"},
	} {
		if got := pointer(tc.loc); got != tc.want {
			t.Errorf("pointer(%q) = %q, want %q", tc.loc, got, tc.want)
		}
	}
}

// fuzzSchema is the schema FuzzValidate checks instances against; fuzzValid
// is the same constraints written by hand.
const fuzzSchema = `{
	"type": "object",
	"required": ["name"],
	"properties": {
		"name": {"type": "string", "minLength": 1},
		"tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
		"n": {"type": "integer", "minimum": 0},
		"meta": {"type": "object", "additionalProperties": {"type": "boolean"}}
	},
	"additionalProperties": false
}`

func fuzzValid(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if name, ok := m["name"].(string); !ok || name == "" {
		return false
	}
	for k, x := range m {
		switch k {
		case "name":
		case "tags":
			tags, ok := x.([]any)
			if !ok || len(tags) > 3 {
				return false
			}
			for _, tag := range tags {
				if _, ok := tag.(string); !ok {
					return false
				}
			}
		case "n":
			n, ok := x.(float64)
			if !ok || n < 0 || n != math.Trunc(n) {
				return false
			}
		case "meta":
			meta, ok := x.(map[string]any)
			if !ok {
				return false
			}
			for _, b := range meta {
				if _, ok := b.(bool); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// resolve follows a JSON pointer into a decoded instance.
func resolve(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func FuzzValidate(f *testing.F) {
	for _, seed := range []string{
		`{"name":"a"}`,
		`{"name":"a","tags":["x","y"],"n":3,"meta":{"a/b":true,"c~d":false}}`,
		`{"name":""}`,
		`{"tags":[1,2,3,4],"n":-1.5,"meta":{"~/":1},"extra":null}`,
		`{"name":"a","n":1e300}`,
		`{"name":"é","n":0}`,
		`[]`,
		`null`,
		`"name"`,
		`{"name":"a","meta":{"":null,"/":[],"~":{}}}`,
	} {
		f.Add([]byte(seed))
	}
	s := mustCompile(f, fuzzSchema)
	if s.AcceptsAnyObject() {
		f.Fatal("the fuzz schema must constrain objects")
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data)
		if err != nil {
			return
		}
		vs := s.Validate(v)
		if want := fuzzValid(v); (len(vs) == 0) != want {
			t.Fatalf("Validate(%s) = %v, but by hand valid = %v", data, vs, want)
		}
		if vs != nil && len(vs) == 0 {
			t.Fatalf("Validate(%s) returned an empty non-nil slice", data)
		}
		if !sort.SliceIsSorted(vs, func(i, j int) bool { return vs[i].Path < vs[j].Path }) {
			t.Fatalf("Validate(%s) = %v: not sorted by path", data, vs)
		}
		for i, x := range vs {
			if x.Message == "" {
				t.Errorf("Validate(%s): violation %d has no message", data, i)
			}
			if _, ok := resolve(v, x.Path); !ok {
				t.Errorf("Validate(%s): path %q of %q does not point into the instance", data, x.Path, x.Message)
			}
			if i > 0 && x == vs[i-1] {
				t.Errorf("Validate(%s): %v reported twice", data, x)
			}
		}
	})
}

// FuzzAcceptsAnyObject checks the fast path's soundness: a schema that claims
// to accept every object accepts the objects it is shown.
func FuzzAcceptsAnyObject(f *testing.F) {
	for _, seed := range []string{
		`{"type":"object"}`,
		`{"type":"object","properties":{},"additionalProperties":true,"description":"d"}`,
		`{"type":"object","required":["a"]}`,
		`{"type":"object","properties":{"a":false}}`,
		`{"type":"object","default":{"a":1},"examples":[1]}`,
	} {
		f.Add([]byte(seed), []byte(`{"a":1}`))
	}
	f.Fuzz(func(t *testing.T, doc, instance []byte) {
		s, err := Compile(doc)
		if err != nil || !s.AcceptsAnyObject() {
			return
		}
		v, err := Decode(instance)
		if err != nil {
			return
		}
		if _, ok := v.(map[string]any); !ok {
			return
		}
		if vs := s.Validate(v); vs != nil {
			t.Fatalf("schema %s accepts any object, but Validate(%s) = %v", doc, instance, vs)
		}
	})
}

func TestAdditionalPropertiesListedInOrder(t *testing.T) {
	s, err := Compile(json.RawMessage(`{"type":"object","additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		v, _ := Decode([]byte(`{"zz":1,"extra":2,"mm":3}`))
		if got := s.Validate(v); len(got) != 1 || got[0].Message != "additional properties 'extra', 'mm', 'zz' not allowed" {
			t.Fatalf("got %v", got)
		}
	}
}
