// Package tooltest checks a WASM tool's manifest against its handler in
// host tests: the manifest has the loader's shape, its schemas compile, and
// the input schema accepts exactly what the handler accepts, bar the
// checks JSON Schema cannot express.
package tooltest

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/tools/wasm/guest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Manifest is a NAME.tool.json file, every field required.
type Manifest struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Module       string          `json:"module"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  struct {
		ReadOnlyHint    *bool `json:"readOnlyHint"`
		IdempotentHint  *bool `json:"idempotentHint"`
		DestructiveHint *bool `json:"destructiveHint"`
		OpenWorldHint   *bool `json:"openWorldHint"`
	} `json:"annotations"`
	Memory  string `json:"memory"`
	Timeout string `json:"timeout"`
	Pure    *bool  `json:"pure"`

	In, Out *jsonschema.Schema `json:"-"`
}

var (
	toolName = regexp.MustCompile(`^[a-z][a-zA-Z0-9]*(\.[a-z][a-zA-Z0-9]*)*$`)
	module   = regexp.MustCompile(`^[a-z0-9_-]+\.wasm$`)
	memory   = regexp.MustCompile(`^[1-9][0-9]*MiB$`)
	timeout  = regexp.MustCompile(`^[1-9][0-9]*(ms|s)$`)
)

// Load reads and checks the manifest at path, failing t on any problem.
func Load(t *testing.T, path string) *Manifest {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	a := m.Annotations
	switch {
	case !toolName.MatchString(m.Name):
		t.Errorf("%s: name %q", path, m.Name)
	case strings.TrimSpace(m.Description) == "":
		t.Errorf("%s: no description", path)
	case !module.MatchString(m.Module):
		t.Errorf("%s: module %q is not a plain NAME.wasm", path, m.Module)
	case a.ReadOnlyHint == nil || a.IdempotentHint == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil:
		t.Errorf("%s: annotations need all four hints", path)
	case !memory.MatchString(m.Memory):
		t.Errorf("%s: memory %q", path, m.Memory)
	case !timeout.MatchString(m.Timeout):
		t.Errorf("%s: timeout %q", path, m.Timeout)
	case m.Pure == nil:
		t.Errorf("%s: no pure", path)
	}
	m.In = compile(t, path+"#inputSchema", m.InputSchema)
	m.Out = compile(t, path+"#outputSchema", m.OutputSchema)
	return &m
}

func compile(t *testing.T, name string, doc json.RawMessage) *jsonschema.Schema {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if obj, ok := v.(map[string]any); !ok || obj["type"] != "object" {
		t.Fatalf("%s: not an object schema", name)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem:///schema.json", v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := c.Compile("mem:///schema.json")
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// Case is one set of arguments and the verdict expected of both the input
// schema and the handler. CodeOnly marks arguments that the schema cannot
// reject (duplicate ids, unknown references) and only the handler does;
// SchemaOnly marks the few the schema rejects but the handler, which never
// sees them behind the engine's validation, lets through (null for an
// optional field, read as its default).
type Case struct {
	Args       string
	Valid      bool
	CodeOnly   bool
	SchemaOnly bool
}

// Agree runs every case through the input schema and the handler, and
// validates each result against the output schema.
func Agree(t *testing.T, m *Manifest, h guest.Handler, cases []Case) {
	t.Helper()
	for _, c := range cases {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(c.Args))
		if err != nil {
			t.Fatalf("%s: %v", c.Args, err)
		}
		schemaOK, codeOK := c.Valid || c.CodeOnly, c.Valid || c.SchemaOnly
		schemaErr := m.In.Validate(doc)
		if (schemaErr == nil) != schemaOK {
			t.Errorf("%s: input schema says %v, want valid %v", clip(c.Args), schemaErr, schemaOK)
		}
		res, err := h([]byte(c.Args))
		if (err == nil) != codeOK {
			t.Errorf("%s: handler error %v, want valid %v", clip(c.Args), err, codeOK)
		}
		if err == nil {
			Output(t, m, res)
		}
	}
}

// Output checks that a handler's result matches the output schema.
func Output(t *testing.T, m *Manifest, res any) {
	t.Helper()
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Out.Validate(doc); err != nil {
		t.Errorf("result %s: output schema: %v", clip(string(data)), err)
	}
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
