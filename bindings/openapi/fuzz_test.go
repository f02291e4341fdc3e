package openapi_test

import (
	"os"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/bindings/openapi"
	"github.com/codemode-dev/codemode/engine"
)

// FuzzParse: no document makes Parse or Tools panic or hang, and the tools
// of every document Parse accepts are tools the engine builds: a schema
// keyword the engine's validator would refuse is left out, or Parse says
// what is wrong (or, for a schema over the engine's bounds on size, Build
// names the tool).
func FuzzParse(f *testing.F) {
	pets, err := os.ReadFile("testdata/pets.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(pets)
	f.Add([]byte(`{"openapi": "3.1.0", "paths": {"/a/{b}": {"parameters": [{"name": "b", "in": "path", "schema": {"type": ["string", "null"]}}],
		"post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}}, "responses": {"201": {"description": "",
		"content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}}}}}},
		"components": {"schemas": {"A": {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/A"}, "n": {"type": "integer", "exclusiveMinimum": 0}}}}}}`))
	f.Add([]byte("openapi: 3.0.0\npaths:\n  /x:\n    get:\n      parameters: [{$ref: '#/components/parameters/p'}]\ncomponents:\n  parameters:\n    p: {name: q, in: query, schema: {type: array, items: {type: string}}}\n"))
	f.Add([]byte(`{"openapi": "3.0.3", "paths": {"/a": {"post": {"requestBody": {"content": {"application/json": {"schema": {"type": "object",
		"dependencies": {"a": ["b"], "b": {"required": ["a"]}}, "items": [{"type": "string"}], "additionalItems": false, "allOf": [],
		"dependentRequired": 5, "$anchor": 5, "$dynamicRef": "#x", "enum": [1, 1], "const": null, "minimum": 1e400}}}}}, "responses": {}}}}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		spec, err := openapi.Parse(doc)
		if err != nil {
			return
		}
		tools, err := openapi.Tools("f", spec, openapi.Options{BaseURL: "http://127.0.0.1:1"})
		if err != nil {
			t.Fatalf("Parse accepted the document but Tools refused it: %v", err)
		}
		if len(tools) != len(spec.Operations) {
			t.Fatalf("%d tools for %d operations", len(tools), len(spec.Operations))
		}
		// The engine's bounds on a schema's size are its own to enforce
		// (a document of chained $refs may reach them): Build names the
		// tool.
		if _, err := engine.NewBuilder().Add(tools...).Build(); err != nil && !strings.Contains(err.Error(), " JSON objects") {
			t.Fatalf("Parse and Tools accepted the document but Build refused it: %v\n%q", err, doc)
		}
	})
}
