package web_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codemode-dev/codemode/server/web"
)

// TestExampleCopies: static/examples/ holds exactly the repository's
// examples (scripts and batch requests), byte for byte, so that the app's
// examples are the ones the docs and tests use. After changing an example,
// run `go generate ./server/web`.
func TestExampleCopies(t *testing.T) {
	originals := exampleFiles(t, filepath.Join("..", "..", "examples"))
	copies := exampleFiles(t, filepath.Join("static", "examples"))
	if len(originals) == 0 {
		t.Fatal("no examples found in ../../examples")
	}
	var problems []string
	for name, data := range originals {
		c, ok := copies[name]
		switch {
		case !ok:
			problems = append(problems, "examples/"+name+" has no copy")
		case !bytes.Equal(c, data):
			problems = append(problems, "the copy of examples/"+name+" differs from it")
		}
	}
	for name := range copies {
		if _, ok := originals[name]; !ok {
			problems = append(problems, "static/examples/"+name+" is a copy of no example")
		}
	}
	slices.Sort(problems)
	if len(problems) > 0 {
		t.Errorf("%s\nrun: go generate ./server/web", strings.Join(problems, "\n"))
	}
}

// exampleFiles reads the files of dir that the app offers as examples.
func exampleFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() || !slices.Contains(web.ExampleExts, filepath.Ext(e.Name())) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = data
	}
	return files
}

func get(t *testing.T, h http.Handler, method, path string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := rec.Result()
	data, _ := io.ReadAll(res.Body)
	return res, data
}

// TestHandler: the app's files with their types and headers, the examples
// and their index, and 404 for anything else.
func TestHandler(t *testing.T) {
	h := web.Handler()
	for _, c := range []struct {
		path, contentType, contains string
	}{
		{"/", "text/html; charset=utf-8", `<script type="module" src="app.js">`},
		{"/index.html", "text/html; charset=utf-8", "<title>codemode</title>"},
		{"/app.js", "text/javascript; charset=utf-8", "readEvents"},
		{"/sse.js", "text/javascript; charset=utf-8", "export class SSEParser"},
		{"/board.js", "text/javascript; charset=utf-8", "export class BoardView"},
		{"/timeline.js", "text/javascript; charset=utf-8", "export class Timeline"},
		{"/approvals.js", "text/javascript; charset=utf-8", "export class Approvals"},
		{"/util.js", "text/javascript; charset=utf-8", "export function el"},
		{"/app.css", "text/css; charset=utf-8", ".topbar"},
		{"/examples/flowchart.ts", "text/plain; charset=utf-8", "Flowchart of a password reset"},
		{"/examples/recover-typo.js", "text/plain; charset=utf-8", "createStikyNote"},
		{"/examples/retro.json", "application/json", `"operations"`},
		{"/favicon.svg", "image/svg+xml", "<svg"},
		{"/favicon.ico", "image/svg+xml", "<svg"},
	} {
		res, body := get(t, h, http.MethodGet, c.path)
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", c.path, res.StatusCode)
			continue
		}
		if got := res.Header.Get("Content-Type"); got != c.contentType {
			t.Errorf("GET %s: Content-Type %q, want %q", c.path, got, c.contentType)
		}
		if !strings.Contains(string(body), c.contains) {
			t.Errorf("GET %s: the body has no %q", c.path, c.contains)
		}
		for _, name := range []string{"Content-Security-Policy", "X-Content-Type-Options", "ETag", "Cache-Control"} {
			if res.Header.Get(name) == "" {
				t.Errorf("GET %s: no %s header", c.path, name)
			}
		}
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
			t.Errorf("GET %s: Content-Security-Policy %q", c.path, csp)
		}
		// A copy the browser has is revalidated, not sent again.
		res2, body2 := get(t, h, http.MethodGet, c.path, "If-None-Match", res.Header.Get("ETag"))
		if res2.StatusCode != http.StatusNotModified || len(body2) != 0 {
			t.Errorf("GET %s with its ETag: %d and %d bytes, want 304 and none", c.path, res2.StatusCode, len(body2))
		}
		// HEAD: the headers, no body.
		res3, body3 := get(t, h, http.MethodHead, c.path)
		if res3.StatusCode != http.StatusOK || len(body3) != 0 || res3.Header.Get("Content-Type") != c.contentType {
			t.Errorf("HEAD %s: %d, %d bytes, %q", c.path, res3.StatusCode, len(body3), res3.Header.Get("Content-Type"))
		}
	}

	for _, path := range []string{"/nope", "/examples/", "/examples", "/static/app.js", "/examples/README.md", "/examples/embed/main.go", "/../web.go", "/gen_examples.go"} {
		res, _ := get(t, h, http.MethodGet, path)
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, res.StatusCode)
		}
	}
	res, _ := get(t, h, http.MethodPost, "/")
	if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /: %d, Allow %q; want 405 with GET, HEAD", res.StatusCode, res.Header.Get("Allow"))
	}
}

// TestExampleIndex: /examples/index.json lists every example, scripts
// first, each with its kind, and a script with its opening comment.
func TestExampleIndex(t *testing.T) {
	res, body := get(t, web.Handler(), http.MethodGet, "/examples/index.json")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /examples/index.json: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	var index struct {
		Examples []struct{ Name, Kind, Title string }
	}
	if err := json.Unmarshal(body, &index); err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, x := range index.Examples {
		got = append(got, x.Kind+" "+x.Name)
	}
	originals := exampleFiles(t, filepath.Join("..", "..", "examples"))
	var scripts, batches []string
	for name := range originals {
		if strings.HasSuffix(name, ".json") {
			batches = append(batches, "batch "+name)
		} else {
			scripts = append(scripts, "script "+name)
		}
	}
	slices.Sort(scripts)
	slices.Sort(batches)
	want = append(scripts, batches...)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("examples listed (-want +got):\n%s", diff)
	}
	for _, x := range index.Examples {
		if x.Name == "flowchart.ts" && x.Title != "Flowchart of a password reset: create every shape first, then connect them with arrows using the ids the create calls returned." {
			t.Errorf("flowchart.ts's title = %q", x.Title)
		}
		if x.Kind == "batch" && x.Title != "" {
			t.Errorf("%s: a batch has no title, got %q", x.Name, x.Title)
		}
	}
}
