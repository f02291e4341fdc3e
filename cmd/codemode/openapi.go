package main

import (
	"maps"
	"slices"

	"github.com/codemode-dev/codemode/bindings/openapi"
	"github.com/codemode-dev/codemode/engine"
)

// bindOpenAPI makes the tools of the config's "openapi" entries, in their
// names' order, and one error per entry that could not be bound (its
// document unreadable, a header's variable not set), which session's add
// words as any other.
func (s *session) bindOpenAPI() ([]engine.Tool, []error) {
	var tools []engine.Tool
	var failed []error
	for _, name := range slices.Sorted(maps.Keys(s.cfg.OpenAPI)) {
		t, err := openapi.Bind(name, s.cfg.OpenAPI[name], openapi.BindOptions{})
		if err != nil {
			failed = append(failed, err)
			continue
		}
		tools = append(tools, t...)
	}
	return tools, failed
}
