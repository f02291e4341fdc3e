package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

// TestMain checks for leaked goroutines. (The binary is also the in-process
// server's worker: package worker's init makes it one.)
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

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
	cfg.URL = ts.URL
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
	bin := filepath.Join(t.TempDir(), "codemode")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/codemode")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
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

// testWriter sends the generator's log lines to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
