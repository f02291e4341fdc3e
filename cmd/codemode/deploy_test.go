//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
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
)

// TestDeployNginx runs the nginx configuration of docs/deploy.md — the
// block itself, read from the document, with only the replicas' addresses
// and the listening port replaced — through Debian's nginx in front of two
// codemode serve processes. It lives here, beside the other tests that
// start codemode serve, so that it uses the binary they build once.
//
// The two replicas each keep their boards in their own --data, as nothing
// else exists yet: a board lives on the replica that made it, so a request
// about it that nginx sends to the other gets a 404 and is sent again
// (nginx alternates). With a store shared by the replicas that retry goes.
//
// It is skipped without nginx, unless CODEMODE_NGINX_TESTS=1 (.ci/run,
// which installs it) makes that a failure.
func TestDeployNginx(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and starts nginx")
	}
	nginx := nginxBinary(t)
	const token = "deploy-test-token-0123456789"
	a := startServe(t, "--addr", "127.0.0.1:0", "--data", filepath.Join(t.TempDir(), "a"), "--token", token, "--runner", "inprocess")
	b := startServe(t, "--addr", "127.0.0.1:0", "--data", filepath.Join(t.TempDir(), "b"), "--token", token, "--runner", "inprocess")
	front := startNginx(t, nginx, strings.TrimPrefix(a.base, "http://"), strings.TrimPrefix(b.base, "http://"))

	// Requests as a client of the public name sends them: nginx passes the
	// Host on, which a replica with a token accepts.
	const host = "codemode.example.com"
	// Answers' headers come at once, a stream's too: nginx holding them
	// back is a failure, told apart from a slow machine by its error.
	tr := &http.Transport{ResponseHeaderTimeout: 20 * time.Second}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	do := func(ctx context.Context, method, path, body string) (*http.Response, error) {
		var r io.Reader
		if body != "" {
			r = strings.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, front+path, r)
		if err != nil {
			return nil, err
		}
		req.Host = host
		req.Header.Set("Authorization", "Bearer "+token)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		return hc.Do(req)
	}
	// send sends a request and reads its answer; a request about one board
	// (onItsReplica) is sent until nginx takes it to the replica that has
	// the board (see above). It may run on any goroutine.
	send := func(onItsReplica bool, method, path, body string) (int, string, error) {
		for range 4 {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			resp, err := do(ctx, method, path, body)
			if err != nil {
				cancel()
				return 0, "", fmt.Errorf("%s %s through nginx: %v", method, path, err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			cancel()
			if err != nil {
				return 0, "", fmt.Errorf("%s %s through nginx: %v", method, path, err)
			}
			if !onItsReplica || resp.StatusCode != http.StatusNotFound {
				return resp.StatusCode, string(b), nil
			}
		}
		return 0, "", fmt.Errorf("%s %s: 404 from both replicas", method, path)
	}
	read := func(onItsReplica bool, method, path, body string) (int, string) {
		t.Helper()
		code, answer, err := send(onItsReplica, method, path, body)
		if err != nil {
			t.Fatal(err)
		}
		return code, answer
	}

	// /healthz passes through, without a token too.
	for range 2 {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, front+"/healthz", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || strings.Join(strings.Fields(string(body)), "") != `{"status":"ok"}` {
			t.Errorf("GET /healthz through nginx: %d %s", resp.StatusCode, body)
		}
	}

	// Requests are spread over both replicas: of four boards made through
	// nginx, each replica made some.
	var boards []string
	for i := range 4 {
		code, body := read(false, http.MethodPost, "/v1/boards", fmt.Sprintf(`{"name": "deploy %d"}`, i))
		var made struct{ ID string }
		if code != http.StatusCreated || json.Unmarshal([]byte(body), &made) != nil {
			t.Fatalf("POST /v1/boards through nginx: %d %s", code, body)
		}
		boards = append(boards, made.ID)
	}
	onA, onB := replicaBoards(t, a, token), replicaBoards(t, b, token)
	if onA == 0 || onB == 0 || onA+onB != len(boards) {
		t.Errorf("of %d boards made through nginx, %d are on one replica and %d on the other: want both used", len(boards), onA, onB)
	}

	// A board's event stream through nginx delivers each event as it
	// happens: the board at once, then a run's events while the run waits
	// for an approval — long before its answer, which nginx would hold
	// back with the events if it buffered them.
	board := boards[0]
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var stream *http.Response
	for range 4 {
		resp, err := do(ctx, http.MethodGet, "/v1/boards/"+board+"/events", "")
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusOK {
			stream = resp
			break
		}
		resp.Body.Close()
	}
	if stream == nil {
		t.Fatal("GET .../events: no replica streamed the board")
	}
	defer stream.Body.Close()
	type event struct{ name, data string }
	events := make(chan event, 64) // as they are read
	go func() {
		defer close(events)
		sc := bufio.NewScanner(stream.Body)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		var e event
		for sc.Scan() {
			line := sc.Text()
			if name, ok := strings.CutPrefix(line, "event: "); ok {
				e.name = name
			} else if data, ok := strings.CutPrefix(line, "data: "); ok {
				e.data = data
			} else if line == "" && e.name != "" {
				events <- e
				e = event{}
			}
		}
	}()
	next := func(want string) string {
		t.Helper()
		select {
		case e, ok := <-events:
			if !ok || e.name != want {
				t.Fatalf("the stream through nginx: event %q (open %v), want %q: %s", e.name, ok, want, e.data)
			}
			return e.data
		case <-time.After(10 * time.Second):
			t.Fatalf("the stream through nginx: no %q event within 10 s (buffered?)", want)
		}
		return ""
	}
	next("board")

	// A script that makes a sticky note, then deletes it: deleteObject
	// waits for an approval (--approve destructive, the default). run
	// starts it through nginx and returns once it waits; approve lets it
	// finish, through nginx or at the replica given, and returns its
	// answer.
	type answer struct {
		code int
		body string
		err  error
	}
	run := func() (approve func(at *servedCmd) answer) {
		t.Helper()
		answered := make(chan answer, 1)
		go func() {
			code, body, err := send(true, http.MethodPost, "/v1/boards/"+board+"/execute",
				`{"code": "const s = await tools.createStickyNote({text: 'soon gone', x: 0, y: 0}); await tools.deleteObject({objectId: s.id}); return s.id;"}`)
			answered <- answer{code, body, err}
		}()
		for _, want := range []string{"run_start", "tool_call_start", "tool_call_end"} {
			next(want)
		}
		var waiting struct {
			RunID     string
			Approvals []struct{ CallID string }
		}
		if data := next("approval_required"); json.Unmarshal([]byte(data), &waiting) != nil || waiting.RunID == "" || len(waiting.Approvals) != 1 {
			t.Fatalf("approval_required: %s", data)
		}
		select {
		case a := <-answered:
			t.Fatalf("the run answered before its approval: %d %s %v", a.code, a.body, a.err)
		default:
		}
		return func(at *servedCmd) answer {
			t.Helper()
			path, decision := "/v1/runs/"+waiting.RunID+"/approvals", fmt.Sprintf(`{"decisions": [{"callId": %q, "approved": true}]}`, waiting.Approvals[0].CallID)
			var code int
			var body string
			if at == nil {
				code, body = read(true, http.MethodPost, path, decision)
			} else {
				code, body = at.do(t, http.MethodPost, path, decision, "Authorization", "Bearer "+token)
			}
			if code != http.StatusOK {
				t.Fatalf("approving: %d %s", code, body)
			}
			next("tool_call_start")
			next("tool_call_end")
			next("run_end")
			return <-answered
		}
	}
	if a := run()(nil); a.err != nil || a.code != http.StatusOK || !strings.Contains(a.body, `"success": true`) {
		t.Errorf("the run through nginx: %d %s %v", a.code, a.body, a.err)
	}

	// The board's replica stops gracefully (SIGTERM) while a run on it
	// waits: its /healthz answers 503 at once, nginx sends /healthz to the
	// other replica meanwhile, the run is approved and finishes, and the
	// replica exits 0. nginx counts the 503 as a failure and leaves the
	// replica out, so the approval goes to it directly: with a store the
	// replicas share, it would go through nginx to the other.
	home, other := a, b
	if code, _ := a.do(t, http.MethodGet, "/v1/boards/"+board, "", "Authorization", "Bearer "+token); code == http.StatusNotFound {
		home, other = b, a
	}
	approve := run()
	home.cmd.Process.Signal(syscall.SIGTERM)
	for deadline := time.Now().Add(10 * time.Second); ; {
		code, _ := home.do(t, http.MethodGet, "/healthz", "")
		if code == http.StatusServiceUnavailable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica's /healthz still answers %d 10 s after SIGTERM", code)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for range 4 {
		if code, body := read(false, http.MethodGet, "/healthz", ""); code != http.StatusOK {
			t.Errorf("GET /healthz through nginx while a replica shuts down: %d %s", code, body)
		}
	}
	if a := approve(home); a.err != nil || a.code != http.StatusOK || !strings.Contains(a.body, `"success": true`) {
		t.Errorf("the run on the replica shutting down: %d %s %v", a.code, a.body, a.err)
	}
	if code := home.wait(t, syscall.SIGTERM); code != 0 {
		t.Errorf("the replica exited %d after SIGTERM, want 0:\n%s", code, home.stderr.String())
	}
	// The stream ended with the replica; with a store the replicas share,
	// the client would resume it on the other with Last-Event-ID.
	select {
	case e, ok := <-events:
		if ok {
			t.Errorf("the stream went on after its replica stopped: event %s", e.name)
		}
	case <-time.After(10 * time.Second):
		t.Error("the stream did not end with its replica")
	}
	cancel()

	// With the replica gone, the other takes every request.
	for range 4 {
		if code, body := read(false, http.MethodGet, "/healthz", ""); code != http.StatusOK {
			t.Errorf("GET /healthz through nginx with one replica stopped: %d %s", code, body)
		}
	}
	if code, body := other.do(t, http.MethodGet, "/healthz", ""); code != http.StatusOK {
		t.Errorf("the other replica: %d %s", code, body)
	}
}

// nginxBinary finds nginx (Debian's is in /usr/sbin).
func nginxBinary(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"nginx", "/usr/sbin/nginx"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CODEMODE_NGINX_TESTS") == "1" {
		t.Fatal("the nginx test needs nginx (apt-get install nginx)")
	}
	t.Skip("needs nginx (apt-get install nginx); CODEMODE_NGINX_TESTS=1 makes it required")
	return ""
}

// replicaBoards counts the boards of one replica, asked directly.
func replicaBoards(t *testing.T, s *servedCmd, token string) int {
	t.Helper()
	code, body := s.do(t, http.MethodGet, "/v1/boards", "", "Authorization", "Bearer "+token)
	var list struct{ Boards []json.RawMessage }
	if code != http.StatusOK || json.Unmarshal([]byte(body), &list) != nil {
		t.Fatalf("GET /v1/boards of %s: %d %s", s.base, code, body)
	}
	return len(list.Boards)
}

// The addresses of the replicas and the port of docs/deploy.md's
// configuration, which the test replaces.
var deployPlaceholders = []string{"server 10.0.0.11:8080;", "server 10.0.0.12:8080;", "listen 80;"}

// deployConfig is the nginx block of docs/deploy.md, the only one there.
func deployConfig(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?ms)^```nginx\n(.*?)^```\n").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) != 1 {
		t.Fatalf("docs/deploy.md has %d nginx blocks, want 1", len(blocks))
	}
	conf := blocks[0][1]
	for _, p := range deployPlaceholders {
		if strings.Count(conf, p) != 1 {
			t.Fatalf("docs/deploy.md's nginx block has %q %d times, want once (the test replaces it)", p, strings.Count(conf, p))
		}
	}
	return conf
}

// startNginx runs docs/deploy.md's configuration in front of the replicas
// at addrA and addrB, in nginx started in the foreground with everything
// it writes in a temporary directory, and returns its base URL once it
// answers. The test's end stops it.
func startNginx(t *testing.T, nginx, addrA, addrB string) string {
	t.Helper()
	conf := deployConfig(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nginx takes the port; another process could too, in between: then nginx fails to start
	conf = strings.NewReplacer(deployPlaceholders[0], "server "+addrA+";", deployPlaceholders[1], "server "+addrB+";",
		deployPlaceholders[2], "listen "+addr+";").Replace(conf)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "codemode.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	// The rest of a main configuration: what /etc/nginx/nginx.conf holds,
	// with every file in dir. Run as root, its workers stay root so that
	// they can write there.
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;\n"
	}
	main := fmt.Sprintf(`daemon off;
worker_processes 1;
%[2]spid %[1]s/nginx.pid;
error_log %[1]s/error.log notice;
events { worker_connections 256; }
http {
    access_log %[1]s/access.log;
    client_body_temp_path %[1]s/client_body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    include %[1]s/codemode.conf;
}
`, dir, user)
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nginx, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-e", filepath.Join(dir, "error.log"))
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	logs := func() string {
		b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		return out.String() + string(b)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGQUIT) // nginx's graceful stop
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	// nginx says nothing when it is ready: wait until the port answers.
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return "http://" + addr
		}
		select {
		case err := <-done:
			t.Fatalf("nginx exited (%v):\n%s\nits configuration:\n%s", err, logs(), conf)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx does not listen on %s after 15 s:\n%s", addr, logs())
		}
	}
}
