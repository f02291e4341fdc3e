package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpClient connects an SDK client over transport, with a generous bound.
func mcpClient(t *testing.T, transport sdk.Transport) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// exerciseMCP lists the tools and calls batch, execute_code and a tool
// with bad arguments, as a host would.
func exerciseMCP(t *testing.T, cs *sdk.ClientSession, wantTools []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range wantTools {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
	text := func(res *sdk.CallToolResult) string {
		if len(res.Content) != 1 {
			t.Fatalf("want one content, got %d", len(res.Content))
		}
		return res.Content[0].(*sdk.TextContent).Text
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "batch", Arguments: json.RawMessage(
		`{"operations": [{"tool": "createStickyNote", "args": {"text": "hi", "x": 0, "y": 0}, "label": "n"},
		{"tool": "getBoardState", "args": {}}], "executionMode": "sequential"}`)})
	if err != nil || res.IsError || !strings.Contains(text(res), `"text":"hi"`) {
		t.Errorf("batch: %v, %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "execute_code", Arguments: map[string]any{
		"code": `const s = await tools.getBoardState(); return s.objects.length;`}})
	if err != nil || res.IsError || text(res) != `{"success":true,"result":1}` {
		t.Errorf("execute_code: %v, %q", err, text(res))
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "createStickyNote", Arguments: map[string]any{"text": 3}})
	if err != nil || !res.IsError || !strings.Contains(text(res), `"code":"invalid_args"`) {
		t.Errorf("bad arguments: want isError with invalid_args, got %v, %+v", err, res)
	}
}

func TestMCPOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "mcp")
	cmd.Stderr = &stderr
	cs := mcpClient(t, &sdk.CommandTransport{Command: cmd})
	exerciseMCP(t, cs, []string{"batch", "execute_code", "search_tools", "createStickyNote", "getBoardState"})
	if err := cs.Close(); err != nil { // closes its stdin: the server ends
		t.Errorf("close: %v (stderr %q)", err, stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit status %d, stderr %q", code, stderr.String())
	}
}

var mcpReadyRe = regexp.MustCompile(`MCP over streamable HTTP at (http://\S+/)`)

// waitMCPURL waits up to 30 s for "codemode mcp --http" to say where it
// listens on stderr, and returns that URL.
func waitMCPURL(t *testing.T, stderr *lockedBuffer) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if m := mcpReadyRe.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready after 30s:\n%s", stderr.String())
		}
	}
}

func TestMCPOverHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd := exec.Command(bin, "mcp", "--http", "127.0.0.1:0")
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	url := waitMCPURL(t, stderr)
	cs := mcpClient(t, &sdk.StreamableClientTransport{Endpoint: url})
	exerciseMCP(t, cs, []string{"batch", "execute_code"})
	cs.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("still running 30s after SIGTERM:\n%s", stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit status %d after SIGTERM:\n%s", code, stderr.String())
	}
}

func TestMCPExposeCodeOverStdio(t *testing.T) {
	cs, wait := mcpInProcess(t, "--expose", "code", "--runner", "inprocess")
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if diff := cmp.Diff([]string{"execute_code", "search_tools"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	cs.Close()
	wait()
}

func TestMCPUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--http", "0.0.0.0:8090"}, `codemode: mcp: --http 0.0.0.0:8090: not a loopback address; the MCP endpoint has no token, so it listens only on this machine (127.0.0.1, ::1 or localhost); see "codemode mcp --help"` + "\n"},
		{[]string{"--http", "8090"}, `codemode: mcp: --http 8090: want HOST:PORT, as in 127.0.0.1:8090 (port 0 picks a free one); see "codemode mcp --help"` + "\n"},
		{[]string{"--expose", "some"}, `codemode: mcp: invalid value "some" for --expose: want "all" or "code"; see "codemode mcp --help"` + "\n"},
		{[]string{"extra"}, `codemode: mcp: unexpected argument "extra"; see "codemode mcp --help"` + "\n"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"mcp"}, tc.args...), strings.NewReader(""), &stdout, &stderr)
		if code != exitUsage || stdout.Len() != 0 || stderr.String() != tc.want {
			t.Errorf("mcp %v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, stdout.String(), stderr.String(), tc.want)
		}
	}
}

// TestMCPSignalCancelsCallsUnderWay: SIGTERM while a script runs (its
// timeout far away) and the client stays connected ends the server at once.
func TestMCPSignalCancelsCallsUnderWay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"script": {"timeout": "10m"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd := exec.Command(bin, "mcp", "--config", cfg)
	cmd.Stderr = stderr
	cs := mcpClient(t, &sdk.CommandTransport{Command: cmd, TerminateDuration: time.Minute})
	answered := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "execute_code", Arguments: map[string]any{"code": "while (true) {}"}})
		answered <- res
	}()
	time.Sleep(500 * time.Millisecond) // the call is under way, or about to be: either way it must not hold the server
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan struct{})
	go func() {
		cs.Wait()
		close(exited)
	}()
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("still serving 60s after SIGTERM:\n%s", stderr.String())
	}
	t.Logf("exited %v after SIGTERM", time.Since(start))
	cs.Close()
	<-answered
}

// TestHostileMCPApprovalFailsClosed: the test's client cannot be asked
// (no elicitation), so deleteObject, which the default --approve gates, is
// denied with the way out; --approve none runs it.
func TestHostileMCPApprovalFailsClosed(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		wantText string
	}{
		{nil, `{"error":{"code":"denied","message":"call of \"deleteObject\" was denied: this MCP client cannot be asked for approval (it does not support elicitation); start codemode mcp with --approve none to run such calls without asking"}}`},
		{[]string{"--approve", "none"}, `{"id":"sticky-1","deleted":["sticky-1"]}`},
	} {
		t.Run(strings.Join(append([]string{"mcp"}, tc.args...), " "), func(t *testing.T) {
			cs, wait := mcpInProcess(t, append(tc.args, "--runner", "inprocess")...)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "createStickyNote", Arguments: map[string]any{"text": "hi", "x": 0, "y": 0}})
			if err != nil || res.IsError {
				t.Fatalf("createStickyNote: %v %+v", err, res)
			}
			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "deleteObject", Arguments: map[string]any{"objectId": "sticky-1"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Content[0].(*sdk.TextContent).Text; got != tc.wantText || res.IsError != strings.Contains(tc.wantText, `"error"`) {
				t.Errorf("deleteObject: isError=%v %s\nwant %s", res.IsError, got, tc.wantText)
			}
			cs.Close()
			wait()
		})
	}
}

// mcpInProcess runs serveMCP with args on pipes and returns a connected
// client and a function that waits for the server to end (once the
// client is closed) and checks it exited 0.
func mcpInProcess(t *testing.T, args ...string) (*sdk.ClientSession, func()) {
	t.Helper()
	srvIn, clientOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	clientIn, srvOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	exit := make(chan int, 1)
	var stderr bytes.Buffer
	go func() {
		exit <- serveMCP(nil, func() {}, args, srvIn, srvOut, &stderr)
		srvOut.Close()
	}()
	cs := mcpClient(t, &sdk.IOTransport{Reader: clientIn, Writer: clientOut})
	return cs, func() {
		if code := <-exit; code != exitOK {
			t.Errorf("exit %d, stderr %q", code, stderr.String())
		}
		srvIn.Close()
	}
}

// TestHostileMCPHTTPRefusesRebindingAndCrossOrigin: the token-less HTTP
// endpoint answers 403 to a Host that is not loopback (DNS rebinding) and
// to a browser's cross-origin POST, and serves a same-origin one.
func TestHostileMCPHTTPRefusesRebindingAndCrossOrigin(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	stderr := &lockedBuffer{}
	exit := make(chan int, 1)
	go func() {
		exit <- serveMCP(sigs, func() {}, []string{"--http", "127.0.0.1:0", "--runner", "inprocess"}, strings.NewReader(""), io.Discard, stderr)
	}()
	url := waitMCPURL(t, stderr)
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"same origin", nil, http.StatusOK},
		{"rebound host", map[string]string{"Host": "evil.example"}, http.StatusForbidden},
		{"cross-origin page", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest("POST", url, strings.NewReader(initialize))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			if host, ok := tc.header["Host"]; ok {
				req.Host = host
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tc.want {
				t.Errorf("status %d, want %d: %s", res.StatusCode, tc.want, body)
			}
		})
	}
	sigs <- os.Interrupt
	select {
	case code := <-exit:
		if code != exitOK {
			t.Errorf("exit %d:\n%s", code, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("still serving 60s after the signal:\n%s", stderr.String())
	}
}
