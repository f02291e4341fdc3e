package defs

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hoisted runs BatchSchema in union form and returns the root $defs and the
// args schema of each branch, decoded, after checking the schema compiles.
func hoisted(t *testing.T, tools ...Tool) (defs map[string]any, args []any) {
	t.Helper()
	compileBatch(t, tools, unionOpts)
	doc, err := BatchSchema(tools, unionOpts)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Defs       map[string]any `json:"$defs"`
		Properties struct {
			Operations struct {
				Items struct {
					AnyOf []struct {
						Properties struct {
							Args any `json:"args"`
						} `json:"properties"`
					} `json:"anyOf"`
				} `json:"items"`
			} `json:"operations"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(doc, &s); err != nil {
		t.Fatal(err)
	}
	for _, b := range s.Properties.Operations.Items.AnyOf {
		args = append(args, b.Properties.Args)
	}
	delete(s.Defs, "label")
	delete(s.Defs, "ref")
	return s.Defs, args
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// placeholder is how union form wraps a top-level property schema.
func placeholder(p string) string { return `{"anyOf":[` + p + `,{"$ref":"#/$defs/ref"}]}` }

func TestEmbedRootRefs(t *testing.T) {
	// A recursive schema: "#" is the tool's root, so the root is hoisted
	// too; pointers into the root follow it there.
	tree := Tool{Name: "tree.add", InputSchema: json.RawMessage(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id": "https://example.com/tree.json",
		"type": "object",
		"properties": {
			"name": {"type": "string"},
			"children": {"type": "array", "items": {"$ref": "#"}},
			"alias": {"$ref": "#/properties/name"},
			"other": {"$ref": "https://example.com/tree.json#/$defs/Leaf"}
		},
		"$defs": {"Leaf": {"type": "string"}}
	}`)}
	defs, args := hoisted(t, tree)
	root := `{"type":"object","properties":{
		"name":{"type":"string"},
		"children":{"type":"array","items":{"$ref":"#/$defs/tree.add.root"}},
		"alias":{"$ref":"#/$defs/tree.add.root/properties/name"},
		"other":{"$ref":"#/$defs/tree.add.Leaf"}}}`
	want := map[string]any{"tree.add.Leaf": decode(t, `{"type":"string"}`), "tree.add.root": decode(t, root)}
	if diff := cmp.Diff(want, defs); diff != "" {
		t.Errorf("$defs (-want +got):\n%s", diff)
	}
	wantArgs := `{"type":"object","properties":{
		"name":` + placeholder(`{"type":"string"}`) + `,
		"children":` + placeholder(`{"type":"array","items":{"$ref":"#/$defs/tree.add.root"}}`) + `,
		"alias":` + placeholder(`{"$ref":"#/$defs/tree.add.root/properties/name"}`) + `,
		"other":` + placeholder(`{"$ref":"#/$defs/tree.add.Leaf"}`) + `}}`
	if diff := cmp.Diff(decode(t, wantArgs), args[0]); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	s := compileBatch(t, []Tool{tree}, unionOpts)
	ok := request(`{"tool":"tree.add","args":{"name":"a","children":[{"name":"b","children":[{"name":"c"}]}]}}`)
	bad := request(`{"tool":"tree.add","args":{"name":"a","children":[{"name":"b","children":[{"name":3}]}]}}`)
	if vs := violations(t, s, ok); len(vs) != 0 {
		t.Errorf("recursive args rejected: %v", vs)
	}
	if vs := violations(t, s, bad); len(vs) == 0 {
		t.Error("a wrong type deep in the recursion was accepted")
	}
}

func TestEmbedNames(t *testing.T) {
	// "a.b" + "c" and "a" + "b.c" would both be "a.b.c"; definitions and
	// $defs of one tool share a namespace; odd characters are escaped.
	ab := Tool{Name: "a.b", InputSchema: json.RawMessage(`{"type":"object",
		"properties":{"p":{"$ref":"#/$defs/c"}},"$defs":{"c":{"type":"integer"}}}`)}
	a := Tool{Name: "a", InputSchema: json.RawMessage(`{"type":"object",
		"properties":{"p":{"$ref":"#/definitions/b.c"},"q":{"$ref":"#/$defs/b.c"},"r":{"$ref":"#/$defs/x~1y%20z~0"}},
		"definitions":{"b.c":{"type":"string"}},
		"$defs":{"b.c":{"type":"boolean"},"x/y z~":{"type":"null"}}}`)}
	defs, args := hoisted(t, ab, a)
	want := map[string]any{
		"a.b.c":    decode(t, `{"type":"integer"}`),
		"a.b.c-2":  decode(t, `{"type":"boolean"}`),
		"a.b.c-3":  decode(t, `{"type":"string"}`),
		"a.x/y z~": decode(t, `{"type":"null"}`),
	}
	if diff := cmp.Diff(want, defs); diff != "" {
		t.Errorf("$defs (-want +got):\n%s", diff)
	}
	wantArgs := []any{
		decode(t, `{"type":"object","properties":{"p":`+placeholder(`{"$ref":"#/$defs/a.b.c"}`)+`}}`),
		decode(t, `{"type":"object","properties":{
			"p":`+placeholder(`{"$ref":"#/$defs/a.b.c-3"}`)+`,
			"q":`+placeholder(`{"$ref":"#/$defs/a.b.c-2"}`)+`,
			"r":`+placeholder(`{"$ref":"#/$defs/a.x~1y%20z~0"}`)+`}}`),
	}
	if diff := cmp.Diff(wantArgs, args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	s := compileBatch(t, []Tool{ab, a}, unionOpts)
	for inst, want := range map[string]bool{
		request(`{"tool":"a.b","args":{"p":1}}`):                    true,
		request(`{"tool":"a.b","args":{"p":"1"}}`):                  false,
		request(`{"tool":"a","args":{"p":"s","q":true,"r":null}}`):  true,
		request(`{"tool":"a","args":{"p":"s","q":true,"r":false}}`): false,
	} {
		if got := len(violations(t, s, inst)) == 0; got != want {
			t.Errorf("%s: accepted = %v, want %v", inst, got, want)
		}
	}
}

func TestEmbedLeavesDataAlone(t *testing.T) {
	// Only keywords are walked: a property named "$ref", "$ref" inside enum
	// or default data, and a subschema with its own $id stay as written.
	// A draft-07 tuple is upgraded to prefixItems.
	tl := Tool{Name: "odd", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"$ref": {"type":"string","default":"#/$defs/X"},
		"e": {"enum":[{"$ref":"#/$defs/X"}]},
		"own": {"$id":"https://example.com/own.json","$defs":{"X":{"type":"string"}},"$ref":"#/$defs/X"},
		"pair": {"type":"array","items":[{"type":"string"},{"$ref":"#/$defs/X"}],"additionalItems":false}
	},"$defs":{"X":{"type":"number"}}}`)}
	defs, args := hoisted(t, tl)
	wantArgs := `{"type":"object","properties":{
		"$ref":` + placeholder(`{"type":"string","default":"#/$defs/X"}`) + `,
		"e":` + placeholder(`{"enum":[{"$ref":"#/$defs/X"}]}`) + `,
		"own":` + placeholder(`{"$id":"https://example.com/own.json","$defs":{"X":{"type":"string"}},"$ref":"#/$defs/X"}`) + `,
		"pair":` + placeholder(`{"type":"array","prefixItems":[{"type":"string"},{"$ref":"#/$defs/odd.X"}],"items":false}`) + `}}`
	if diff := cmp.Diff(decode(t, wantArgs), args[0]); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"odd.X": decode(t, `{"type":"number"}`)}, defs); diff != "" {
		t.Errorf("$defs (-want +got):\n%s", diff)
	}
}
