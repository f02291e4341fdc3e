// Package engine is the core of codemode: a registry of tools compiled into an
// immutable [Engine] that validates, approves, times, observes and runs tool
// calls — one at a time, as a flat batch of operations, or as a model's native
// parallel tool calls.
//
// Every call, whatever the front end, goes through one dispatch path, so
// validation, suggestions, approvals, limits and events cannot drift apart
// between batch mode, code mode, native tool calls and direct calls.
//
// Build an engine once and share it:
//
//	eng, err := engine.NewBuilder().
//		Add(tools...).
//		WithConfig(cfg).
//		Build()
//
// An [Engine] is safe for concurrent use; per-request state (a whiteboard, a
// user's session) travels in the [context.Context] given to each call.
package engine
