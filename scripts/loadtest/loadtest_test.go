package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/server"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

// TestMain checks for leaked goroutines. (The binary is also the in-process
// server's worker: package worker's init makes it one.)
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) {
		if dir := binaryDir.Load(); dir != nil {
			os.RemoveAll(*dir)
		}
	}))
}

// codemodeBinary builds ./cmd/codemode once for the tests that start its
// serve command; TestMain removes it.
var codemodeBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "loadtest-codemode-")
	if err != nil {
		return "", err
	}
	binaryDir.Store(&dir)
	bin := filepath.Join(dir, "codemode")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/codemode").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

var binaryDir atomic.Pointer[string]

// short is a small load against the in-process server.
func short(mode string) Config {
	cfg := DefaultConfig()
	cfg.Clients = 4
	cfg.Duration = 2 * time.Second
	cfg.Warmup = 300 * time.Millisecond
	cfg.Mode = mode
	cfg.Reset = 3 // boards are replaced, even under the race detector
	return cfg
}

// sane checks what every healthy run reports.
func sane(t *testing.T, rep *Report, clients int) {
	t.Helper()
	if rep.Runs == 0 || rep.RunsPerSec <= 0 {
		t.Errorf("runs %d, %.1f/s: want some", rep.Runs, rep.RunsPerSec)
	}
	if rep.Errors != 0 || rep.WarmupErrors != 0 {
		t.Errorf("errors %d (warm-up %d): %v %v", rep.Errors, rep.WarmupErrors, rep.ErrorKinds, rep.ErrorSample)
	}
	l := rep.Latency
	if !(0 < l.P50 && l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.Max && l.Mean <= l.Max) {
		t.Errorf("latencies out of order: %+v", l)
	}
	if rep.BoardsChecked != clients || len(rep.BoardProblems) > 0 {
		t.Errorf("boards checked %d of %d, problems %q", rep.BoardsChecked, clients, rep.BoardProblems)
	}
	if _, err := os.Stat("/proc/self/status"); err == nil {
		if rep.RSSStart == nil || rep.RSSEnd == nil || rep.RSSPeak == nil || rep.RSSEnd.RSS <= 0 || rep.RSSPeak.RSS < rep.RSSEnd.RSS {
			t.Errorf("RSS not measured: %+v %+v %+v", rep.RSSStart, rep.RSSEnd, rep.RSSPeak)
		}
		if rep.ServerCPU <= 0 {
			t.Errorf("server CPU %v: want some", rep.ServerCPU)
		}
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	for _, want := range []string{"runs/s", "p99", "errors:    0", "RSS:"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, text.String())
		}
	}
	t.Logf("\n%s", text.String())
}

func TestLoadExecuteInProcess(t *testing.T) {
	cfg := short("execute")
	rep, err := Run(t.Context(), cfg, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	sane(t, rep, cfg.Clients)
	if rep.Resets == 0 && rep.Runs > cfg.Clients*cfg.Reset {
		t.Errorf("no board was replaced with --reset %d in %d runs", cfg.Reset, rep.Runs)
	}
	if rep.WorkerCPU <= 0 {
		t.Errorf("worker CPU %v: the runs ran in workers, want some", rep.WorkerCPU)
	}
}

func TestLoadBatchWithWatchers(t *testing.T) {
	cfg := short("batch")
	cfg.Store = "memory"
	cfg.Watchers = 1
	rep, err := Run(t.Context(), cfg, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	sane(t, rep, cfg.Clients)
	// Each run is seen by its board's watcher: at least run_start, ten
	// tool_call_start/end pairs and run_end (the last run of each client
	// may end before its watcher has read them).
	if want := int64(rep.Runs-cfg.Clients) * 22; rep.Events < want {
		t.Errorf("watchers read %d events for %d runs: want at least %d", rep.Events, rep.Runs, want)
	}
	if len(rep.WatchErrors) > 0 {
		t.Errorf("watcher errors: %v", rep.WatchErrors)
	}
}

// A script that fails is a 200 answer with success false: an error.
func TestFailedRunsAreErrors(t *testing.T) {
	cfg := short("execute")
	cfg.Runner = "inprocess"
	cfg.Store = "memory"
	cfg.Duration = 500 * time.Millisecond
	cfg.Warmup = 0
	cfg.Script = `await tools.createFrame({title: "x", x: 0, y: 0, width: 10, height: 10}); throw new Error("no");`
	rep, err := Run(t.Context(), cfg, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Runs == 0 || rep.Errors != rep.Runs || rep.ErrorKinds["run failed: runtime_error"] != rep.Runs {
		t.Errorf("runs %d, errors %d %v: want every run a runtime_error", rep.Runs, rep.Errors, rep.ErrorKinds)
	}
}

// A server that stops answering cannot hold the load past its bounds: the
// requests time out and count as errors.
func TestStuckServerIsBounded(t *testing.T) {
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v1/boards":
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(`{"id":"b_1"}`))
		case r.Method == http.MethodGet:
			w.Write([]byte(`{"objects":[]}`))
		default:
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}
	}))
	defer ts.Close()
	defer close(release)
	cfg := short("execute")
	cfg.URLs = []string{ts.URL}
	cfg.Clients = 2
	cfg.Warmup = 0
	cfg.Duration = 300 * time.Millisecond
	cfg.RequestTimeout = 400 * time.Millisecond
	start := time.Now()
	rep, err := Run(t.Context(), cfg, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("took %v: want about duration + request timeout", took)
	}
	if rep.Errors != 2 || rep.ErrorKinds["request timeout"] != 2 {
		t.Errorf("errors %d %v: want one request timeout per client", rep.Errors, rep.ErrorKinds)
	}
	if rep.RSSStart != nil {
		t.Errorf("measured RSS without --pid: %+v", rep.RSSStart)
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		mode   string
		status int
		body   string
		want   outcome
	}{
		{"execute", 200, `{"success":true,"result":{}}`, outcome{ok: true}},
		{"execute", 200, `{"success":false,"error":{"code":"timeout","message":"slow"}}`, outcome{kind: "run failed: timeout", message: "slow"}},
		{"execute", 200, `{"result":1}`, outcome{kind: "bad answer", message: `no success field: {"result":1}`}},
		{"execute", 503, `{"error":{"code":"limit_exceeded","message":"busy"}}`, outcome{kind: "HTTP 503 limit_exceeded", message: "busy"}},
		{"execute", 502, `<html>bad gateway</html>`, outcome{kind: "HTTP 502", message: "<html>bad gateway</html>"}},
		{"batch", 200, `{"summary":{"total":10,"successful":10},"results":[]}`, outcome{ok: true}},
		{"batch", 200, `{"summary":{"total":10,"successful":9},"results":[{"success":true},{"success":false,"error":{"code":"invalid_args","message":"m"}}]}`,
			outcome{kind: "batch failed: invalid_args", message: "m"}},
		{"batch", 200, `{"summary":{"total":3,"successful":3}}`, outcome{kind: "batch failed", message: "3 of 3 operations succeeded"}},
	}
	for _, tt := range tests {
		got := classify(tt.mode, tt.status, []byte(tt.body))
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(outcome{})); diff != "" {
			t.Errorf("classify(%s, %d, %s): -want +got\n%s", tt.mode, tt.status, tt.body, diff)
		}
	}
}

func TestLatencies(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	got := latencies(ds)
	want := Latency{P50: 50 * time.Millisecond, P90: 90 * time.Millisecond, P99: 99 * time.Millisecond,
		Max: 100 * time.Millisecond, Mean: 50500 * time.Microsecond}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := latencies([]time.Duration{7}); got.P50 != 7 || got.P99 != 7 {
		t.Errorf("one value: %+v", got)
	}
}

func TestFlags(t *testing.T) {
	var stderr bytes.Buffer
	code := cli(t.Context(), []string{"--url", "http://10.0.0.1:8080", "--clients", "0", "--store", "memory", "--pid", "-1"}, &stderr, &stderr)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	for _, want := range []string{
		`"10.0.0.1" is not a loopback address`,
		"--clients 0: want 1 to 1000",
		"--store memory is for the in-process server",
		"--pid -1",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	stderr.Reset()
	code = cli(t.Context(), []string{"--url", "http://127.0.0.1:1", "--url", "http://127.0.0.1:2", "--pid", "7", "--replicas", "2", "--serve-arg", "--max-runs=9", "--store", "postgres://u:secret@db/x"}, &stderr, &stderr)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	for _, want := range []string{
		"--pid given 1 times for 2 --url: give none, or one per --url in the same order",
		"--replicas is for --serve",
		"--serve-arg is for --serve",
		"--store postgres://u:xxxxx@db/x is for --serve",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if strings.Contains(stderr.String(), "secret") {
		t.Errorf("stderr shows the store's password:\n%s", stderr.String())
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--url", "http://127.0.0.1:1", "--shared"}, "--shared is for several servers"},
		{[]string{"--serve", "./codemode", "--replicas", "2", "--shared"}, "--shared: the processes --serve starts keep their boards each in its own --data"},
		{[]string{"--serve", "./codemode", "--replicas", "17"}, "--replicas 17: want 1 to 16"},
		{[]string{"--serve", "./codemode", "--serve-procs", "-2"}, "--serve-procs -2: want 0 (each process's own GOMAXPROCS) or 1 to 1024"},
		{[]string{"--pid", "5"}, "--pid is for --url"},
		{[]string{"--pid", "x"}, `invalid value "x" for flag -pid: want a process id`},
		{[]string{"--store", "mysql://x"}, `--store "mysql://x": want sqlite or memory (in-process server), or a postgres:// URL (with --serve)`},
	} {
		stderr.Reset()
		if code := cli(t.Context(), tt.args, &stderr, &stderr); code != 2 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%q: exit %d, stderr %s; want 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
	for _, u := range []string{"http://example.com", "http://[::2]:1", "http://127.0.0.1:1/v1", "ftp://127.0.0.1", "http://0.0.0.0:80"} {
		if checkLoopbackURL(u) == nil {
			t.Errorf("%s accepted", u)
		}
	}
	for _, u := range []string{"http://127.0.0.1:8080", "http://localhost:1/", "http://[::1]:9", "http://127.9.9.9"} {
		if err := checkLoopbackURL(u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}

func TestBatchBodyIsTheScript(t *testing.T) {
	var req struct {
		Operations []struct {
			Tool string         `json:"tool"`
			Args map[string]any `json:"args"`
		} `json:"operations"`
	}
	if err := json.Unmarshal(batchBody(9), &req); err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, op := range req.Operations {
		tools = append(tools, op.Tool)
	}
	want := []string{"createFrame", "createStickyNote", "createStickyNote", "createStickyNote", "createStickyNote",
		"createStickyNote", "createStickyNote", "createConnector", "createConnector", "createConnector"}
	if diff := cmp.Diff(want, tools); diff != "" {
		t.Errorf("-want +got\n%s", diff)
	}
	if req.Operations[0].Args["x"] != 1000.0 || req.Operations[0].Args["y"] != 700.0 {
		t.Errorf("run 9's frame at %v,%v, want 1000,700 as the script puts it", req.Operations[0].Args["x"], req.Operations[0].Args["y"])
	}
}

// The way docs/benchmarks.md measures: a codemode binary's serve command
// started by the generator, its RSS and CPU apart from the clients'.
func TestLoadServeSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ./cmd/codemode")
	}
	bin, err := codemodeBinary()
	if err != nil {
		t.Fatal(err)
	}
	cfg := short("execute")
	cfg.Clients = 3
	cfg.ServeBinary = bin
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, cfg, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	sane(t, rep, cfg.Clients)
	if rep.SelfMeasured || rep.ClientCPU <= 0 || rep.WorkerCPU <= 0 {
		t.Errorf("self %v, client CPU %v, worker CPU %v: want the server measured apart, with its workers", rep.SelfMeasured, rep.ClientCPU, rep.WorkerCPU)
	}
	if rep.RSSEnd != nil && rep.RSSEnd.Children == 0 {
		t.Errorf("no worker processes under the server: %+v", rep.RSSEnd)
	}
}

// --serve with --replicas 2: two serve processes, each with its own data
// directory, loaded round-robin (each client has a board on each); the
// report has each one's runs and CPU, and sums their RSS and CPU.
func TestLoadServeReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ./cmd/codemode")
	}
	bin, err := codemodeBinary()
	if err != nil {
		t.Fatal(err)
	}
	cfg := short("execute")
	cfg.Clients = 3
	cfg.ServeBinary = bin
	cfg.Replicas = 2
	cfg.ServeArgs = []string{"--max-runs", "32"}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, cfg, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	sane(t, rep, 2*cfg.Clients)
	if len(rep.Targets) != 2 || rep.SharedBoards {
		t.Fatalf("targets %d, shared %v: want 2 with boards of their own", len(rep.Targets), rep.SharedBoards)
	}
	var cpu time.Duration
	for i, tr := range rep.Targets {
		procs := ", GOMAXPROCS=" + strconv.Itoa(max(1, runtime.NumCPU()/2))
		if tr.Runs == 0 || tr.PID == 0 || tr.ServerCPU <= 0 || tr.RSSEnd <= 0 || !strings.Contains(tr.Desc, "also --max-runs 32"+procs) {
			t.Errorf("server #%d: %+v; want runs, its process, CPU and RSS, its --serve-arg and %q", i+1, tr, procs)
		}
		cpu += tr.ServerCPU
	}
	if rep.Targets[0].PID == rep.Targets[1].PID || rep.Targets[0].URL == rep.Targets[1].URL {
		t.Errorf("one process for both targets: %+v", rep.Targets)
	}
	// The sums come from samples of their own, a little apart in time.
	if d := rep.ServerCPU - cpu; d > cpu/5+50*time.Millisecond || -d > cpu/5+50*time.Millisecond {
		t.Errorf("server CPU %v, the servers' own summed %v: want about the same", rep.ServerCPU, cpu)
	}
	if rep.RSSEnd.RSS < rep.Targets[0].RSSEnd || rep.RSSEnd.RSS < rep.Targets[1].RSSEnd {
		t.Errorf("RSS at the end %d: want the sum of the servers' %d and %d", rep.RSSEnd.RSS, rep.Targets[0].RSSEnd, rep.Targets[1].RSSEnd)
	}
}

// A started server's arguments: its own data directory, or the store URL
// instead; the runner; then every --serve-arg, in order.
func TestServeArgs(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ServeBinary = "./codemode"
	cfg.ServeArgs = []string{"--max-runs", "200", "--token=abcdefghijklmnop"}
	got := serveArgs(cfg, "/tmp/d")
	want := []string{"serve", "--addr", "127.0.0.1:0", "--data", "/tmp/d", "--runner", "worker", "--max-runs", "200", "--token=abcdefghijklmnop"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sqlite: -want +got\n%s", diff)
	}
	cfg.Store = "postgres://codemode@127.0.0.1:5432/codemode"
	cfg.ServeArgs = nil
	cfg.Runner = "inprocess"
	got = serveArgs(cfg, "")
	want = []string{"serve", "--addr", "127.0.0.1:0", "--store", "postgres://codemode@127.0.0.1:5432/codemode", "--runner", "inprocess"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("store URL: -want +got\n%s", diff)
	}
	cfg.Replicas = 3
	if !cfg.SharedBoards() || cfg.Check() != nil {
		t.Errorf("3 replicas on one store URL: shared %v, check %v; want shared and valid", cfg.SharedBoards(), cfg.Check())
	}
}

// Each of N replicas started on this machine gets its share of the CPUs
// unless told otherwise; one server gets the machine.
func TestServeGOMAXPROCS(t *testing.T) {
	for _, tt := range []struct {
		replicas, procs, cpus, want int
	}{
		{1, -1, 8, 0},
		{3, -1, 2, 1},
		{3, -1, 8, 2},
		{2, -1, 8, 4},
		{3, 0, 8, 0},
		{3, 4, 2, 4},
		{1, 2, 8, 2},
	} {
		cfg := DefaultConfig()
		cfg.Replicas, cfg.ServeProcs = tt.replicas, tt.procs
		if got := cfg.ServeGOMAXPROCS(tt.cpus); got != tt.want {
			t.Errorf("%d replicas, --serve-procs %d, %d CPUs: %d, want %d", tt.replicas, tt.procs, tt.cpus, got, tt.want)
		}
	}
}

// counted is a server under test that counts the runs it is sent, by
// board.
type counted struct {
	url string
	mu  sync.Mutex
	n   map[string]int // execute and batch requests by board id
}

func (c *counted) runs() (total int, boards map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.n {
		total += n
	}
	return total, maps.Clone(c.n)
}

// serveCounted serves h on a loopback port of its own, counting the runs.
func serveCounted(t *testing.T, h http.Handler) *counted {
	c := &counted{n: map[string]int{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := strings.CutPrefix(r.URL.Path, "/v1/boards/"); ok && r.Method == http.MethodPost {
			if id, op, ok := strings.Cut(p, "/"); ok && (op == "execute" || op == "batch") {
				c.mu.Lock()
				c.n[id]++
				c.mu.Unlock()
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	c.url = ts.URL
	return c
}

// newBoardServer is a server.New with boards of its own, in memory, runs
// in this process; the test's end shuts it down.
func newBoardServer(t *testing.T) *server.Server {
	srv, err := server.New(server.Options{Store: server.NewMemoryStore()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return srv
}

// roundRobin is a short load on the given servers.
func roundRobin(urls ...string) Config {
	cfg := short("batch")
	cfg.URLs = urls
	cfg.Warmup = 0 // every request is measured, so the servers' counts are the report's
	cfg.Duration = time.Second
	cfg.Watchers = 1
	return cfg
}

// Two servers with boards of their own: each client has a board on each,
// its runs alternate between them, and the report's count for each server
// is what that server was sent.
func TestRoundRobinOwnBoards(t *testing.T) {
	a, b := serveCounted(t, newBoardServer(t)), serveCounted(t, newBoardServer(t))
	cfg := roundRobin(a.url, b.url)
	rep, err := Run(t.Context(), cfg, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 0 || len(rep.WatchErrors) > 0 || rep.SharedBoards {
		t.Fatalf("errors %v, watcher errors %v, shared %v", rep.ErrorKinds, rep.WatchErrors, rep.SharedBoards)
	}
	if rep.BoardsChecked != 2*cfg.Clients || len(rep.BoardProblems) > 0 {
		t.Errorf("boards checked %d, want a board per client on each server (%d); problems %q", rep.BoardsChecked, 2*cfg.Clients, rep.BoardProblems)
	}
	na, boardsA := a.runs()
	nb, boardsB := b.runs()
	got := []int{rep.Targets[0].Runs, rep.Targets[1].Runs}
	if diff := cmp.Diff([]int{na, nb}, got); diff != "" || na+nb != rep.Runs {
		t.Errorf("runs by server, as they counted them (-) and as reported (+):\n%s(total %d)", diff, rep.Runs)
	}
	// Each client alternates: the two counts differ by at most one run a
	// client.
	if d := na - nb; d > cfg.Clients || -d > cfg.Clients || na == 0 {
		t.Errorf("runs %d and %d: not round-robin over %d clients", na, nb, cfg.Clients)
	}
	for id := range boardsA {
		if boardsB[id] > 0 {
			t.Errorf("board %s was run on at both servers, which do not share it", id)
		}
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	for _, want := range []string{"targets:   2 servers, each with boards of its own", "#1 the server at " + a.url, "#2 the server at " + b.url,
		"each with a board on every server"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, text.String())
		}
	}
	t.Logf("\n%s", text.String())
}

// One server reached at two addresses is two targets that truly share
// boards: with --shared each client's board is run on through both, its
// watcher on the other address sees every run, and the board holds them.
func TestRoundRobinSharedBoards(t *testing.T) {
	srv := newBoardServer(t)
	a, b := serveCounted(t, srv), serveCounted(t, srv)
	cfg := roundRobin(a.url, b.url)
	cfg.Shared = true
	cfg.Reset = 0 // each client keeps its board, so that its runs on it are many
	rep, err := Run(t.Context(), cfg, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 0 || len(rep.WatchErrors) > 0 || !rep.SharedBoards {
		t.Fatalf("errors %v, watcher errors %v, shared %v", rep.ErrorKinds, rep.WatchErrors, rep.SharedBoards)
	}
	if rep.BoardsChecked != cfg.Clients || len(rep.BoardProblems) > 0 {
		t.Errorf("boards checked %d, want one per client (%d); problems %q", rep.BoardsChecked, cfg.Clients, rep.BoardProblems)
	}
	na, boardsA := a.runs()
	nb, boardsB := b.runs()
	if na+nb != rep.Runs || rep.Targets[0].Runs != na || rep.Targets[1].Runs != nb {
		t.Errorf("servers counted %d and %d runs, the report %d and %d of %d", na, nb, rep.Targets[0].Runs, rep.Targets[1].Runs, rep.Runs)
	}
	if len(boardsA) != cfg.Clients {
		t.Errorf("runs on %d boards, want %d", len(boardsA), cfg.Clients)
	}
	for id, n := range boardsA {
		if m := boardsB[id]; m == 0 || n-m > 1 || m-n > 1 {
			t.Errorf("board %s: %d runs through one address, %d through the other; want each in turn", id, n, m)
		}
	}
	if want := int64(rep.Runs-cfg.Clients) * 22; rep.Events < want {
		t.Errorf("watchers read %d events for %d runs: want at least %d", rep.Events, rep.Runs, want)
	}
}

// --by-board: each shared board's runs all go to the server it was made on,
// boards spread over the servers.
func TestByBoard(t *testing.T) {
	srv := newBoardServer(t)
	a, b := serveCounted(t, srv), serveCounted(t, srv)
	cfg := roundRobin(a.url, b.url)
	cfg.Shared, cfg.ByBoard = true, true
	cfg.Reset = 0
	rep, err := Run(t.Context(), cfg, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 0 || len(rep.BoardProblems) > 0 || !rep.ByBoard {
		t.Fatalf("errors %v, board problems %q, by board %v", rep.ErrorKinds, rep.BoardProblems, rep.ByBoard)
	}
	_, boardsA := a.runs()
	_, boardsB := b.runs()
	if len(boardsA) == 0 || len(boardsB) == 0 || len(boardsA)+len(boardsB) != cfg.Clients {
		t.Errorf("boards run on: %d through one address, %d through the other; want the %d spread over both", len(boardsA), len(boardsB), cfg.Clients)
	}
	for id := range boardsA {
		if boardsB[id] > 0 {
			t.Errorf("board %s was run on through both addresses", id)
		}
	}
}

// --shared over servers that do not share boards is the caller's mistake,
// and the report shows it: the runs sent where the board is not are 404s.
func TestSharedOverOwnBoardsFails(t *testing.T) {
	a, b := serveCounted(t, newBoardServer(t)), serveCounted(t, newBoardServer(t))
	cfg := roundRobin(a.url, b.url)
	cfg.Shared = true
	cfg.Watchers = 0
	cfg.Duration = 300 * time.Millisecond
	rep, err := Run(t.Context(), cfg, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	// Client i's board is on server i mod 2; half its runs go to the other.
	for i, tr := range rep.Targets {
		if tr.Runs == 0 || tr.Errors == 0 || tr.Errors >= tr.Runs || tr.ErrorKinds["HTTP 404 bad_request"] != tr.Errors {
			t.Errorf("server #%d: %d runs, %d errors %v; want some 404s for the boards it does not have, and successes", i+1, tr.Runs, tr.Errors, tr.ErrorKinds)
		}
	}
}

// testWriter sends the generator's log lines to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
