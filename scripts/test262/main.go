// Command test262 measures how much of JavaScript's meaning codemode keeps:
// it runs tc39/test262 tests over the same wrapped source
// (`(async function () {"use strict"; …})()`) in a bare goja.New() and
// through codemode's public API, Engine.Execute — in process (the hardened
// sandbox) and in worker processes (sandbox/worker, the lean profile) — and
// reports every test that passes bare but not in codemode (a regression),
// grouped by cause (classify.go).
//
// test262 is not part of this repository: check it out anywhere (the
// directories test/ and harness/ are enough) and give its root with -root.
//
// Usage:
//
//	go run ./scripts/test262 -root /path/to/test262 [-runner both] [-dir built-ins/Array,...]
//	    [-parallel N] [-timeout 10s] [-json out.json] [-md out.md] [-baseline old.json]
//	go run ./scripts/test262 -root /path/to/test262 -reclassify out.json
//
// Only tests that pass bare run in codemode; each runs under a per-test
// timeout, and a runner that does not answer within a grace period after
// it is recorded as a hang and left behind, so no test stops the harness.
// -json keeps every test's outcome, so that a later run given it as
// -baseline lists what got fixed and what broke; -reclassify applies the
// current cause rules to an earlier run without running anything.
//
// The binary is its own worker: importing sandbox/worker makes its init
// serve when the pool starts it again with worker.Arg, before main runs.
package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/js"
	"github.com/codemode-dev/codemode/sandbox/worker"
)

// Runner names, as in the flags and the JSON.
const (
	runnerInProcess = "inprocess"
	runnerWorker    = "worker"
)

// TestResult is one test's line in the JSON report.
type TestResult struct {
	Skip      string   `json:"skip,omitempty"`
	Error     string   `json:"error,omitempty"` // the test could not be read or built
	Bare      *Outcome `json:"bare,omitempty"`
	InProcess *Outcome `json:"inprocess,omitempty"`
	Worker    *Outcome `json:"worker,omitempty"`
}

func (r *TestResult) outcome(runner string) *Outcome {
	if runner == runnerWorker {
		return r.Worker
	}
	return r.InProcess
}

// Report is the JSON file: enough to diff a later run against it.
type Report struct {
	Root        string    `json:"root"`
	Runners     []string  `json:"runners"`
	Dirs        string    `json:"dirs,omitempty"`
	Timeout     string    `json:"timeout"`
	Parallel    int       `json:"parallel"`
	Started     time.Time `json:"started"`
	WallSeconds float64   `json:"wallSeconds"`
	// WorkersReplaced counts the worker processes killed or crashed during
	// a run and replaced (a run that timed out inside a builtin, a limit):
	// the containment working, reported so that a change shows.
	WorkersReplaced int                    `json:"workersReplaced,omitempty"`
	Tests           map[string]*TestResult `json:"tests"`
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("test262", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", os.Getenv("TEST262"), "test262 checkout (holding test/ and harness/); default $TEST262")
	runnerFlag := fs.String("runner", "both", "codemode runner to compare with bare goja: inprocess, worker or both")
	dirs := fs.String("dir", "", "comma-separated directories under test/ (dir or dir:fileprefix) instead of the default set")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "tests run at once")
	timeout := fs.Duration("timeout", 30*time.Second, "per test and runner (the slowest tests take ≈ 5 s bare on a busy machine)")
	jsonOut := fs.String("json", "", "write per-test results as JSON to this file")
	mdOut := fs.String("md", "", "write the per-cause table as Markdown to this file")
	baseline := fs.String("baseline", "", "an earlier -json file: print what got fixed and what broke since")
	verbose := fs.Bool("v", false, "print each regression as it happens")
	reclassify := fs.String("reclassify", "", "an earlier -json file: classify its regressions again with this binary's rules (reading the tests' sources under -root) and report, running nothing")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var runners []string
	switch *runnerFlag {
	case "both":
		runners = []string{runnerInProcess, runnerWorker}
	case runnerInProcess, runnerWorker:
		runners = []string{*runnerFlag}
	default:
		fmt.Fprintf(stderr, "test262: -runner %q: want inprocess, worker or both\n", *runnerFlag)
		return 2
	}
	if *root == "" {
		fmt.Fprintln(stderr, "test262: -root (or $TEST262) must name a test262 checkout")
		return 2
	}
	if *parallel < 1 || *timeout <= 0 {
		fmt.Fprintln(stderr, "test262: -parallel and -timeout must be positive")
		return 2
	}
	var old *Report
	if *baseline != "" {
		var err error
		if old, err = readReport(*baseline); err != nil {
			fmt.Fprintln(stderr, "test262:", err)
			return 1
		}
	}
	if *reclassify != "" {
		rep, err := readReport(*reclassify)
		if err == nil {
			err = classifyAgain(rep, *root)
		}
		if err != nil {
			fmt.Fprintln(stderr, "test262:", err)
			return 1
		}
		return finish(rep, old, *mdOut, *jsonOut, stdout, stderr)
	}
	tests, err := collect(*root, parseSelections(*dirs))
	if err != nil {
		fmt.Fprintln(stderr, "test262:", err)
		return 1
	}
	engines := map[string]*engine.Engine{}
	var pool *worker.Pool
	cfg := engine.DefaultConfig()
	// The harness files come before every test: more code than a model
	// sends, so the code-size limit is raised; every other limit stays.
	cfg.Script.MaxCodeBytes = 1 << 20
	cfg.Script.Timeout = engine.Duration(*timeout)
	for _, r := range runners {
		b := engine.NewBuilder().WithConfig(cfg)
		if r == runnerWorker {
			var err error
			pool, err = worker.New(worker.Config{Warm: *parallel, Max: *parallel})
			if err != nil {
				fmt.Fprintln(stderr, "test262: worker pool:", err)
				return 1
			}
			defer pool.Close()
			b = b.WithScriptRunner(pool)
		}
		eng, err := b.Build()
		if err != nil {
			fmt.Fprintln(stderr, "test262: engine:", err)
			return 1
		}
		engines[r] = eng
	}

	rep := &Report{Root: *root, Runners: runners, Dirs: *dirs, Timeout: timeout.String(), Parallel: *parallel,
		Started: time.Now().UTC(), Tests: make(map[string]*TestResult, len(tests))}
	h := &harness{dir: filepath.Join(*root, "harness")}
	var mu sync.Mutex
	var done atomic.Int64
	work := make(chan string)
	var wg sync.WaitGroup
	for range *parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range work {
				res := runTest(h, *root, id, runners, engines, *timeout)
				mu.Lock()
				rep.Tests[id] = res
				if *verbose {
					for _, r := range runners {
						if o := res.outcome(r); o != nil && !o.Pass() {
							fmt.Fprintf(stderr, "%s %s [%s] %s: %s\n", r, id, o.Cause, o.Status, oneLine(o.Message, 200))
						}
					}
				}
				mu.Unlock()
				if n := done.Add(1); n%1000 == 0 {
					fmt.Fprintf(stderr, "test262: %d/%d tests, %s\n", n, len(tests), time.Since(rep.Started).Round(time.Second))
				}
			}
		}()
	}
	for _, id := range tests {
		work <- id
	}
	close(work)
	wg.Wait()
	rep.WallSeconds = time.Since(rep.Started).Seconds()
	if pool != nil {
		rep.WorkersReplaced = pool.Stats().Replaced
	}
	return finish(rep, old, *mdOut, *jsonOut, stdout, stderr)
}

// finish prints the report (and its diff against the baseline old, if
// any) and writes the files asked for.
func finish(rep, old *Report, mdOut, jsonOut string, stdout, stderr io.Writer) int {
	sum := summarize(rep)
	md := sum.markdown()
	fmt.Fprint(stdout, md)
	fmt.Fprint(stdout, sum.regressionList())
	if old != nil {
		fmt.Fprint(stdout, diff(old, rep))
	}
	if mdOut != "" {
		if err := os.WriteFile(mdOut, []byte(md), 0o644); err != nil {
			fmt.Fprintln(stderr, "test262:", err)
			return 1
		}
	}
	if jsonOut != "" {
		b, err := json.MarshalIndent(rep, "", " ")
		if err == nil {
			err = os.WriteFile(jsonOut, append(b, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintln(stderr, "test262:", err)
			return 1
		}
	}
	return 0
}

// runTest runs one test bare and, when it passes bare, in each runner.
func runTest(h *harness, root, id string, runners []string, engines map[string]*engine.Engine, timeout time.Duration) *TestResult {
	src, err := os.ReadFile(filepath.Join(root, "test", filepath.FromSlash(id)))
	if err != nil {
		return &TestResult{Error: err.Error()}
	}
	m, err := parseMeta(string(src))
	if err != nil {
		return &TestResult{Error: err.Error()}
	}
	if why := skipReason(m); why != "" {
		return &TestResult{Skip: why}
	}
	body, err := h.body(string(src), m)
	if err != nil {
		return &TestResult{Error: err.Error()}
	}
	res := &TestResult{}
	bare := judge(runBare(body, timeout), m)
	bare.Message = oneLine(bare.Message, 300)
	res.Bare = &bare
	if !bare.Pass() {
		return res
	}
	for _, r := range runners {
		o := judge(runEngine(engines[r], body, timeout), m)
		if r != runnerWorker && !o.Pass() && o.Status != "hang" && stillRunning() {
			// Answered, but its goroutine is still inside goja: in a
			// host process it would go on using CPU and memory.
			o = Outcome{Status: "abandoned", Code: o.Code, Message: "answered while its goroutine ran on (js.Abandoned); " + o.Message}
		}
		o.Message = oneLine(o.Message, 500)
		if !o.Pass() {
			o.Cause = classify(sourceHints(classified{Path: id, Features: m.Features, Includes: m.Includes, Code: o.Code, Message: o.Message, Status: o.Status}, string(src)))
		}
		if r == runnerWorker {
			res.Worker = &o
		} else {
			res.InProcess = &o
		}
	}
	return res
}

// classifyAgain gives every regression of rep its cause by the current
// rules, from the test's source under root.
func classifyAgain(rep *Report, root string) error {
	for id, t := range rep.Tests {
		if t.Bare == nil || !t.Bare.Pass() {
			continue
		}
		for _, o := range []*Outcome{t.InProcess, t.Worker} {
			if o == nil || o.Pass() {
				continue
			}
			src, err := os.ReadFile(filepath.Join(root, "test", filepath.FromSlash(id)))
			if err != nil {
				return err
			}
			m, err := parseMeta(string(src))
			if err != nil {
				return fmt.Errorf("%s: %w", id, err)
			}
			o.Cause = classify(sourceHints(classified{Path: id, Features: m.Features, Includes: m.Includes, Code: o.Code, Message: o.Message, Status: o.Status}, string(src)))
		}
	}
	return nil
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

func readReport(name string) (*Report, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("baseline %s: %w", name, err)
	}
	if r.Tests == nil {
		return nil, fmt.Errorf("baseline %s: no tests in it", name)
	}
	return &r, nil
}

// summary counts a report.
type summary struct {
	rep      *Report
	total    int
	skipped  map[string]int
	errors   int
	barePass int
	// per runner
	pass, fail map[string]int
	byCause    map[string]map[string][]string // runner → cause → tests
	bad        map[string]map[string][]string // runner → status (timeout, hang, crash) → tests
}

func summarize(rep *Report) *summary {
	s := &summary{rep: rep, skipped: map[string]int{}, pass: map[string]int{}, fail: map[string]int{},
		byCause: map[string]map[string][]string{}, bad: map[string]map[string][]string{}}
	for _, r := range rep.Runners {
		s.byCause[r] = map[string][]string{}
		s.bad[r] = map[string][]string{}
	}
	ids := make([]string, 0, len(rep.Tests))
	for id := range rep.Tests {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		t := rep.Tests[id]
		s.total++
		switch {
		case t.Skip != "":
			s.skipped[t.Skip]++
			continue
		case t.Error != "":
			s.errors++
			continue
		case t.Bare == nil || !t.Bare.Pass():
			continue
		}
		s.barePass++
		for _, r := range rep.Runners {
			o := t.outcome(r)
			if o == nil {
				continue
			}
			if o.Pass() {
				s.pass[r]++
				continue
			}
			s.fail[r]++
			s.byCause[r][o.Cause] = append(s.byCause[r][o.Cause], id)
			if o.Status != "fail" {
				s.bad[r][o.Status] = append(s.bad[r][o.Status], id)
			}
		}
	}
	return s
}

func pct(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f %%", 100*float64(n)/float64(of))
}

// markdown is the per-cause table with the counts above it.
func (s *summary) markdown() string {
	var b strings.Builder
	skipped := 0
	for _, n := range s.skipped {
		skipped += n
	}
	fmt.Fprintf(&b, "%d tests: %d skipped", s.total, skipped)
	var kinds []string
	for k, n := range s.skipped {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	slices.Sort(kinds)
	if len(kinds) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(kinds, ", "))
	}
	fmt.Fprintf(&b, ", %d unreadable, **%d pass bare**. Wall time %.0f s (-parallel %d).\n\n",
		s.errors, s.barePass, s.rep.WallSeconds, s.rep.Parallel)
	b.WriteString("| cause |")
	for _, r := range s.rep.Runners {
		fmt.Fprintf(&b, " %s |", runnerTitle(r))
	}
	b.WriteString(" example |\n|---|")
	for range s.rep.Runners {
		b.WriteString("---:|")
	}
	b.WriteString("---|\n")
	for _, k := range causeOrder() {
		var cells []string
		example := ""
		any := false
		for _, r := range s.rep.Runners {
			tests := s.byCause[r][k.ID]
			cells = append(cells, fmt.Sprint(len(tests)))
			if len(tests) > 0 {
				any = true
				if example == "" {
					example = "`" + tests[0] + "`"
				}
			}
		}
		if !any {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", k.Title, strings.Join(cells, " | "), example)
	}
	b.WriteString("| **all regressions** |")
	for _, r := range s.rep.Runners {
		fmt.Fprintf(&b, " **%d** (%s) |", s.fail[r], pct(s.fail[r], s.barePass))
	}
	b.WriteString(" |\n| side effects (all but removals) |")
	for _, r := range s.rep.Runners {
		n := s.fail[r] - len(s.byCause[r]["removed"])
		fmt.Fprintf(&b, " %d (%s) |", n, pct(n, s.barePass))
	}
	b.WriteString(" |\n")
	for _, r := range s.rep.Runners {
		for _, st := range []string{"timeout", "hang", "abandoned", "crash"} {
			if n := len(s.bad[r][st]); n > 0 {
				fmt.Fprintf(&b, "\n%s: %d bare-passing tests end with %s: %s\n", runnerTitle(r), n, st, strings.Join(s.bad[r][st], ", "))
			}
		}
	}
	if s.rep.WorkersReplaced > 0 {
		fmt.Fprintf(&b, "\nworkers: %d worker processes were replaced during runs (a run that ended inside a builtin, or on a process limit).\n", s.rep.WorkersReplaced)
	}
	return b.String()
}

// stillRunning reports whether an in-process run of this process that was
// answered is still running 5 s later (js.Abandoned): a run stopped by its
// limits stops at once.
func stillRunning() bool {
	for deadline := time.Now().Add(5 * time.Second); js.Abandoned() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return true
		}
	}
	return false
}

func runnerTitle(r string) string {
	if r == runnerWorker {
		return "workers"
	}
	return "in process"
}

// regressionList lists every regression with its message, by runner and
// cause.
func (s *summary) regressionList() string {
	var b strings.Builder
	for _, r := range s.rep.Runners {
		fmt.Fprintf(&b, "\n## Regressions %s: %d of %d bare-passing\n", runnerTitle(r), s.fail[r], s.barePass)
		for _, k := range causeOrder() {
			tests := s.byCause[r][k.ID]
			if len(tests) == 0 {
				continue
			}
			fmt.Fprintf(&b, "\n### %s (%d)\n\n", k.Title, len(tests))
			for _, id := range tests {
				o := s.rep.Tests[id].outcome(r)
				fmt.Fprintf(&b, "- %s [%s] %s\n", id, cmp.Or(o.Code, o.Status), o.Message)
			}
		}
	}
	return b.String()
}

// diff says which regressions of old are gone in rep and which are new, per
// runner both reports ran.
func diff(old, rep *Report) string {
	var b strings.Builder
	regressed := func(t *TestResult, r string) (bool, bool) { // (bare pass, regression)
		if t == nil || t.Bare == nil || !t.Bare.Pass() {
			return false, false
		}
		o := t.outcome(r)
		return o != nil, o != nil && !o.Pass()
	}
	for _, r := range rep.Runners {
		if !slices.Contains(old.Runners, r) {
			continue
		}
		var fixed, broken []string
		for id, t := range rep.Tests {
			ranNow, now := regressed(t, r)
			_, before := regressed(old.Tests[id], r)
			switch {
			case before && ranNow && !now:
				fixed = append(fixed, id)
			case now && !before:
				broken = append(broken, id)
			}
		}
		slices.Sort(fixed)
		slices.Sort(broken)
		fmt.Fprintf(&b, "\n## Against the baseline, %s: %d fixed, %d broken\n", runnerTitle(r), len(fixed), len(broken))
		for _, id := range fixed {
			fmt.Fprintf(&b, "- fixed %s\n", id)
		}
		for _, id := range broken {
			o := rep.Tests[id].outcome(r)
			fmt.Fprintf(&b, "- broken %s [%s] %s\n", id, o.Cause, o.Message)
		}
	}
	return b.String()
}
