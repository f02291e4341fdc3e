package catalog_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/bench/catalog"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/githubspec"
)

// report runs every catalog scenario with every strategy once per test
// binary: binding the catalog and counting per-call's tokens take seconds.
var report = sync.OnceValues(func() (*bench.Report, error) {
	p, err := githubspec.Path()
	if err != nil {
		return nil, err
	}
	tools, err := catalog.GitHubTools(p)
	if err != nil {
		return nil, err
	}
	eng, err := engine.NewBuilder().Add(tools...).WithConfig(catalog.Config(engine.DefaultConfig())).Build()
	if err != nil {
		return nil, err
	}
	return bench.Run(t0(), bench.Config{}, catalog.Scenarios(eng))
})

// TestCatalogScenarios: every run correct, and the targets: code mode with
// search uses at least 95 % fewer tokens than per-call with every tool, in
// at most two round trips a task.
func TestCatalogScenarios(t *testing.T) {
	githubspec.ForTest(t)
	rep, err := report()
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 16 {
		t.Errorf("%d runs, want 4 scenarios × 4 strategies", len(rep.Results))
	}
	by := map[string]map[bench.Strategy]bench.Result{}
	for _, r := range rep.Results {
		if !r.Correct {
			t.Errorf("%s / %s: %s", r.Scenario, r.Strategy, r.Failure)
		}
		if by[r.Scenario] == nil {
			by[r.Scenario] = map[bench.Strategy]bench.Result{}
		}
		by[r.Scenario][r.Strategy] = r
	}
	for name, rs := range by {
		code, per := rs[bench.Code], rs[bench.PerCall]
		if code.RoundTrips > 2 {
			t.Errorf("%s: code took %d round trips, want at most 2", name, code.RoundTrips)
		}
		saved := 1 - float64(code.InputTokens+code.OutputTokens)/float64(per.InputTokens+per.OutputTokens)
		if saved < 0.95 {
			t.Errorf("%s: code used %.1f%% fewer tokens than per-call, want at least 95%%", name, saved*100)
		}
		t.Logf("%s: per-call %d tokens in %d round trips; search %d in %d; batch %d in %d; code %d in %d (%.1f%% fewer)", name,
			per.InputTokens+per.OutputTokens, per.RoundTrips,
			rs[bench.Search].InputTokens+rs[bench.Search].OutputTokens, rs[bench.Search].RoundTrips,
			rs[bench.Batch].InputTokens+rs[bench.Batch].OutputTokens, rs[bench.Batch].RoundTrips,
			code.InputTokens+code.OutputTokens, code.RoundTrips, saved*100)
	}
	if len(rep.Catalogs) != 1 || rep.Catalogs[0].Name != "github" || rep.Catalogs[0].Tools != 1223 {
		t.Errorf("catalogs %+v", rep.Catalogs)
	}
	t.Log(fmt.Sprintf("catalog: %+v", rep.Catalogs))
}

func t0() context.Context { return context.Background() }
