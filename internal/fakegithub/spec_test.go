package fakegithub

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/internal/githubspec"
)

// specBytes is GitHub's REST description, where githubspec finds it
// ($CODEMODE_GITHUB_SPEC, or npm's copy under testdata/openapi-github): the
// test is skipped when it is not installed, or fails under
// $CODEMODE_OPENAPI_TESTS, as .ci/run sets it.
func specBytes(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(githubspec.ForTest(t))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRoutesAreSpecOperations: every operation the fake serves is a path and
// method of GitHub's description, with the documentation URL it gives, and
// each query parameter the fake reads or refuses is one the operation has.
func TestRoutesAreSpecOperations(t *testing.T) {
	b := specBytes(t)
	type param struct {
		Ref  string `json:"$ref"`
		Name string `json:"name"`
		In   string `json:"in"`
	}
	var spec struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Parameters map[string]param `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	// The query parameters each route reads, beside those it refuses.
	reads := map[string][]string{
		"GET /repos/{owner}/{repo}/issues":                         {"state", "labels", "since", "creator", "assignee", "sort", "direction", "per_page", "page"},
		"GET /repos/{owner}/{repo}/issues/{issue_number}/comments": {"since", "per_page", "page"},
		"GET /repos/{owner}/{repo}/issues/{issue_number}/labels":   {"per_page", "page"},
		"GET /repos/{owner}/{repo}/labels":                         {"per_page", "page"},
		"GET /repos/{owner}/{repo}/pulls":                          {"state", "head", "base", "sort", "direction", "per_page", "page"},
	}
	for _, rt := range routes {
		key := rt.method + " " + rt.path
		raw, ok := spec.Paths[rt.path][strings.ToLower(rt.method)]
		if !ok {
			t.Errorf("%s is not an operation of GitHub's description", key)
			continue
		}
		var op struct {
			ExternalDocs struct {
				URL string `json:"url"`
			} `json:"externalDocs"`
			Parameters []param `json:"parameters"`
		}
		if err := json.Unmarshal(raw, &op); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if op.ExternalDocs.URL != rt.doc {
			t.Errorf("%s: documentation_url %q, the description says %q", key, rt.doc, op.ExternalDocs.URL)
		}
		query := map[string]bool{}
		var pathParams []string
		for _, p := range op.Parameters {
			if p.Ref != "" {
				p = spec.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
			}
			switch p.In {
			case "query":
				query[p.Name] = true
			case "path":
				pathParams = append(pathParams, p.Name)
			}
		}
		for _, p := range pathParams {
			if !strings.Contains(rt.path, "{"+p+"}") {
				t.Errorf("%s: path parameter %s missing", key, p)
			}
		}
		for _, q := range append(append([]string(nil), reads[key]...), rt.unsupported...) {
			if !query[q] {
				t.Errorf("%s: query parameter %s is not the operation's", key, q)
			}
			delete(query, q)
		}
		for q := range query {
			t.Errorf("%s: the operation's query parameter %s is neither read nor refused", key, q)
		}
	}
}
