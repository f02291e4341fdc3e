package bench

import (
	"cmp"
	"context"
	"encoding/json"
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
	strategies := cfg.Strategies
	if len(strategies) == 0 {
		strategies = Strategies
	}
	for _, s := range strategies {
		if !slices.Contains(Strategies, s) {
			return nil, fmt.Errorf("bench: unknown strategy %q (want per-call, search, batch or code)", s)
		}
	}
	for _, sc := range scenarios {
		if sc.Engine == nil && cfg.Engine == nil {
			return nil, fmt.Errorf("bench: scenario %s needs Config.Engine", sc.Name)
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
	rep := &Report{Model: "scripted", Latency: cfg.Latency, Tokenizer: tokenizerName}
	if cfg.Model != nil {
		rep.Model = cmp.Or(cfg.ModelName, "live")
	}
	sets := map[*engine.Engine]*toolSet{}
	plans := make([][]Strategy, len(scenarios))
	total := 0
	for i, sc := range scenarios {
		eng := cmp.Or(sc.Engine, cfg.Engine)
		if sets[eng] == nil {
			if sets[eng], err = newToolSet(eng); err != nil {
				return nil, err
			}
			if sc.Catalog != "" {
				shown := sets[eng].shown
				rep.Catalogs = append(rep.Catalogs, Catalog{Name: sc.Catalog, Tools: len(shown[PerCall]), Tokens: tok.tools(shown[PerCall]),
					CodeTokens: tok.tools(shown[Code]), SearchTokens: tok.tools(shown[Search])})
			}
		}
		for _, s := range strategies {
			if slices.Contains(sc.strategies(), s) {
				plans[i] = append(plans[i], s)
			}
		}
		total += len(plans[i]) * repeat
	}
	type job struct {
		sc     Scenario
		s      Strategy
		repeat int
	}
	var jobs []job
	for i, sc := range scenarios {
		for _, s := range plans[i] {
			for n := range repeat {
				jobs = append(jobs, job{sc, s, n})
			}
		}
	}
	// The first run played is the one whose first request is the
	// smallest (fewest tools, then fewest tokens of them: endpoints limit
	// both): if even that request fails, the model cannot be reached at
	// all (no endpoint there, a wrong key or model name), and every run
	// would fail so. A bigger request can fail for its size — per-call's
	// thousand tools of a catalog, over an endpoint's limit of tools or
	// its context window — and that is then its run's failure, measured
	// like any other.
	first, smallest := 0, []int(nil)
	for i, j := range jobs {
		shown := sets[cmp.Or(j.sc.Engine, cfg.Engine)].shown[j.s]
		if size := []int{len(shown), tok.tools(shown)}; smallest == nil || slices.Compare(size, smallest) < 0 {
			first, smallest = i, size
		}
	}
	order := make([]int, 0, len(jobs))
	if len(jobs) > 0 {
		order = append(order, first)
	}
	for i := range jobs {
		if i != first {
			order = append(order, i)
		}
	}
	results := make([]*Result, len(jobs))
	// done is the results so far, in the order of jobs.
	done := func() []Result {
		var out []Result
		for _, r := range results {
			if r != nil {
				out = append(out, *r)
			}
		}
		return out
	}
	for k, i := range order {
		j := jobs[i]
		if err := ctx.Err(); err != nil {
			rep.Results = done()
			return rep, err
		}
		r, firstErr := runOne(ctx, cfg, tok, j.sc, j.s, sets[cmp.Or(j.sc.Engine, cfg.Engine)])
		if firstErr != nil && k == 0 && ctx.Err() == nil {
			return rep, &ModelError{Err: firstErr}
		}
		r.Repeat = j.repeat
		results[i] = &r
		if cfg.Progress != nil {
			cfg.Progress(k+1, total, &r)
		}
	}
	rep.Results = done()
	rep.Strategies = summarize(strategies, rep.Results)
	return rep, nil
}

// ModelError is Run's error when the model failed its very first turn,
// of the run with the smallest first request: nothing was measured, and
// the report has no results.
type ModelError struct{ Err error }

func (e *ModelError) Error() string { return "the model's first request failed: " + e.Err.Error() }
func (e *ModelError) Unwrap() error { return e.Err }

// toolSet is what an engine shows the model, in OpenAI's format: per
// strategy at the start of a run, and every tool by name (what search
// adds as the model finds tools).
type toolSet struct {
	shown  map[Strategy][]engine.OpenAITool
	byName map[string]engine.OpenAITool // by canonical name
}

// newToolSet makes eng's tool lists: per-call shows every tool but the
// meta-tools (the classic loop, no search either), search shows
// search_tools, batch and code their one meta-tool (a script can still
// call search_tools).
func newToolSet(eng *engine.Engine) (*toolSet, error) {
	all, err := eng.ToolDefinitions().OpenAI()
	if err != nil {
		return nil, fmt.Errorf("bench: the engine's tool definitions: %w", err)
	}
	set := &toolSet{shown: map[Strategy][]engine.OpenAITool{}, byName: map[string]engine.OpenAITool{}}
	for _, t := range all {
		name := engine.CanonicalName(t.Function.Name)
		set.byName[name] = t
		switch name {
		case engine.MetaBatch:
			set.shown[Batch] = append(set.shown[Batch], t)
		case engine.MetaExecuteCode:
			set.shown[Code] = append(set.shown[Code], t)
		case engine.MetaSearchTools:
			set.shown[Search] = append(set.shown[Search], t)
		default:
			set.shown[PerCall] = append(set.shown[PerCall], t)
		}
	}
	for _, s := range Strategies {
		if len(set.shown[s]) == 0 {
			return nil, fmt.Errorf("bench: the engine shows no tools for strategy %s", s)
		}
	}
	return set, nil
}

// found adds to shown the tools a search_tools result names, in its
// order, each once.
func (set *toolSet) found(shown []engine.OpenAITool, res engine.ToolCallResult) []engine.OpenAITool {
	if res.IsError || engine.CanonicalName(res.Name) != engine.MetaSearchTools {
		return shown
	}
	var hits engine.SearchResult
	if json.Unmarshal(res.Content, &hits) != nil {
		return shown
	}
	for _, h := range hits.Tools {
		t, ok := set.byName[h.Name]
		if ok && !slices.ContainsFunc(shown, func(s engine.OpenAITool) bool { return s.Function.Name == t.Function.Name }) {
			shown = append(slices.Clip(shown), t)
		}
	}
	return shown
}

// runOne plays one scenario with one strategy.
//
// firstErr is the model's error when its first turn failed.
func runOne(ctx context.Context, cfg Config, tok *counter, sc Scenario, s Strategy, set *toolSet) (r Result, firstErr error) {
	r = Result{Scenario: sc.Name, Strategy: s}
	fail := func(format string, args ...any) (Result, error) {
		r.Correct, r.Failure = false, fmt.Sprintf(format, args...)
		return r, nil
	}
	eng := cmp.Or(sc.Engine, cfg.Engine)
	for _, name := range sc.Tools {
		if _, ok := eng.Tool(name); !ok {
			return fail("the engine has no tool %s, which this scenario needs", name)
		}
	}
	var check func(answer string) error
	if sc.Env != nil {
		var err error
		if ctx, check, err = sc.Env(ctx); err != nil {
			return fail("the scenario's world: %v", err)
		}
	} else {
		board := whiteboard.NewBoard()
		if sc.Start != nil {
			b, err := sc.Start()
			if err != nil {
				return fail("starting board: %v", err)
			}
			board = b
		}
		ctx = whiteboard.NewContext(ctx, board)
		defer func() { r.BoardSVG = string(board.SVG()) }()
		if sc.Check != nil {
			check = func(string) error { return sc.Check(board) }
		}
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
	tools := set.shown[s]
	r.Transcript = []Message{{Role: "system", Content: systemPrompt(&sc, s)}, {Role: "user", Content: sc.Task}}
	for {
		if r.Turns == cfg.MaxTurns {
			return fail("not done after %d model turns", cfg.MaxTurns)
		}
		req := Request{Messages: slices.Clone(r.Transcript), Tools: tools}
		in := tok.request(req)
		reply, err := model.Complete(ctx, req)
		r.Turns++
		if err != nil {
			// The request was sent (and perhaps refused for its size):
			// its tokens are counted.
			r.InputTokens += in
			r.MaxInputTokens = max(r.MaxInputTokens, in)
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
		r.MaxInputTokens = max(r.MaxInputTokens, in)
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
		results := eng.HandleToolCalls(ctx, calls)
		took := time.Since(start)
		r.EngineTime += took
		r.Wall += took
		for _, res := range results {
			r.ToolCalls += callsIn(res)
			r.Transcript = append(r.Transcript, Message{Role: "tool", ToolCallID: res.ID, Content: string(res.Content)})
			if s == Search {
				tools = set.found(tools, res)
			}
		}
	}
	if check == nil {
		return fail("the scenario has no checker")
	}
	if err := check(r.Transcript[len(r.Transcript)-1].Content); err != nil {
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

// summarize totals the results per strategy, for the strategies that ran.
func summarize(strategies []Strategy, results []Result) []Summary {
	var out []Summary
	for _, s := range strategies {
		sum := Summary{Strategy: s}
		for _, r := range results {
			if r.Strategy != s {
				continue
			}
			sum.Runs++
			if r.Correct {
				sum.Correct++
			}
			sum.RoundTrips += r.RoundTrips
			sum.InputTokens += r.InputTokens
			sum.OutputTokens += r.OutputTokens
			sum.ToolCalls += r.ToolCalls
			sum.Wall += r.Wall
		}
		if sum.Runs > 0 {
			out = append(out, sum)
		}
	}
	return out
}
