package bench_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/bench/scenarios"
)

// TestWrongModelIsReported: a scripted model that does the task wrong (the
// retro's first frame only) is a failed run with the checker's reason, in
// the result and under the table, and its final board is drawn all the same.
func TestWrongModelIsReported(t *testing.T) {
	retro := scenarios.All()[0]
	retro.Scripted = func(bench.Strategy) bench.Model {
		return bench.Script(func(t *bench.Turn) (bench.Message, error) {
			if t.Index > 0 {
				return bench.Say("Done."), nil
			}
			return bench.Calls(t.Call("createFrame", map[string]any{"title": "Went well", "x": 0, "y": 0, "width": 660, "height": 620})), nil
		})
	}
	rep, err := bench.Run(t.Context(), bench.Config{Engine: newEngine(t), Strategies: []bench.Strategy{bench.PerCall}}, []bench.Scenario{retro})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	const reason = `frame "Went well" lacks notes`
	if r.Correct || !strings.HasPrefix(r.Failure, reason) {
		t.Errorf("correct %v, failure %q; want %q", r.Correct, r.Failure, reason)
	}
	if !strings.Contains(r.BoardSVG, "Went well") {
		t.Errorf("the final board is not drawn: %q", r.BoardSVG)
	}
	var table bytes.Buffer
	if err := bench.WriteTable(&table, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "1 of 1 runs failed:\n✗ retro / per-call: "+reason) {
		t.Errorf("the table does not say why:\n%s", table.String())
	}
}
