// Command textcluster is the text.cluster WASM tool (cluster.tool.json):
// affinity clustering of sticky-note texts by shared keywords, for retro and
// brainstorm boards. Its manifest asks for a command build; the export below
// lets the same source serve as a pooled reactor too (-buildmode=c-shared).
package main

import (
	"github.com/codemode-dev/codemode/tools/wasm/guest"
	"github.com/codemode-dev/codemode/tools/wasm/textcluster/cluster"
)

var handler = guest.Typed(cluster.Cluster)

func main() { guest.Main(handler) }

// call is the reactor's entry point: the host calls it once per tool call
// on a reused instance.
//
//go:wasmexport codemode_call
func call() int32 { return guest.Call(handler) }
