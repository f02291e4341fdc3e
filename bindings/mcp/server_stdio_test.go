package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/syncbuf"
)

// TestHostileStdioBadLinesCostOnlyThemselves sends, between a session's
// initialize and a tool call, lines that are not JSON-RPC messages: each
// gets an error reply and the session goes on to answer the call.
func TestHostileStdioBadLinesCostOnlyThemselves(t *testing.T) {
	bad := []struct{ line, reply string }{
		{`garbage`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not JSON"}}`},
		{`{}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: \"jsonrpc\" must be \"2.0\""}}`},
		{`[1]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: not a JSON object"}}`},
		{`"str"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: not a JSON object"}}`},
		{`[]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: an empty batch"}}`},
		{`{"jsonrpc":"2.0","id":7}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"invalid request: neither a request, a notification nor a response"}}`},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id must be a string or a number"}}`},
		{`{"jsonrpc":"2.0","id":"m","method":3}`, `{"jsonrpc":"2.0","id":"m","error":{"code":-32600,"message":"invalid request: method must be a non-empty string"}}`},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"math.add","arguments":` + strings.Repeat(" ", maxMessageBytes) + `{}}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"message over 16777216 bytes"}}`},
	}
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for _, b := range bad {
		in.WriteString(b.line + "\n\n")
	}
	in.WriteString(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"math.add","arguments":{"a":1,"b":2}}}` + "\n")

	srv, err := NewServer(buildEngine(t, engine.NewBuilder()), ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	outR, outW := io.Pipe()
	inR, inW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, StdioTransport(inR, outW)) }()
	go func() { io.WriteString(inW, in.String()) }() // held open until the answer is in

	var got []string
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	for len(got) < len(bad)+2 && lines.Scan() {
		got = append(got, lines.Text())
	}
	inW.Close()
	cancel()
	go io.Copy(io.Discard, outR)
	<-done
	outW.Close()

	var want, replies, results []string
	for _, b := range bad {
		want = append(want, b.reply)
	}
	for _, l := range got {
		if strings.Contains(l, `"result":`) {
			results = append(results, l)
		} else {
			replies = append(replies, l)
		}
	}
	// The replies come as the lines are read, ahead of the SDK's answers.
	if diff := cmp.Diff(want, replies, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("error replies (-want +got):\n%s", diff)
	}
	if len(results) != 2 {
		t.Fatalf("want the answers to initialize and the call, got %q", results)
	}
	var res struct {
		ID     int `json:"id"`
		Result struct {
			StructuredContent map[string]float64 `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(results[1]), &res); err != nil || res.ID != 2 || res.Result.StructuredContent["sum"] != 3 {
		t.Errorf("the call after the bad lines: %s (%v)", results[1], err)
	}
}

// runStdio runs a server over StdioTransport with in as the client's whole
// input, and returns its output lines once Run returns.
func runStdio(t *testing.T, ctx context.Context, eng *engine.Engine, in string) []string {
	t.Helper()
	srv, err := NewServer(eng, ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out lockedBuffer
	if err := srv.Run(ctx, StdioTransport(strings.NewReader(in), &out)); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		t.Errorf("Run: %v", err)
	}
	return strings.Split(strings.TrimSpace(out.String()), "\n")
}

// lockedBuffer collects what many goroutines write.
type lockedBuffer = syncbuf.Buffer

const stdioHandshake = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
`

func slowEngine(t *testing.T, handler engine.Handler) *engine.Engine {
	t.Helper()
	eng, err := engine.NewBuilder().Add(engine.Tool{
		Name: "slow.wait", Description: "Waits.", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: engine.Annotations{ReadOnlyHint: true}, Handler: handler,
	}).Build()
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// TestStdioAnswersCallsUnderWayAtEndOfInput: a client that writes its
// requests and closes its end still gets every answer.
func TestStdioAnswersCallsUnderWayAtEndOfInput(t *testing.T) {
	eng := slowEngine(t, func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		select {
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
		}
		return json.RawMessage(`{"waited":true}`), nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got := runStdio(t, ctx, eng, stdioHandshake+`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow.wait","arguments":{}}}`+"\n")
	if len(got) != 2 || !strings.Contains(got[1], `"structuredContent":{"waited":true}`) {
		t.Errorf("want the answers to initialize and the call, got %q", got)
	}
}

// TestStdioEndsOnCancelWhileCallsWait: after the input ends, canceling the
// server's context (SIGINT, SIGTERM) ends it even while a call still runs.
func TestStdioEndsOnCancelWhileCallsWait(t *testing.T) {
	started := make(chan struct{})
	eng := slowEngine(t, func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	done := make(chan struct{})
	go func() {
		runStdio(t, ctx, eng, stdioHandshake+`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow.wait","arguments":{}}}`+"\n")
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run still waiting 30s after its context was canceled")
	}
}
