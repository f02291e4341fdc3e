package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/internal/strictjson"
	"github.com/codemode-dev/codemode/sandbox/js"
)

// ExecuteRequest is a code-mode request (docs/code-mode.md): JavaScript or
// TypeScript, the body of an async function.
type ExecuteRequest struct {
	Code string `json:"code"`
	// Input is the value of the script's global `input`.
	Input json.RawMessage `json:"input,omitempty"`
	// Timeout for the whole run; it may only tighten the configured one.
	Timeout Duration `json:"timeout,omitempty"`
	// Limits may only tighten the configured ones.
	Limits *ScriptLimits `json:"limits,omitempty"`
}

// ExecuteResult is what a script produced. Calls is the host's full trace;
// ModelText is what a model should see.
type ExecuteResult struct {
	Success bool `json:"success"`
	// Result is the script's return value (null when it returned nothing or
	// failed). When it did not fit the output budget it is a JSON string
	// holding the start of its JSON text, and Truncated is set.
	Result    json.RawMessage `json:"result"`
	Truncated bool            `json:"truncated,omitempty"`
	Logs      []LogEntry      `json:"logs"`
	Calls     []CallRecord    `json:"calls"`
	Stats     ExecuteStats    `json:"stats"`
	Error     *Error          `json:"error"`
	Warnings  []string        `json:"warnings,omitempty"`
}

// LogEntry is one console line of a script.
type LogEntry struct {
	Level   string `json:"level"`
	Message string `json:"message"`
}

// CallRecord is one tool call of a script, in the order the script made them.
type CallRecord struct {
	Index     int             `json:"index"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Success   bool            `json:"success"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *Error          `json:"error,omitempty"`
	ElapsedMS float64         `json:"elapsed_ms"`
	// Line and Column are where the script made the call.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Truncated marks a record whose Args or Result [Engine.CapTrace] cut.
	Truncated bool `json:"truncated,omitempty"`
}

// ExecuteStats are a run's numbers.
type ExecuteStats struct {
	ElapsedMS float64 `json:"elapsed_ms"`
	// ToolCalls counts the calls that were run (each is in Calls).
	ToolCalls  int  `json:"toolCalls"`
	TypeScript bool `json:"typescript,omitempty"` // the code went through the TypeScript transform
}

// ParseExecuteRequest decodes a code-mode request strictly and checks it:
// trailing data, unknown fields, values of the wrong type, limits that are
// not positive and empty code are all reported at once, in one bad_request
// *Error.
func ParseExecuteRequest(data []byte) (ExecuteRequest, error) {
	req, err := parseExecuteRequest(data)
	if err != nil {
		return ExecuteRequest{}, err
	}
	return req, nil
}

// parseExecuteRequest is ParseExecuteRequest with the *Error type kept.
func parseExecuteRequest(data []byte) (ExecuteRequest, *Error) {
	var req ExecuteRequest
	p := strictjson.Decode(data, &req)
	if !p.Broken() {
		req.problems(p)
	}
	if err := problemsError("", p); err != nil {
		return ExecuteRequest{}, err
	}
	return req, nil
}

func (req *ExecuteRequest) check() *Error {
	var p strictjson.Problems
	req.problems(&p)
	return problemsError("", &p)
}

func (req *ExecuteRequest) problems(p *strictjson.Problems) {
	if strings.TrimSpace(req.Code) == "" {
		p.Addf("code", "missing: the request has no code")
	}
	if len(req.Input) > 0 && !json.Valid(req.Input) {
		p.Addf("input", "not valid JSON")
	}
	positive(p, "timeout", req.Timeout)
	if req.Limits != nil {
		req.Limits.problems(p, "limits")
		if req.Limits.MaxDeclarationChars != 0 {
			p.Addf("limits.maxDeclarationChars", "a setting of the engine's tool definitions, not a limit a request can give")
		}
	}
}

// Execute runs a script (docs/code-mode.md). Every tool call it makes takes the
// one call path of batch operations — validation, suggestions, approvals,
// limits, events with parentId = the run — so the two modes cannot drift
// apart. The error is non-nil only for a malformed request; a script that
// fails is a result with Success false.
func (e *Engine) Execute(ctx context.Context, req ExecuteRequest) (*ExecuteResult, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	r := e.startRun(ctx, RunScript)
	res := r.execute(ctx, &req, r.id, "")
	r.finish(ctx, res.Error)
	return res, nil
}

// scriptLimitsFor is the configured script limits, tightened by the request
// as a batch's are (tighten). The request's timeout is "timeout", or else
// "limits.timeout".
func (e *Engine) scriptLimitsFor(req *ExecuteRequest) (ScriptLimits, []string) {
	l := e.cfg.Script
	var warn []string
	timeout := req.Timeout
	if q := req.Limits; q != nil {
		tighten(&warn, "limits.maxToolCalls", &l.MaxToolCalls, q.MaxToolCalls)
		tighten(&warn, "limits.maxConcurrency", &l.MaxConcurrency, q.MaxConcurrency)
		tighten(&warn, "limits.maxOutputChars", &l.MaxOutputChars, q.MaxOutputChars)
		tighten(&warn, "limits.maxCodeBytes", &l.MaxCodeBytes, q.MaxCodeBytes)
		tighten(&warn, "limits.maxCallDepth", &l.MaxCallDepth, q.MaxCallDepth)
		tighten(&warn, "limits.maxMemoryBytes", &l.MaxMemoryBytes, q.MaxMemoryBytes)
		if timeout == 0 {
			timeout = q.Timeout
		}
	}
	tighten(&warn, "timeout", &l.Timeout, timeout)
	return l, warn
}

// execute runs a script as part of run r; its calls get parentID and ids
// idPrefix + index.
func (r *run) execute(ctx context.Context, req *ExecuteRequest, parentID, idPrefix string) *ExecuteResult {
	start := time.Now()
	lim, warnings := r.eng.scriptLimitsFor(req)
	res := &ExecuteResult{Logs: []LogEntry{}, Calls: []CallRecord{}, Result: json.RawMessage("null"), Warnings: warnings}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	h := newScriptHost(r, ctx, lim.MaxConcurrency, parentID, idPrefix)
	var onLog func(js.Log)
	if r.observed() {
		onLog = func(l js.Log) {
			r.emit(ctx, Event{Type: EventLog, ParentID: parentID, Level: l.Level, Message: l.Message})
		}
	}
	out := r.eng.runner.RunScript(ctx, js.Job{Code: req.Code, MaxCodeBytes: lim.MaxCodeBytes, Options: js.Options{
		Limits: js.Limits{
			Timeout: lim.Timeout.D(), MaxToolCalls: lim.MaxToolCalls, MaxCallDepth: lim.MaxCallDepth,
			MaxMemoryBytes: lim.MaxMemoryBytes, MaxOutputChars: lim.MaxOutputChars,
		},
		Input: req.Input,
		Tools: r.eng.scriptTools,
		Host:  h,
		OnLog: onLog,
	}})
	res.Stats.TypeScript = out.TypeScript
	// Calls the script started before it returned finish, within what is
	// left of its timeout; a run that failed cancels them at once.
	if out.Err == nil {
		h.wait(start.Add(lim.Timeout.D()))
	}
	cancel(Errorf(CodeCanceled, "the script had ended"))
	res.Calls = h.close()

	res.Stats.ElapsedMS = ms(time.Since(start))
	res.Stats.ToolCalls = len(res.Calls) // calls that ran: a run ended mid-turn never started that turn's calls
	if out.LateCalls > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"%d tool calls were made after the script had returned and were not run; await every call", out.LateCalls))
	}
	if out.Err == nil && !json.Valid(out.Value) {
		// A ScriptRunner's promise broken (js.Result.Value is JSON, or
		// nothing for undefined): the answer stays JSON.
		if len(out.Value) == 0 {
			out.Value = json.RawMessage("null")
		} else {
			out.Err = &js.Error{Code: js.CodeRuntimeError, Message: "the script runner returned a result that is not JSON"}
		}
	}
	if out.Err != nil {
		res.Error = fromSandbox(out.Err)
	} else {
		res.Success = true
		res.Result = out.Value
	}
	res.shapeOutput(out.Logs, out.LogsTruncated, lim.MaxOutputChars)
	return res
}

// shapeOutput fits result and logs into maxChars together: the result
// first (cut to a JSON string when too long), then as many log lines as fit.
func (res *ExecuteResult) shapeOutput(logs []js.Log, logsCut bool, maxChars int) {
	caps := newOutputCaps(maxChars)
	res.Result, res.Truncated = caps.cut(res.Result, 0)
	left := maxChars - min(utf8.RuneCount(res.Result), maxChars)
	for _, l := range logs {
		n := max(utf8.RuneCountInString(l.Message), 1) // an empty line counts one, so empty lines cannot pile up unbounded
		if n > left {
			logsCut = true
			if left > 0 {
				res.Logs = append(res.Logs, LogEntry{Level: l.Level, Message: cutString(l.Message, left)})
			}
			break
		}
		left -= n
		res.Logs = append(res.Logs, LogEntry{Level: l.Level, Message: l.Message})
	}
	if logsCut {
		res.Truncated = true
		res.Warnings = append(res.Warnings, fmt.Sprintf("logs were cut to fit the output limit of %d characters", maxChars))
	}
}

func cutString(s string, n int) string {
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// fromSandbox turns the sandbox's error into the engine's: a tool error
// that ended the script uncaught is the tool's own *Error, located where the
// script made the call. What a script throws is the script's to size, so
// this is where a script's error is cut to the bounds of bounds.go.
func fromSandbox(e *js.Error) *Error {
	if err, ok := e.Cause.(*Error); ok {
		c := *err
		c.Line, c.Column = e.Line, e.Column
		return c.bounded()
	}
	return (&Error{Code: Code(e.Code), Message: e.Message, Line: e.Line, Column: e.Column}).bounded()
}

// toSandbox turns a call's *Error into what the script's promise rejects
// with: suggestions and details become properties of the JavaScript Error.
func toSandbox(err *Error) *js.Error {
	e := &js.Error{Code: js.Code(err.Code), Message: err.Message, Cause: err}
	if len(err.Suggestions) > 0 || len(err.Details) > 0 {
		e.Props, _ = json.Marshal(struct {
			Suggestions []string    `json:"suggestions,omitempty"`
			Details     []Violation `json:"details,omitempty"`
		}{err.Suggestions, err.Details})
	}
	return e
}
