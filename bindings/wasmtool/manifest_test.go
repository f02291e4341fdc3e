package wasmtool

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
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

// Every problem of a manifest is reported at once, each naming its field:
// decoding problems (a bad duration, size, an unknown field) together with
// the manifest's own checks, in one bad_request *engine.Error.
func TestParseManifestErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"name": "bad name", "description": " ", "inputSchema": {"type": "array"},
		  "outputSchema": [], "memory": "1KiB", "timeout": "11m", "module": "x.so",
		  "mounts": [{"host": "", "guest": "/d"}]}`, strings.Join([]string{
			`name: "bad name": want identifier segments ([A-Za-z_][A-Za-z0-9_]*) joined by dots, e.g. graph.layout`,
			`description: missing (it is what a model reads to decide when to call the tool)`,
			`inputSchema: the root must have "type": "object"`,
			`outputSchema: not a JSON object`,
			`memory: 1KiB is outside 64KiB..4GiB`,
			`timeout: 11m0s is over the most a call may take, 10m0s`,
			`module: "x.so" is not a .wasm file`,
			`mounts[0]: want both host and guest`,
		}, "; ")},
		{`{"name": "a", "description": "d", "inputSchema": {"type": "object"},
		  "timeout": "soon", "memory": "lots", "maxOutput": -5, "memmory": "1MiB"}`, strings.Join([]string{
			`timeout: "soon" is not a duration (want milliseconds, or a Go duration such as "30s", "1m30s" or "250ms")`,
			`memory: "lots" is not a size (want e.g. "64MiB", "512KiB" or a number of bytes)`,
			`maxOutput: must be positive, not -5 (leave it out for the default)`,
			`memmory: unknown field (did you mean "memory"?)`,
		}, "; ")},
	} {
		_, err := ParseManifest([]byte(tc.doc), "/t", "x.tool.json")
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.CodeBadRequest {
			t.Fatalf("%#v, want a bad_request *engine.Error", err)
		}
		if e.Message != tc.want {
			t.Errorf("got  %s\nwant %s", e.Message, tc.want)
		}
	}
}

func TestParseManifestStrict(t *testing.T) {
	const ok = `"name": "a", "description": "d", "inputSchema": {"type": "object"}`
	for doc, want := range map[string]string{
		`{` + ok + `} {}`:                                        "unexpected data after the JSON value, at line 1, column 70",
		`{` + ok + `}]`:                                          "unexpected data after the JSON value, at line 1, column 69",
		`{` + ok + `}}`:                                          "unexpected data after the JSON value, at line 1, column 69",
		`{"name": "a", "description": "d"}`:                      `inputSchema: missing (want a JSON Schema with "type": "object")`,
		`{` + ok + `, "memory": -1}`:                             "memory: must be positive, not -1 (leave it out for the default)",
		`{` + ok + `, "memory": 0}`:                              "memory: must be positive, not 0 (leave it out for the default)",
		`{` + ok + `, "memory": 1.5}`:                            `memory: want a whole number of bytes or a string such as "64MiB", got the number 1.5`,
		`{` + ok + `, "memory": true}`:                           `memory: want a number of bytes or a string such as "64MiB", got true`,
		`{` + ok + `, "maxOutput": "0KiB"}`:                      `maxOutput: must be positive, not "0KiB" (leave it out for the default)`,
		`{` + ok + `, "timeout": "0s"}`:                          "timeout: must be positive, not 0s (leave it out for the default)",
		`{` + ok + `, "timeout": 0}`:                             "timeout: must be positive, not 0 (leave it out for the default)",
		`{` + ok + `, "pure": "yes"}`:                            `pure: want true or false, got the string "yes"`,
		`[]`:                                                     "want an object, got an array",
		`{` + ok + `, "MEMORY": "1MiB"}`:                         `MEMORY: unknown field (did you mean "memory"? names are case-sensitive)`,
		`{` + ok + `, "memory": "1MiB", "memory": "2MiB"}`:       "memory: given twice",
		`{` + ok + `, "annotations": {"readonlyhint": true}}`:    `annotations.readonlyhint: unknown field (did you mean "readOnlyHint"? names are case-sensitive)`,
		`{` + ok + `, "mounts": [{"Host": "x", "guest": "/x"}]}`: `mounts[0].Host: unknown field (did you mean "host"? names are case-sensitive); mounts[0]: want both host and guest`,
		`{` + ok + `, "mounts": [{"host": "x", "guest": "x/"}]}`: `mounts[0].guest: "x/": want an absolute, clean path such as /data`,
		`{` + ok + `, "mounts": {"host": "x", "guest": "/x"}}`:   `mounts: want an array, got an object`,
		`{` + ok + `, "memory": 99999999999999999999}`:           "memory: 99999999999999999999 is too large",
		`{` + ok + `, "memory": 1e30}`:                           "memory: 1e30 is too large",
		`{` + ok + `, "memory": -99999999999999999999}`:          "memory: must be positive, not -99999999999999999999 (leave it out for the default)",
		`{` + ok + `, "memory": -0.5}`:                           "memory: must be positive, not -0.5 (leave it out for the default)",
		`{` + ok + `, "memory": 0.0e3}`:                          "memory: must be positive, not 0.0e3 (leave it out for the default)",
		`{` + ok + `, "memory": 1e-999}`:                         `memory: want a whole number of bytes or a string such as "64MiB", got the number 1e-999`,
		`{` + ok + `, "memory": "-99999999999999999999MiB"}`:     `memory: must be positive, not "-99999999999999999999MiB" (leave it out for the default)`,
		`{` + ok + `, "memory": "99999999999999999999MiB"}`:      `memory: "99999999999999999999MiB" is too large`,
	} {
		_, err := ParseManifest([]byte(doc), "/t", "a.tool.json")
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.CodeBadRequest || e.Message != want {
			t.Errorf("%s:\n got %v\nwant %s", doc, err, want)
		}
	}
	// null is the same as leaving the field out.
	m, err := ParseManifest([]byte(`{`+ok+`, "memory": null, "timeout": null, "mounts": null}`), "/t", "a.tool.json")
	if err != nil || m.Memory != 0 || m.Timeout != 0 || m.Mounts != nil {
		t.Errorf("nulls: %+v %v", m, err)
	}
}

// A long value is shown by its first 200 characters: one 5,000-digit limit
// or a 100 KB string cannot push the other problems out of the message,
// whose length is bounded.
func TestLongValuesKeepEveryProblem(t *testing.T) {
	digits, long := strings.Repeat("9", 5000), strings.Repeat("x", 100_000)
	doc := `{"name": "-` + long + `", "description": "d", "inputSchema": {"type": "object"},
		"memory": "` + long + `", "maxOutput": ` + digits + `, "timeout": -` + digits + `,
		"module": "` + long + `", "mounts": [{"host": "h", "guest": "` + long + `"}], "pur": true}`
	_, err := ParseManifest([]byte(doc), "/t", "a.tool.json")
	var e *engine.Error
	if !errors.As(err, &e) {
		t.Fatalf("%.300v", err)
	}
	x200, d200 := strings.Repeat("x", 200)+"…", strings.Repeat("9", 200)+"…"
	for _, want := range []string{
		`memory: "` + x200 + `" is not a size`,
		"maxOutput: " + d200 + " is too large",
		"timeout: -" + strings.Repeat("9", 199) + "… milliseconds is too long",
		`pur: unknown field (did you mean "pure"?)`,
		`name: "-` + strings.Repeat("x", 199) + `…": want identifier segments`,
		`module: "` + x200 + `" is not a .wasm file`,
		`mounts[0].guest: "` + x200 + `": want an absolute, clean path`,
	} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("the message lacks %.80q…", want)
		}
	}
	if e.Truncated || len(e.Message) > 2500 {
		t.Errorf("%d bytes, truncated %v: %.300s", len(e.Message), e.Truncated, e.Message)
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
	for _, in := range []string{`"64MB"`, `"MiB"`, `"-1KiB"`, `1.5`, `"9999999999GiB"`, `0`, `"0B"`, `-1`, `true`} {
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
