package wasmtool

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const validManifest = `{
  "name": "demo.echo",
  "description": "Echo the arguments.",
  "inputSchema": {"type": "object"},
  "annotations": {"readOnlyHint": true},
  "memory": "8MiB",
  "timeout": "2s",
  "maxOutput": "1MiB",
  "mounts": [{"host": "data", "guest": "/data"}, {"host": "/abs", "guest": "/abs"}],
  "pure": true
}`

func TestParseManifest(t *testing.T) {
	m, err := ParseManifest([]byte(validManifest), "/tools", "echo.tool.json")
	if err != nil {
		t.Fatal(err)
	}
	want := Manifest{
		Name: "demo.echo", Description: "Echo the arguments.", Module: "/tools/echo.wasm",
		InputSchema: json.RawMessage(`{"type": "object"}`), Memory: 8 << 20, MaxOutput: 1 << 20,
		Mounts: []MountSpec{{Host: "/tools/data", Guest: "/data"}, {Host: "/abs", Guest: "/abs"}},
		Pure:   true,
	}
	want.Annotations.ReadOnlyHint = true
	want.Timeout = 2e9
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("manifest (-want +got):\n%s", diff)
	}
}

func TestParseManifestModulePath(t *testing.T) {
	for module, want := range map[string]string{
		``:                          "/tools/layout.wasm",
		`"module": "bin/x.wasm",`:   "/tools/bin/x.wasm",
		`"module": "/opt/y.wasm",`:  "/opt/y.wasm",
		`"module": "../up/z.wasm",`: "/up/z.wasm",
	} {
		doc := `{` + module + `"name": "a", "description": "d", "inputSchema": {"type": "object"}}`
		m, err := ParseManifest([]byte(doc), "/tools", "layout.tool.json")
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if m.Module != filepath.FromSlash(want) {
			t.Errorf("%s: module %s, want %s", module, m.Module, want)
		}
	}
}

// Every problem of a manifest is reported at once, each naming its field.
func TestParseManifestErrors(t *testing.T) {
	doc := `{"name": "bad name", "description": " ", "inputSchema": {"type": "array"},
	  "outputSchema": [], "memory": "1KiB", "timeout": "11m", "module": "x.so",
	  "mounts": [{"host": "", "guest": "/d"}]}`
	_, err := ParseManifest([]byte(doc), "/t", "x.tool.json")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`name "bad name"`, "description: missing", "inputSchema: the root must have",
		"outputSchema: not a JSON object", "memory: 1KiB is outside", "timeout: 11m0s is outside",
		`module: "x.so" is not a .wasm file`, "mounts[0]: want both host and guest"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestParseManifestStrict(t *testing.T) {
	for doc, want := range map[string]string{
		`{"name": "a", "description": "d", "inputSchema": {"type": "object"}, "memmory": "1MiB"}`: `unknown field "memmory"`,
		`{"name": "a", "description": "d", "inputSchema": {"type": "object"}} {}`:                 "unexpected data",
		`{"name": "a", "description": "d"}`:                                                       "inputSchema: missing",
		`{"name": "a", "description": "d", "inputSchema": {"type": "object"}, "memory": "lots"}`:  `invalid size "lots"`,
		`{"name": "a", "description": "d", "inputSchema": {"type": "object"}, "memory": -1}`:      "invalid size -1",
		`{"name": "a", "description": "d", "inputSchema": {"type": "object"}, "timeout": "soon"}`: `invalid duration "soon"`,
		`[]`: "cannot unmarshal array",
		`{"name": "a", "description": "d", "inputSchema": {"type": "object"}, "MEMORY": "1MiB"}`:                         `MEMORY: no such field (names are case-sensitive)`,
		`{"name": "a", "description": "d", "inputSchema": {"type": "object"}, "memory": "1MiB", "memory": "2MiB"}`:       "memory: given twice",
		`{"name": "a", "description": "d", "inputSchema": {"type": "object"}, "annotations": {"readonlyhint": true}}`:    "annotations.readonlyhint: no such field",
		`{"name": "a", "description": "d", "inputSchema": {"type": "object"}, "mounts": [{"Host": "x", "guest": "/x"}]}`: "mounts[0].Host: no such field",
		`{"name": "a", "description": "d", "inputSchema": {"type": "object"}, "mounts": [{"host": "x", "guest": "x/"}]}`: `mounts[0].guest "x/": want an absolute, clean path`,
		`{"name": "a", "description": "d", "inputSchema": {"type": "object"}, "memory": 0}`:                              "memory: 0 is no limit",
		`{"name": "a", "description": "d", "inputSchema": {"type": "object"}, "timeout": "0s"}`:                          "timeout: 0 is no limit",
	} {
		_, err := ParseManifest([]byte(doc), "/t", "a.tool.json")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", doc, err, want)
		}
	}
}

func TestSize(t *testing.T) {
	for in, want := range map[string]Size{
		`"64MiB"`: 64 << 20, `"512KiB"`: 512 << 10, `"1GiB"`: 1 << 30, `"4096"`: 4096, `"4096B"`: 4096,
		`"2 MiB"`: 2 << 20, `65536`: 65536,
	} {
		var s Size
		if err := json.Unmarshal([]byte(in), &s); err != nil || s != want {
			t.Errorf("%s: %d, %v; want %d", in, s, err, want)
		}
		out, _ := json.Marshal(s)
		var back Size
		if err := json.Unmarshal(out, &back); err != nil || back != s {
			t.Errorf("%s does not round-trip through %s", in, out)
		}
	}
	for _, in := range []string{`"64MB"`, `"MiB"`, `"-1KiB"`, `1.5`, `"9999999999GiB"`} {
		var s Size
		if err := json.Unmarshal([]byte(in), &s); err == nil {
			t.Errorf("%s: accepted as %d", in, s)
		}
	}
}

func TestTimeoutDefaultsAreLeftToTheSandbox(t *testing.T) {
	m, err := ParseManifest([]byte(`{"name": "a", "description": "d", "inputSchema": {"type": "object"}}`), "/t", "a.tool.json")
	if err != nil {
		t.Fatal(err)
	}
	if m.Timeout != 0 || m.Memory != 0 || m.MaxOutput != 0 {
		t.Errorf("unset limits came back as %v %v %v; zero means the sandbox's default", m.Timeout.D(), m.Memory, m.MaxOutput)
	}
	_ = time.Second
}

// FuzzParseManifest: any input is either a manifest or an error, never a
// panic, and a manifest that parses has a valid name and an object schema.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(validManifest))
	f.Add([]byte(`{"name": "a", "description": "d", "inputSchema": {"type": "object"}, "memory": 1e99}`))
	f.Add([]byte(`{"mounts": [{}], "timeout": -5}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data, "/t", "a.tool.json")
		if err != nil {
			return
		}
		if m.Name == "" || len(m.InputSchema) == 0 || !strings.HasSuffix(m.Module, ".wasm") {
			t.Fatalf("accepted an incomplete manifest: %+v", m)
		}
	})
}
