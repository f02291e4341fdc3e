package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// Run plays every scenario with every strategy of cfg (Repeat times each)
// and measures each run. A run that fails — its checker says no, its model
// errs, it takes too many turns — is a Result with Correct false and the
// reason; Run's error is only for a set-up that cannot run at all.
func Run(ctx context.Context, cfg Config, scenarios []Scenario) (*Report, error) {
	if cfg.Engine == nil {
		return nil, errors.New("bench: Config.Engine is required")
	}
	strategies := cfg.Strategies
	if len(strategies) == 0 {
		strategies = Strategies
	}
	for _, s := range strategies {
		if !slices.Contains(Strategies, s) {
			return nil, fmt.Errorf("bench: unknown strategy %q (want per-call, batch or code)", s)
		}
	}
	repeat := max(cfg.Repeat, 1)
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = DefaultMaxTurns
	}
	if cfg.Latency == (Latency{}) {
		cfg.Latency = DefaultLatency()
	}
	tok, err := newCounter()
	if err != nil {
		return nil, err
	}
	shown := make(map[Strategy][]engine.OpenAITool, len(strategies))
	for _, s := range strategies {
		if shown[s], err = toolsFor(cfg.Engine, s); err != nil {
			return nil, err
		}
	}
	rep := &Report{Model: "scripted", Latency: cfg.Latency, Tokenizer: tokenizerName}
	if cfg.Model != nil {
		rep.Model = cmp.Or(cfg.ModelName, "live")
	}
	total := len(scenarios) * len(strategies) * repeat
	for _, sc := range scenarios {
		for _, s := range strategies {
			for i := range repeat {
				if err := ctx.Err(); err != nil {
					return rep, err
				}
				r, firstErr := runOne(ctx, cfg, tok, sc, s, shown[s])
				if firstErr != nil && len(rep.Results) == 0 && ctx.Err() == nil {
					// The model never answered at all (no endpoint there, a
					// wrong key or model name): every run would fail so.
					return rep, &ModelError{Err: firstErr}
				}
				r.Repeat = i
				rep.Results = append(rep.Results, r)
				if cfg.Progress != nil {
					cfg.Progress(len(rep.Results), total, &rep.Results[len(rep.Results)-1])
				}
			}
		}
	}
	rep.Strategies = summarize(strategies, rep.Results)
	return rep, nil
}

// ModelError is Run's error when the model failed its very first turn:
// nothing was measured, and the report has no results.
type ModelError struct{ Err error }

func (e *ModelError) Error() string { return "the model's first request failed: " + e.Err.Error() }
func (e *ModelError) Unwrap() error { return e.Err }

// toolsFor is the tool list strategy s shows the model, in OpenAI's format:
// every tool but the meta-tools (per-call: the classic loop, no search
// either), or one meta-tool (a script can still call search_tools).
func toolsFor(eng *engine.Engine, s Strategy) ([]engine.OpenAITool, error) {
	all, err := eng.ToolDefinitions().OpenAI()
	if err != nil {
		return nil, fmt.Errorf("bench: the engine's tool definitions: %w", err)
	}
	keep := func(name string) bool {
		switch s {
		case Batch:
			return name == engine.MetaBatch
		case Code:
			return name == engine.MetaExecuteCode
		default:
			return name != engine.MetaBatch && name != engine.MetaExecuteCode && name != engine.MetaSearchTools
		}
	}
	var out []engine.OpenAITool
	for _, t := range all {
		if keep(engine.CanonicalName(t.Function.Name)) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bench: the engine shows no tools for strategy %s", s)
	}
	return out, nil
}

// runOne plays one scenario with one strategy.
//
// firstErr is the model's error when its first turn failed.
func runOne(ctx context.Context, cfg Config, tok *counter, sc Scenario, s Strategy, tools []engine.OpenAITool) (r Result, firstErr error) {
	r = Result{Scenario: sc.Name, Strategy: s}
	fail := func(format string, args ...any) (Result, error) {
		r.Correct, r.Failure = false, fmt.Sprintf(format, args...)
		return r, nil
	}
	for _, name := range sc.Tools {
		if _, ok := cfg.Engine.Tool(name); !ok {
			return fail("the engine has no tool %s, which this scenario needs", name)
		}
	}
	board := whiteboard.NewBoard()
	if sc.Start != nil {
		b, err := sc.Start()
		if err != nil {
			return fail("starting board: %v", err)
		}
		board = b
	}
	var model Model
	switch {
	case cfg.Model != nil:
		model = cfg.Model(s)
	case sc.Scripted != nil:
		model = sc.Scripted(s)
	}
	if model == nil {
		return fail("no model for strategy %s", s)
	}
	ctx = whiteboard.NewContext(ctx, board)
	r.Transcript = []Message{{Role: "system", Content: systemPrompt(s)}, {Role: "user", Content: sc.Task}}
	defer func() { r.BoardSVG = string(board.SVG()) }()
	for {
		if r.Turns == cfg.MaxTurns {
			return fail("not done after %d model turns", cfg.MaxTurns)
		}
		req := Request{Messages: slices.Clone(r.Transcript), Tools: tools}
		in := tok.request(req)
		reply, err := model.Complete(ctx, req)
		r.Turns++
		if err != nil {
			r, _ = fail("the model, turn %d: %v", r.Turns, err)
			if r.Turns == 1 {
				return r, err
			}
			return r, nil
		}
		msg := reply.Message
		msg.Role = "assistant"
		out := tok.message(msg)
		if reply.Usage != (Usage{}) {
			in, out = reply.Usage.InputTokens, reply.Usage.OutputTokens
		}
		r.InputTokens += in
		r.OutputTokens += out
		if reply.Latency > 0 {
			r.Wall += reply.Latency
		} else {
			r.Wall += cfg.Latency.turn(in, out)
		}
		r.Transcript = append(r.Transcript, msg)
		if len(msg.ToolCalls) == 0 {
			break
		}
		r.RoundTrips++
		calls := make([]engine.ToolCall, len(msg.ToolCalls))
		for i, c := range msg.ToolCalls {
			calls[i] = engine.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: json.RawMessage(c.Function.Arguments)}
		}
		start := time.Now()
		results := cfg.Engine.HandleToolCalls(ctx, calls)
		took := time.Since(start)
		r.EngineTime += took
		r.Wall += took
		for _, res := range results {
			r.ToolCalls += callsIn(res)
			r.Transcript = append(r.Transcript, Message{Role: "tool", ToolCallID: res.ID, Content: string(res.Content)})
		}
	}
	if sc.Check == nil {
		return fail("the scenario has no checker")
	}
	if err := sc.Check(board); err != nil {
		return fail("%v", err)
	}
	r.Correct = true
	return r, nil
}

// callsIn is how many tool calls one native call's result stands for: a
// batch's operations, a script's calls, or the call itself.
func callsIn(res engine.ToolCallResult) int {
	switch {
	case res.Script != nil:
		return len(res.Script.Calls)
	case engine.CanonicalName(res.Name) == engine.MetaBatch:
		var b struct {
			Summary struct {
				Total, Skipped int
			} `json:"summary"`
		}
		if json.Unmarshal(res.Content, &b) == nil {
			return b.Summary.Total - b.Summary.Skipped
		}
		return 0
	default:
		return 1
	}
}

// summarize totals the results per strategy.
func summarize(strategies []Strategy, results []Result) []Summary {
	out := make([]Summary, len(strategies))
	for i, s := range strategies {
		out[i].Strategy = s
		for _, r := range results {
			if r.Strategy != s {
				continue
			}
			out[i].Runs++
			if r.Correct {
				out[i].Correct++
			}
			out[i].RoundTrips += r.RoundTrips
			out[i].InputTokens += r.InputTokens
			out[i].OutputTokens += r.OutputTokens
			out[i].ToolCalls += r.ToolCalls
			out[i].Wall += r.Wall
		}
	}
	return out
}
