package openapi_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/bindings/openapi"
	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
)

// The attacks of a second review, on calls and on Bind.

// toolError is err's message when it is a tool_error, else it fails t.
func toolError(t *testing.T, err error) string {
	t.Helper()
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.CodeToolError {
		t.Fatalf("got %v, want a tool_error", err)
	}
	return e.Message
}

const getDoc = `{"openapi":"3.0.3","paths":{"/x":{"get":{"operationId":"get","responses":{}}}}}`

// TestLargeErrorBodyIsNotReadWhole: an API's 8 MiB 500 page is quoted by
// its first 1,000 characters, read from its first 64 KiB: quoting it
// allocated 48 MiB (the body read, copied, then made runes) and took
// 131 ms, per failing call. A secret across the 1,000th character is
// still hidden whole.
func TestLargeErrorBodyIsNotReadWhole(t *testing.T) {
	const secret = "s3cret-token-123"
	page := []byte(strings.Repeat("x", 990) + secret + strings.Repeat("y", 8<<20))
	tl, _ := oneTool(t, getDoc, openapi.Options{Headers: map[string]string{"Authorization": "Bearer " + secret}},
		func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
			w.Write(page)
		})
	_, err := call(tl, `{}`) // the connection made, the client warm
	msg := toolError(t, err)
	const note = "… (the body is over 64 KiB; only its start was read)"
	if !strings.HasPrefix(msg, "GET /v1/x: HTTP 500 Internal Server Error: xxx") || !strings.HasSuffix(msg, note) {
		t.Errorf("message %.100q…%q", msg, msg[max(len(msg)-100, 0):])
	}
	if strings.Contains(msg, "s3cr") || !strings.Contains(msg, "x[hidden]yy") {
		t.Errorf("the secret across the cut is not hidden whole: …%q", msg[max(len(msg)-200, 0):])
	}
	if n := utf8.RuneCountInString(msg); n > 1200 {
		t.Errorf("the message is %d characters", n)
	}
	const calls = 4
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range calls {
		if _, err := call(tl, `{}`); err == nil {
			t.Fatal("no error")
		}
	}
	runtime.ReadMemStats(&after)
	// Generous: the read is 64 KiB; the test's server and client have
	// their own buffers. Reading the body whole was 48 MiB a call.
	per := (after.TotalAlloc - before.TotalAlloc) / calls
	if per > 4<<20 {
		t.Errorf("a failing call allocated %d KiB", per>>10)
	}
	t.Logf("a failing call allocated %d KiB", per>>10)
}

// TestErrorBodyCutInACharacter: the 64 KiB read may end inside a
// character; with a secret so long that the quote's start reaches the
// cut, the body is still text, not "(… bytes, not text)".
func TestErrorBodyCutInACharacter(t *testing.T) {
	page := strings.Repeat("€", 30000) // 3 bytes each: 64 KiB ends inside one
	tl, _ := oneTool(t, getDoc, openapi.Options{Secrets: []string{strings.Repeat("z", 70000)}},
		func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, page)
		})
	_, err := call(tl, `{}`)
	msg := toolError(t, err)
	if !strings.HasPrefix(msg, "GET /v1/x: HTTP 502 Bad Gateway: €€€") || !strings.Contains(msg, "€… (the body is over 64 KiB") || !utf8.ValidString(msg) {
		t.Errorf("message %.100q…%q", msg, msg[max(len(msg)-100, 0):])
	}
}

// TestRequiredNamesOutsideTheMembers: a body that requires a member it
// does not declare made a flat tool that could never be called (its root
// takes no other member, yet required it). Passed whole, the body keeps
// the document's schema, which takes the undeclared member.
func TestRequiredNamesOutsideTheMembers(t *testing.T) {
	const body = `"requestBody":{"required":true,"content":{"application/json":{"schema":{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"]}}}}`
	for _, c := range []struct {
		name, params, args, want string
	}{
		{"flat", ``, `{"a": "x"}`, `{"a":"x"}`},
		{"whole", `"parameters":[{"name":"a","in":"query","schema":{"type":"string"}}],`, `{"a": "q", "body": {"a": "x", "b": "y"}}`, `{"a": "x", "b": "y"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := `{"openapi":"3.0.3","paths":{"/things":{"post":{"operationId":"make",` + c.params + body + `,"responses":{}}}}}`
			tl, seen := oneTool(t, doc, openapi.Options{}, func(w http.ResponseWriter, r *http.Request) {})
			eng, err := engine.NewBuilder().Add(tl).Build()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := eng.Call(t.Context(), tl.Name, json.RawMessage(c.args)); err != nil {
				t.Fatalf("%s: %v\nschema %s", c.args, err, tl.InputSchema)
			}
			if got := seen(); len(got) != 1 || got[0].Body != c.want {
				t.Errorf("requests %+v, want the body %s", got, c.want)
			}
		})
	}
}

// TestRequiredBodyOfOptionalMembers: a required body whose members are
// all optional, called with its path argument only (GitHub's
// repos/update-webhook with owner, repo and hook_id, one of 39 such
// operations), sends {} as JSON: it sent no body, which such an API
// refuses. An optional body is still left out.
func TestRequiredBodyOfOptionalMembers(t *testing.T) {
	for _, c := range []struct {
		required string
		want     recorded
	}{
		{"true", recorded{Method: "PATCH", Path: "/v1/hooks/1", ContentType: "application/json", Body: "{}"}},
		{"false", recorded{Method: "PATCH", Path: "/v1/hooks/1"}},
	} {
		doc := `{"openapi":"3.0.3","paths":{"/hooks/{hook_id}":{"patch":{"operationId":"update",
			"parameters":[{"name":"hook_id","in":"path","required":true,"schema":{"type":"string"}}],
			"requestBody":{"required":` + c.required + `,"content":{"application/json":{"schema":{"type":"object",
			"properties":{"description":{"type":"string"},"files":{"type":"object"}}}}}},"responses":{}}}}}`
		tl, seen := oneTool(t, doc, openapi.Options{}, func(w http.ResponseWriter, r *http.Request) {})
		if _, err := call(tl, `{"hook_id": "1"}`); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]recorded{c.want}, seen()); diff != "" {
			t.Errorf("required %s: requests (-want +got):\n%s", c.required, diff)
		}
	}
}

// TestRedirectsStopAtTen: an API that redirects forever is asked ten
// times, its tenth redirect not followed, and the call fails saying so.
func TestRedirectsStopAtTen(t *testing.T) {
	n := 0
	tl, seen := oneTool(t, getDoc, openapi.Options{}, func(w http.ResponseWriter, r *http.Request) {
		n++
		http.Redirect(w, r, fmt.Sprintf("/v1/x?n=%d", n), http.StatusFound)
	})
	_, err := call(tl, `{}`)
	if msg := toolError(t, err); !strings.Contains(msg, "stopped after 10 redirects") {
		t.Errorf("message %q", msg)
	}
	if got := len(seen()); got != 10 {
		t.Errorf("%d requests, want 10, each answered by a redirect (the 10th not followed)", got)
	}
}

// bindPets binds the pet store as "pets" at srv's URL with headers whose
// ${NAME}s env has, and calls pets_get; it returns the call's result, the
// error of Bind or the call, and the request's headers.
func bindPets(t *testing.T, headers, env map[string]string) (json.RawMessage, error, http.Header) {
	t.Helper()
	var got http.Header
	srv, _ := petsAPI(t, func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": 7, "echo": r.Header})
	})
	tools, err := openapi.Bind("pets", engine.OpenAPI{Spec: "testdata/pets.yaml", BaseURL: srv.URL + "/v1", Headers: headers},
		openapi.BindOptions{LookupEnv: func(name string) (string, bool) { v, ok := env[name]; return v, ok }})
	if err != nil {
		return nil, err, nil
	}
	for _, tl := range tools {
		if tl.Name == "pets.pets_get" {
			res, err := call(tl, `{"petId": 7}`)
			return res, err, got
		}
	}
	t.Fatal("no pets.pets_get")
	return nil, nil, nil
}

// TestEnvExpandedOnce: a header's ${NAME}s are replaced in one pass: a
// variable's value holding a "${…}" of its own is sent as it is; it was
// expanded in turn when the names were replaced one after another.
func TestEnvExpandedOnce(t *testing.T) {
	_, err, got := bindPets(t, map[string]string{"X-Pair": "${A}-${B}"}, map[string]string{"A": "${B}-a-value", "B": "b-value"})
	if err != nil {
		t.Fatal(err)
	}
	if v := got.Get("X-Pair"); v != "${B}-a-value-b-value" {
		t.Errorf("X-Pair: %q", v)
	}
}

// TestEnvValuesRefusedAtBind: a value with a line break fails Bind once,
// naming its variable (it failed every call with Go's "invalid header
// field value"); so does one too short to be hidden without garbling
// every answer. Neither value is shown, and a variable named twice is
// said once.
func TestEnvValuesRefusedAtBind(t *testing.T) {
	for _, c := range []struct{ value, want string }{
		{"line-one\nline-two", `openapi.pets.headers["X-Token"]: the environment variable TOKEN holds a line break or another control character: a header value is one line`},
		{"tab\tis-fine\x7f", `the environment variable TOKEN holds a line break or another control character`},
		{"q#", `openapi.pets.headers["X-Token"]: the environment variable TOKEN is 2 characters: a value from the environment is hidden from every answer`},
	} {
		_, err, _ := bindPets(t, map[string]string{"X-Token": "${TOKEN}/${TOKEN}"}, map[string]string{"TOKEN": c.value})
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.CodeBadRequest || strings.Count(e.Message, c.want) != 1 || strings.Contains(e.Message, c.value) {
			t.Errorf("TOKEN=%q: %v, want a bad_request with %q", c.value, err, c.want)
		}
	}
}

// TestShortEnvSecretHidden: a value from the environment is hidden from
// the result whatever its length; a 6-character key under a header not
// named like a credential was echoed (only 8 characters and more were).
func TestShortEnvSecretHidden(t *testing.T) {
	const key = "k3y-42"
	res, err, got := bindPets(t, map[string]string{"X-Client": "${KEY}", "Authorization": "Bearer ${KEY}"}, map[string]string{"KEY": key})
	if err != nil {
		t.Fatal(err)
	}
	if got.Get("X-Client") != key {
		t.Errorf("X-Client sent as %q", got.Get("X-Client"))
	}
	if bytes.Contains(res, []byte(key)) || !bytes.Contains(res, []byte(`"X-Client":["[hidden]"]`)) {
		t.Errorf("result %s", res)
	}
}
