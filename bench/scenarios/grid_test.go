package scenarios

import (
	"testing"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// scenario is the scenario of All named name.
func scenario(t *testing.T, name string) bench.Scenario {
	t.Helper()
	for _, sc := range All() {
		if sc.Name == name {
			return sc
		}
	}
	t.Fatalf("no scenario %q", name)
	return bench.Scenario{}
}

// TestGridBatchKeepsToTheLimit: the grid's batch model splits its notes by
// the operations limit the batch tool states, whatever it is.
func TestGridBatchKeepsToTheLimit(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Limits.MaxOperations = 40
	eng, err := engine.NewBuilder().WithConfig(cfg).Add(whiteboard.Tools(nil)...).Build()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := bench.Run(t.Context(), bench.Config{Engine: eng, Strategies: []bench.Strategy{bench.Batch}},
		[]bench.Scenario{scenario(t, "grid")})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Results[0]; !r.Correct || r.RoundTrips != 3 || r.ToolCalls != 100 {
		t.Errorf("correct %v (%s), %d round trips, %d tool calls; want correct in 3 batches of at most 40, 100 calls",
			r.Correct, r.Failure, r.RoundTrips, r.ToolCalls)
	}
}
