package engine

import (
	"encoding/json"
	"fmt"

	"github.com/codemode-dev/codemode/internal/strictjson"
)

// ExecutionMode says how a batch runs its operations.
type ExecutionMode string

const (
	// Parallel runs independent operations concurrently, up to the
	// concurrency cap; an operation that references another waits for it.
	Parallel ExecutionMode = "parallel"
	// Sequential runs operations one after another in request order.
	Sequential ExecutionMode = "sequential"
)

// BatchRequest is a batch request, the wire format of docs/batch.md.
type BatchRequest struct {
	Operations    []Operation   `json:"operations"`
	ExecutionMode ExecutionMode `json:"executionMode,omitempty"` // default Parallel
	// StopOnError: in sequential mode the operations after the first failure
	// are skipped; in parallel mode operations not yet started are.
	StopOnError bool `json:"stopOnError,omitempty"`
	// Timeout for the whole batch, in milliseconds on the wire; it may only
	// tighten the configured batch timeout.
	Timeout      Duration      `json:"timeout,omitempty"`
	SafetyLimits *SafetyLimits `json:"safetyLimits,omitempty"`
}

// Operation is one tool call of a batch. Anywhere inside Args, an object
// {"$ref": "label"} or {"$ref": "label.path.0.field"} is replaced by that
// value of the labelled operation's result before this one is validated.
type Operation struct {
	Tool  string          `json:"tool"`
	Args  json.RawMessage `json:"args,omitempty"`
	Label string          `json:"label,omitempty"`
}

// SafetyLimits are a request's own limits; they may only tighten the
// engine's. A request asking for more gets the configured value and a warning.
type SafetyLimits struct {
	MaxOperations     int `json:"maxOperations,omitempty"`
	MaxAggregateChars int `json:"maxAggregateChars,omitempty"`
	MaxConcurrency    int `json:"maxConcurrency,omitempty"`
	MaxResultChars    int `json:"maxResultChars,omitempty"`
}

// BatchResult is a batch's result (docs/batch.md). Results are in request order.
type BatchResult struct {
	Summary BatchSummary      `json:"summary"`
	Results []OperationResult `json:"results"`
}

// BatchSummary counts the outcomes. Failed includes dependency_failed; Skipped
// counts only operations skipped by stopOnError.
type BatchSummary struct {
	Total         int           `json:"total"`
	Successful    int           `json:"successful"`
	Failed        int           `json:"failed"`
	Skipped       int           `json:"skipped"`
	ElapsedMS     float64       `json:"elapsed_ms"`
	ExecutionMode ExecutionMode `json:"executionMode"`
	Warnings      []string      `json:"warnings"`
}

// OperationResult is the outcome of one operation.
type OperationResult struct {
	Index   int             `json:"index"`
	Tool    string          `json:"tool"`
	Label   string          `json:"label,omitempty"`
	Success bool            `json:"success"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
	// Truncated marks a result cut by the per-result or aggregate cap: Result
	// is then a JSON string holding the first characters of the full result.
	Truncated bool    `json:"truncated,omitempty"`
	ElapsedMS float64 `json:"elapsed_ms"`
}

// ParseBatchRequest decodes a batch request strictly and checks it: trailing
// data, unknown fields, values of the wrong type, limits that are not
// positive and an invalid shape (no operations, a bad or duplicate label)
// are all reported at once, in one bad_request *Error.
func ParseBatchRequest(data []byte) (BatchRequest, error) {
	req, err := parseBatchRequest(data)
	if err != nil {
		return req, err
	}
	return req, nil
}

func parseBatchRequest(data []byte) (BatchRequest, *Error) {
	var req BatchRequest
	p := strictjson.Decode(data, &req)
	if !p.Broken() {
		req.problems(p)
	}
	if err := problemsError("", p); err != nil {
		return BatchRequest{}, err
	}
	return req, nil
}

// check validates a request's shape (mode, limits, labels), every problem at
// once. Limits are applied by the caller.
func (req *BatchRequest) check() *Error {
	var p strictjson.Problems
	req.problems(&p)
	return problemsError("", &p)
}

func (req *BatchRequest) problems(p *strictjson.Problems) {
	switch req.ExecutionMode {
	case "", Parallel, Sequential:
	default:
		p.Addf("executionMode", "must be %q or %q, not %s", Parallel, Sequential, quote(string(req.ExecutionMode)))
	}
	if len(req.Operations) == 0 {
		p.Addf("operations", "must list at least one operation")
	}
	positive(p, "timeout", req.Timeout)
	if s := req.SafetyLimits; s != nil {
		positive(p, "safetyLimits.maxOperations", s.MaxOperations)
		positive(p, "safetyLimits.maxAggregateChars", s.MaxAggregateChars)
		positive(p, "safetyLimits.maxConcurrency", s.MaxConcurrency)
		positive(p, "safetyLimits.maxResultChars", s.MaxResultChars)
	}
	seen := make(map[string]int)
	for i, op := range req.Operations {
		at := strictjson.Index("operations", i)
		if op.Tool == "" {
			p.Addf(at+".tool", "missing: the operation names no tool")
		}
		if op.Label == "" {
			continue
		}
		if !validLabel(op.Label) {
			p.Addf(at+".label", "label %s must be letters, digits, '_' or '-', starting with a letter or '_'", quote(op.Label))
			continue
		}
		if j, dup := seen[op.Label]; dup {
			p.Addf(at+".label", "operations %d and %d share the label %s", j, i, quote(op.Label))
			continue
		}
		seen[op.Label] = i
	}
}

func validLabel(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && (c == '-' || (c >= '0' && c <= '9')))
		if !ok {
			return false
		}
	}
	return s != ""
}

func (m ExecutionMode) orDefault() ExecutionMode {
	if m == "" {
		return Parallel
	}
	return m
}

// limitsFor applies a request's limits to the configured ones: a request may
// only tighten them. Asking for more keeps the configured value and warns.
func (e *Engine) limitsFor(req *BatchRequest) (Limits, []string) {
	l := e.cfg.Limits
	var warn []string
	if s := req.SafetyLimits; s != nil {
		tighten(&warn, "safetyLimits.maxOperations", &l.MaxOperations, s.MaxOperations)
		tighten(&warn, "safetyLimits.maxConcurrency", &l.MaxConcurrency, s.MaxConcurrency)
		tighten(&warn, "safetyLimits.maxResultChars", &l.MaxResultChars, s.MaxResultChars)
		tighten(&warn, "safetyLimits.maxAggregateChars", &l.MaxAggregateChars, s.MaxAggregateChars)
	}
	tighten(&warn, "timeout", &l.BatchTimeout, req.Timeout)
	return l, warn
}

// tighten applies a limit a request asked for to the configured one, cur: a
// request may only tighten. 0 (or less: the request was checked) asks for
// nothing; more than cur keeps cur and adds a warning. Batches and scripts
// both tighten with it.
func tighten[T ~int | ~int64](warn *[]string, name string, cur *T, asked T) {
	switch {
	case asked <= 0:
	case asked > *cur:
		*warn = append(*warn, fmt.Sprintf("%s %v exceeds the configured limit; using %v", name, asked, *cur))
	default:
		*cur = asked
	}
}
