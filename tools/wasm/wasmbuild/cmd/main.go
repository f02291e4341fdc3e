// Command cmd builds codemode's WASM tools: go run it with an output
// directory (default tools/wasm/build). scripts/build-wasm-tools.sh runs it.
// With -embed DIR it writes them compressed into DIR for the codemode
// binary to embed, rebuilding only those whose sources changed (-force:
// all); go generate ./tools/wasm/builtin runs that.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/codemode-dev/codemode/tools/wasm/wasmbuild"
)

func main() { os.Exit(run()) }

func run() int {
	fs := flag.NewFlagSet("wasmbuild", flag.ContinueOnError)
	embed := fs.String("embed", "", "write the tools compressed into `DIR`, with their sources' hashes, rebuilding only what changed")
	force := fs.Bool("force", false, "with -embed: rebuild every tool, changed or not")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/wasm/wasmbuild/cmd [OUTDIR]\n       go run ./tools/wasm/wasmbuild/cmd -embed DIR [-force]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil || fs.NArg() > 1 || (*embed != "" && fs.NArg() > 0) || (*force && *embed == "") {
		if err == nil {
			fs.Usage()
		}
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var written []string
	var err error
	if *embed != "" {
		written, err = wasmbuild.Embed(ctx, *embed, *force)
	} else {
		written, err = wasmbuild.Build(ctx, fs.Arg(0))
	}
	for _, m := range written {
		fmt.Println(m)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
