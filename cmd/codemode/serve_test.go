//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
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
)

// serve's usage errors are one line each, exit status 2, before anything
// is listened on or made.
func TestServeUsageErrors(t *testing.T) {
	t.Setenv(tokenEnv, "")
	data := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"extra"}, `serve: unexpected argument "extra"`},
		{[]string{"--addr", "8080"}, `serve: --addr 8080: want HOST:PORT, as in 127.0.0.1:8080 (port 0 picks a free one)`},
		{[]string{"--addr", "127.0.0.1:http-ish"}, `serve: --addr 127.0.0.1:http-ish: no such port "http-ish"`},
		{[]string{"--addr", "0.0.0.0:8080"}, `serve: --addr 0.0.0.0:8080 is not a loopback address, so others could reach the server: give it a token with --token TOKEN or the CODEMODE_TOKEN environment variable (clients send "Authorization: Bearer TOKEN")`},
		{[]string{"--addr", ":8080"}, `serve: --addr :8080 is not a loopback address`},
		{[]string{"--addr", "example.com:8080"}, `serve: --addr example.com:8080 is not a loopback address`},
		{[]string{"--token", "secret"}, `serve: --token: the token is 6 characters, want at least 16 (try: openssl rand -hex 16)`},
		{[]string{"--token", "a token with spaces"}, `serve: --token: a token is letters, digits and ._~+/=- only (try: openssl rand -hex 16)`},
		{[]string{"--approve", "all"}, `serve: invalid value "all" for --approve: want "destructive", "writes" or "none"`},
		{[]string{"--max-runs", "0"}, `serve: invalid value "0" for --max-runs: want a whole number above 0`},
		{[]string{"--max-body", "4MB"}, `serve: invalid value "4MB" for --max-body: "4MB" is not a size`},
		{[]string{"--runner", "vm"}, `serve: invalid value "vm" for --runner`},
		{[]string{"--board", "b.json"}, `serve: --board is for batch and run only`},
		{[]string{"--token", ""}, `serve: --token needs a value (--token TOKEN), not ""`},
		{[]string{"--allow-origin", "https://ok.example", "--allow-origin", "*", "--allow-origin", "https://app.example.com/", "--allow-origin", "app.example.com"}, `serve: --allow-origin "*", "https://app.example.com/", "app.example.com": want an origin, scheme://host[:port] with nothing after it, as in https://app.example.com (each one named, no wildcard)`},
	} {
		args := append([]string{"serve", "--data", data}, tc.args...)
		out, errs, code := cli(t, "", args...)
		if code != exitUsage || out != "" || !strings.HasPrefix(errs, "codemode: "+tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q…", tc.args, code, out, errs, tc.want)
		}
	}
	if entries, _ := os.ReadDir(data); len(entries) > 0 {
		t.Errorf("a usage error left %v in the data directory", entries)
	}
}

// The token comes from --token or CODEMODE_TOKEN; with one, any address
// may be bound; loopback addresses need none.
func TestServeListenPlan(t *testing.T) {
	const tok = "0123456789abcdef0123"
	for _, tc := range []struct {
		flagAddr, flagToken, env string
		addr, token, err         string
	}{
		{"", "", "", "127.0.0.1:8080", "", ""},
		{"localhost:0", "", "", "localhost:0", "", ""},
		{"[::1]:9000", "", "", "[::1]:9000", "", ""},
		{"127.0.0.2:80", "", "", "127.0.0.2:80", "", ""},
		{"0.0.0.0:8080", "", tok, "0.0.0.0:8080", tok, ""},
		{"0.0.0.0:8080", tok, "short", "0.0.0.0:8080", tok, ""},
		{"", "", "short", "", "", "CODEMODE_TOKEN: the token is 5 characters, want at least 16 (try: openssl rand -hex 16)"},
		{"192.168.1.5:8080", "", "", "", "", "--addr 192.168.1.5:8080 is not a loopback address"},
	} {
		o := options{addr: tc.flagAddr, token: tc.flagToken}
		addr, token, err := o.listenPlan(func(k string) string {
			if k == tokenEnv {
				return tc.env
			}
			return ""
		})
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if addr != tc.addr || token != tc.token || !strings.HasPrefix(msg, tc.err) || (tc.err == "") != (msg == "") {
			t.Errorf("--addr %q --token %q, %s=%q: got %q, %q, %q; want %q, %q, %q…", tc.flagAddr, tc.flagToken, tokenEnv, tc.env, addr, token, msg, tc.addr, tc.token, tc.err)
		}
	}
}

func TestServeDefaultDataDir(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	if got, _ := defaultDataDir(env("XDG_DATA_HOME", "/data", "HOME", "/home/u")); got != "/data/codemode" {
		t.Errorf("with XDG_DATA_HOME: %q, want /data/codemode", got)
	}
	if got, _ := defaultDataDir(env("XDG_DATA_HOME", "rel", "HOME", "/home/u")); got != "/home/u/.local/share/codemode" {
		t.Errorf("with a relative XDG_DATA_HOME (ignored, as the XDG spec says): %q", got)
	}
	if got, _ := defaultDataDir(env("HOME", "/home/u")); got != "/home/u/.local/share/codemode" {
		t.Errorf("with HOME only: %q", got)
	}
	if _, err := defaultDataDir(env()); err == nil {
		t.Errorf("with neither: no error")
	}
}

// Problems found while setting up are reported at once, exit status 2: the
// data directory, the config file, the WASM tools.
func TestServeSetUpProblems(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, filepath.Join(dir, "file"), "")
	_, errs, code := cli(t, "", "serve", "--data", file, "--config", filepath.Join(dir, "missing.json"), "--wasm-dir", filepath.Join(dir, "nowhere"), "--addr", "127.0.0.1:0")
	for _, want := range []string{"--data " + file + ": ", "--config " + filepath.Join(dir, "missing.json") + ": no such file or directory", "--wasm-dir " + filepath.Join(dir, "nowhere") + ": no such directory"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr %q does not say %q", errs, want)
		}
	}
	if code != exitUsage || strings.Count(errs, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want 2 and one line", code, errs)
	}
}

// An address in use is one line naming it, exit status 2.
func TestServeAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	data := filepath.Join(t.TempDir(), "data")
	out, errs, code := cli(t, "", "serve", "--addr", addr, "--data", data, "--runner", "inprocess")
	want := "codemode: serve: --addr " + addr + ": the address is in use (another codemode serve?): stop what listens there, or choose another address with --addr (port 0 picks a free one)\n"
	if code != exitUsage || out != "" || errs != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errs, want)
	}
	if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the data directory was made although serve could not start: %v", err)
	}
}

// servedCmd is a codemode serve process of the built command.
type servedCmd struct {
	cmd    *exec.Cmd
	stderr *lockedBuffer
	done   chan struct{}
	err    error  // Wait's, once done
	url    string // the URL of the ready line
	base   string // http://ADDR
}

var readyLineRe = regexp.MustCompile(`^codemode: serving on (http://([^/]+)/\S*) \(boards in (.+)\)\n`)

// startServe starts "codemode serve ARGS" and waits for its ready line.
func startServe(t *testing.T, args ...string) *servedCmd {
	t.Helper()
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	return startServeCmd(t, exec.Command(bin, append([]string{"serve"}, args...)...))
}

// startServeCmd starts cmd, a codemode serve (perhaps exec'd by a shell
// that set a limit first), and waits for its ready line.
func startServeCmd(t *testing.T, cmd *exec.Cmd) *servedCmd {
	t.Helper()
	s := &servedCmd{cmd: cmd, stderr: &lockedBuffer{}, done: make(chan struct{})}
	s.cmd.Env = append(os.Environ(), tokenEnv+"=")
	s.cmd.Stderr = s.stderr
	s.cmd.Stdout = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.err = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			s.cmd.Process.Kill()
			<-s.done
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := readyLineRe.FindStringSubmatch(s.stderr.String()); m != nil {
			s.url, s.base = m[1], "http://"+m[2]
			return s
		}
		select {
		case <-s.done:
			t.Fatalf("serve exited before it was ready: %v\n%s", s.err, s.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve not ready after 30s:\n%s", s.stderr.String())
		}
	}
}

// stop sends sig and waits for the exit status.
func (s *servedCmd) stop(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	s.cmd.Process.Signal(sig)
	return s.wait(t, sig)
}

// wait waits for the exit status after sig.
func (s *servedCmd) wait(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("serve still running 30s after %v:\n%s", sig, s.stderr.String())
	}
	var exit *exec.ExitError
	if errors.As(s.err, &exit) {
		return exit.ExitCode()
	}
	if s.err != nil {
		t.Fatalf("serve: %v", s.err)
	}
	return 0
}

// do sends a request and returns the status and body.
func (s *servedCmd) do(t *testing.T, method, path, body string, header ...string) (int, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.base+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v\nserver's output:\n%s", method, path, err, s.stderr.String())
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// objectTexts is the texts of a board's stickies, from GET /v1/boards/ID.
func objectTexts(t *testing.T, board string) []string {
	t.Helper()
	var b struct{ Objects []struct{ Type, Text string } }
	if err := json.Unmarshal([]byte(board), &b); err != nil {
		t.Fatalf("not a board: %v\n%s", err, board)
	}
	var texts []string
	for _, o := range b.Objects {
		if o.Type == "sticky" {
			texts = append(texts, o.Text)
		}
	}
	return texts
}

// codemode serve starts, answers, stops on SIGTERM with status 0, and the
// boards it kept are there when it starts again on the same --data.
func TestServeStartStopRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	data := filepath.Join(t.TempDir(), "data") // made by serve
	s := startServe(t, "--addr", "127.0.0.1:0", "--data", data)
	if !strings.HasSuffix(strings.SplitN(s.stderr.String(), "\n", 2)[0], "(boards in "+filepath.Join(data, "boards.db")+")") || !strings.HasPrefix(s.url, "http://127.0.0.1:") || strings.Contains(s.url, ":0/") {
		t.Errorf("ready line %q: want the real port and the store", s.stderr.String())
	}
	if code, body := s.do(t, "GET", "/healthz", ""); code != 200 || strings.Join(strings.Fields(body), "") != `{"status":"ok"}` {
		t.Errorf("healthz: %d %s", code, body)
	}
	// Without a token, only loopback names are answered (DNS rebinding).
	if code, body := s.do(t, "GET", "/v1/boards", "", "Host", "evil.example:8080"); code != 400 || !strings.Contains(body, `"code": "bad_request"`) || !strings.Contains(body, "evil.example") {
		t.Errorf("Host evil.example: %d %s", code, body)
	}
	if code, _ := s.do(t, "GET", "/healthz", "", "Host", "localhost"); code != 200 {
		t.Errorf("Host localhost: %d", code)
	}
	if code, body := s.do(t, "POST", "/v1/boards", `{"id": "demo"}`); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	if code, body := s.do(t, "POST", "/v1/boards/demo/batch", `{"operations": [{"tool": "createStickyNote", "args": {"text": "kept", "x": 0, "y": 0}}]}`); code != 200 || !strings.Contains(body, `"successful":1`) && !strings.Contains(body, `"successful": 1`) {
		t.Fatalf("batch: %d %s", code, body)
	}
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("exit status %d after SIGTERM, want 0:\n%s", code, s.stderr.String())
	}
	if !strings.Contains(s.stderr.String(), "codemode: shutting down") {
		t.Errorf("no line about shutting down:\n%s", s.stderr.String())
	}

	s = startServe(t, "--addr", "127.0.0.1:0", "--data", data)
	code, body := s.do(t, "GET", "/v1/boards/demo", "")
	if code != 200 {
		t.Fatalf("after the restart: %d %s", code, body)
	}
	if d := cmp.Diff([]string{"kept"}, objectTexts(t, body)); d != "" {
		t.Errorf("the board after the restart (-want +got):\n%s", d)
	}
	if code := s.stop(t, syscall.SIGINT); code != 0 {
		t.Errorf("exit status %d after SIGINT, want 0:\n%s", code, s.stderr.String())
	}
}

// SIGTERM while a run is under way: the run finishes and is committed,
// then the process exits 0.
func TestServeSIGTERMLetsRunFinish(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	data := t.TempDir()
	s := startServe(t, "--addr", "127.0.0.1:0", "--data", data)
	if code, body := s.do(t, "POST", "/v1/boards", `{"id": "demo"}`); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	// A script that looks at the board (so that run_start goes out at
	// once, with that call's events), works for three seconds, then draws:
	// it is under way when the signal comes, and its change comes after it.
	script := `await tools.getBoardState({});
const t0 = Date.now(); while (Date.now() - t0 < 3000) {}
await tools.createStickyNote({text: "finished", x: 0, y: 0});
return "done";`
	body, _ := json.Marshal(map[string]string{"code": script})
	req, _ := http.NewRequest("POST", s.base+"/v1/boards/demo/execute", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// Wait for run_start, then signal.
	var stream bytes.Buffer
	buf := make([]byte, 4096)
	for !strings.Contains(stream.String(), "event: run_start") {
		n, err := resp.Body.Read(buf)
		stream.Write(buf[:n])
		if err != nil && !strings.Contains(stream.String(), "event: run_start") {
			t.Fatalf("stream ended before run_start: %v\n%s", err, stream.String())
		}
	}
	if strings.Contains(stream.String(), "event: run_end") {
		t.Fatalf("the run ended before the test could signal (a busy machine?):\n%s", stream.String())
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	rest, err := io.ReadAll(resp.Body)
	stream.Write(rest)
	if err != nil {
		t.Fatalf("reading the stream after SIGTERM: %v\n%s", err, stream.String())
	}
	if !strings.Contains(stream.String(), "event: run_end") || !strings.Contains(stream.String(), `"success":true`) {
		t.Errorf("the run did not end well:\n%s", stream.String())
	}
	if code := s.wait(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("exit status %d, want 0:\n%s", code, s.stderr.String())
	}
	s = startServe(t, "--addr", "127.0.0.1:0", "--data", data)
	code, board := s.do(t, "GET", "/v1/boards/demo", "")
	if code != 200 {
		t.Fatalf("after the restart: %d %s", code, board)
	}
	if d := cmp.Diff([]string{"finished"}, objectTexts(t, board)); d != "" {
		t.Errorf("the run's change after the restart (-want +got):\n%s", d)
	}
}

// With a token the ready line carries it for the web app, and /v1 wants it.
func TestServeToken(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	const tok = "0123456789abcdef0123456789abcdef"
	s := startServe(t, "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--token", tok, "--allow-origin", "https://app.example.com")
	if !strings.HasSuffix(s.url, "/#token="+tok) {
		t.Errorf("URL %q does not carry the token", s.url)
	}
	if code, body := s.do(t, "GET", "/v1/boards", ""); code != 401 {
		t.Errorf("no token: %d %s", code, body)
	}
	if code, body := s.do(t, "GET", "/v1/boards", "", "Authorization", "Bearer "+tok); code != 200 {
		t.Errorf("with the token: %d %s", code, body)
	}
	// --allow-origin reaches the server: that origin's pages may read the
	// answers, others' not.
	for origin, want := range map[string]string{"https://app.example.com": "https://app.example.com", "https://evil.example": ""} {
		req, _ := http.NewRequest("GET", s.base+"/v1/boards", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != want {
			t.Errorf("Origin %s: Access-Control-Allow-Origin %q, want %q", origin, got, want)
		}
	}
	// With a token any Host is served: the token is the guard.
	if code, body := s.do(t, "GET", "/v1/boards", "", "Authorization", "Bearer "+tok, "Host", "codemode.example"); code != 200 {
		t.Errorf("with the token and another Host: %d %s", code, body)
	}
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("exit status %d", code)
	}
}

// --max-body and --approve reach the server: a body over the limit is 413,
// and with --approve none a deletion runs without waiting for anyone.
func TestServeLimitAndApprovalFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	s := startServe(t, "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--max-body", "1KiB", "--approve", "none")
	if code, body := s.do(t, "POST", "/v1/boards", `{"id": "b", "objects": [{"id": "sticky-1", "type": "sticky", "x": 0, "y": 0, "width": 200, "height": 200, "text": "x"}]}`); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	big := `{"code": "return 1", "input": "` + strings.Repeat("x", 1100) + `"}`
	if code, body := s.do(t, "POST", "/v1/execute", big); code != 413 || !strings.Contains(body, "1024 bytes") {
		t.Errorf("a body of %d bytes: %d %s", len(big), code, body)
	}
	client := &http.Client{Timeout: 20 * time.Second} // gated, the call would wait 5 minutes
	resp, err := client.Post(s.base+"/v1/boards/b/batch", "application/json", strings.NewReader(`{"operations": [{"tool": "deleteObject", "args": {"objectId": "sticky-1"}}]}`))
	if err != nil {
		t.Fatalf("delete: %v (--approve none did not reach the server?)", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"successful": 1`) {
		t.Errorf("delete: %d %s", resp.StatusCode, body)
	}
	if code := s.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("exit status %d", code)
	}
}
