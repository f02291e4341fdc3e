package scenarios

import (
	"testing"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// newEngine is the engine the scenarios run on: the whiteboard's tools.
func newEngine(t *testing.T) *engine.Engine {
	t.Helper()
	eng, err := engine.NewBuilder().Add(whiteboard.Tools(nil)...).Build()
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// TestScriptedTargets: with the scripted models every run is correct, code
// mode takes one round trip, a batch at most three, and code mode's tokens
// over all scenarios are at least 70 % below per-call's.
func TestScriptedTargets(t *testing.T) {
	rep, err := bench.Run(t.Context(), bench.Config{Engine: newEngine(t)}, All())
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[string]map[bench.Strategy]int{}
	for _, r := range rep.Results {
		if !r.Correct {
			t.Errorf("%s/%s: %s", r.Scenario, r.Strategy, r.Failure)
		}
		switch {
		case r.Strategy == bench.Code && r.RoundTrips != 1:
			t.Errorf("%s/code: %d round trips, want 1", r.Scenario, r.RoundTrips)
		case r.Strategy == bench.Batch && r.RoundTrips > 3:
			t.Errorf("%s/batch: %d round trips, want at most 3", r.Scenario, r.RoundTrips)
		}
		if tokens[r.Scenario] == nil {
			tokens[r.Scenario] = map[bench.Strategy]int{}
		}
		tokens[r.Scenario][r.Strategy] = r.InputTokens + r.OutputTokens
	}
	for name, by := range tokens {
		t.Logf("%-22s per-call %7d  batch %7d  code %7d tokens", name, by[bench.PerCall], by[bench.Batch], by[bench.Code])
	}
	var perCall, code int
	for _, s := range rep.Strategies {
		switch s.Strategy {
		case bench.PerCall:
			perCall = s.InputTokens + s.OutputTokens
		case bench.Code:
			code = s.InputTokens + s.OutputTokens
		}
	}
	if code*10 > perCall*3 {
		t.Errorf("code mode's tokens %d are not 70 %% below per-call's %d", code, perCall)
	}
}
