package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
)

// upstreamBinary builds testdata/upstream, a stdio MCP server whose tools
// fail, hang, die or write garbage on demand, into the test's directory.
func upstreamBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "upstream")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/upstream").CombinedOutput(); err != nil {
		t.Fatalf("building testdata/upstream: %v\n%s", err, out)
	}
	return bin
}

// signalWriter collects a server's stderr and closes a channel the first
// time a line contains want.
type signalWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.seen != nil && strings.Contains(w.buf.String(), w.want) {
		close(w.seen)
		w.seen = nil
	}
	return len(p), nil
}

func stdioUpstream(t *testing.T, cfg engine.MCPServer, opts Options) (*Upstream, *engine.Engine) {
	t.Helper()
	cfg.Command = upstreamBinary(t)
	up, err := Connect(context.Background(), "up", cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	eng, err := engine.NewBuilder().Add(up.Tools()...).Build()
	if err != nil {
		t.Fatal(err)
	}
	return up, eng
}

func pidOf(t *testing.T, eng *engine.Engine) int {
	t.Helper()
	out, err := eng.Call(context.Background(), "up.pid", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ PID int }
	if err := json.Unmarshal(out, &r); err != nil || r.PID == 0 {
		t.Fatalf("pid result %s: %v", out, err)
	}
	return r.PID
}

// wantToolError checks that err is a tool_error naming the server.
func wantToolError(t *testing.T, err error, code engine.Code, fragment string) {
	t.Helper()
	e := engine.AsError(err, "")
	if e == nil || e.Code != code || !strings.Contains(e.Message, `MCP server "up"`) || !strings.Contains(e.Message, fragment) {
		t.Errorf("got error %v, want %s naming the server and saying %q", err, code, fragment)
	}
}

func TestHostileUpstreamKilledMidCallFailsTheCallAndTheNextCallRestartsIt(t *testing.T) {
	stderr := &signalWriter{want: "hanging", seen: make(chan struct{})}
	seen := stderr.seen
	_, eng := stdioUpstream(t, engine.MCPServer{}, Options{Stderr: stderr})
	pid := pidOf(t, eng)

	done := make(chan error, 1)
	go func() {
		_, err := eng.Call(context.Background(), "up.hang", json.RawMessage(`{}`))
		done <- err
	}()
	select {
	case <-seen:
	case <-time.After(10 * time.Second):
		t.Fatal("the hang call never reached the server")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		wantToolError(t, err, engine.CodeToolError, "connection lost")
	case <-time.After(10 * time.Second):
		t.Fatal("the call in flight did not fail when its server died")
	}
	if again := pidOf(t, eng); again == pid {
		t.Errorf("the next call went to the dead process %d", pid)
	}
}

func TestHostileUpstreamThatExitsMidCall(t *testing.T) {
	_, eng := stdioUpstream(t, engine.MCPServer{}, Options{})
	_, err := eng.Call(context.Background(), "up.die", json.RawMessage(`{}`))
	wantToolError(t, err, engine.CodeToolError, "connection lost")
	if _, err := eng.Call(context.Background(), "up.echo", json.RawMessage(`{"text":"back"}`)); err != nil {
		t.Errorf("after a restart: %v", err)
	}
}

// The short timeout applies to the hanging call alone: the server's
// timeout also bounds its start and the pid calls, which a busy machine can
// keep past 300 ms (starting a Go binary there took longer: "cannot list
// tools: context deadline exceeded").
func TestHostileUpstreamThatHangsTimesOut(t *testing.T) {
	up, eng := stdioUpstream(t, engine.MCPServer{}, Options{})
	pid := pidOf(t, eng)
	long := up.cfg.Timeout
	up.cfg.Timeout = engine.Duration(300 * time.Millisecond) // no call is under way
	start := time.Now()
	_, err := eng.Call(context.Background(), "up.hang", json.RawMessage(`{}`))
	wantToolError(t, err, engine.CodeTimeout, "did not answer within 300ms")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the timeout took %v", d)
	}
	up.cfg.Timeout = long
	if again := pidOf(t, eng); again != pid {
		t.Errorf("a timeout restarted the server (%d, then %d); it should only cancel the call", pid, again)
	}
}

func TestHostileUpstreamWritingGarbageMidCall(t *testing.T) {
	_, eng := stdioUpstream(t, engine.MCPServer{Timeout: engine.Duration(5 * time.Second)}, Options{})
	_, err := eng.Call(context.Background(), "up.garbage", json.RawMessage(`{}`))
	if e := engine.AsError(err, ""); e == nil || !strings.Contains(e.Message, `MCP server "up"`) {
		t.Errorf("garbage: got %v, want an error naming the server", err)
	}
	if _, err := eng.Call(context.Background(), "up.echo", json.RawMessage(`{"text":"still here"}`)); err != nil {
		t.Errorf("after garbage: %v", err)
	}
}

func TestHostileUpstreamWritingGarbageFromTheStart(t *testing.T) {
	start := time.Now()
	_, err := Connect(context.Background(), "up", engine.MCPServer{Command: upstreamBinary(t), Args: []string{"-garbage"},
		Timeout: engine.Duration(2 * time.Second)}, Options{})
	wantToolError(t, err, engine.CodeToolError, "cannot connect") // the garbage, or no answer to initialize in time
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("connecting took %v", d)
	}
}

func TestHostileUpstreamThatExitsAtStartIsQuotedFromItsStderr(t *testing.T) {
	_, err := Connect(context.Background(), "up", engine.MCPServer{Command: upstreamBinary(t), Args: []string{"-crash"}}, Options{})
	wantToolError(t, err, engine.CodeToolError, `cannot connect`)
	wantToolError(t, err, engine.CodeToolError, `(its stderr ends: "upstream: UPSTREAM_TOKEN is not set")`)
}

func TestHostileUpstreamCommandMissing(t *testing.T) {
	_, err := Connect(context.Background(), "up", engine.MCPServer{Command: filepath.Join(t.TempDir(), "nothing-here")}, Options{})
	wantToolError(t, err, engine.CodeToolError, "cannot connect")
}

func TestStdioUpstreamGetsOnlyItsConfiguredEnvironment(t *testing.T) {
	t.Setenv("CODEMODE_TEST_SECRET", "s3cret")
	_, eng := stdioUpstream(t, engine.MCPServer{Env: map[string]string{"GREETING": "hello"}}, Options{})
	out, err := eng.Call(context.Background(), "up.env", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]string
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatal(err)
	}
	if env["GREETING"] != "hello" || env["CODEMODE_TEST_SECRET"] != "" || env["PATH"] == "" {
		t.Errorf("upstream environment: GREETING=%q CODEMODE_TEST_SECRET=%q PATH=%q; want the configured one, no secret, PATH inherited",
			env["GREETING"], env["CODEMODE_TEST_SECRET"], env["PATH"])
	}
}
