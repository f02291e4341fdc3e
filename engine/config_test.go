package engine_test

import (
	"encoding/json"
	"errors"
	"flag"
	"io"
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
		`{"limits":{"maxOps":1}}`:                  `config: limits.maxOps: unknown field (the fields here are maxOperations, maxConcurrency, callTimeout, batchTimeout, maxResultChars, maxAggregateChars)`,
		`{"limits":{"maxOperation":1}}`:            `config: limits.maxOperation: unknown field (did you mean "maxOperations"?)`,
		`{"limits":{"callTimeout":"fast"}}`:        `config: limits.callTimeout: "fast" is not a duration (want milliseconds, or a Go duration such as "30s", "1m30s" or "250ms")`,
		`{"limits":{"callTimeout":true}}`:          `config: limits.callTimeout: want a number of milliseconds or a duration string such as "30s", got true`,
		`{"limits":{"maxOperations":"5"}}`:         `config: limits.maxOperations: want an integer, got the string "5"`,
		`{"limits":{"maxOperations":1.5}}`:         `config: limits.maxOperations: want an integer, got the number 1.5`,
		`{"tools":{"graph.layout":{"timeout":0}}}`: `config: tools["graph.layout"].timeout: must be positive, not 0 (leave it out for the default)`,
		`{} {}`:                   "config: unexpected data after the JSON value, at line 1, column 4",
		`{}]`:                     "config: unexpected data after the JSON value, at line 1, column 3",
		`{"limits":{}}}`:          "config: unexpected data after the JSON value, at line 1, column 14",
		`[]`:                      "config: want an object, got an array",
		"{\n  \"limits\": {,}\n}": "config: malformed JSON at line 2, column 14: invalid character ',' looking for beginning of object key string",
	} {
		_, err := engine.ParseConfig([]byte(doc))
		if err == nil || err.Error() != "bad_request: "+msg {
			t.Errorf("ParseConfig(%s) = %v, want bad_request: %s", doc, err, msg)
		}
	}
	path := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(path, []byte(`{"limits":{"maxConcurrency":2}}`), 0o644)
	if cfg, err := engine.LoadConfig(path); err != nil || cfg.Limits.MaxConcurrency != 2 || cfg.Limits.MaxOperations != 100 {
		t.Errorf("LoadConfig: %+v %v", cfg.Limits, err)
	}
}

// A config file's problems are all reported at once, decoding problems
// (unknown fields, wrong types) together with the limits' own, each with its
// path, in one bad_request *Error.
func TestParseConfigReportsEveryProblem(t *testing.T) {
	_, err := engine.ParseConfig([]byte(`{"foo": 1, "script": {"timout": "5s", "maxToolCalls": 0, "maxCodeBytes": -1},
		"limits": {"maxConcurrency": "8", "callTimeout": "-1s", "batchTimeout": 0}, "approvalTimeout": {}}`))
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.CodeBadRequest {
		t.Fatalf("got %#v, want a bad_request *engine.Error", err)
	}
	want := "config: " + strings.Join([]string{
		`foo: unknown field (the fields here are limits, script, tools, approvalTimeout, mcpServers, openapi)`,
		`script.timout: unknown field (did you mean "timeout"?)`,
		`limits.maxConcurrency: want an integer, got the string "8"`,
		`limits.callTimeout: must be positive, not -1s (leave it out for the default)`,
		`limits.batchTimeout: must be positive, not 0 (leave it out for the default)`,
		`approvalTimeout: want a number of milliseconds or a duration string such as "30s", got an object`,
		`script.maxToolCalls: must be positive, not 0 (leave it out for the default)`,
		`script.maxCodeBytes: must be positive, not -1 (leave it out for the default)`,
	}, "; ")
	if e.Message != want {
		t.Errorf("message\n%s\nwant\n%s", e.Message, want)
	}
	path := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(path, []byte(`{"limits": {"maxOps": 1}}`), 0o644)
	_, err = engine.LoadConfig(path)
	if !errors.As(err, &e) || !strings.HasPrefix(e.Message, "config "+path+": limits.maxOps: unknown field") {
		t.Errorf("LoadConfig: %v", err)
	}
	if _, err = engine.LoadConfig(path + ".missing"); !errors.Is(err, engine.ErrBadRequest) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadConfig of a missing file: %v", err)
	}
}

// One rule for durations everywhere: a plain number is milliseconds, a
// string a Go duration; it must be positive.
func TestDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"5000": 5 * time.Second, "1.5": 1500 * time.Microsecond, " 30s ": 30 * time.Second, "1m30s": 90 * time.Second,
		"250ms": 250 * time.Millisecond, "1e3": time.Second, "5": 5 * time.Millisecond,
	} {
		d, err := engine.ParseDuration(in)
		if err != nil || d.D() != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, d, err, want)
		}
		var f engine.Duration
		if err := f.Set(in); err != nil || f.D() != want {
			t.Errorf("Set(%q) = %v, %v; want %v", in, f, err, want)
		}
	}
	for in, want := range map[string]string{
		"0":         "must be positive, not 0 (leave it out for the default)",
		"0s":        "must be positive, not 0s (leave it out for the default)",
		"-1s":       "must be positive, not -1s (leave it out for the default)",
		"-5":        "must be positive, not -5 (leave it out for the default)",
		"soon":      `"soon" is not a duration (want milliseconds, or a Go duration such as "30s", "1m30s" or "250ms")`,
		"Inf":       `"Inf" is not a duration (want milliseconds, or a Go duration such as "30s", "1m30s" or "250ms")`,
		"0x10":      `"0x10" is not a duration (want milliseconds, or a Go duration such as "30s", "1m30s" or "250ms")`,
		"1e300":     "1e300 milliseconds is too long",
		"0.0000001": "0.0000001 milliseconds is less than a nanosecond",
	} {
		if _, err := engine.ParseDuration(in); err == nil || err.Error() != want {
			t.Errorf("ParseDuration(%q): %v, want %s", in, err, want)
		}
	}
	// As JSON: numbers and strings alike, the same rule; null leaves it unset.
	for in, want := range map[string]time.Duration{`5000`: 5 * time.Second, `"5000"`: 5 * time.Second, `"2s"`: 2 * time.Second, `null`: 0} {
		var d engine.Duration
		if err := json.Unmarshal([]byte(in), &d); err != nil || d.D() != want {
			t.Errorf("json %s: %v, %v; want %v", in, d, err, want)
		}
	}
	for _, in := range []string{`0`, `"0"`, `-1`, `"-1s"`, `true`, `[]`} {
		var d engine.Duration
		if err := json.Unmarshal([]byte(in), &d); err == nil {
			t.Errorf("json %s: accepted as %v", in, d)
		}
	}
	// A flag.Value, as the CLI uses it.
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var d engine.Duration
	fs.Var(&d, "timeout", "")
	if err := fs.Parse([]string{"--timeout", "5"}); err != nil || d.D() != 5*time.Millisecond || d.String() != "5ms" {
		t.Errorf("--timeout 5: %v %v", d, err)
	}
	if err := fs.Parse([]string{"--timeout", "0"}); err == nil || !strings.Contains(err.Error(), "must be positive, not 0 (leave it out for the default)") {
		t.Errorf("--timeout 0: %v", err)
	}
}

func TestBuildReportsEveryProblem(t *testing.T) {
	f := newFixture(t)
	tools := f.tools()
	bad := tools[0]
	bad.Name = "bad name"
	noSchema := tools[0]
	noSchema.Name, noSchema.InputSchema, noSchema.Origin = "noSchema", nil, "tools/noschema.json"
	arr := tools[0]
	arr.Name, arr.InputSchema = "arr", []byte(`{"type":"array"}`)
	ext := tools[0]
	ext.Name, ext.InputSchema = "ext", []byte(`{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`)
	meta := tools[0]
	meta.Name = "batch"
	first, second := tools[0], tools[0]
	first.Name, first.Origin = "createFrame", "built-in"
	second.Name, second.Origin = "createFrame", "wasm-tools/x.json"
	_, err := engine.NewBuilder().Add(tools...).Add(tools[0], bad, noSchema, arr, ext, meta, first, second).
		WithConfig(engine.Config{Limits: engine.Limits{MaxOperations: -1}, Script: engine.ScriptLimits{Timeout: -1},
			Tools: map[string]engine.ToolLimits{"nope": {}, "ad": {}, "add": {Timeout: -5}}}).Build()
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.CodeBadRequest {
		t.Fatalf("got %#v, want a bad_request *engine.Error", err)
	}
	want := []string{
		`tool "add" is already defined`,
		`tool name "bad name": want identifier segments ([A-Za-z_][A-Za-z0-9_]*) joined by dots`,
		`tool "noSchema": no input schema (from tools/noschema.json)`,
		`tool "arr": input schema root must have "type": "object"`,
		`tool "ext": input schema: failing loading "file:///etc/passwd": external schema reference "file:///etc/passwd" is not allowed: schemas must be self-contained`,
		`tool name "batch" is reserved for the engine's meta-tool`,
		`tool "createFrame" from wasm-tools/x.json is already defined (built-in)`,
		`config: limits.maxOperations: must be positive, not -1 (leave it out for the default)`,
		`config: script.timeout: must be positive, not -1ns (leave it out for the default)`,
		`config: tools.add.timeout: must be positive, not -5ns (leave it out for the default)`,
		`config: tools.ad: no such tool (did you mean "add"?)`,
		`config: tools.nope: no such tool`,
	}
	if diff := cmp.Diff(strings.Join(want, "; "), e.Message); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
	// The message lists them; unwrapping gives one *engine.Error each.
	joined, ok := errors.Unwrap(e).(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("%#v does not unwrap to a list", errors.Unwrap(e))
	}
	var got []string
	for _, err := range joined.Unwrap() {
		var one *engine.Error
		if !errors.As(err, &one) || one.Code != engine.CodeBadRequest {
			t.Errorf("%v is not a bad_request *engine.Error", err)
			continue
		}
		got = append(got, one.Message)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
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
