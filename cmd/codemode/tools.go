package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

func cmdTools(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("tools", stderr)
	var c common
	c.register(fs)
	asJSON := fs.Bool("json", false, "print the definitions as JSON (MCP shape)")
	asTS := fs.Bool("ts", false, "print the TypeScript declarations scripts see")
	const usageLine = "codemode tools [--json|--ts] [--wasm-dir DIR]"
	pos, err := parse(fs, args)
	if helpRequested(err, stdout, usageLine) {
		return exitOK
	}
	if err != nil {
		return fail(stderr, exitUsage, "tools: %v (usage: %s)", err, usageLine)
	}
	if len(pos) > 0 {
		return fail(stderr, exitUsage, "tools: unexpected argument %q (usage: %s)", pos[0], usageLine)
	}
	if *asJSON && *asTS {
		return fail(stderr, exitUsage, "tools: --json and --ts exclude each other")
	}
	eng, _, err := c.setup()
	defer c.close()
	if err != nil {
		return fail(stderr, exitUsage, "%v", err)
	}
	if *asTS {
		fmt.Fprint(stdout, eng.Declarations())
		return exitOK
	}
	defs := eng.ToolDefinitions()
	if *asJSON {
		out, _ := json.MarshalIndent(defs.MCP(), "", "  ")
		fmt.Fprintf(stdout, "%s\n", out)
		return exitOK
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TOOL\tACCESS\tDESCRIPTION")
	for _, t := range defs.Tools {
		access := "writes"
		if t.Annotations.ReadOnlyHint {
			access = "read-only"
		}
		if t.Handler == nil {
			access = "meta"
		}
		desc, _, _ := strings.Cut(t.Description, "\n")
		if first, _, ok := strings.Cut(desc, ". "); ok {
			desc = first + "."
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", t.Name, access, desc)
	}
	w.Flush()
	return exitOK
}
