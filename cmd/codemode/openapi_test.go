package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/internal/githubspec"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// petsConfig writes a config binding bindings/openapi's test document as
// "pets", with the extra members of the entry given (JSON), beside a copy
// of the document (its path relative to the config), and returns the
// config's path.
func petsConfig(t *testing.T, entry string, top ...string) string {
	t.Helper()
	dir := t.TempDir()
	spec, err := os.ReadFile("../../bindings/openapi/testdata/pets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pets.yaml"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	if entry != "" {
		entry = ", " + entry
	}
	doc := `{"openapi": {"pets": {"spec": "pets.yaml"` + entry + `}}` + strings.Join(append([]string{""}, top...), ", ") + `}`
	path := filepath.Join(dir, "cfg.json")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestToolsListsOpenAPIOperations(t *testing.T) {
	cfg := petsConfig(t, "")
	out, errs, code := cli(t, "", "tools", "--config", cfg)
	if code != exitOK || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !regexp.MustCompile(`(?m)^pets\.pets_get\s+read-only\s+OpenAPI "pets"\s+Get a pet$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^pets\.pets_delete\s+writes\s+OpenAPI "pets"\s+Remove a pet$`).MatchString(out) {
		t.Errorf("the operations are not listed as tools:\n%s", out)
	}
	out, _, code = cli(t, "", "tools", "--config", cfg, "--ts")
	if code != exitOK || !strings.Contains(out, "pets_get(args: {") || !strings.Contains(out, "GET /pets/{petId}") {
		t.Errorf("--ts: exit %d:\n%.800s", code, out)
	}
	out, _, code = cli(t, "", "tools", "--config", cfg, "--json")
	if code != exitOK || !strings.Contains(out, `"name": "pets.pets_set_notes"`) {
		t.Errorf("--json: exit %d:\n%.800s", code, out)
	}
}

// TestRunCallsAnOpenAPIOperation: a script's call is the API's request,
// with the header whose secret comes from the environment; the secret is
// nowhere in what the run prints.
func TestRunCallsAnOpenAPIOperation(t *testing.T) {
	const secret = "s3cr3t-value"
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+secret {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, "got "+r.Header.Get("Authorization"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id": 7, "name": "Rex", "path": "`+r.URL.Path+`"}`)
	}))
	defer api.Close()
	t.Setenv("PETS_TOKEN", secret)
	cfg := petsConfig(t, `"baseUrl": "`+api.URL+`/v1", "headers": {"Authorization": "Bearer ${PETS_TOKEN}"}`)
	res := runScript(t, `return await tools.pets.pets_get({petId: 7});`, exitOK, "--config", cfg, "-")
	var got bytes.Buffer
	json.Compact(&got, res.Result)
	if got.String() != `{"id":7,"name":"Rex","path":"/v1/pets/7"}` {
		t.Errorf("result %s", res.Result)
	}
	t.Setenv("PETS_TOKEN", "wrong-"+secret)
	out, _, _ := cli(t, `return await tools.pets.pets_get({petId: 7});`, "run", "--config", cfg, "-")
	if !strings.Contains(out, "HTTP 401") || strings.Contains(out, secret) {
		t.Errorf("a 401 whose body quotes the header: %s", out)
	}
}

// TestOpenAPIConfigProblems: what is wrong with an entry, its document
// and its environment is said at once, one line each, exit 2.
func TestOpenAPIConfigProblems(t *testing.T) {
	os.Unsetenv("CODEMODE_TEST_UNSET")
	cfg := petsConfig(t, `"headers": {"X-Key": "${CODEMODE_TEST_UNSET}"}`)
	_, errs, code := cli(t, "", "tools", "--config", cfg)
	if code != exitUsage || !strings.Contains(errs, `openapi.pets.headers["X-Key"]: the environment variable CODEMODE_TEST_UNSET is not set`) {
		t.Errorf("unset variable: exit %d, %q", code, errs)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"openapi": {"x.y": {"spec": "s.json"}, "gh": {"baseUrl": "ftp://h", "headers": {"A B": "x", "X-Key": "${1}"}, "timeout": 0},
		"up": {"spec": "s.json"}}, "mcpServers": {"up": {"command": "true"}}}`), 0o644)
	_, errs, code = cli(t, "", "tools", "--config", bad)
	for _, want := range []string{
		`openapi["x.y"]: the API's name is its tools' namespace`,
		`openapi.gh.spec: missing`,
		`openapi.gh.baseUrl: want an absolute http or https URL`,
		`openapi.gh.headers["A B"]: not a header name`,
		`a ${ that does not name an environment variable`,
		`openapi.gh.timeout: must be positive`,
		`openapi.up: mcpServers has a server of this name`,
	} {
		if code != exitUsage || !strings.Contains(errs, want) {
			t.Errorf("exit %d, stderr lacks %q:\n%s", code, want, errs)
		}
	}
	os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte("openapi: 3.0.0\npaths:\n  /a/{id}:\n    get:\n      parameters: [{in: query}]\n"), 0o644)
	os.WriteFile(bad, []byte(`{"openapi": {"broken": {"spec": "broken.yaml", "baseUrl": "http://127.0.0.1:1"}}}`), 0o644)
	_, errs, code = cli(t, "", "tools", "--config", bad)
	if code != exitUsage || !strings.Contains(errs, `parameters[0].name: missing`) || !strings.Contains(errs, `the path's {id} has no path parameter`) {
		t.Errorf("a broken document: exit %d, %q", code, errs)
	}
}

// TestMCPShowsACatalogsNamespaces: over its declaration budget, the MCP
// server's execute_code names the catalog's namespaces and points to
// search_tools instead of declaring every operation.
func TestMCPShowsACatalogsNamespaces(t *testing.T) {
	cfg := petsConfig(t, `"baseUrl": "http://127.0.0.1:1"`, `"script": {"maxDeclarationChars": 300}`)
	cs, wait := mcpInProcess(t, "--expose", "code", "--config", cfg)
	res, err := cs.ListTools(t.Context(), &sdk.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	var desc string
	for _, tl := range res.Tools {
		if tl.Name == "execute_code" {
			desc = tl.Description
		}
	}
	if !strings.Contains(desc, "pets (6)") || strings.Contains(desc, "pets_get(args") {
		t.Errorf("execute_code's description:\n%s", desc)
	}
	cs.Close()
	wait()
}

// TestToolsListsGitHub: the whole of GitHub's REST API from its
// description, in about a second.
func TestToolsListsGitHub(t *testing.T) {
	spec := githubspec.ForTest(t)
	cfg := filepath.Join(t.TempDir(), "gh.json")
	os.WriteFile(cfg, []byte(`{"openapi": {"github": {"spec": `+quote(spec)+`}}}`), 0o644)
	out, errs, code := cli(t, "", "tools", "--config", cfg)
	if code != exitOK || errs != "" {
		t.Fatalf("exit %d, %q", code, errs)
	}
	if n := strings.Count(out, ` OpenAPI "github" `); n != 1223 {
		t.Errorf("%d GitHub tools listed, want 1,223", n)
	}
}
