package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
)

func TestParseConfig(t *testing.T) {
	cfg, err := engine.ParseConfig([]byte(`{"limits":{"maxOperations":20,"callTimeout":"5s","batchTimeout":1500},
		"tools":{"add":{"timeout":"250ms","maxResultChars":100}},"approvalTimeout":"1m"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := engine.DefaultConfig()
	want.Limits.MaxOperations = 20
	want.Limits.CallTimeout = engine.Duration(5 * time.Second)
	want.Limits.BatchTimeout = engine.Duration(1500 * time.Millisecond)
	want.Tools = map[string]engine.ToolLimits{"add": {Timeout: engine.Duration(250 * time.Millisecond), MaxResultChars: 100}}
	want.ApprovalTimeout = engine.Duration(time.Minute)
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	for doc, msg := range map[string]string{
		`{"limits":{"maxOps":1}}`:           `unknown field "maxOps"`,
		`{"limits":{"callTimeout":"fast"}}`: `invalid duration "fast"`,
		`{"limits":{"callTimeout":true}}`:   `invalid duration true`,
		`{} {}`:                             "after the JSON object",
		`[]`:                                "cannot unmarshal array",
	} {
		if _, err := engine.ParseConfig([]byte(doc)); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseConfig(%s) = %v, want an error containing %q", doc, err, msg)
		}
	}
	path := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(path, []byte(`{"limits":{"maxConcurrency":2}}`), 0o644)
	if cfg, err := engine.LoadConfig(path); err != nil || cfg.Limits.MaxConcurrency != 2 || cfg.Limits.MaxOperations != 100 {
		t.Errorf("LoadConfig: %+v %v", cfg.Limits, err)
	}
}

func TestBuildReportsEveryProblem(t *testing.T) {
	f := newFixture(t)
	tools := f.tools()
	bad := tools[0]
	bad.Name = "bad name"
	noSchema := tools[0]
	noSchema.Name, noSchema.InputSchema = "noSchema", nil
	arr := tools[0]
	arr.Name, arr.InputSchema = "arr", []byte(`{"type":"array"}`)
	ext := tools[0]
	ext.Name, ext.InputSchema = "ext", []byte(`{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`)
	meta := tools[0]
	meta.Name = "batch"
	_, err := engine.NewBuilder().Add(tools...).Add(tools[0], bad, noSchema, arr, ext, meta).
		WithConfig(engine.Config{Limits: engine.Limits{MaxOperations: -1}, Tools: map[string]engine.ToolLimits{"nope": {}}}).Build()
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{`"add" added twice`, `"bad name"`, `"noSchema": no input schema`, `"arr": input schema root must have "type": "object"`,
		`"ext": input schema`, `"batch" is reserved`, "maxOperations must not be negative", "tools.nope: no such tool"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Build error lacks %q:\n%v", want, err)
		}
	}
}

func TestCallDirect(t *testing.T) {
	rec := &recorder{}
	e := build(t, newFixture(t), func(b *engine.Builder) { b.WithObserver(rec) })
	res, err := e.Call(t.Context(), "add", []byte(`{"a":1,"b":2}`))
	if err != nil || string(res) != `{"sum":3}` {
		t.Fatalf("%s %v", res, err)
	}
	if _, err := e.Call(t.Context(), "add", []byte(`{"a":1`)); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("truncated args: %v", err)
	}
	if n := len(rec.ofType(engine.EventRunStart)); n != 2 {
		t.Errorf("%d runs, want 2", n)
	}
	if _, ok := e.Tool("add"); !ok {
		t.Error("Tool(add) not found")
	}
	if got := len(e.Tools()); got != 10 {
		t.Errorf("%d tools", got)
	}
}
