package openapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/bindings/openapi"
	"github.com/codemode-dev/codemode/engine"
)

// The attacks of a review of this package, each on what it broke.

// oneTool binds a document of one operation and returns its tool and the
// requests its test API saw.
func oneTool(t *testing.T, doc string, opts openapi.Options, handle func(w http.ResponseWriter, r *http.Request)) (engine.Tool, func() []recorded) {
	t.Helper()
	srv, seen := petsAPI(t, handle)
	spec, err := openapi.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	opts.BaseURL = srv.URL + "/v1"
	tools, err := openapi.Tools("api", spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.NewBuilder().Add(tools...).Build(); err != nil {
		t.Fatal(err)
	}
	return tools[0], seen
}

// message is an error's message without its code, "" for nil.
func message(err error) string {
	var e *engine.Error
	if errors.As(err, &e) {
		return e.Message
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

func call(tl engine.Tool, args string) (json.RawMessage, error) {
	return tl.Handler(context.Background(), json.RawMessage(args))
}

// TestRefBomb: $refs outside the components, each pointing twice at the
// next, would double at every level (2^30 copies from 2 KB); the document
// is refused instead, quickly.
func TestRefBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","paths":{"/x":{"get":{"parameters":[{"name":"q","in":"query","schema":{"$ref":"#/x-d/d0"}}],"responses":{}}}},"x-d":{`)
	for i := range 30 {
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/x-d/d%d"},{"$ref":"#/x-d/d%d"}]},`, i, i+1, i+1)
	}
	b.WriteString(`"d30":{"type":"string"}}}`)
	start := time.Now()
	_, err := openapi.Parse([]byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "expand past 500000 objects") {
		t.Errorf("= %v", err)
	}
	t.Logf("refused in %v", time.Since(start))
}

// TestComponentFanOut: one large component used by every operation is
// copied into each tool's schema; the tools' schemas are bounded together.
func TestComponentFanOut(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","paths":{`)
	for i := range 700 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"/p%d":{"post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Big"}}}},"responses":{}}}`, i)
	}
	b.WriteString(`},"components":{"schemas":{"Big":{"type":"object","properties":{`)
	for i := range 4000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"property_number_%d":{"type":"string","maxLength":100}`, i)
	}
	b.WriteString(`}}}}}`)
	spec, err := openapi.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openapi.Tools("a", spec, openapi.Options{BaseURL: "http://127.0.0.1:1"}); err == nil || !strings.Contains(err.Error(), "schemas are over 64 MiB") {
		t.Errorf("= %v", err)
	}
}

const itemDoc = `{"openapi": "3.0.3", "paths": {"/café/{id}": {"delete": {"operationId": "del",
	"parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
	"responses": {"200": {"description": "", "content": {"application/json": {"schema": {"type": "object"}}}}}}}}}`

// TestPathStaysInItsPlace: a path argument can neither be empty (DELETE
// /items/ is the collection) nor climb out of the base path, even when the
// template has text Go would re-escape.
func TestPathStaysInItsPlace(t *testing.T) {
	tl, seen := oneTool(t, itemDoc, openapi.Options{}, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) })
	if _, err := call(tl, `{"id": ""}`); err == nil || !strings.Contains(err.Error(), "cannot be empty") {
		t.Errorf("an empty id: %v", err)
	}
	if _, err := call(tl, `{"id": "../../../admin"}`); err != nil {
		t.Fatal(err)
	}
	if got := seen(); len(got) != 1 || got[0].Path != "/v1/caf%C3%A9/..%2F..%2F..%2Fadmin" {
		t.Errorf("requests %+v", got)
	}
}

// TestOnlySecretsHidden: a credential is hidden in every form an API may
// quote it in; a header that is no credential (an API version) is not,
// so a result that holds its value (a date) comes back whole.
func TestOnlySecretsHidden(t *testing.T) {
	const key = "k3y/with<html>&slash"
	tl, _ := oneTool(t, itemDoc, openapi.Options{Headers: map[string]string{"X-Api-Key": key, "X-Api-Version": "2022-11-28"}},
		func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("fail") == "" && r.Header.Get("X-Api-Key") == key {
				b, _ := json.Marshal(map[string]string{"at": "2022-11-28T10:00:00Z", "echo": r.Header.Get("X-Api-Key")})
				w.Header().Set("Content-Type", "application/json")
				w.Write(b) // Go escapes < > & as \u003c \u003e \u0026
				return
			}
		})
	res, err := call(tl, `{"id": "1"}`)
	if err != nil || !strings.Contains(string(res), `"at":"2022-11-28T10:00:00Z"`) || strings.Contains(string(res), `k3y`) {
		t.Errorf("= %s, %v", res, err)
	}
	var v map[string]string
	if err := json.Unmarshal(res, &v); err != nil || v["echo"] != "[hidden]" {
		t.Errorf("the echoed key: %q, %v", v["echo"], err)
	}
}

// TestConfiguredHeadersWin: a model's header argument never replaces a
// configured header, and header parameters OpenAPI says to ignore
// (Authorization, Accept, Content-Type) are not offered at all.
func TestConfiguredHeadersWin(t *testing.T) {
	doc := `{"openapi": "3.0.3", "paths": {"/a": {"get": {"operationId": "a", "parameters": [
		{"name": "Authorization", "in": "header", "required": true, "schema": {"type": "string"}},
		{"name": "X-Tenant", "in": "header", "schema": {"type": "string"}},
		{"name": "session", "in": "cookie", "schema": {"type": "string"}}], "responses": {}}}}}`
	var got http.Header
	tl, _ := oneTool(t, doc, openapi.Options{Headers: map[string]string{"Authorization": "Bearer configured-token", "X-Tenant": "mine", "Cookie": "sso=1"}},
		func(w http.ResponseWriter, r *http.Request) { got = r.Header.Clone() })
	if strings.Contains(string(tl.InputSchema), "Authorization") {
		t.Errorf("the Authorization parameter is offered: %s", tl.InputSchema)
	}
	if _, err := call(tl, `{"X-Tenant": "theirs", "session": "s"}`); err != nil {
		t.Fatal(err)
	}
	if got.Get("Authorization") != "Bearer configured-token" || got.Get("X-Tenant") != "mine" || got.Get("Cookie") != "sso=1; session=s" {
		t.Errorf("headers %v", got)
	}
}

// TestArgumentNamesNeverShadowed: parameters of one name in different
// places, and parameters named like the body, all stay arguments.
func TestArgumentNamesNeverShadowed(t *testing.T) {
	doc := `{"openapi": "3.0.3", "paths": {"/a": {"post": {"operationId": "a", "parameters": [
		{"name": "header_x", "in": "query", "schema": {"type": "string"}},
		{"name": "x", "in": "query", "schema": {"type": "string"}},
		{"name": "x", "in": "header", "schema": {"type": "string"}},
		{"name": "body", "in": "query", "schema": {"type": "string"}}],
		"requestBody": {"content": {"application/json": {"schema": {"type": "array"}}}}, "responses": {}}}}}`
	tl, seen := oneTool(t, doc, openapi.Options{}, func(w http.ResponseWriter, r *http.Request) {})
	var s struct{ Properties map[string]any }
	json.Unmarshal(tl.InputSchema, &s)
	if len(s.Properties) != 5 {
		t.Errorf("%d arguments for 4 parameters and a body: %s", len(s.Properties), tl.InputSchema)
	}
	if _, err := call(tl, `{"header_x": "q1", "x": "q2", "header_x_2": "h", "body": "q3", "body_2": [1]}`); err != nil {
		t.Fatal(err)
	}
	if r := seen()[0]; r.Query != "body=q3&header_x=q1&x=q2" || r.Body != "[1]" {
		t.Errorf("request %+v", r)
	}
}

// TestSloppySchemas: what a validator would refuse in a schema (a
// lookahead key, a negative count, a list of numbers as required) is left
// out, so the API's other tools still build; draft 4's tuple items become
// prefixItems, and a readOnly member is not required of a request.
func TestSloppySchemas(t *testing.T) {
	doc := `{"openapi": "3.1.0", "paths": {"/a": {"post": {"operationId": "a", "requestBody": {"required": true,
		"content": {"application/json": {"schema": {"type": "object", "required": ["id", "name", 1, "name"],
		"properties": {"id": {"type": "integer", "readOnly": true}, "name": {"type": "string", "minLength": -1, "maxLength": 1.5},
		"tags": {"type": "object", "patternProperties": {"^(?!x-)": {"type": "string"}, "^y-": {"type": "string"}}},
		"pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
		"n": {"type": "number", "exclusiveMinimum": true, "minimum": 0, "multipleOf": 0, "enum": 3}}}}}}, "responses": {}}}}}`
	tl, _ := oneTool(t, doc, openapi.Options{}, func(w http.ResponseWriter, r *http.Request) {})
	for _, want := range []string{`"required":["name"]`, `"prefixItems":[`, `"^y-"`, `"exclusiveMinimum":0`} {
		if !strings.Contains(string(tl.InputSchema), want) {
			t.Errorf("schema lacks %s: %s", want, tl.InputSchema)
		}
	}
	for _, gone := range []string{`"minLength"`, `"maxLength"`, `(?!`, `"multipleOf"`, `"enum"`} {
		if strings.Contains(string(tl.InputSchema), gone) {
			t.Errorf("schema keeps %s: %s", gone, tl.InputSchema)
		}
	}
}

// TestInvalidUTF8Result: a JSON response's invalid UTF-8 becomes U+FFFD,
// which every model API takes.
func TestInvalidUTF8Result(t *testing.T) {
	tl, _ := oneTool(t, itemDoc, openapi.Options{}, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("{\"a\": \"\xff\xfe\"}"))
	})
	res, err := call(tl, `{"id": "1"}`)
	if err != nil || !utf8.Valid(res) || !json.Valid(res) {
		t.Errorf("= %q, %v", res, err)
	}
}

// TestLongNamespace: a namespace too long to leave its tools room is
// refused; every name stays within the namespace and OpenAI's 64.
func TestLongNamespace(t *testing.T) {
	spec, err := openapi.Parse([]byte(itemDoc))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openapi.Tools(strings.Repeat("n", 33), spec, openapi.Options{BaseURL: "http://127.0.0.1:1"}); err == nil {
		t.Error("a 33-character namespace was taken")
	}
	ns := strings.Repeat("n", 32)
	for _, n := range openapi.ToolNames(ns, spec) {
		if !strings.HasPrefix(n, ns+".") || len(n) > openapi.MaxNameChars {
			t.Errorf("name %s", n)
		}
	}
}

// chainDoc is a document of one operation whose body is component c0, in
// a chain of n components each only a $ref to the next; the last is end.
func chainDoc(n int, end string) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","paths":{"/x":{"post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/c0"}}}},"responses":{}}}},"components":{"schemas":{`)
	for i := range n - 1 {
		fmt.Fprintf(&b, `"c%d":{"$ref":"#/components/schemas/c%d"},`, i, i+1)
	}
	fmt.Fprintf(&b, `"c%d":%s}}}`, n-1, end)
	return []byte(b.String())
}

// TestLongRefChain: components that are only $refs to the next are
// followed once each, however long the chain: a walk from every component
// to the chain's end took 12 s for 2,000 links, and hours for a megabyte.
// A cycle of 100,000 is reported once, and its message stays short. The
// bound is a generous backstop: the walk is linear by construction.
func TestLongRefChain(t *testing.T) {
	const n = 100_000
	start := time.Now()
	spec, err := openapi.Parse(chainDoc(n, `{"type":"string"}`))
	if err != nil {
		t.Fatal(err)
	}
	tools, err := openapi.Tools("a", spec, openapi.Options{BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	// The engine refuses its schema at once: compiling it took 4 m 49 s.
	if _, err := engine.NewBuilder().Add(tools...).Build(); err == nil || !strings.Contains(err.Error(), "more than 4000 JSON objects") {
		t.Errorf("Build over a chain of %d: %v", n, err)
	}
	_, err = openapi.Parse(chainDoc(n, `{"$ref":"#/components/schemas/c0"}`))
	if err == nil || strings.Count(err.Error(), "a cycle of $refs") != 1 || !strings.Contains(err.Error(), "components.schemas.c0: a cycle of $refs that describes nothing: c0 → c1 → ") ||
		!strings.Contains(err.Error(), "(100000 components) → c0") || len(err.Error()) > 1000 {
		t.Errorf("a cycle of %d: %.2000v", n, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("two chains of %d components took %v", n, d)
	}
}

// TestDerefChain: a parameter's $ref may lead through 8 references; a
// ninth, or a cycle, is a problem at the first, not a hang.
func TestDerefChain(t *testing.T) {
	doc := func(hops int, last string) []byte {
		var b strings.Builder
		b.WriteString(`{"openapi":"3.0.3","paths":{"/x":{"get":{"parameters":[{"$ref":"#/components/parameters/p1"}],"responses":{}}}},"components":{"parameters":{`)
		for i := 1; i < hops; i++ {
			fmt.Fprintf(&b, `"p%d":{"$ref":"#/components/parameters/p%d"},`, i, i+1)
		}
		fmt.Fprintf(&b, `"p%d":%s}}}`, hops, last)
		return []byte(b.String())
	}
	q := `{"name":"q","in":"query","schema":{"type":"string"}}`
	if _, err := openapi.Parse(doc(8, q)); err != nil {
		t.Errorf("8 references: %v", err)
	}
	const want = `paths["/x"].get.parameters[0].$ref: a chain of more than 8 references`
	for _, c := range []struct {
		name string
		doc  []byte
	}{{"9 references", doc(9, q)}, {"a cycle", doc(3, `{"$ref":"#/components/parameters/p1"}`)}} {
		if _, err := openapi.Parse(c.doc); message(err) != want {
			t.Errorf("%s: %v, want %s", c.name, err, want)
		}
	}
}

// TestYAMLDepth: a YAML document nested past 200 is refused, whatever
// the nesting holds.
func TestYAMLDepth(t *testing.T) {
	for _, deep := range []string{strings.Repeat("[", 300) + strings.Repeat("]", 300), strings.Repeat("{a: ", 300) + "1" + strings.Repeat("}", 300)} {
		_, err := openapi.Parse([]byte("openapi: 3.0.0\npaths: {/a: {get: {responses: {}}}}\nx-deep: " + deep + "\n"))
		if err == nil || !strings.Contains(err.Error(), "not valid YAML: nested over 200 deep") {
			t.Errorf("%.20s…: %v", deep, err)
		}
	}
	if _, err := openapi.Parse([]byte("openapi: 3.0.0\npaths: {/a: {get: {responses: {}}}}\nx-deep: " + strings.Repeat("[", 150) + strings.Repeat("]", 150) + "\n")); err != nil {
		t.Errorf("150 deep: %v", err)
	}
}

// TestUnknownKeywords: a schema keyword the converter does not know, or
// one of a shape 2020-12 refuses, is left out, so that the engine builds
// every tool; draft 4's dependencies become dependentRequired and
// dependentSchemas, and a well-formed dependentRequired is kept.
func TestUnknownKeywords(t *testing.T) {
	doc := `{"openapi": "3.1.0", "paths": {"/a": {"post": {"operationId": "a", "requestBody": {
		"content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}}, "responses": {}}}},
		"components": {"schemas": {"A": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
		"dependentRequired": 5, "$anchor": 5, "dependencies": 3, "$vocabulary": 3, "$dynamicRef": "#x", "$dynamicAnchor": 1,
		"$ref": 4, "madeUp": {"x": 1}, "allOf": [], "const": "c", "default": {"a": "x"},
		"properties2": {}, "$defs": {"D": 1}, "definitions": 2, "additionalItems": 3, "contentSchema": {"type": "string"},
		"not": {"dependencies": {"a": ["b", "b", 1], "b": {"required": ["a"]}, "c": 7}, "dependentRequired": {"b": ["a"], "c": [1], "d": 2}}}}}}`
	tl, _ := oneTool(t, doc, openapi.Options{}, func(w http.ResponseWriter, r *http.Request) {})
	for _, want := range []string{`"dependentRequired":{"a":["b"],"b":["a"]}`, `"dependentSchemas":{"b":{"required":["a"]}}`, `"const":"c"`, `"default":{"a":"x"}`, `"contentSchema":{"type":"string"}`} {
		if !strings.Contains(string(tl.InputSchema), want) {
			t.Errorf("schema lacks %s: %s", want, tl.InputSchema)
		}
	}
	for _, gone := range []string{`$anchor`, `"dependencies"`, `$vocabulary`, `$dynamic`, `madeUp`, `allOf`, `properties2`, `definitions`, `"D"`, `additionalItems`, `"$ref":4`, `"dependentRequired":5`} {
		if strings.Contains(string(tl.InputSchema), gone) {
			t.Errorf("schema keeps %s: %s", gone, tl.InputSchema)
		}
	}
}

// TestSharedPartsOnce: a parameter, body or response that operations
// share through a $ref is converted once: its problem is reported once,
// at the component, so that the document's other problems are not crowded
// out; an inline parameter's problem names its index; and a large
// response shared by 10,000 operations counts once against the bound on
// schema objects.
func TestSharedPartsOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"openapi": "3.0.3", "paths": {`)
	for i := range 60 {
		fmt.Fprintf(&b, `"/p%02d": {"get": {"parameters": [{"$ref": "#/components/parameters/q"}], "responses": {"200": {"$ref": "#/components/responses/R"}}},
			"post": {"requestBody": {"$ref": "#/components/requestBodies/B"}, "responses": {}}},`, i)
	}
	b.WriteString(`"/z": {"get": {"parameters": [{"name": "ok", "in": "query", "schema": {"type": "string"}}, {"name": "bad", "in": "query", "schema": {"$ref": "#/components/schemas/Gone"}}], "responses": {}}}},
		"components": {"parameters": {"q": {"name": "q", "in": "query", "schema": {"$ref": "#/components/schemas/Missing"}}},
		"responses": {"R": {"description": "", "content": {"application/json": {"schema": {"type": "object", "properties": {"r": {"$ref": "#/components/schemas/Lost"}}}}}}},
		"requestBodies": {"B": {"content": {"application/json": {"schema": {"allOf": 1}}}}},
		"schemas": {"S": 7}}}`)
	_, err := openapi.Parse([]byte(b.String()))
	want := `components.parameters.q.schema.$ref: no component schema "Missing"; ` +
		`components.responses.R.content["application/json"].schema.properties.r.$ref: no component schema "Lost"; ` +
		`components.requestBodies.B.content["application/json"].schema.allOf: want a list of schemas, got the number 1; ` +
		`paths["/z"].get.parameters[1].schema.$ref: no component schema "Gone"; ` +
		`components.schemas.S: want a schema (an object), got the number 7`
	if message(err) != want {
		t.Errorf("= %v\nwant %s", err, want)
	}

	b.Reset()
	b.WriteString(`{"openapi": "3.0.3", "paths": {`)
	for i := range openapi.MaxOperations {
		fmt.Fprintf(&b, `"/p%d": {"get": {"responses": {"200": {"$ref": "#/components/responses/Big"}}}},`, i)
	}
	b.WriteString(`"/q": {"get": {"responses": {}}}}, "components": {"responses": {"Big": {"description": "", "content": {"application/json": {"schema": {"type": "object", "properties": {`)
	for i := range 60 {
		fmt.Fprintf(&b, `"p%d": {"type": "string"},`, i)
	}
	b.WriteString(`"last": {"type": "string"}}}}}}}}}`)
	// 10,001 operations: over MaxOperations by the last, so that the
	// document is read to its end; the only problem is that one.
	if _, err := openapi.Parse([]byte(b.String())); message(err) != "paths: more than 10000 operations" {
		t.Errorf("a 62-object response shared by 10,000 operations: %v", err)
	}
}
