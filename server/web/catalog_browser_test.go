package web_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/bindings/openapi"
)

// TestToolIndexShowsNamespaces: the page shows the server's tools by
// namespace (an OpenAPI catalog's among them) from GET
// /v1/tools?format=index, and never fetches every tool's schema.
func TestToolIndexShowsNamespaces(t *testing.T) {
	spec, err := openapi.Load("../../bindings/openapi/testdata/pets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tools, err := openapi.Tools("pets", spec, openapi.Options{BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []string
	e := newEnv(t, envOptions{tools: tools, wrap: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/tools" {
				mu.Lock()
				asked = append(asked, r.URL.RawQuery)
				mu.Unlock()
			}
			h.ServeHTTP(w, r)
		})
	}})
	tb := e.open("")
	tb.boardID()
	tb.wait("the tool index shows", `!document.querySelector("#tool-index").hidden`)
	want := "Tools: 12 tools · pets (6). Scripts find any of them with tools.search_tools({query})."
	if got := tb.text("#tool-index"); got != want {
		t.Errorf("the tool index reads %q, want %q", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) == 0 || strings.Join(asked, ",") != strings.TrimSuffix(strings.Repeat("format=index,", len(asked)), ",") {
		t.Errorf("GET /v1/tools queries: %q, want format=index only", asked)
	}
}
