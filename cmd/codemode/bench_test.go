package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/bench/scenarios"
	"github.com/codemode-dev/codemode/internal/githubspec"
	"github.com/google/go-cmp/cmp"
)

// TestBench: the scripted benchmark prints the table with every scenario
// and strategy correct, and exits 0; stderr (not a terminal) stays quiet.
func TestBench(t *testing.T) {
	out, errs, code := cli(t, "", "bench")
	if code != exitOK || errs != "" {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs, out)
	}
	for _, want := range []string{"model: scripted · tokens: o200k_base", "STRATEGY  ROUND TRIPS  TOKENS IN  TOKENS OUT  TOOL CALLS", "code vs per-call: "} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for _, sc := range scenarios.All() {
		if !strings.Contains(out, "\n"+sc.Name+" ") {
			t.Errorf("no row of %s in\n%s", sc.Name, out)
		}
	}
	if n, want := strings.Count(out, "✓"), 3*len(scenarios.All()); n != want {
		t.Errorf("%d runs marked correct, want %d:\n%s", n, want, out)
	}
}

// TestBenchJSON: --json prints the report, only the runs asked for.
func TestBenchJSON(t *testing.T) {
	out, errs, code := cli(t, "", "bench", "--json", "--scenario", "retro", "--strategy", "code,batch", "--strategy", "code", "--runner", "inprocess")
	if code != exitOK || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var got []string
	for _, r := range rep.Results {
		got = append(got, r.Scenario+"/"+string(r.Strategy))
		if !r.Correct || len(r.Transcript) == 0 || r.BoardSVG == "" {
			t.Errorf("%s/%s: correct %v, %d messages, %d bytes of SVG", r.Scenario, r.Strategy, r.Correct, len(r.Transcript), len(r.BoardSVG))
		}
	}
	if diff := cmp.Diff([]string{"retro/code", "retro/batch"}, got); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	if rep.Latency != bench.DefaultLatency() {
		t.Errorf("latency %+v", rep.Latency)
	}
}

// TestBenchFailedRun: a run that fails is marked in the table with its
// reason below, and the command exits 1.
func TestBenchFailedRun(t *testing.T) {
	out, errs, code := cli(t, "", "bench", "--scenario", "retro", "--max-turns", "3", "--runner", "inprocess")
	if code != exitFailed || errs != "" {
		t.Fatalf("exit %d, stderr %q; want 1\n%s", code, errs, out)
	}
	if !strings.Contains(out, "1 of 3 runs failed:\n✗ retro / per-call: not done after 3 model turns\n") {
		t.Errorf("no reason under the table:\n%s", out)
	}
}

// TestBenchLatencyFlags: the latency model is the flags' (the ones not
// given keep their defaults).
func TestBenchLatencyFlags(t *testing.T) {
	out, _, code := cli(t, "", "bench", "--json", "--strategy", "code", "--latency-round-trip", "2s", "--latency-output-token", "0", "--runner", "inprocess")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	want := bench.DefaultLatency()
	want.PerRoundTrip, want.PerOutputToken = 2e9, 0
	if rep.Latency != want {
		t.Errorf("latency %+v, want %+v", rep.Latency, want)
	}
}

func TestBenchUsageErrors(t *testing.T) {
	t.Setenv("CODEMODE_BENCH_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--scenario", "retor"}, `unknown scenario "retor" (did you mean retro?); the scenarios: `},
		{[]string{"--strategy", "percall"}, `unknown strategy "percall" (did you mean per-call?); the strategies: per-call, search, batch, code`},
		{[]string{"--strategy", "code,"}, `invalid value "code," for --strategy: an empty name in the list`},
		{[]string{"--strategy", "search"}, "search runs on catalogs only: add --catalog github"},
		{[]string{"--strategy", "code,search"}, "search runs on catalogs only: add --catalog github"},
		{[]string{"--catalog", "gitlab"}, `unknown catalog "gitlab" (did you mean github?); the catalogs: github`},
		{[]string{"--catalog", "github", "--scenario", "retro"}, `unknown scenario "retro"`},
		{[]string{"--repeat", "0"}, `invalid value "0" for --repeat: want a whole number above 0`},
		{[]string{"--latency-round-trip", "5"}, `invalid value "5" for --latency-round-trip: want a duration of 0 or more, such as 500ms, 12.5ms or 50us`},
		{[]string{"--latency-round-trip", "0s", "--latency-input-token", "0", "--latency-output-token", "0"}, "the --latency-* flags cannot all be 0"},
		{[]string{"--live"}, "--live needs --base-url URL and --model NAME"},
		{[]string{"--model", "gpt-4o"}, "--base-url and --model are for --live"},
		{[]string{"--live", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--latency-round-trip", "1s"}, "--latency-* model the scripted model's wall time"},
		{[]string{"--live", "--base-url", "api.openai.com", "--model", "m"}, `base URL "api.openai.com": want http:// or https://`},
		{[]string{"--live", "--base-url", "http://127.0.0.1:1/v1", "--model", "m"}, "--live needs an API key: set $CODEMODE_BENCH_API_KEY (or $OPENAI_API_KEY); for an endpoint that takes none, set it to any value"},
		{[]string{"--board", "b.json"}, "--board is for batch and run only"},
		{[]string{"retro"}, `unexpected argument "retro"`},
	} {
		out, errs, code := cli(t, "", append([]string{"bench"}, c.args...)...)
		if code != exitUsage || out != "" || !strings.HasPrefix(errs, "codemode: bench: "+c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("bench %q: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestBenchProgress: the progress line is rewritten in place and cleared,
// so that nothing of it stays on the terminal.
func TestBenchProgress(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b}
	p.update(1, 3, &bench.Result{Scenario: "retro", Strategy: bench.PerCall, Correct: true})
	p.update(2, 3, &bench.Result{Scenario: "retro", Strategy: bench.Batch})
	p.clear()
	want := "\rbench: 1/3 runs, last retro / per-call ✓" +
		"\rbench: 2/3 runs, last retro / batch ✗   " +
		"\r" + strings.Repeat(" ", 37) + "\r"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestBenchProgressOnATerminal: on a terminal the progress line is cleared
// before the table is printed, so that the table does not start at the end
// of it (stdout and stderr are the same terminal).
func TestBenchProgressOnATerminal(t *testing.T) {
	was := showProgress
	showProgress = func(io.Writer) bool { return true }
	defer func() { showProgress = was }()
	var terminal bytes.Buffer
	code := run([]string{"bench", "--scenario", "retro", "--strategy", "code", "--runner", "inprocess"}, strings.NewReader(""), &terminal, &terminal)
	want := "\rbench: 1/1 runs, last retro / code ✓\r" + strings.Repeat(" ", 36) + "\rmodel: scripted"
	if code != exitOK || !strings.HasPrefix(terminal.String(), want) {
		t.Errorf("exit %d, the terminal shows %q; want it to start with %q", code, terminal.String(), want)
	}
}

// scriptedEndpoint is an OpenAI-compatible chat completions endpoint whose
// answers come from the scenarios' scripted models (or, with lazy, a model
// that answers "Done." at once): the live mode end to end, offline.
type scriptedEndpoint struct {
	lazy   bool
	mu     sync.Mutex
	models map[string]bench.Model
	auth   map[string]bool
}

func (e *scriptedEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.auth[r.Header.Get("Authorization")] = true
	var req struct {
		Model    string          `json:"model"`
		Messages []bench.Message `json:"messages"`
		Tools    []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tools"`
	}
	data, _ := io.ReadAll(r.Body)
	if r.URL.Path != "/v1/chat/completions" || json.Unmarshal(data, &req) != nil || req.Model != "fake-model" || len(req.Messages) < 2 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	strategy := bench.PerCall
	if len(req.Tools) == 1 && req.Tools[0].Function.Name == "batch" {
		strategy = bench.Batch
	} else if len(req.Tools) == 1 {
		strategy = bench.Code
	}
	msg := bench.Say("Done.")
	if !e.lazy {
		key := req.Messages[1].Content + string(strategy)
		if len(req.Messages) == 2 {
			for _, sc := range scenarios.All() {
				if sc.Task == req.Messages[1].Content {
					e.models[key] = sc.Scripted(strategy)
				}
			}
		}
		reply, err := e.models[key].Complete(r.Context(), bench.Request{Messages: req.Messages})
		if err != nil {
			http.Error(w, `{"error":{"message":"the scripted model failed"}}`, http.StatusInternalServerError)
			return
		}
		msg = reply.Message
	}
	json.NewEncoder(w).Encode(map[string]any{
		"choices": []any{map[string]any{"message": msg}},
		"usage":   map[string]int{"prompt_tokens": len(data) / 4, "completion_tokens": 9},
	})
}

// TestBenchLive: --live runs the scenarios against an OpenAI-compatible
// endpoint with the key of $CODEMODE_BENCH_API_KEY (else $OPENAI_API_KEY),
// and the table names the model; a model that does not do the task fails
// with the checker's reason.
func TestBenchLive(t *testing.T) {
	e := &scriptedEndpoint{models: map[string]bench.Model{}, auth: map[string]bool{}}
	srv := httptest.NewServer(e)
	defer srv.Close()
	t.Setenv("CODEMODE_BENCH_API_KEY", "sk-bench")
	t.Setenv("OPENAI_API_KEY", "sk-other")
	args := []string{"bench", "--live", "--base-url", srv.URL + "/v1", "--model", "fake-model", "--scenario", "retro", "--repeat", "2", "--runner", "inprocess"}
	out, errs, code := cli(t, "", args...)
	if code != exitOK || errs != "" {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs, out)
	}
	for _, want := range []string{"model: fake-model ·", "wall: the provider's measured latency", "each row: the means of 2 runs", "TOTAL     per-call"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Count(out, "2/2") != 6 {
		t.Errorf("want every run correct:\n%s", out)
	}
	if diff := cmp.Diff(map[string]bool{"Bearer sk-bench": true}, e.auth); diff != "" {
		t.Errorf("Authorization (-want +got):\n%s", diff)
	}

	// Without the bench's own key, OpenAI's.
	t.Setenv("CODEMODE_BENCH_API_KEY", "")
	e.mu.Lock()
	e.lazy, e.auth = true, map[string]bool{}
	e.mu.Unlock()
	out, errs, code = cli(t, "", append(args, "--strategy", "code")...)
	if code != exitFailed || errs != "" || !strings.Contains(out, "✗ retro / code, run 1: want one frame titled \"Went well\", found 0\n") {
		t.Errorf("a model that did nothing: exit %d, stderr %q\n%s", code, errs, out)
	}
	if diff := cmp.Diff(map[string]bool{"Bearer sk-other": true}, e.auth); diff != "" {
		t.Errorf("Authorization (-want +got):\n%s", diff)
	}
}

// TestBenchLiveUnreachable: a --live endpoint that never answers (nothing
// listens there) or answers its first request with an error: the reason,
// first and alone, exit 1, no table of runs that never ran.
func TestBenchLiveUnreachable(t *testing.T) {
	t.Setenv("CODEMODE_BENCH_API_KEY", "sk-bench")
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error": {"message": "Incorrect API key provided"}}`))
	}))
	defer refusing.Close()
	for _, c := range []struct{ url, want string }{
		{"http://127.0.0.1:1/v1", "codemode: bench: the model's first request failed: Post \"http://127.0.0.1:1/v1/chat/completions\": dial tcp 127.0.0.1:1: connect: connection refused\n"},
		{refusing.URL + "/v1", "codemode: bench: the model's first request failed: " + refusing.URL + "/v1/chat/completions: HTTP 401: Incorrect API key provided\n"},
	} {
		out, errs, code := cli(t, "", "bench", "--live", "--base-url", c.url, "--model", "m", "--scenario", "retro", "--runner", "inprocess")
		if code != exitFailed || out != "" || errs != c.want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1, nothing, %q", c.url, code, out, errs, c.want)
		}
	}
}

// TestBenchReport: --report writes the page (0644, nothing else left in its
// directory); a place it cannot be written is a usage error before any run.
func TestBenchReport(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	out, errs, code := cli(t, "", "bench", "--scenario", "retro", "--report", page, "--runner", "inprocess")
	if code != exitOK || errs != "" || !strings.HasPrefix(out, "model: scripted") {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs, out)
	}
	fi, err := os.Stat(page)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("the page: %v, %v", fi, err)
	}
	data, _ := os.ReadFile(page)
	if !strings.Contains(string(data), "<h1>codemode bench") || !strings.Contains(string(data), `<img src="data:image/svg`) {
		t.Errorf("not the report:\n%.500s", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d files, want the page alone", len(entries))
	}

	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "missing", "r.html"), "directory " + filepath.Join(dir, "missing") + " does not exist"},
		{dir, "is a directory"},
	} {
		out, errs, code := cli(t, "", "bench", "--report", c.path)
		if code != exitUsage || out != "" || errs != "codemode: bench: --report "+c.path+": "+c.want+"\n" {
			t.Errorf("--report %s: exit %d, stdout %q, stderr %q; want 2 and %q", c.path, code, out, errs, c.want)
		}
	}
}

// TestBenchWasmDirTools: the scenarios' WASM tool is built in, so bench
// runs them anywhere. Without it (--no-builtin-wasm), where it cannot be
// built (no codemode source around an installed command), stderr says so on
// one line and the scenario that needs it fails saying which tool it
// lacked; a --wasm-dir that has the tool makes it run, with nothing to
// build.
func TestBenchWasmDirTools(t *testing.T) {
	built := builtTools(t)
	t.Chdir(t.TempDir())
	args := []string{"bench", "--scenario", "graph-layout", "--strategy", "code", "--runner", "inprocess", "--wasm-cache", "off"}
	if out, errs, code := cli(t, "", args...); code != exitOK || errs != "" || !strings.Contains(out, "graph-layout  code") {
		t.Errorf("built in: exit %d, stderr %q\n%s", code, errs, out)
	}
	args = append(args, "--no-builtin-wasm")
	out, errs, code := cli(t, "", args...)
	if code != exitFailed || !strings.HasPrefix(errs, "codemode: bench: graph.layout cannot be built here, so the scenarios that need it will fail") ||
		strings.Count(errs, "\n") != 1 || !strings.Contains(out, "✗ graph-layout / code: the engine has no tool graph.layout") {
		t.Errorf("without the source: exit %d, stderr %q\n%s", code, errs, out)
	}
	out, errs, code = cli(t, "", append(args, "--wasm-dir", built)...)
	if code != exitOK || errs != "" {
		t.Errorf("with --wasm-dir: exit %d, stderr %q\n%s", code, errs, out)
	}
}

// TestBenchCatalog: --catalog github runs the catalog's tasks with the
// four strategies and says how big the catalog is; without the
// description installed, bench stops before any run.
func TestBenchCatalog(t *testing.T) {
	t.Setenv(githubspec.Env, filepath.Join(t.TempDir(), "missing.json"))
	_, errs, code := cli(t, "", "bench", "--catalog", "github")
	if code != exitUsage || !strings.Contains(errs, "--catalog github: ") || !strings.Contains(errs, "missing.json") {
		t.Errorf("no description: exit %d, %q", code, errs)
	}
	t.Setenv(githubspec.Env, "")
	githubspec.ForTest(t)
	out, errs, code := cli(t, "", "bench", "--catalog", "github", "--scenario", "gh-pulls-by-author", "--runner", "inprocess")
	if code != exitOK {
		t.Fatalf("exit %d, %q:\n%s", code, errs, out)
	}
	for _, want := range []string{"gh-pulls-by-author  per-call", "  search ", "  batch ", "  code ",
		"catalog github: 1,223 tools, ", "per-call's largest request: ", "over a 200K-token window by "} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
}
