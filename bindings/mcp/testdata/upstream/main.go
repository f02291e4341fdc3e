// Command upstream is a small MCP server on stdio for the client's tests and
// the docs' examples: well-behaved tools (add, echo, pid, env), and tools
// that fail, hang, die, write garbage or change the server's tool list.
//
//	upstream            serve
//	upstream -garbage   write non-JSON-RPC instead of answering initialize
//	upstream -crash     exit at once, saying why on stderr
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	garbage := flag.Bool("garbage", false, "answer with garbage from the start")
	crash := flag.Bool("crash", false, "say why on stderr and exit at once")
	flag.Parse()
	if *crash {
		fmt.Fprintln(os.Stderr, "upstream: UPSTREAM_TOKEN is not set")
		os.Exit(1)
	}
	if *garbage {
		fmt.Println("this is not JSON-RPC")
		select {}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	add := func(name, desc, schema string, readOnly bool, h func(ctx context.Context, args map[string]any) *mcp.CallToolResult) {
		s.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(schema),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: readOnly}},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var args map[string]any
				_ = json.Unmarshal(req.Params.Arguments, &args)
				return h(ctx, args), nil
			})
	}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	add("echo", "Echoes text.", `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, true,
		func(_ context.Context, a map[string]any) *mcp.CallToolResult { return text(fmt.Sprint(a["text"])) })
	s.AddTool(&mcp.Tool{Name: "add", Description: "Adds two numbers.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ A, B float64 }
			_ = json.Unmarshal(req.Params.Arguments, &args)
			sum := map[string]float64{"sum": args.A + args.B}
			b, _ := json.Marshal(sum)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: sum}, nil
		})
	add("pid", "The server's process id.", `{"type":"object"}`, true,
		func(context.Context, map[string]any) *mcp.CallToolResult {
			return text(fmt.Sprintf(`{"pid": %d}`, os.Getpid()))
		})
	add("env", "The server's environment.", `{"type":"object"}`, true,
		func(context.Context, map[string]any) *mcp.CallToolResult {
			env := map[string]string{}
			for _, kv := range os.Environ() {
				k, v, _ := strings.Cut(kv, "=")
				env[k] = v
			}
			b, _ := json.Marshal(env)
			return text(string(b))
		})
	add("retire_echo", "Removes echo from the server's tools (its clients are told the list changed).", `{"type":"object"}`, false,
		func(context.Context, map[string]any) *mcp.CallToolResult {
			s.RemoveTools("echo")
			return text("echo retired")
		})
	add("hang", "Never answers.", `{"type":"object"}`, false,
		func(ctx context.Context, _ map[string]any) *mcp.CallToolResult {
			fmt.Fprintln(os.Stderr, "hanging") // the tests wait for this to kill the server mid-call
			<-ctx.Done()
			return text("canceled")
		})
	add("die", "Exits in the middle of the call.", `{"type":"object"}`, false,
		func(context.Context, map[string]any) *mcp.CallToolResult { os.Exit(3); return nil })
	add("garbage", "Writes non-JSON-RPC on stdout.", `{"type":"object"}`, false,
		func(ctx context.Context, _ map[string]any) *mcp.CallToolResult {
			os.Stdout.WriteString("}}} not JSON-RPC {{{\n")
			<-ctx.Done()
			return text("canceled")
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
