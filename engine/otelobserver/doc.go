// Package otelobserver turns codemode engine events into OpenTelemetry spans.
//
// Each run (batch, script, model step of tool calls, direct call) becomes one
// span named "codemode.<kind>", parented on the caller's context, so a run
// shows up inside whatever request or agent loop started it. Each tool call
// becomes a child span of its run that follows the OpenTelemetry GenAI
// semantic conventions for tool execution ("execute_tool {tool}"), so
// GenAI-aware backends render codemode calls the same way as tool calls made
// by any other agent framework.
//
// The package depends only on the OpenTelemetry API: the host picks the SDK,
// exporter and sampler. Tool arguments and results can carry user data, so
// they are recorded only when asked for with [WithArgs] and [WithResults].
//
//	eng, err := engine.NewBuilder().
//		Add(tools...).
//		WithObserver(otelobserver.New(tp)).
//		Build()
package otelobserver
