package scenarios

import (
	"context"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// newEngine is the engine the scenarios run on: the whiteboard's tools and
// graph.layout, built and compiled as Tools does for the CLI. With -short,
// only the whiteboard's (building a WASM tool on a fresh machine takes a
// while): the scenarios that need more are left out.
func newEngine(t *testing.T) (*engine.Engine, []bench.Scenario) {
	t.Helper()
	tools, all := whiteboard.Tools(nil), All()
	if testing.Short() {
		all = slices.DeleteFunc(all, func(sc bench.Scenario) bool { return len(sc.Tools) > 0 })
	} else {
		var err error
		if tools, err = sharedTools(); err != nil {
			t.Fatal(err)
		}
	}
	eng, err := engine.NewBuilder().Add(tools...).Build()
	if err != nil {
		t.Fatal(err)
	}
	return eng, all
}

// sharedTools are the scenarios' Tools, made once per test binary:
// compiling graph.layout takes a second, over ten under -race. TestMain
// releases them.
var (
	sharedTools = sync.OnceValues(func() ([]engine.Tool, error) {
		cache, err := os.MkdirTemp("", "codemode-bench-test-")
		if err != nil {
			return nil, err
		}
		release := func() { os.RemoveAll(cache) }
		tools, releaseTools, err := Tools(context.Background(), cache)
		if err == nil {
			release = func() { releaseTools(); os.RemoveAll(cache) }
		}
		releaseShared.Store(&release)
		return tools, err
	})
	releaseShared atomic.Pointer[func()]
)

func TestMain(m *testing.M) {
	code := m.Run()
	if release := releaseShared.Load(); release != nil {
		(*release)()
	}
	os.Exit(code)
}

// TestScriptedTargets: with the scripted models every run is correct, code
// mode takes one round trip, a batch at most three, and code mode's tokens
// over all scenarios are at least 70 % below per-call's.
func TestScriptedTargets(t *testing.T) {
	eng, all := newEngine(t)
	rep, err := bench.Run(t.Context(), bench.Config{Engine: eng}, all)
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
	if len(all) < len(All()) {
		t.Logf("-short: the token target is over every scenario, not checked on %d of %d", len(all), len(All()))
		return
	}
	if code*10 > perCall*3 {
		t.Errorf("code mode's tokens %d are not 70 %% below per-call's %d", code, perCall)
	}
}
