package catalog_test

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/bench/catalog"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/fakegithub"
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

// TestPullsByAuthorTies: authors with as many open pull requests as each
// other may be listed in either order; a count that rises is refused.
func TestPullsByAuthorTies(t *testing.T) {
	i := slices.IndexFunc(catalog.Scenarios(nil), func(sc bench.Scenario) bool { return sc.Name == "gh-pulls-by-author" })
	sc := catalog.Scenarios(nil)[i]
	count := map[string]int{}
	for _, p := range fakegithub.Default().Pulls(fakegithub.Owner, "engine") {
		if p.State == "open" {
			count[p.User]++
		}
	}
	// Most first, ties by name, then the same with every tie reversed.
	authors := slices.Collect(maps.Keys(count))
	slices.SortFunc(authors, func(a, b string) int { return cmp.Or(count[b]-count[a], strings.Compare(a, b)) })
	reversed := slices.Clone(authors)
	slices.SortStableFunc(reversed, func(a, b string) int { return count[b] - count[a] })
	for lo := 0; lo < len(reversed); {
		hi := lo
		for hi < len(reversed) && count[reversed[hi]] == count[reversed[lo]] {
			hi++
		}
		slices.Reverse(reversed[lo:hi])
		lo = hi
	}
	if slices.Equal(authors, reversed) {
		t.Fatalf("the fixture's open pull requests have no tie: %v", count)
	}
	answer := func(order []string) string {
		var parts []string
		for _, a := range order {
			parts = append(parts, fmt.Sprintf("%s: %d", a, count[a]))
		}
		return strings.Join(parts, ", ")
	}
	risen := slices.Clone(authors)
	slices.Reverse(risen)
	for _, c := range []struct {
		order []string
		ok    bool
	}{{authors, true}, {reversed, true}, {risen, false}} {
		_, check, err := sc.Env(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if err := check(answer(c.order)); (err == nil) != c.ok {
			t.Errorf("%q: %v, want accepted %v", answer(c.order), err, c.ok)
		}
	}
}
