package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/codemode-dev/codemode/engine"
)

func cmdTools(args []string, stdout, stderr io.Writer) int {
	var o options
	err := parseFlagsOnly("tools", &o, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, commandHelp(findCommand("tools")))
		return exitOK
	}
	if err == nil && o.json && o.ts {
		err = errors.New("--json and --ts exclude each other")
	}
	if err != nil {
		return usageError(stderr, "tools", err)
	}
	s, err := openSession(&o, "")
	defer s.close()
	if err != nil {
		return fail(stderr, exitUsage, "tools: %v", err)
	}
	if o.ts {
		fmt.Fprint(stdout, s.eng.Declarations())
		return exitOK
	}
	defs := s.eng.ToolDefinitions()
	if o.json {
		// An MCP tools/list result, as GET /v1/tools?format=mcp answers.
		out, _ := json.MarshalIndent(struct {
			Tools []engine.MCPTool `json:"tools"`
		}{defs.MCP()}, "", "  ")
		fmt.Fprintf(stdout, "%s\n", out)
		return exitOK
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TOOL\tACCESS\tFROM\tDESCRIPTION")
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
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", t.Name, access, toolOrigin(t), desc)
	}
	w.Flush()
	return exitOK
}

// toolOrigin is where a listed tool comes from: its Origin (a --wasm-dir
// manifest's path, "built-in WASM", an MCP server), "engine" for the
// meta-tools and "whiteboard" for the rest, which have none.
func toolOrigin(t engine.Tool) string {
	switch {
	case t.Handler == nil:
		return "engine"
	case t.Origin == "":
		return "whiteboard"
	}
	return t.Origin
}
