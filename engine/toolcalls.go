package engine

import (
	"context"
	"encoding/json"
	"sync"
)

// ToolCall is one native tool call of a model step, as a provider returns it.
type ToolCall struct {
	// ID is the provider's call id; results are keyed by it.
	ID string `json:"id"`
	// Name is the tool's name, in canonical ("board.getState") or wire
	// ("board-getState") form.
	Name string `json:"name"`
	// Arguments is the JSON object of arguments; a JSON string holding that
	// object (OpenAI's form) is accepted too.
	Arguments json.RawMessage `json:"arguments"`
}

// ToolCallResult is what to send back to the provider for one ToolCall.
type ToolCallResult struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Content is the JSON text to return as the tool result: the tool's result,
	// the BatchResult of a batch call, or {"error": {...}} when IsError.
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"isError"`
	Error     *Error          `json:"error,omitempty"`
	Truncated bool            `json:"truncated,omitempty"`
	// Script is the full result of an execute_code call, trace included,
	// for the host; Content holds only its model-facing rendering.
	Script *ExecuteResult `json:"-"`
}

// HandleToolCalls runs the native tool calls of one model step as one run.
// Calls run concurrently (up to maxConcurrency at once); a call of the batch
// meta-tool is unwrapped into its operations, which are calls of their own
// (own events and results, parentId = the batch call's id).
//
// Approvals: the step's gated direct calls and batch operations go to the
// Approver as one set before anything of the step runs; denied calls fail
// with denied and the rest still run. An execute_code call runs its script
// after that set is decided; the script's calls (parentId = the
// execute_code call's id) are known only as it makes them, so its gated
// calls are asked about in sets of their own, one per turn of the script's
// event loop (see Approver). Its result is the script's model-facing
// rendering (ExecuteResult.ModelText), never its call trace.
//
// A model decoding under the strict form of a tool's schema (see
// Definitions.OpenAI) sends null for each optional argument it leaves out;
// those nulls are dropped before the call is checked and approved, in
// direct calls and in batch operations alike.
//
// Results come back in the order of calls, each with its provider call id.
func (e *Engine) HandleToolCalls(ctx context.Context, calls []ToolCall) []ToolCallResult {
	r := e.startRun(ctx, RunToolCalls)
	results := make([]ToolCallResult, len(calls))
	batches := make([]*batchExec, len(calls))
	scripts := make([]*ExecuteRequest, len(calls))
	direct := make([]*call, len(calls))
	var set []pendingApproval
	seen := make(map[string]bool, len(calls))

	for i, tc := range calls {
		results[i] = ToolCallResult{ID: tc.ID, Name: tc.Name}
		name := CanonicalName(tc.Name)
		args, err := toolArguments(tc.Arguments)
		switch {
		case tc.ID == "" || seen[tc.ID]:
			err = Errorf(CodeBadRequest, "tool call %d: the call id %s is missing or used twice", i, quote(tc.ID))
		case err != nil:
		case name == MetaBatch:
			var req BatchRequest
			if req, err = parseBatchRequest(e.dropNulls(MetaBatch, args)); err == nil {
				for j := range req.Operations {
					op := &req.Operations[j]
					op.Args = e.dropNulls(op.Tool, op.Args)
				}
				batches[i], err = r.prepareBatch(&req, tc.ID, tc.ID+"/")
			}
			if err == nil {
				set = append(set, batches[i].approvalSet()...)
			}
		case name == MetaExecuteCode:
			var req ExecuteRequest
			if req, err = parseExecuteRequest(args); err == nil {
				scripts[i] = &req
			}
		case reserved[name] && !(name == MetaSearchTools && e.search != nil): // search_tools is a direct call
			err = Errorf(CodeUnknownTool, "%q is not enabled on this engine", name)
		default:
			c := &call{id: tc.ID, parentID: r.id, tool: name, args: e.dropNulls(name, args)}
			direct[i] = c
			if p, ok := e.gate(c, false); ok {
				set = append(set, p)
			}
		}
		seen[tc.ID] = true
		if err != nil {
			results[i].setError(err)
		}
	}
	r.approve(ctx, set)

	step := &stepCalls{e: e, results: results, sem: make(chan struct{}, e.cfg.Limits.MaxConcurrency), direct: direct}
	s := newScope(ctx)
	defer s.close()
	for i := range calls {
		switch {
		case batches[i] != nil:
			b := batches[i]
			b.sem = step.sem
			step.wg.Go(func() {
				res := b.execute(ctx)
				results[i].Content, _ = json.Marshal(res)
				results[i].IsError = res.Summary.Failed+res.Summary.Skipped > 0
			})
		case scripts[i] != nil:
			step.wg.Go(func() {
				res := r.execute(ctx, scripts[i], calls[i].ID, calls[i].ID+"/")
				results[i].Content, results[i].IsError, results[i].Script = json.RawMessage(res.ModelText()), !res.Success, res
				results[i].Error = res.Error
			})
		case direct[i] != nil:
			step.wg.Add(1) // done when the call completes, not when its goroutine ends
			go func() {
				step.sem <- struct{}{}
				r.invoke(s, direct[i], i, step)
			}()
		}
	}
	step.wg.Wait()
	var failed int
	for _, res := range results {
		if res.IsError {
			failed++
		}
	}
	var err *Error
	if failed > 0 {
		err = Errorf(CodeToolError, "%d of %d tool calls did not succeed", failed, len(calls))
	}
	r.finish(ctx, err)
	return results
}

// stepCalls is the completer of a step's direct calls.
type stepCalls struct {
	e       *Engine
	results []ToolCallResult
	direct  []*call
	sem     chan struct{} // shared with the step's batches
	wg      sync.WaitGroup
}

func (s *stepCalls) complete(i int, out outcome, _ bool) {
	<-s.sem
	defer s.wg.Done()
	if out.err != nil {
		s.results[i].setError(out.err)
		return
	}
	s.results[i].Content, s.results[i].Truncated = newOutputCaps(0).cut(out.result, s.e.toolResultCap(s.direct[i].tool))
}

func (res *ToolCallResult) setError(err *Error) {
	res.IsError = true
	res.Error = err
	res.Content, _ = json.Marshal(struct {
		Error *Error `json:"error"`
	}{err})
}

// toolArguments accepts an arguments object, or a JSON string holding one.
func toolArguments(raw json.RawMessage) (json.RawMessage, *Error) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, Errorf(CodeBadRequest, "arguments: %v", err)
		}
		if s == "" {
			return json.RawMessage("{}"), nil
		}
		if !json.Valid([]byte(s)) {
			return nil, Errorf(CodeBadRequest, "arguments are a string that is not JSON: %s", quote(s))
		}
		return json.RawMessage(s), nil
	}
	if len(raw) == 0 {
		return json.RawMessage("{}"), nil
	}
	if !json.Valid(raw) {
		return nil, Errorf(CodeBadRequest, "arguments are not valid JSON")
	}
	return raw, nil
}
