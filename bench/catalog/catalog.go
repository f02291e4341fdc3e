// Package catalog holds codemode bench's scenarios at catalog scale: tasks
// over GitHub's REST API, all 1,223 of its operations bound as tools from
// GitHub's own OpenAPI description (bindings/openapi), each run against a
// fresh in-memory fake GitHub (internal/fakegithub). They show what the
// whiteboard's dozen tools cannot: that sending every tool's schema each
// turn is what costs, and what search_tools and code mode save.
//
// Every scenario has a scripted model for each of the four strategies:
// per-call (every tool shown each turn), search (search_tools, then the
// tools it found), batch (the batch meta-tool) and code (search_tools from
// inside a script, then a script that does the task).
package catalog

import (
	"context"
	"net/http"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/bindings/openapi"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/fakegithub"
)

// Name is the catalog's name in reports and its tools' namespace.
const Name = "github"

// GitHubTools binds GitHub's REST API description (the file at path) as
// tools whose calls go to the fake GitHub in their run's context.
func GitHubTools(path string) ([]engine.Tool, error) {
	spec, err := openapi.Load(path)
	if err != nil {
		return nil, err
	}
	return openapi.Tools(Name, spec, openapi.Options{
		BaseURL: "https://api.github.com",
		Client:  &http.Client{Transport: fakegithub.Transport{}},
		Origin:  "GitHub's REST API (bench)",
	})
}

// Config adapts an engine configuration to the catalog: GitHub answers a
// page of 100 issues with about 220 KB of JSON, over the default
// 50,000-character cap of a result the model sees, so the cap is raised
// to fit one such page (what a host binding GitHub would do). Scripts see
// every result whole either way.
func Config(c engine.Config) engine.Config {
	c.Limits.MaxResultChars = max(c.Limits.MaxResultChars, 300_000)
	c.Limits.MaxAggregateChars = max(c.Limits.MaxAggregateChars, 1_000_000)
	return c
}

// Scenarios returns the catalog's scenarios, run on eng (an engine over
// GitHubTools' tools, with Config's limits).
func Scenarios(eng *engine.Engine) []bench.Scenario {
	tasks := []task{crashLabel(), staleClose(), copyLabels(), pullsByAuthor()}
	out := make([]bench.Scenario, len(tasks))
	for i, t := range tasks {
		out[i] = bench.Scenario{
			Name:       t.name,
			Task:       t.text,
			Scripted:   t.model,
			Strategies: bench.Strategies,
			Engine:     eng,
			Catalog:    Name,
			Env: func(ctx context.Context) (context.Context, func(string) error, error) {
				gh := fakegithub.Default()
				return fakegithub.NewContext(ctx, gh), func(answer string) error { return t.check(gh, answer) }, nil
			},
		}
	}
	return out
}
