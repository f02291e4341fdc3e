package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/engine"
)

// A task's scripted models for per-call, search and batch are one plan
// written as straight-line Go: it calls do and doAll, which return the
// results of the calls they stand for. Each turn the plan is replayed from
// its start over the results so far (it is deterministic) until it asks
// for calls that have no results yet: those are the turn's calls. So no
// goroutine waits between turns, and a run that ends early leaves nothing
// behind.

// step is one tool call of a plan.
type step struct {
	tool string // canonical name: "github.issues_list_for_repo"
	args map[string]any
}

// plan does a task with calls and returns the model's answer.
type plan func(c *caller) (string, error)

// caller is what a plan calls tools with, for one replay.
type caller struct {
	strategy bench.Strategy
	queries  map[string]string    // tool → the search that finds it (search strategy)
	rounds   [][]bench.ToolResult // every past turn's results
	next     int                  // the rounds this replay has used
	turn     *bench.Turn          // the turn being answered
	found    map[string]bool      // tools a search showed, so far in this replay
	asked    *[]bench.ToolCall    // set when the replay reaches calls without results
}

// errPending ends a replay at calls that have no results yet.
var errPending = errors.New("calls pending")

// round returns the results of the replay's next round, or records calls
// as the turn's and ends the replay.
func (c *caller) round(calls func(t *bench.Turn) []bench.ToolCall) ([]bench.ToolResult, error) {
	if c.next < len(c.rounds) {
		c.next++
		return c.rounds[c.next-1], nil
	}
	list := calls(c.turn)
	c.asked = &list
	return nil, errPending
}

// do makes one call: alone in its turn, or a batch of one.
func (c *caller) do(tool string, args map[string]any) (json.RawMessage, error) {
	res, err := c.doAll([]step{{tool, args}})
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// doAll makes calls that do not depend on each other: one per turn
// (per-call, search), or one batch.
func (c *caller) doAll(steps []step) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(steps))
	if c.strategy == bench.Batch {
		rs, err := c.round(func(t *bench.Turn) []bench.ToolCall {
			ops := make([]bench.Op, len(steps))
			for i, s := range steps {
				ops[i] = bench.Op{Tool: s.tool, Args: s.args}
			}
			return []bench.ToolCall{t.Call(engine.MetaBatch, map[string]any{"operations": ops})}
		})
		if err != nil {
			return nil, err
		}
		var b engine.BatchResult
		if err := json.Unmarshal([]byte(rs[0].Content), &b); err != nil || len(b.Results) != len(steps) {
			return nil, fmt.Errorf("the batch's result: %.300s", rs[0].Content)
		}
		for i, r := range b.Results {
			if !r.Success {
				return nil, fmt.Errorf("%s failed: %v", steps[i].tool, r.Error)
			}
			out[i] = r.Result
		}
		return out, nil
	}
	for i, s := range steps {
		if c.strategy == bench.Search && !c.found[s.tool] {
			if err := c.search(s.tool); err != nil {
				return nil, err
			}
		}
		rs, err := c.round(func(t *bench.Turn) []bench.ToolCall { return []bench.ToolCall{t.Call(s.tool, s.args)} })
		if err != nil {
			return nil, err
		}
		if e := rs[0].Error(); e != nil {
			return nil, fmt.Errorf("%s failed: %s", s.tool, e.Message)
		}
		out[i] = json.RawMessage(rs[0].Content)
	}
	return out, nil
}

// search looks tool up with the query a model would send for it, and
// notes what the search found: the tools it may call from then on. A
// search that does not find tool fails the run.
func (c *caller) search(tool string) error {
	q, ok := c.queries[tool]
	if !ok {
		return fmt.Errorf("the plan has no search for %s", tool)
	}
	rs, err := c.round(func(t *bench.Turn) []bench.ToolCall {
		return []bench.ToolCall{t.Call(engine.MetaSearchTools, map[string]any{"query": q})}
	})
	if err != nil {
		return err
	}
	var hits engine.SearchResult
	if err := rs[0].Decode(&hits); err != nil {
		return err
	}
	var names []string
	for _, h := range hits.Tools {
		c.found[h.Name] = true
		names = append(names, h.Name)
	}
	if !c.found[tool] {
		return fmt.Errorf("search_tools %q did not find %s (found %s)", q, tool, strings.Join(names, ", "))
	}
	return nil
}

// replayModel is the scripted model of p for strategy s.
func replayModel(s bench.Strategy, queries map[string]string, p plan) bench.Model {
	var rounds [][]bench.ToolResult
	return bench.Script(func(t *bench.Turn) (bench.Message, error) {
		if t.Index > 0 {
			rounds = append(rounds, t.Results)
		}
		c := &caller{strategy: s, queries: queries, rounds: rounds, turn: t, found: map[string]bool{}}
		answer, err := p(c)
		switch {
		case errors.Is(err, errPending):
			return bench.Calls(*c.asked...), nil
		case err != nil:
			return bench.Message{}, err
		case c.next < len(rounds):
			return bench.Message{}, fmt.Errorf("the plan ended with %d rounds unused", len(rounds)-c.next)
		}
		return bench.Say(answer), nil
	})
}

// codeModel is the code strategy's model of a task: a script that looks
// the tools up with search_tools (all the searches at once), then, once
// the declarations show every tool it needs, a script that does the task;
// answer turns that script's result into the model's words.
func codeModel(queries map[string]string, script string, answer func(result json.RawMessage) (string, error)) bench.Model {
	tools := slices.Sorted(maps.Keys(queries))
	return bench.Script(func(t *bench.Turn) (bench.Message, error) {
		switch t.Index {
		case 0:
			var qs []string
			for _, tool := range tools {
				qs = append(qs, fmt.Sprintf("%q", queries[tool]))
			}
			return bench.Calls(t.CodeCall("const found = await Promise.all([" + strings.Join(qs, ", ") + "].map(query => tools.search_tools({query, limit: 3})));\n" +
				"return found.flatMap(f => f.tools.map(t => t.declaration));")), nil
		case 1:
			res, err := scriptResult(t)
			if err != nil {
				return bench.Message{}, err
			}
			for _, tool := range tools {
				_, method, _ := strings.Cut(tool, ".")
				if !strings.Contains(string(res), method+"(") {
					return bench.Message{}, fmt.Errorf("the searches did not declare %s: %.500s", tool, res)
				}
			}
			return bench.Calls(t.CodeCall(script)), nil
		default:
			res, err := scriptResult(t)
			if err != nil {
				return bench.Message{}, err
			}
			text, err := answer(res)
			if err != nil {
				return bench.Message{}, err
			}
			return bench.Say(text), nil
		}
	})
}

// scriptResult is the result of the script the previous turn ran, or why
// there is none.
func scriptResult(t *bench.Turn) (json.RawMessage, error) {
	if len(t.Results) != 1 {
		return nil, fmt.Errorf("want one script's result, got %d results", len(t.Results))
	}
	var v struct {
		Success bool            `json:"success"`
		Result  json.RawMessage `json:"result"`
		Error   *engine.Error   `json:"error"`
	}
	if err := t.Results[0].Decode(&v); err != nil {
		return nil, err
	}
	if !v.Success {
		return nil, fmt.Errorf("the script failed: %v", v.Error)
	}
	return v.Result, nil
}
