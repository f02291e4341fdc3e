package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/bindings/openapi"
	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/NAME, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to make it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; -update rewrites it):\n%s", name, diff)
	}
}

func loadPets(t *testing.T) *openapi.Spec {
	t.Helper()
	s, err := openapi.Load("testdata/pets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPetsTools pins what a model sees of a document: names, descriptions,
// schemas (3.0's nullable and exclusiveMinimum converted, components as
// $defs, a recursive one finite, x- and example dropped), annotations.
func TestPetsTools(t *testing.T) {
	s := loadPets(t)
	if s.ServerURL != "https://pets.example.com/v1" || s.Title != "Pet store" || s.Version != "3.0.3" {
		t.Errorf("server %q, title %q, version %q", s.ServerURL, s.Title, s.Version)
	}
	tools, err := openapi.Tools("pets", s, openapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type shown struct {
		Name         string             `json:"name"`
		Description  string             `json:"description"`
		InputSchema  json.RawMessage    `json:"inputSchema"`
		OutputSchema json.RawMessage    `json:"outputSchema,omitempty"`
		Annotations  engine.Annotations `json:"annotations"`
	}
	var list []shown
	for _, tl := range tools {
		list = append(list, shown{tl.Name, tl.Description, tl.InputSchema, tl.OutputSchema, tl.Annotations})
	}
	out, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "pets.tools.json", append(out, '\n'))
	// The engine takes them: every schema compiles.
	eng, err := engine.NewBuilder().Add(tools...).Build()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "pets.d.ts", []byte(eng.Declarations()))
}

// recorded is one request the test API saw.
type recorded struct {
	Method, Path, Query, ContentType, RequestID, Body string
}

// petsAPI serves the pet store's calls and records them.
func petsAPI(t *testing.T, handle func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, func() []recorded) {
	var mu sync.Mutex
	var seen []recorded
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, recorded{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Get("Content-Type"), r.Header.Get("X-Request-Id"), string(body)})
		mu.Unlock()
		handle(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []recorded {
		mu.Lock()
		defer mu.Unlock()
		return append([]recorded(nil), seen...)
	}
}

func petsEngine(t *testing.T, opts openapi.Options) *engine.Engine {
	t.Helper()
	tools, err := openapi.Tools("pets", loadPets(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.NewBuilder().Add(tools...).Build()
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// TestCalls: each argument goes where its operation says (path, query,
// header, a flat or a whole body), and each kind of response comes back as
// a model expects.
func TestCalls(t *testing.T) {
	srv, seen := petsAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "DELETE":
			w.WriteHeader(http.StatusNoContent)
		case r.Method == "PUT":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			io.WriteString(w, "likes naps")
		case r.URL.Path == "/v1/pets/404":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"no pet 404"}`)
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":7,"name":"Rex"}`)
		}
	})
	eng := petsEngine(t, openapi.Options{BaseURL: srv.URL + "/v1/"})
	ctx := context.Background()
	calls := []struct {
		tool, args, want, wantErr string
	}{
		{"pets.pets_list", `{"limit": 5, "tags": ["a b", "c"], "X-Request-Id": "r1"}`, `{"id":7,"name":"Rex"}`, ""},
		{"pets.pets_create", `{"name": "Rex", "tag": null}`, `{"id":7,"name":"Rex"}`, ""},
		{"pets.pets_get", `{"petId": 7}`, `{"id":7,"name":"Rex"}`, ""},
		{"pets.pets_update", `{"petId": 7, "body": {"petId": "x", "name": "Max"}}`, `{"id":7,"name":"Rex"}`, ""},
		{"pets.pets_set_notes", `{"petId": 7, "body": "likes naps"}`, `"likes naps"`, ""},
		{"pets.pets_delete", `{"petId": 7}`, `null`, ""},
		{"pets.pets_get", `{"petId": 404}`, "", `GET /v1/pets/404: HTTP 404 Not Found: {"message":"no pet 404"}`},
	}
	for _, c := range calls {
		got, err := eng.Call(ctx, c.tool, json.RawMessage(c.args))
		if c.wantErr != "" {
			var e *engine.Error
			if !errors.As(err, &e) || e.Code != engine.CodeToolError || e.Message != c.wantErr {
				t.Errorf("%s %s: error %v, want tool_error %q", c.tool, c.args, err, c.wantErr)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%s %s = %s, %v; want %s", c.tool, c.args, got, err, c.want)
		}
	}
	want := []recorded{
		{"GET", "/v1/pets", "limit=5&tags=a+b&tags=c", "", "r1", ""},
		{"POST", "/v1/pets", "", "application/json", "", `{"name":"Rex","tag":null}`},
		{"GET", "/v1/pets/7", "", "", "", ""},
		{"PATCH", "/v1/pets/7", "", "application/json", "", `{"petId": "x", "name": "Max"}`},
		{"PUT", "/v1/pets/7/notes", "", "text/plain", "", "likes naps"},
		{"DELETE", "/v1/pets/7", "", "", "", ""},
		{"GET", "/v1/pets/404", "", "", "", ""},
	}
	if diff := cmp.Diff(want, seen()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// TestArgumentsChecked: the engine validates a call against the
// operation's schema before any request is made, and says what is wrong.
func TestArgumentsChecked(t *testing.T) {
	srv, seen := petsAPI(t, func(w http.ResponseWriter, r *http.Request) {})
	eng := petsEngine(t, openapi.Options{BaseURL: srv.URL})
	for _, args := range []string{
		`{}`,                           // petId is required
		`{"petId": 0}`,                 // minimum 1
		`{"petId": 1, "nmae": "x"}`,    // no such argument
		`{"petId": "seven"}`,           // an integer
		`{"petId": 1, "limit": 0}`,     // not this operation's
		`{"petId": 1, "body": "text"}`, // get takes no body
	} {
		_, err := eng.Call(context.Background(), "pets.pets_get", json.RawMessage(args))
		if !errors.Is(err, engine.Errorf(engine.CodeInvalidArgs, "")) {
			t.Errorf("pets_get %s: %v, want invalid_args", args, err)
		}
	}
	_, err := eng.Call(context.Background(), "pets.pets_list", json.RawMessage(`{"limit": 0}`))
	if !errors.Is(err, engine.Errorf(engine.CodeInvalidArgs, "")) {
		t.Errorf("pets_list limit 0 (exclusiveMinimum: true): %v, want invalid_args", err)
	}
	if n := len(seen()); n != 0 {
		t.Errorf("%d requests made for calls that fail validation", n)
	}
}

// TestPathArgumentEscaped: an argument stays within its path segment.
func TestPathArgumentEscaped(t *testing.T) {
	spec, err := openapi.Parse([]byte(`{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
		"paths": {"/files/{name}": {"get": {"operationId": "get", "parameters": [
			{"name": "name", "in": "path", "required": true, "schema": {"type": "string"}}],
			"responses": {"200": {"description": "ok"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	srv, seen := petsAPI(t, func(w http.ResponseWriter, r *http.Request) {})
	tools, err := openapi.Tools("files", spec, openapi.Options{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	got, err := tools[0].Handler(context.Background(), json.RawMessage(`{"name": "a/../b c?d#e"}`))
	if err != nil || string(got) != "null" {
		t.Fatalf("= %s, %v", got, err)
	}
	if p := seen()[0].Path; p != "/files/a%2F..%2Fb%20c%3Fd%23e" {
		t.Errorf("path %s", p)
	}
	for _, dots := range []string{".", ".."} {
		if _, err := tools[0].Handler(context.Background(), json.RawMessage(`{"name": "`+dots+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if got := seen()[1:]; len(got) != 2 || got[0].Path != "/files/%2E" || got[1].Path != "/files/%2E%2E" {
		t.Errorf("dot segments: %+v", got)
	}
}

// TestRedirectElsewhereRefused: the API's headers never follow a redirect
// to another host.
func TestRedirectElsewhereRefused(t *testing.T) {
	other, otherSeen := petsAPI(t, func(w http.ResponseWriter, r *http.Request) {})
	var keys []string
	var mu sync.Mutex
	other.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("X-Api-Key"))
		mu.Unlock()
	})
	srv, _ := petsAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/pets/1" {
			http.Redirect(w, r, "/pets/2", http.StatusFound) // the same host: followed
			return
		}
		http.Redirect(w, r, other.URL+"/steal", http.StatusFound)
	})
	eng := petsEngine(t, openapi.Options{BaseURL: srv.URL, Headers: map[string]string{"X-Api-Key": "key-1234"}})
	_, err := eng.Call(context.Background(), "pets.pets_get", json.RawMessage(`{"petId": 1}`))
	if err == nil || !strings.Contains(err.Error(), "redirected to another host") {
		t.Errorf("= %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(keys) > 0 || len(otherSeen()) > 0 {
		t.Errorf("the other host got %d requests, keys %q", len(otherSeen()), keys)
	}
}

// TestSecretsHidden: a configured header's value never reaches the model,
// even from an API that echoes the request in its error.
func TestSecretsHidden(t *testing.T) {
	const token = "ghp_s3cr3t-t0ken"
	srv, _ := petsAPI(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "bad credentials: "+r.Header.Get("Authorization"))
	})
	eng := petsEngine(t, openapi.Options{BaseURL: srv.URL, Headers: map[string]string{"Authorization": "Bearer " + token}})
	_, err := eng.Call(context.Background(), "pets.pets_get", json.RawMessage(`{"petId": 1}`))
	if err == nil || strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "[hidden]") {
		t.Errorf("error %v: want the 401 with the token hidden", err)
	}
}

// TestResponseBounds: a response over the cap, and an error body over a
// page, are cut before they reach the model.
func TestResponseBounds(t *testing.T) {
	big := strings.Repeat("x", 5000)
	srv, _ := petsAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/pets/1" {
			io.WriteString(w, `"`+big+`"`)
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, big)
	})
	eng := petsEngine(t, openapi.Options{BaseURL: srv.URL, MaxResponseBytes: 1000})
	_, err := eng.Call(context.Background(), "pets.pets_get", json.RawMessage(`{"petId": 1}`))
	if err == nil || !strings.Contains(err.Error(), "over 1000 bytes") {
		t.Errorf("a 5 KB response with a 1 KB cap: %v", err)
	}
	_, err = eng.Call(context.Background(), "pets.pets_get", json.RawMessage(`{"petId": 2}`))
	if err == nil || !strings.Contains(err.Error(), "HTTP 500") || len(err.Error()) > 1200 {
		t.Errorf("a 500 with a 5 KB body: %d characters: %.200v", len(err.Error()), err)
	}
}

// TestTimeout: a call that gets no answer ends at the API's timeout with
// a timeout error that says which timeout it was.
func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv, _ := petsAPI(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	eng := petsEngine(t, openapi.Options{BaseURL: srv.URL, Timeout: 50 * time.Millisecond})
	_, err := eng.Call(context.Background(), "pets.pets_get", json.RawMessage(`{"petId": 1}`))
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.CodeTimeout || !strings.Contains(e.Message, "50ms, the API's timeout") {
		t.Errorf("= %v, want the API's timeout", err)
	}
}

// TestNoServer: without a base URL and a server in the document there is
// nowhere to call, which Tools says.
func TestNoServer(t *testing.T) {
	spec, err := openapi.Parse([]byte(`{"openapi": "3.0.0", "paths": {"/a": {"get": {"responses": {}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openapi.Tools("a", spec, openapi.Options{}); err == nil || !strings.Contains(err.Error(), "configure baseUrl") {
		t.Errorf("Tools = %v", err)
	}
	tools, err := openapi.Tools("a", spec, openapi.Options{BaseURL: "http://127.0.0.1:1"})
	if err != nil || len(tools) != 1 || tools[0].Name != "a.get__a" {
		t.Fatalf("tools %v, %v", tools, err)
	}
}

// TestNames: names are identifiers, unique, and short enough for OpenAI.
func TestNames(t *testing.T) {
	long := strings.Repeat("very-long-", 10)
	doc := `{"openapi": "3.0.0", "paths": {
		"/a": {"get": {"operationId": "list/items", "responses": {}}, "post": {"operationId": "list-items", "responses": {}}},
		"/b": {"get": {"operationId": "2fa", "responses": {}}, "post": {"operationId": "` + long + `a", "responses": {}}},
		"/c": {"get": {"operationId": "` + long + `b", "responses": {}}}}}`
	spec, err := openapi.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := openapi.ToolNames("ns", spec)
	want := []string{"ns.list_items", "ns.list_items_2", "ns._2fa", "ns.very_long_very_long_very_long_very_long_very_long_ve_5742d2bc", "ns.very_long_very_long_very_long_very_long_very_long_ve_5a42d775"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	for _, n := range got {
		if len(n) > openapi.MaxNameChars || !engine.ValidName(n) {
			t.Errorf("%s: %d characters", n, len(n))
		}
	}
}

// TestBadDocuments: every problem of a document at once, each with its path.
func TestBadDocuments(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"empty", ``, "the document is empty"},
		{"not JSON", `{"openapi": `, "not valid JSON"},
		{"not JSON, where", "\ufeff\n{\"openapi\": \"3.0.0\",\n  \"paths\": {\"/é\": }}", "not valid JSON at line 3, column 19: invalid character '}' looking for beginning of value"},
		{"trailing", `{"openapi": "3.0.0"} {}`, "data after the document"},
		{"a list", `[1]`, "the document is not an object"},
		{"swagger", `{"swagger": "2.0"}`, "swagger: a Swagger 2.0 document; convert it to OpenAPI 3 first"},
		{"no version", `{"paths": {}}`, `openapi: missing`},
		{"version 4", `{"openapi": "4.0"}`, `openapi: want OpenAPI 3.x, got "4.0"`},
		{"no paths", `{"openapi": "3.0.0"}`, "paths: missing: the document has no operations"},
		{"every problem", `{"openapi": "3.0.0", "paths": {
			"/a/{id}": {"get": {"operationId": "x", "parameters": [{"in": "query"}, {"name": "q", "in": "body"},
				{"$ref": "#/components/parameters/nope"}], "responses": {}}},
			"/b": {"get": {"operationId": "x", "responses": {"200": {"description": "", "content": {"application/json":
				{"schema": {"$ref": "other.yaml#/Pet"}}}}}},
				"post": {"requestBody": {"content": {}}, "responses": {}}},
			"c": {"get": {}}},
			"components": {"schemas": {"A": {"properties": {"b": {"$ref": "#/components/schemas/Missing"}}}, "B": 7}}}`,
			`paths["/a/{id}"].get.parameters[0].name: missing: a parameter has a name; ` +
				`paths["/a/{id}"].get.parameters[1].in: want path, query, header or cookie, got the string "body"; ` +
				`paths["/a/{id}"].get.parameters[2].$ref: nothing at "#/components/parameters/nope"; ` +
				`paths["/a/{id}"].get.parameters: the path's {id} has no path parameter; ` +
				`paths["/b"].get.operationId: "x" is also the operationId of paths["/a/{id}"].get; ` +
				`paths["/b"].get.responses["200"].content["application/json"].schema.$ref: external reference "other.yaml#/Pet": only references within the document are read; ` +
				`paths["/b"].post.requestBody.content: missing: a request body has at least one media type; ` +
				`paths.c: a path starts with /; ` +
				`components.schemas.A.properties.b.$ref: no component schema "Missing"; ` +
				`components.schemas.B: want a schema (an object), got the number 7`},
		{"ref cycle", `{"openapi": "3.0.0", "paths": {"/a": {"get": {"responses": {}}}}, "components": {"schemas": {
			"A": {"$ref": "#/components/schemas/B"}, "B": {"$ref": "#/components/schemas/C"}, "C": {"$ref": "#/components/schemas/A"},
			"D": {"$ref": "#/components/schemas/A"}, "E": {"type": "object", "properties": {"e": {"$ref": "#/components/schemas/E"}}}}}}`,
			`components.schemas.A: a cycle of $refs that describes nothing: A → B → C → A`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := openapi.Parse([]byte(c.doc))
			var e *engine.Error
			if !errors.As(err, &e) || e.Code != engine.CodeBadRequest {
				t.Fatalf("= %v, want bad_request", err)
			}
			if !strings.Contains(e.Message, c.want) || strings.Count(e.Message, "a cycle of $refs") > 1 {
				t.Errorf("error:\n%s\nwant it to contain, once:\n%s", e.Message, c.want)
			}
		})
	}
}

// TestHostileDocuments: documents made to exhaust the reader end with an
// error, not a hang or a crash.
func TestHostileDocuments(t *testing.T) {
	// A billion laughs: nine levels of ten aliases.
	var b bytes.Buffer
	b.WriteString("openapi: 3.0.0\na0: &a0 [lol]\n")
	for i := 1; i < 10; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	b.WriteString("paths: {}\n")
	if _, err := openapi.Parse(b.Bytes()); err == nil {
		t.Error("a billion laughs was read")
	}
	// A schema nested past the bound, and a $ref cycle outside components.
	deep := strings.Repeat(`{"type": "array", "items": `, 300) + `{}` + strings.Repeat(`}`, 300)
	_, err := openapi.Parse([]byte(`{"openapi": "3.0.0", "paths": {"/a": {"get": {"responses": {"200": {"description": "",
		"content": {"application/json": {"schema": ` + deep + `}}}}}}}}`))
	if err == nil || !strings.Contains(err.Error(), "nested over 200 deep") {
		t.Errorf("deep schema: %v", err)
	}
	spec, err := openapi.Parse([]byte(`{"openapi": "3.0.0", "paths": {"/a": {"post": {"requestBody": {"content": {"application/json":
		{"schema": {"$ref": "#/paths/~1a/post/requestBody/content/application~1json/schema"}}}}, "responses": {}}}}}`))
	if err != nil {
		t.Fatalf("self-referring schema: %v", err)
	}
	if _, err := openapi.Tools("a", spec, openapi.Options{BaseURL: "http://127.0.0.1:1"}); err != nil {
		t.Error(err)
	}
	// Over the size bound.
	if _, err := openapi.Parse(make([]byte, openapi.MaxSpecBytes+1)); err == nil || !strings.Contains(err.Error(), "over 64 MiB") {
		t.Errorf("oversize: %v", err)
	}
}

// TestHostileAPI: an API that never stops sending, or answers a page at a
// time slower than the timeout, costs a call its bound and no more.
func TestHostileAPI(t *testing.T) {
	srv, _ := petsAPI(t, func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat("[1,", 1024))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	eng := petsEngine(t, openapi.Options{BaseURL: srv.URL, MaxResponseBytes: 1 << 20, Timeout: 10 * time.Second})
	for range 20 { // a long-lived host: the twentieth call ends as the first
		_, err := eng.Call(context.Background(), "pets.pets_get", json.RawMessage(`{"petId": 1}`))
		if err == nil || !strings.Contains(err.Error(), "over 1048576 bytes") {
			t.Fatalf("an endless body: %v", err)
		}
	}
}

// TestTooManyOperations: a document over MaxOperations is refused.
func TestTooManyOperations(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"openapi": "3.0.0", "paths": {`)
	for i := range openapi.MaxOperations + 1 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"/p%d": {"get": {"responses": {}}}`, i)
	}
	b.WriteString("}}")
	if _, err := openapi.Parse([]byte(b.String())); err == nil || !strings.Contains(err.Error(), "more than 10000 operations") {
		t.Errorf("= %v", err)
	}
}
