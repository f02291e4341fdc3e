// Command cmd builds codemode's WASM tools: go run it with an output
// directory (default tools/wasm/build). scripts/build-wasm-tools.sh runs it.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/codemode-dev/codemode/tools/wasm/wasmbuild"
)

func main() { os.Exit(run()) }

func run() int {
	if len(os.Args) > 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/wasm/wasmbuild/cmd [OUTDIR]")
		return 2
	}
	out := ""
	if len(os.Args) == 2 {
		out = os.Args[1]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	written, err := wasmbuild.Build(ctx, out)
	for _, m := range written {
		fmt.Println(m)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
