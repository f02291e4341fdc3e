//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/internal/pgtest"
	"github.com/codemode-dev/codemode/server/clustertest"
)

// TestDeployNginx runs the deployment of docs/deploy.md: its nginx block —
// read from the document, with only the replicas' addresses and the
// listening port replaced — through Debian's nginx, in front of two
// codemode serve processes on one PostgreSQL database (--store, no --data),
// every request sent through nginx as a client of the public name sends
// it. It lives here, beside the other tests that start codemode serve, so
// that it uses the binary they build once.
//
// Every replica serves every board, so an answer does not say which
// replica gave it: nginx does. The harness's http{} around the block (not
// the block) logs each request with $upstream_addr, which shows the
// requests spread over both replicas, and adds it to each answer as
// X-Upstream, which an event stream or a run waiting for its approval has
// long before its log line is written (when it ends). With it the test
// arranges what only two replicas show: a watcher on one replica following
// a run on the other live (the run's own answer bringing its headers while
// it waits, which nginx held back when it buffered), an approval that
// lands on the replica not running its run (which is forwarded to it), and
// a replica stopped (SIGTERM) while its run waits and a client's stream is
// on it: the run is approved through nginx and finishes, the replica exits
// 0, the other answers everything, and the stream resumes on it with
// Last-Event-ID, getting exactly the events it missed.
//
// It is skipped without nginx, unless CODEMODE_NGINX_TESTS=1 (.ci/run,
// which installs it) makes that a failure, and without PostgreSQL unless
// CODEMODE_PG_TESTS=1 does (internal/pgtest).
func TestDeployNginx(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and starts nginx")
	}
	nginx := nginxBinary(t)
	const token = "deploy-test-token-0123456789"
	store := pgtest.URL(t)
	serve := func() *servedCmd {
		return startServe(t, "--addr", "127.0.0.1:0", "--store", store, "--token", token, "--runner", "inprocess")
	}
	a, b := serve(), serve()
	addrOf := func(s *servedCmd) string { return strings.TrimPrefix(s.base, "http://") }
	front, accessLog := startNginx(t, nginx, deployConfig(t, false), addrOf(a), addrOf(b))

	// Requests as a client of the public name sends them: nginx passes the
	// Host on, which a replica with a token accepts. Each carries a tag
	// that the access log shows (X-Test-Request); upstreams keeps the
	// X-Upstream of each one's answer, to hold against the log.
	const host = "codemode.example.com"
	// Answers' headers come at once, a stream's and a waiting run's too:
	// nginx holding them back is a failure, told apart from a slow machine
	// by its error.
	tr := &http.Transport{ResponseHeaderTimeout: 20 * time.Second}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	var (
		mu        sync.Mutex
		tags      int
		upstreams = map[string]string{}
	)
	// do sends a request through nginx; header's pairs are set, or removed
	// for an empty value. It may run on any goroutine.
	do := func(ctx context.Context, method, path, body string, header ...string) (*http.Response, error) {
		var r io.Reader
		if body != "" {
			r = strings.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, front+path, r)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		tags++
		tag := fmt.Sprintf("req%d", tags)
		mu.Unlock()
		req.Host = host
		req.Header.Set("X-Test-Request", tag)
		req.Header.Set("Authorization", "Bearer "+token)
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/json")
		}
		for i := 0; i+1 < len(header); i += 2 {
			if header[i+1] == "" {
				req.Header.Del(header[i])
			} else {
				req.Header.Set(header[i], header[i+1])
			}
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, fmt.Errorf("%s %s through nginx: %v", method, path, err)
		}
		mu.Lock()
		upstreams[tag] = resp.Header.Get("X-Upstream")
		mu.Unlock()
		return resp, nil
	}
	// answer is an answer through nginx, with the replica nginx gave the
	// request to ("A, B" when A failed and B answered) and its tag.
	type answer struct {
		code                int
		body, upstream, tag string
		err                 error
	}
	must := func(want int, method, path, body string, header ...string) answer {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		resp, err := do(ctx, method, path, body, header...)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		got, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("%s %s through nginx: %v", method, path, err)
		}
		if resp.StatusCode != want {
			t.Fatalf("%s %s through nginx: %d %s, want %d", method, path, resp.StatusCode, got, want)
		}
		return answer{resp.StatusCode, string(got), resp.Header.Get("X-Upstream"), resp.Request.Header.Get("X-Test-Request"), nil}
	}
	// last is the replica that answered, of the ones nginx tried.
	last := func(upstream string) string { return upstream[strings.LastIndex(upstream, " ")+1:] }
	healthz := func() answer {
		t.Helper()
		got := must(http.StatusOK, http.MethodGet, "/healthz", "", "Authorization", "")
		if strings.Join(strings.Fields(got.body), "") != `{"status":"ok"}` {
			t.Errorf("GET /healthz through nginx: %s", got.body)
		}
		return got
	}

	// stream is a board's event stream through nginx: the replica nginx
	// gave it to, its events as they are read (closed when it ends), and
	// those taken from it so far.
	type stream struct {
		upstream string
		events   <-chan clustertest.Event
		seen     []clustertest.Event
		stop     func()
	}
	// watch opens board's stream, resumed after lastID unless that is "".
	watch := func(board, lastID string) *stream {
		t.Helper()
		ctx, cancel := context.WithCancel(t.Context())
		resp, err := do(ctx, http.MethodGet, "/v1/boards/"+board+"/events", "", "Last-Event-ID", lastID)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			cancel()
			t.Fatalf("GET /v1/boards/%s/events through nginx: %d %s", board, resp.StatusCode, got)
		}
		events, read := make(chan clustertest.Event), make(chan struct{})
		go func() {
			defer close(read)
			defer close(events)
			readEvents(resp.Body, func(e clustertest.Event) bool {
				select {
				case events <- e:
					return true
				case <-ctx.Done():
					return false
				}
			})
		}()
		s := &stream{upstream: resp.Header.Get("X-Upstream"), events: events}
		s.stop = func() {
			cancel()
			resp.Body.Close()
			<-read
		}
		t.Cleanup(s.stop)
		return s
	}
	// next takes the stream's next event, which must be of type want, and
	// come: a run waiting for its approval does not end, so nginx
	// buffering its events would hold them back for good.
	next := func(s *stream, want string) clustertest.Event {
		t.Helper()
		select {
		case e, ok := <-s.events:
			if !ok {
				t.Fatalf("the stream through nginx (on %s) ended before %q", s.upstream, want)
			}
			if e.Type != want {
				t.Fatalf("the stream through nginx (on %s): event %q, want %q: %s", s.upstream, e.Type, want, e.Data)
			}
			s.seen = append(s.seen, e)
			return e
		case <-time.After(30 * time.Second):
			t.Fatalf("the stream through nginx (on %s): no %q event within 30 s (buffered?)", s.upstream, want)
		}
		return clustertest.Event{}
	}
	// until takes the stream's events up to one of type want.
	until := func(s *stream, want string) clustertest.Event {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case e, ok := <-s.events:
				if !ok {
					t.Fatalf("the stream through nginx (on %s) ended before %q", s.upstream, want)
				}
				s.seen = append(s.seen, e)
				if e.Type == want {
					return e
				}
			case <-timeout:
				t.Fatalf("the stream through nginx (on %s): no %q event within 30 s", s.upstream, want)
			}
		}
	}
	type waiting struct {
		RunID     string
		Approvals []struct{ CallID string }
	}
	asked := func(e clustertest.Event) waiting {
		t.Helper()
		var w waiting
		if json.Unmarshal([]byte(e.Data), &w) != nil || w.RunID == "" || len(w.Approvals) != 1 {
			t.Fatalf("approval_required: %s", e.Data)
		}
		return w
	}

	// A script that makes a sticky note, then deletes it: deleteObject
	// waits for an approval (--approve destructive, the default). A JSON
	// run that waits answers at once with its headers, the result
	// following when it ends: start returns once the headers are here,
	// with the replica nginx gave the run to, and result has the rest.
	type running struct {
		id, upstream string
		result       <-chan answer
	}
	start := func(board string) running {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		resp, err := do(ctx, http.MethodPost, "/v1/boards/"+board+"/execute",
			`{"code": "const s = await tools.createStickyNote({text: 'soon gone', x: 0, y: 0}); await tools.deleteObject({objectId: s.id}); return s.id;"}`)
		if err != nil {
			cancel()
			t.Fatalf("%v (a run waiting for its approval answers its headers at once: does nginx buffer them?)", err)
		}
		r := running{id: resp.Header.Get("Codemode-Run-Id"), upstream: resp.Header.Get("X-Upstream")}
		if resp.StatusCode != http.StatusOK || r.id == "" {
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			cancel()
			t.Fatalf("POST /v1/boards/%s/execute through nginx: %d %s (Codemode-Run-Id %q)", board, resp.StatusCode, got, r.id)
		}
		result := make(chan answer, 1)
		r.result = result
		go func() {
			defer cancel()
			defer resp.Body.Close()
			got, err := io.ReadAll(resp.Body)
			result <- answer{code: resp.StatusCode, body: string(got), upstream: r.upstream, err: err}
		}()
		return r
	}
	finished := func(r running) {
		t.Helper()
		select {
		case got := <-r.result:
			if got.err != nil || !strings.Contains(got.body, `"success": true`) {
				t.Errorf("the run %s on %s: %s %v", r.id, r.upstream, got.body, got.err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("the run %s on %s: no answer 30 s after its approval", r.id, r.upstream)
		}
	}
	approve := func(w waiting) answer {
		t.Helper()
		got := must(http.StatusOK, http.MethodPost, "/v1/runs/"+w.RunID+"/approvals", fmt.Sprintf(`{"decisions": [{"callId": %q, "approved": true}]}`, w.Approvals[0].CallID))
		var left struct {
			RunID   string
			Pending []json.RawMessage
		}
		if json.Unmarshal([]byte(got.body), &left) != nil || left.RunID != w.RunID || len(left.Pending) != 0 {
			t.Fatalf("approving %s through nginx: %s", w.RunID, got.body)
		}
		return got
	}

	// /healthz passes through, without a token too.
	healthz()
	healthz()

	// Every replica serves every board: a board made through nginx, on
	// whichever replica, is there when nginx asks either. Which replicas
	// made them is the access log's to say, at the end.
	var boards, made []string
	for i := range 4 {
		got := must(http.StatusCreated, http.MethodPost, "/v1/boards", fmt.Sprintf(`{"name": "deploy %d"}`, i))
		var board struct{ ID string }
		if json.Unmarshal([]byte(got.body), &board) != nil || board.ID == "" {
			t.Fatalf("POST /v1/boards through nginx: %s", got.body)
		}
		boards, made = append(boards, board.ID), append(made, got.tag)
	}
	for _, id := range boards {
		answered := map[string]bool{}
		for try := 1; len(answered) < 2; try++ {
			if try > 6 {
				t.Fatalf("board %s: 6 GETs through nginx all went to %v", id, answered)
			}
			answered[last(must(http.StatusOK, http.MethodGet, "/v1/boards/"+id, "").upstream)] = true
		}
	}

	// A board's event stream through nginx delivers a run's events as they
	// happen, those it sends while it waits for its approval included,
	// when the run is on the other replica too (the replicas pass events
	// on through the database). The approval, through nginx too, may land
	// on either replica: the one not running the run forwards it. Runs are
	// tried until nginx has put one on the replica the stream is not on,
	// and its approval on the other (it alternates: at once).
	board := boards[0]
	w := watch(board, "")
	next(w, "board")
	for try := 1; ; try++ {
		r := start(board)
		for _, want := range []string{"run_start", "tool_call_start", "tool_call_end"} {
			next(w, want)
		}
		asking := asked(next(w, "approval_required"))
		if asking.RunID != r.id {
			t.Fatalf("approval_required of %s, want %s", asking.RunID, r.id)
		}
		select {
		case got := <-r.result:
			t.Fatalf("the run answered before its approval: %s %v", got.body, got.err)
		default:
		}
		approval := approve(asking)
		for _, want := range []string{"tool_call_start", "tool_call_end", "run_end"} {
			next(w, want)
		}
		finished(r)
		if last(r.upstream) != last(w.upstream) && last(approval.upstream) != last(r.upstream) {
			break
		}
		if try == 6 {
			t.Fatalf("in 6 runs nginx never put one on the replica the stream was not on (%s) and its approval on the other: the last run on %s, its approval on %s", w.upstream, r.upstream, approval.upstream)
		}
	}
	w.stop()

	// The run's replica ("home") stops gracefully (SIGTERM) while the run
	// waits, and while a client's stream of the board is on it: another
	// stream, on the other replica, stays. Each stream begins with the
	// board and the run so far, up to the set of calls waiting (home sends
	// the board as the run has drawn it so far, the other the board as
	// committed and the run's events). home's /healthz answers 503 at
	// once; nginx takes the 503 for a failure and leaves it out, so
	// /healthz and the approval through nginx go to the other, which
	// forwards the approval to home. The run finishes there and home exits
	// 0.
	r := start(board)
	replicas := map[string]*servedCmd{addrOf(a): a, addrOf(b): b}
	home := replicas[r.upstream]
	if home == nil {
		t.Fatalf("nginx gave the run to %q, not to one replica", r.upstream)
	}
	other := a
	if home == a {
		other = b
	}
	var mine, theirs *stream
	var asking waiting
	var askedAt []string // the approval_required's id, on each stream
	for try := 1; mine == nil || theirs == nil; try++ {
		if try > 8 {
			t.Fatalf("8 streams through nginx, none on both replicas: mine %v, theirs %v", mine != nil, theirs != nil)
		}
		s := watch(board, "")
		switch {
		case s.upstream == addrOf(home) && mine == nil:
			mine = s
		case s.upstream == addrOf(other) && theirs == nil:
			theirs = s
		default:
			s.stop()
			continue
		}
		next(s, "board")
		e := until(s, "approval_required")
		if asking = asked(e); asking.RunID != r.id {
			t.Fatalf("approval_required of %s, want %s", asking.RunID, r.id)
		}
		askedAt = append(askedAt, e.ID)
	}
	if askedAt[0] != askedAt[1] {
		t.Fatalf("approval_required has id %s on one stream, %s on the other", askedAt[0], askedAt[1])
	}
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
		healthz()
	}
	if approval := approve(asking); approval.upstream != addrOf(other) {
		t.Errorf("the approval through nginx went to %s, want the other replica %s: nginx should leave the one stopping out after its 503", approval.upstream, addrOf(other))
	}
	for _, want := range []string{"tool_call_start", "tool_call_end", "run_end"} {
		next(theirs, want)
	}
	finished(r)
	if code := home.wait(t, syscall.SIGTERM); code != 0 {
		t.Errorf("the replica exited %d after SIGTERM, want 0:\n%s", code, home.stderr.String())
	}

	// The client's stream ended with its replica, having had the events
	// the other stream had since, in order, up to some point.
	for ended := false; !ended; {
		select {
		case e, ok := <-mine.events:
			if ended = !ok; ok {
				mine.seen = append(mine.seen, e)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the stream did not end with its replica")
		}
	}
	// since is what s had after the last event with id.
	since := func(s *stream, id string) []clustertest.Event {
		i := len(s.seen) - 1
		for i >= 0 && s.seen[i].ID != id {
			i--
		}
		if i < 0 {
			t.Fatalf("the stream on %s had no event %s: %v", s.upstream, id, s.seen)
		}
		return s.seen[i+1:]
	}
	sameEvent := func(x, y clustertest.Event) bool { return x.ID == y.ID && x.Type == y.Type }
	if m, o := since(mine, askedAt[0]), since(theirs, askedAt[0]); len(m) > len(o) || !slices.EqualFunc(m, o[:len(m)], sameEvent) {
		t.Fatalf("after the approval was asked, the stream on the replica that stopped had %v, the other %v", m, o)
	}
	lastID := mine.seen[len(mine.seen)-1].ID

	// While the client is away, a run through nginx, on the other replica.
	if got := must(http.StatusOK, http.MethodPost, "/v1/boards/"+board+"/batch",
		`{"operations": [{"tool": "createStickyNote", "args": {"text": "while away", "x": 300, "y": 0}}]}`); last(got.upstream) != addrOf(other) {
		t.Errorf("a run went to %s after its replica stopped", got.upstream)
	}
	for _, want := range []string{"run_start", "tool_call_start", "tool_call_end", "run_end"} {
		next(theirs, want)
	}
	// It reconnects through nginx with Last-Event-ID and gets exactly the
	// events it missed, as the stream that stayed got them; and no more:
	// the next event of both is the next change's.
	back := watch(board, lastID)
	if last(back.upstream) != addrOf(other) {
		t.Errorf("the stream resumed on %s, want the other replica %s", back.upstream, addrOf(other))
	}
	for _, want := range since(theirs, lastID) {
		if got := next(back, want.Type); got != want {
			t.Errorf("the stream resumed after %s: %+v, want %+v", lastID, got, want)
		}
	}
	must(http.StatusOK, http.MethodPost, "/v1/boards/"+board+"/undo", "")
	if want, got := next(theirs, "board"), next(back, "board"); got != want {
		t.Errorf("the resumed stream's next event: %+v, want %+v", got, want)
	}

	// With the replica gone, the other takes every request.
	for range 4 {
		if got := healthz(); last(got.upstream) != addrOf(other) {
			t.Errorf("GET /healthz through nginx went to %s with %s stopped", got.upstream, addrOf(home))
		}
	}
	if code, body := other.do(t, http.MethodGet, "/healthz", ""); code != http.StatusOK {
		t.Errorf("the other replica: %d %s", code, body)
	}

	// nginx's side: every request is in its access log with the replica
	// its answer named (a stream's line is written when it ends), and it
	// gave the boards made to both replicas.
	theirs.stop()
	back.stop()
	mu.Lock()
	answered := maps.Clone(upstreams)
	mu.Unlock()
	var logged map[string]string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		logged = accessLogUpstreams(t, accessLog)
		var missing []string
		for tag := range answered {
			if _, ok := logged[tag]; !ok {
				missing = append(missing, tag)
			}
		}
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("requests not in nginx's access log 10 s after their answers: %v", missing)
		}
	}
	for tag, upstream := range answered {
		if logged[tag] != upstream {
			t.Errorf("request %s: the access log says %q, its answer's X-Upstream %q", tag, logged[tag], upstream)
		}
	}
	makers := map[string]int{}
	for _, tag := range made {
		makers[logged[tag]]++
	}
	if makers[addrOf(a)] == 0 || makers[addrOf(b)] == 0 {
		t.Errorf("nginx gave the %d POST /v1/boards to %v: want both replicas, %s and %s", len(made), makers, addrOf(a), addrOf(b))
	}
}

// readEvents reads server-sent events from r and gives each to f, until r
// ends or f returns false.
func readEvents(r io.Reader, f func(clustertest.Event) bool) {
	ch := make(chan clustertest.Event)
	go clustertest.ReadEvents(r, ch)
	for e := range ch {
		if !f(e) {
			go func() { // until r ends (its caller closes it)
				for range ch {
				}
			}()
			return
		}
	}
}

// accessLogLine is a line of the access log startNginx has nginx write:
// the request's X-Test-Request, then what nginx did with it.
var accessLogLine = regexp.MustCompile(`^(\S+) \S+ \S+ \d{3} "([^"]*)" "[^"]*"$`)

// accessLogUpstreams reads the access log: the $upstream_addr of each
// tagged request.
func accessLogUpstreams(t *testing.T, path string) map[string]string {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	upstreams := map[string]string{}
	for line := range strings.Lines(string(text)) {
		m := accessLogLine.FindStringSubmatch(strings.TrimSuffix(line, "\n"))
		if m == nil {
			if strings.HasSuffix(line, "\n") { // a line not yet written whole is read next time
				t.Fatalf("nginx's access log: %q", line)
			}
			continue
		}
		if m[1] != "-" {
			upstreams[m[1]] = m[2]
		}
	}
	return upstreams
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

// The addresses of the replicas and the port of docs/deploy.md's
// configuration, which the test replaces.
var deployPlaceholders = []string{"server 10.0.0.11:8080;", "server 10.0.0.12:8080;", "listen 80;"}

// deployConfig is docs/deploy.md's configuration: its first nginx block,
// or with byBoard that block with the second's map and upstream (routing
// by board) in place of its upstream.
func deployConfig(t *testing.T, byBoard bool) string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?ms)^```nginx\n(.*?)^```\n").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) != 2 {
		t.Fatalf("docs/deploy.md has %d nginx blocks, want 2 (the configuration, and its upstream routing by board)", len(blocks))
	}
	conf := blocks[0][1]
	for _, p := range deployPlaceholders {
		if strings.Count(conf, p) != 1 {
			t.Fatalf("docs/deploy.md's nginx block has %q %d times, want once (the test replaces it)", p, strings.Count(conf, p))
		}
	}
	if !byBoard {
		return conf
	}
	upstream := regexp.MustCompile(`(?ms)^upstream codemode \{\n.*?^\}\n`)
	routed := blocks[1][1]
	if len(upstream.FindAllString(conf, -1)) != 1 || len(upstream.FindAllString(routed, -1)) != 1 || !strings.HasPrefix(routed, "map ") {
		t.Fatalf("docs/deploy.md's second nginx block: want a map, then an upstream codemode block to replace the first's:\n%s", routed)
	}
	return upstream.ReplaceAllLiteralString(conf, routed)
}

// startNginx runs conf, docs/deploy.md's configuration, in front of the replicas
// at addrA and addrB, in nginx started in the foreground with everything
// it writes in a temporary directory, and returns its base URL once it
// answers, and the path of its access log (accessLogLine). The test's end
// stops it.
func startNginx(t *testing.T, nginx, conf, addrA, addrB string) (base, accessLog string) {
	t.Helper()
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
	// with every file in dir, and what the test reads of nginx's choices:
	// each request's upstream, in the access log (with the request's
	// X-Test-Request) and in its answer (X-Upstream, which the block
	// inherits as long as it adds no header itself). Run as root, its
	// workers stay root so that they can write there.
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
    log_format upstreams '$http_x_test_request $request_method $request_uri $status "$upstream_addr" "$upstream_status"';
    access_log %[1]s/access.log upstreams;
    add_header X-Upstream $upstream_addr always;
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
			return "http://" + addr, filepath.Join(dir, "access.log")
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
