package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
	"github.com/google/go-cmp/cmp"
)

func testEngine(t *testing.T) *engine.Engine {
	t.Helper()
	eng, err := engine.NewBuilder().Add(whiteboard.Tools(nil)...).Build()
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// twoNotes: two sticky notes, by each strategy.
func twoNotes() Scenario {
	note := func(i int) map[string]any { return map[string]any{"text": fmt.Sprint("n", i), "x": i * 300, "y": 0} }
	return Scenario{
		Name: "two-notes",
		Task: "Make two notes.",
		Check: func(b *whiteboard.Board) error {
			if n := len(b.Objects()); n != 2 {
				return fmt.Errorf("%d objects, want 2", n)
			}
			return nil
		},
		Scripted: func(s Strategy) Model {
			return Script(func(t *Turn) (Message, error) {
				switch {
				case s == PerCall && t.Index < 2:
					return Calls(t.Call("createStickyNote", note(t.Index))), nil
				case s == Batch && t.Index == 0:
					return Calls(t.BatchCall(Op{Tool: "createStickyNote", Args: note(0)}, Op{Tool: "createStickyNote", Args: note(1)})), nil
				case s == Code && t.Index == 0:
					return Calls(t.CodeCall(`for (const i of [0, 1]) await tools.createStickyNote({text: "n" + i, x: i * 300, y: 0})`)), nil
				}
				return Say("Done."), nil
			})
		},
	}
}

// TestMeasures: turns, round trips, tool calls (a batch's operations and a
// script's calls counted), tokens that grow with the chat re-sent each turn,
// and wall time as the latency model says plus the engine's time.
func TestMeasures(t *testing.T) {
	lat := Latency{PerRoundTrip: time.Second, PerInputToken: time.Millisecond, PerOutputToken: 10 * time.Millisecond}
	rep, err := Run(t.Context(), Config{Engine: testEngine(t), Latency: lat}, []Scenario{twoNotes()})
	if err != nil {
		t.Fatal(err)
	}
	want := map[Strategy][3]int{PerCall: {3, 2, 2}, Batch: {2, 1, 2}, Code: {2, 1, 2}} // turns, round trips, tool calls
	for _, r := range rep.Results {
		if !r.Correct {
			t.Errorf("%s: %s", r.Strategy, r.Failure)
		}
		if got := [3]int{r.Turns, r.RoundTrips, r.ToolCalls}; got != want[r.Strategy] {
			t.Errorf("%s: turns, round trips, tool calls %v, want %v", r.Strategy, got, want[r.Strategy])
		}
		modelled := time.Duration(r.Turns)*lat.PerRoundTrip + time.Duration(r.InputTokens)*lat.PerInputToken + time.Duration(r.OutputTokens)*lat.PerOutputToken
		if r.Wall != modelled+r.EngineTime {
			t.Errorf("%s: wall %v, want %v modelled + %v in the engine", r.Strategy, r.Wall, modelled, r.EngineTime)
		}
		if r.InputTokens <= 0 || r.OutputTokens <= 0 || r.BoardSVG == "" || len(r.Transcript) < 4 {
			t.Errorf("%s: %+v", r.Strategy, r)
		}
	}
	per := rep.Results[0]
	if s := rep.Strategies[0]; s.Strategy != PerCall || s.Runs != 1 || s.Correct != 1 || s.InputTokens != per.InputTokens {
		t.Errorf("summary %+v", s)
	}
}

// TestFailures: every way a run fails is a result that says why.
func TestFailures(t *testing.T) {
	wrong := twoNotes()
	wrong.Scripted = func(Strategy) Model {
		return Script(func(t *Turn) (Message, error) {
			if t.Index == 0 {
				return Calls(t.Call("createStickyNote", map[string]any{"text": "only one", "x": 0, "y": 0})), nil
			}
			return Say("Done."), nil
		})
	}
	endless := twoNotes()
	endless.Scripted = func(Strategy) Model {
		return Script(func(t *Turn) (Message, error) {
			return Calls(t.Call("getBoardState", map[string]any{})), nil
		})
	}
	broken := twoNotes() // fails its second turn: that run's failure
	broken.Scripted = func(Strategy) Model {
		turn := 0
		return ModelFunc(func(context.Context, Request) (Reply, error) {
			if turn++; turn == 1 {
				return Reply{Message: Calls(ToolCall{ID: "c1", Type: "function", Function: FunctionCall{Name: "getBoardState", Arguments: "{}"}})}, nil
			}
			return Reply{}, errors.New("rate limited")
		})
	}
	needsWasm := twoNotes()
	needsWasm.Tools = []string{"graph.layout"}
	noCheck := twoNotes()
	noCheck.Check = nil
	badStart := twoNotes()
	badStart.Start = func() (*whiteboard.Board, error) { return nil, errors.New("fixture missing") }
	cases := []struct {
		sc   Scenario
		want string
	}{
		{wrong, "1 objects, want 2"},
		{endless, "not done after 5 model turns"},
		{broken, "the model, turn 2: rate limited"},
		{needsWasm, "the engine has no tool graph.layout"},
		{noCheck, "no checker"},
		{badStart, "starting board: fixture missing"},
	}
	for _, c := range cases {
		rep, err := Run(t.Context(), Config{Engine: testEngine(t), Strategies: []Strategy{PerCall}, MaxTurns: 5}, []Scenario{c.sc})
		if err != nil {
			t.Fatal(err)
		}
		if r := rep.Results[0]; r.Correct || !strings.Contains(r.Failure, c.want) {
			t.Errorf("correct %v, failure %q, want %q", r.Correct, r.Failure, c.want)
		}
	}
	// A model that fails its very first turn: nothing is measured, the
	// bench stops with the reason.
	dead := twoNotes()
	dead.Scripted = func(Strategy) Model {
		return ModelFunc(func(context.Context, Request) (Reply, error) { return Reply{}, errors.New("connection refused") })
	}
	rep, err := Run(t.Context(), Config{Engine: testEngine(t), Strategies: []Strategy{PerCall, Code}}, []Scenario{dead, twoNotes()})
	var me *ModelError
	if !errors.As(err, &me) || err.Error() != "the model's first request failed: connection refused" || len(rep.Results) != 0 {
		t.Errorf("a model that never answers: %v, %d results", err, len(rep.Results))
	}
	if _, err := Run(t.Context(), Config{Engine: testEngine(t), Strategies: []Strategy{"yolo"}}, nil); err == nil || !strings.Contains(err.Error(), `unknown strategy "yolo"`) {
		t.Errorf("an unknown strategy: %v", err)
	}
	if _, err := Run(t.Context(), Config{}, []Scenario{twoNotes()}); err == nil || !strings.Contains(err.Error(), "needs Config.Engine") {
		t.Errorf("no engine: %v", err)
	}
}

// TestToolCountsPerEngine: two engines' execute_code, the same name but
// declaring different tools, are counted each as it is, in one run as
// when alone.
func TestToolCountsPerEngine(t *testing.T) {
	fewer := slices.DeleteFunc(whiteboard.Tools(nil), func(tl engine.Tool) bool { return tl.Name == "getBoardState" })
	small, err := engine.NewBuilder().Add(fewer...).Build()
	if err != nil {
		t.Fatal(err)
	}
	full, part := twoNotes(), twoNotes()
	full.Engine, part.Engine = testEngine(t), small
	part.Name = "two-notes-fewer-tools"
	tokens := func(scs ...Scenario) []int {
		rep, err := Run(t.Context(), Config{Strategies: []Strategy{Code}}, scs)
		if err != nil {
			t.Fatal(err)
		}
		var out []int
		for _, r := range rep.Results {
			out = append(out, r.InputTokens)
		}
		return out
	}
	alone := append(tokens(full), tokens(part)...)
	if alone[0] <= alone[1] {
		t.Fatalf("execute_code of every tool: %d tokens in, of all but one: %d", alone[0], alone[1])
	}
	if diff := cmp.Diff(alone, tokens(full, part)); diff != "" {
		t.Errorf("input tokens of each engine's run, alone and together (-alone +together):\n%s", diff)
	}
}

// TestCatalogPrompts: a catalog's runs are told about its API, not the
// whiteboard, and those that are not shown every tool how to find them.
func TestCatalogPrompts(t *testing.T) {
	sc := twoNotes()
	sc.Catalog, sc.Strategies = "demo", Strategies
	rep, err := Run(t.Context(), Config{Engine: testEngine(t)}, []Scenario{sc})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		prompt := r.Transcript[0].Content
		if strings.Contains(prompt, "whiteboard") || !strings.Contains(prompt, "the demo API") {
			t.Errorf("%s: %q", r.Strategy, prompt)
		}
		if finds := strings.Contains(prompt, "search_tools"); finds != (r.Strategy == Search || r.Strategy == Code) {
			t.Errorf("%s: mentions search_tools %v: %q", r.Strategy, finds, prompt)
		}
	}
	if len(rep.Results) != len(Strategies) {
		t.Errorf("%d runs, want %d", len(rep.Results), len(Strategies))
	}
}
