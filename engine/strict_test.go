package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
)

// Requests are decoded strictly by one decoder: trailing data of any kind,
// unknown fields, wrong types; every problem is reported at once with its
// path, together with the request's own checks, in one bad_request *Error.
func TestRequestsAreStrict(t *testing.T) {
	parsers := map[string]func([]byte) error{
		"batch": func(b []byte) error { _, err := engine.ParseBatchRequest(b); return err },
		"execute": func(b []byte) error {
			_, err := engine.ParseExecuteRequest(b)
			return err
		},
	}
	valid := map[string]string{"batch": `{"operations":[{"tool":"add"}]}`, "execute": `{"code":"return 1"}`}
	for name, parse := range parsers {
		if err := parse([]byte(valid[name])); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, trailing := range []string{"]", "}", " {}", "x", ` "more"`} {
			doc := valid[name] + trailing
			err := parse([]byte(doc))
			var e *engine.Error
			if !errors.As(err, &e) || e.Code != engine.CodeBadRequest || !strings.HasPrefix(e.Message, "unexpected data after the JSON value, at line 1, column ") {
				t.Errorf("%s %s: %v", name, doc, err)
			}
		}
	}
	for _, tc := range []struct {
		name, doc, want string
		parse           func([]byte) error
	}{
		{"batch", `{"operations":[{"tol":"add","args":{}},{"tool":5}],"executionMode":"fast","stopOnEror":true,"timeout":0,
			"safetyLimits":{"maxOperations":-1,"maxConcurency":2}}]`, strings.Join([]string{
			`operations[0].tol: unknown field (did you mean "tool"?)`,
			`operations[1].tool: want a string, got the number 5`,
			`stopOnEror: unknown field (did you mean "stopOnError"?)`,
			`timeout: must be positive, not 0 (leave it out for the default)`,
			`safetyLimits.maxConcurency: unknown field (did you mean "maxConcurrency"?)`,
			`unexpected data after the JSON value, at line 2, column 58`,
			`executionMode: must be "parallel" or "sequential", not "fast"`,
			`safetyLimits.maxOperations: must be positive, not -1 (leave it out for the default)`,
			`operations[0].tool: missing: the operation names no tool`,
		}, "; "), parsers["batch"]},
		{"execute", `{"code":"","Timeout":"5s","timeout":"-1s","limits":{"maxToolCalls":0,"maxConcurrency":-2,"timeout":"1x"},"input":{}}`, strings.Join([]string{
			`Timeout: unknown field (did you mean "timeout"? names are case-sensitive)`,
			`timeout: must be positive, not -1s (leave it out for the default)`,
			`limits.timeout: "1x" is not a duration (want milliseconds, or a Go duration such as "30s", "1m30s" or "250ms")`,
			`code: missing: the request has no code`,
			`limits.maxToolCalls: must be positive, not 0 (leave it out for the default)`,
			`limits.maxConcurrency: must be positive, not -2 (leave it out for the default)`,
		}, "; "), parsers["execute"]},
		{"batch given twice", `{"operations":[{"tool":"add"}],"operations":[]}`, `operations: given twice`, parsers["batch"]},
		{"batch empty", ``, `empty input: want a JSON object`, parsers["batch"]},
		{"batch truncated", `{"operations":[`, `malformed JSON: unexpected end of input`, parsers["batch"]},
		{"execute not an object", `["return 1"]`, `want an object, got an array`, parsers["execute"]},
	} {
		err := tc.parse([]byte(tc.doc))
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.CodeBadRequest {
			t.Errorf("%s: %#v, want a bad_request *engine.Error", tc.name, err)
			continue
		}
		if e.Message != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, e.Message, tc.want)
		}
	}
}

// Requests built in Go are checked by the same rules, every problem at once;
// a zero limit there means "not set".
func TestGoRequestsAreChecked(t *testing.T) {
	e := build(t, newFixture(t))
	_, err := e.Batch(context.Background(), engine.BatchRequest{Timeout: -1, SafetyLimits: &engine.SafetyLimits{MaxConcurrency: -3},
		Operations: []engine.Operation{{Tool: "add", Label: "a"}, {Tool: "add", Label: "a"}}})
	want := `timeout: must be positive, not -1ns (leave it out for the default); safetyLimits.maxConcurrency: must be positive, not -3 (leave it out for the default); operations[1].label: operations 0 and 1 share the label "a"`
	if !errors.Is(err, engine.ErrBadRequest) || err.(*engine.Error).Message != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	_, err = e.Execute(context.Background(), engine.ExecuteRequest{Code: "return 1", Limits: &engine.ScriptLimits{MaxOutputChars: -1}})
	if !errors.Is(err, engine.ErrBadRequest) || !strings.Contains(err.Error(), "limits.maxOutputChars: must be positive, not -1") {
		t.Errorf("execute: %v", err)
	}
	res, err := e.Execute(context.Background(), engine.ExecuteRequest{Code: "return 1", Limits: &engine.ScriptLimits{}})
	if err != nil || !res.Success {
		t.Errorf("zero limits: %v %+v", err, res)
	}
}

// A request's timeout tightens as its limits do, with the same warning.
func TestRequestTimeoutsTightenLikeLimits(t *testing.T) {
	e := build(t, newFixture(t))
	res := mustBatch(t, e, `{"timeout":"2m","operations":[{"tool":"add","args":{"a":1,"b":1}}]}`)
	if w := strings.Join(res.Summary.Warnings, "\n"); w != "timeout 2m0s exceeds the configured limit; using 1m0s" {
		t.Errorf("batch warnings %q", w)
	}
	out := execute(t, e, engine.ExecuteRequest{Code: "return 1", Limits: &engine.ScriptLimits{Timeout: engine.Duration(time.Hour), MaxCallDepth: 5000}})
	if w := strings.Join(out.Warnings, "\n"); w != "limits.maxCallDepth 5000 exceeds the configured limit; using 1000\ntimeout 1h0m0s exceeds the configured limit; using 30s" {
		t.Errorf("script warnings %q", w)
	}
}

// Timeouts and cancelations are *engine.Errors that errors.Is also matches
// against the context errors they stand for, through real runs: a batch
// operation that times out, a batch canceled by its caller, a script that
// times out, a canceled Execute and a direct call.
func TestTimeoutAndCanceledMatchContextErrors(t *testing.T) {
	f := newFixture(t)
	e := build(t, f, func(b *engine.Builder) {
		b.WithConfig(engine.Config{Tools: map[string]engine.ToolLimits{"stuck": {Timeout: engine.Duration(30 * time.Millisecond)}}})
	})
	defer f.unstick()
	isTimeout := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || !errors.Is(err, engine.ErrTimeout) {
			t.Errorf("%s: %v does not match context.DeadlineExceeded alone", what, err)
		}
	}
	isCanceled := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, engine.ErrCanceled) {
			t.Errorf("%s: %v does not match context.Canceled alone", what, err)
		}
	}

	res := mustBatch(t, e, `{"operations":[{"tool":"stuck"}]}`)
	isTimeout("batch operation", res.Results[0].Error)
	res = mustBatch(t, e, `{"timeout":50,"operations":[{"tool":"sleep","args":{"ms":5000}}]}`)
	isTimeout("batch timeout", res.Results[0].Error)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	req, _ := engine.ParseBatchRequest([]byte(`{"operations":[{"tool":"sleep","args":{"ms":5000}}]}`))
	bres, err := e.Batch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	isCanceled("canceled batch", bres.Results[0].Error)

	out := execute(t, e, engine.ExecuteRequest{Code: `while (true) {}`, Timeout: engine.Duration(50 * time.Millisecond)})
	isTimeout("script timeout", out.Error)

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	out, err = e.Execute(ctx, engine.ExecuteRequest{Code: `await tools.sleep({ms: 5000})`})
	if err != nil {
		t.Fatal(err)
	}
	isCanceled("canceled Execute", out.Error)

	_, err = e.Call(context.Background(), "stuck", nil)
	isTimeout("direct call", err)

	var other error = engine.Errorf(engine.CodeToolError, "broke")
	if errors.Is(other, context.DeadlineExceeded) || errors.Is(other, context.Canceled) {
		t.Error("a tool_error matches a context error")
	}
}

// A client's long value is quoted in part, like every client string.
func TestLongValuesAreQuotedInPart(t *testing.T) {
	long := strings.Repeat("9", 1<<20)
	for _, doc := range []string{`{"code":"1","timeout":"` + long + `x"}`, `{"code":"1","timeout":` + long + `}`, `{"code":"1","timeout":-` + long + `}`} {
		_, err := engine.ParseExecuteRequest([]byte(doc))
		if err == nil || len(err.Error()) > 1000 || !strings.Contains(err.Error(), "…") {
			t.Errorf("%d bytes: %.300v", len(err.Error()), err)
		}
	}
}
