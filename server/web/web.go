// Package web is the whiteboard web app that `codemode serve` shows at /:
// plain HTML, CSS and JavaScript modules embedded in the binary, with no
// build step and nothing from npm.
//
// The app (static/) lists the boards, draws one from GET
// /v1/boards/{id}/svg and then live from its event stream, runs scripts and
// batch requests on it with their calls on a timeline, answers approvals,
// and undoes and redoes runs. It talks to the API with relative URLs, so a
// Go program may mount the server under a path prefix of its own.
//
// The examples of the repository's examples/ directory are one click away
// in the app. Go's embed cannot reach outside this package's directory, so
// static/examples/ holds copies of them, made by `go generate
// ./server/web` (gen_examples.go); TestExampleCopies fails when a copy
// differs from its original or an example has no copy, so they cannot
// drift apart. A copy rather than a handler option keeps the app whole in
// any program that mounts the server, and the binary independent of the
// directory it runs in.
package web

//go:generate go run gen_examples.go

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"
)

//go:embed static
var static embed.FS

// ExampleExts are the kinds of example the app offers: scripts (.ts, .js)
// and batch requests (.json).
var ExampleExts = []string{".ts", ".js", ".json"}

// contentTypes of the app's files, by extension. Examples are shown as
// text, whatever their language (a .ts file is not a video stream).
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".json": "application/json",
}

// csp allows the app's own files and requests to its own origin, nothing
// else: no inline script, no inline style, no other site. The board's SVG
// comes from the server and is inserted as markup, so this is the second
// line of defence after the server's escaping (and the app's own clean-up
// of what it inserts).
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// file is one file as served.
type file struct {
	data        []byte
	contentType string
	etag        string
}

// Handler serves the app's files for GET and HEAD (the server answers other
// methods itself): / is the app, /app.js, /app.css and the modules beside
// them, /examples/NAME an example, and /examples/index.json the list of
// examples, {"examples": [{"name", "kind": "script"|"batch", "title"}]}.
// Anything else is 404.
func Handler() http.Handler {
	files, err := load(static)
	if err != nil {
		panic(err) // the embedded tree is this package's own: a bug
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		if name == "" {
			name = "index.html"
		}
		f, ok := files[name]
		if !ok || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
			h := w.Header()
			h.Set("Content-Type", "text/plain; charset=utf-8")
			h.Set("X-Content-Type-Options", "nosniff")
			if !ok {
				w.WriteHeader(http.StatusNotFound)
				w.Write([]byte("404 not found: the app is at /, the API under /v1/\n"))
				return
			}
			h.Set("Allow", "GET, HEAD")
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Type", f.contentType)
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache") // small files; a new binary's are seen at once
		h.Set("ETag", f.etag)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.data))
	})
}

// example is an entry of /examples/index.json.
type example struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`            // script or batch
	Title string `json:"title,omitempty"` // a script's opening comment
}

// load reads the embedded tree into the served files: everything under
// static/ by its path, and the examples' index.
func load(fsys fs.FS) (map[string]file, error) {
	files := map[string]file{}
	var examples []example
	err := fs.WalkDir(fsys, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "static/")
		ext := path.Ext(name)
		ct, ok := contentTypes[ext]
		if dir, base := path.Split(name); dir == "examples/" {
			if !slices.Contains(ExampleExts, ext) {
				return nil
			}
			ct = "text/plain; charset=utf-8"
			if ext == ".json" {
				ct = contentTypes[".json"]
				examples = append(examples, example{Name: base, Kind: "batch"})
			} else {
				examples = append(examples, example{Name: base, Kind: "script", Title: leadingComment(data)})
			}
		} else if !ok {
			return nil // not a file the app uses
		}
		files[name] = newFile(data, ct)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Browsers and tools ask for /favicon.ico whatever the page links: the
	// same icon, an SVG (which every browser that asks takes).
	if icon, ok := files["favicon.svg"]; ok {
		files["favicon.ico"] = icon
	}
	// Scripts first, then batches, each by name.
	slices.SortFunc(examples, func(a, b example) int {
		if a.Kind != b.Kind {
			return strings.Compare(b.Kind, a.Kind)
		}
		return strings.Compare(a.Name, b.Name)
	})
	if examples == nil {
		examples = []example{}
	}
	index, err := json.Marshal(map[string][]example{"examples": examples})
	if err != nil {
		return nil, err
	}
	files["examples/index.json"] = newFile(index, contentTypes[".json"])
	return files, nil
}

func newFile(data []byte, ct string) file {
	sum := sha256.Sum256(data)
	return file{data: data, contentType: ct, etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`}
}

// leadingComment is a script's opening // comment lines, joined into one
// line and cut at 300 characters: what the example does, for its tooltip.
func leadingComment(src []byte) string {
	var words []string
	for line := range bytes.Lines(src) {
		c, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("//"))
		if !ok {
			break
		}
		words = append(words, strings.Fields(string(c))...)
	}
	s := strings.Join(words, " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:299]) + "…"
	}
	return s
}
