// Command graphlayout is the graph.layout WASM tool (layout.tool.json): a
// layered layout of a directed graph, for flowcharts on a whiteboard. The
// same source builds as a command (GOOS=wasip1 GOARCH=wasm go build) and as
// a pooled reactor (add -buildmode=c-shared); on the host it runs as a
// stdin/stdout program.
package main

import (
	"github.com/codemode-dev/codemode/tools/wasm/graphlayout/layout"
	"github.com/codemode-dev/codemode/tools/wasm/guest"
)

var handler = guest.Typed(layout.Layout)

func main() { guest.Main(handler) }

// call is the reactor's entry point: the host calls it once per tool call
// on a reused instance.
//
//go:wasmexport codemode_call
func call() int32 { return guest.Call(handler) }
