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
	pos, err := parse(fs, args)
	if helpRequested(err, stdout, "codemode tools [--json]") {
		return exitOK
	}
	if err != nil {
		return fail(stderr, exitUsage, "tools: %v (usage: codemode tools [--json])", err)
	}
	if len(pos) > 0 {
		return fail(stderr, exitUsage, "tools: unexpected argument %q (usage: codemode tools [--json])", pos[0])
	}
	eng, _, err := c.setup()
	if err != nil {
		return fail(stderr, exitUsage, "%v", err)
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
