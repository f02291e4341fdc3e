package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
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

// BatchRequest is the contract's batch request (§2).
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

// BatchResult is the contract's batch result (§2). Results are in request order.
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

// ParseBatchRequest decodes a batch request strictly: unknown fields, a
// wrong type or trailing data are bad_request errors naming the problem.
func ParseBatchRequest(data []byte) (BatchRequest, error) {
	req, err := parseBatchRequest(data)
	if err != nil {
		return req, err
	}
	return req, nil
}

func parseBatchRequest(data []byte) (BatchRequest, *Error) {
	var req BatchRequest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return BatchRequest{}, badJSON(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return BatchRequest{}, Errorf(CodeBadRequest, "malformed batch request: unexpected data after the JSON object")
	}
	return req, nil
}

// badJSON words a decoding error for a person: where it went wrong and why.
func badJSON(err error) *Error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return Errorf(CodeBadRequest, "malformed JSON at byte %d: %v", syn.Offset, err)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "the request"
		}
		return Errorf(CodeBadRequest, "malformed batch request: %s must be %s, not %s", field, typeName(typ.Type.String()), typ.Value)
	case errors.Is(err, io.EOF):
		return Errorf(CodeBadRequest, "malformed batch request: empty input")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return Errorf(CodeBadRequest, "malformed JSON: unexpected end of input")
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	return Errorf(CodeBadRequest, "malformed batch request: %s", msg)
}

func typeName(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "float"), goType == "engine.Duration":
		return "a number"
	case goType == "string", goType == "engine.ExecutionMode":
		return "a string"
	case goType == "bool":
		return "a boolean"
	}
	return "an object"
}

// check validates the request's shape: mode, labels, counts. Limits are
// applied by the caller.
func (req *BatchRequest) check() *Error {
	switch req.ExecutionMode {
	case "", Parallel, Sequential:
	default:
		return Errorf(CodeBadRequest, "executionMode must be %q or %q, not %s", Parallel, Sequential, quote(string(req.ExecutionMode)))
	}
	if len(req.Operations) == 0 {
		return Errorf(CodeBadRequest, "operations must list at least one operation")
	}
	if req.Timeout < 0 {
		return Errorf(CodeBadRequest, "timeout must be positive")
	}
	if s := req.SafetyLimits; s != nil && (s.MaxOperations < 0 || s.MaxAggregateChars < 0 || s.MaxConcurrency < 0 || s.MaxResultChars < 0) {
		return Errorf(CodeBadRequest, "safetyLimits must be positive")
	}
	seen := make(map[string]int)
	for i, op := range req.Operations {
		if op.Tool == "" {
			return Errorf(CodeBadRequest, "operation %d has no tool", i)
		}
		if op.Label == "" {
			continue
		}
		if !validLabel(op.Label) {
			return Errorf(CodeBadRequest, "operation %d: label %s must be letters, digits, '_' or '-', starting with a letter or '_'", i, quote(op.Label))
		}
		if j, dup := seen[op.Label]; dup {
			return Errorf(CodeBadRequest, "operations %d and %d share the label %s", j, i, quote(op.Label))
		}
		seen[op.Label] = i
	}
	return nil
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
	tighten := func(name string, cur *int, asked int) {
		switch {
		case asked <= 0:
		case asked > *cur:
			warn = append(warn, fmt.Sprintf("safetyLimits.%s %d exceeds the configured limit; using %d", name, asked, *cur))
		default:
			*cur = asked
		}
	}
	if s := req.SafetyLimits; s != nil {
		tighten("maxOperations", &l.MaxOperations, s.MaxOperations)
		tighten("maxConcurrency", &l.MaxConcurrency, s.MaxConcurrency)
		tighten("maxResultChars", &l.MaxResultChars, s.MaxResultChars)
		tighten("maxAggregateChars", &l.MaxAggregateChars, s.MaxAggregateChars)
	}
	if req.Timeout > 0 {
		if req.Timeout > l.BatchTimeout {
			warn = append(warn, fmt.Sprintf("timeout %v exceeds the configured batch timeout; using %v", req.Timeout.D(), l.BatchTimeout.D()))
		} else {
			l.BatchTimeout = req.Timeout
		}
	}
	return l, warn
}
