package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/bench/catalog"
	"github.com/codemode-dev/codemode/bench/scenarios"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/githubspec"
	"github.com/codemode-dev/codemode/internal/suggest"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// benchKeyEnvs are where --live finds its API key, first set wins: the
// bench's own variable, so that a key for benchmarks can differ from the
// one other tools use, then OpenAI's usual one.
var benchKeyEnvs = []string{"CODEMODE_BENCH_API_KEY", "OPENAI_API_KEY"}

// cmdBench is "codemode bench": every scenario with every strategy, the
// table (or --json), and the page of --report.
func cmdBench(args []string, stdout, stderr io.Writer) int {
	var o options
	err := parseFlagsOnly("bench", &o, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, commandHelp(findCommand("bench")))
		return exitOK
	}
	var plan benchPlan
	if err == nil {
		plan, err = planBench(&o)
	}
	if err != nil {
		return usageError(stderr, "bench", err)
	}
	var report *reportFile
	if o.report != "" {
		if report, err = openReport(o.report); err != nil {
			return fail(stderr, exitUsage, "bench: %v", err)
		}
		defer report.discard() // a no-op once written
	}
	s, err := openSession(&o, "bench")
	defer s.close()
	if err != nil {
		return fail(stderr, exitUsage, "bench: %v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if plan.catalog {
		// The catalog's scenarios carry their own engine: the
		// whiteboard's (with the --wasm-dir tools, compiled up front)
		// would be made for nothing.
		ceng, err := catalogEngine(s)
		if err != nil {
			return fail(stderr, exitUsage, "bench: --catalog github: %v", err)
		}
		for i := range plan.scenarios {
			plan.scenarios[i].Engine = ceng
		}
	} else {
		eng, release, err := benchEngine(ctx, s, plan.scenarios, stderr)
		defer release()
		if err != nil {
			return fail(stderr, exitUsage, "bench: %v", err)
		}
		plan.cfg.Engine = eng
	}
	p := &progress{w: stderr}
	if showProgress(stderr) {
		plan.cfg.Progress = p.update
	}
	rep, err := bench.Run(ctx, plan.cfg, plan.scenarios)
	p.clear() // before anything else is printed on the terminal
	if errors.Is(err, context.Canceled) {
		return fail(stderr, exitFailed, "bench: interrupted after %d runs", len(rep.Results))
	}
	if err != nil {
		return fail(stderr, exitFailed, "bench: %v", err)
	}
	if o.json {
		out, _ := json.MarshalIndent(rep, "", "  ")
		fmt.Fprintf(stdout, "%s\n", out)
	} else {
		bench.WriteTable(stdout, rep)
	}
	if report != nil {
		if err := report.write(rep); err != nil {
			return fail(stderr, exitFailed, "bench: %v", err)
		}
	}
	for _, r := range rep.Results {
		if !r.Correct {
			return exitFailed
		}
	}
	return exitOK
}

// benchEngine is the engine the runs use: the session's set-up (--config,
// the runner, the --wasm-dir tools) over the scenarios' tools — the
// whiteboard's, working on each run's board, and graph.layout when a
// scenario to run needs it: the built-in one, or with --no-builtin-wasm
// one scenarios.Tools builds with the go command (so only then). A tool of
// the same name from --wasm-dir takes the place of the scenarios' own.
// When the scenarios' tools cannot be made (no go command beside an
// installed codemode), stderr says so and the runs go on with the
// whiteboard's: those that need more fail, saying which tool they lacked.
// Every WASM tool is compiled before the runs (Loader.Preload).
func benchEngine(ctx context.Context, s *session, run []bench.Scenario, stderr io.Writer) (*engine.Engine, func(), error) {
	given := func(name string) bool {
		return slices.ContainsFunc(s.extraTools, func(w engine.Tool) bool { return w.Name == name })
	}
	var missing []string
	tools, release := whiteboard.Tools(nil), func() {}
	for _, sc := range run {
		for _, name := range sc.Tools {
			if given(name) || slices.ContainsFunc(tools, func(t engine.Tool) bool { return t.Name == name }) {
				continue
			}
			if i := slices.IndexFunc(s.builtins, func(t engine.Tool) bool { return t.Name == name }); i >= 0 {
				tools = append(tools, s.builtins[i])
			} else if !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
		}
	}
	if len(missing) > 0 {
		all, rel, err := scenarios.Tools(ctx, s.cache)
		if err != nil {
			fail(stderr, 0, "bench: %s cannot be built here, so the scenarios that need it will fail (run bench in codemode's source tree, leave out --no-builtin-wasm, or load it with --wasm-dir: scripts/build-wasm-tools.sh builds it): %v", strings.Join(missing, ", "), err)
		} else {
			tools, release = all, rel
		}
	}
	tools = slices.DeleteFunc(tools, func(t engine.Tool) bool { return given(t.Name) })
	tools = append(tools, s.extraTools...)
	if s.loader != nil {
		// The WASM tools the runs use are compiled now, not in the first
		// run that calls one: that run's time would be the compile's.
		var names []string
		for _, sc := range run {
			names = append(names, sc.Tools...)
		}
		if len(names) > 0 {
			if err := s.loader.Preload(ctx, names...); err != nil {
				fail(stderr, 0, "bench: %v", err)
			}
		}
	}
	eng, err := s.build(engine.NewBuilder().WithConfig(s.cfg), tools)
	if err != nil {
		release()
		return nil, func() {}, err
	}
	return eng, release, nil
}

// benchPlan is what the flags ask bench to run.
type benchPlan struct {
	cfg       bench.Config // without its engine
	scenarios []bench.Scenario
	catalog   bool // the scenarios are the GitHub catalog's, their engine still to be made
}

// catalogEngine is the engine of --catalog github's scenarios: GitHub's
// REST API bound from its description, calling each run's fake GitHub,
// with the session's configuration (results capped for GitHub's pages:
// catalog.Config) and runner.
func catalogEngine(s *session) (*engine.Engine, error) {
	path, err := githubspec.Path()
	if err != nil {
		return nil, err
	}
	tools, err := catalog.GitHubTools(path)
	if err != nil {
		return nil, errors.New(message(err))
	}
	return s.build(engine.NewBuilder().WithConfig(catalog.Config(s.cfg)), tools)
}

// planBench checks the flags that need more than their own value and makes
// the plan: the scenarios and strategies named, the latency model, and the
// live model.
func planBench(o *options) (benchPlan, error) {
	var p benchPlan
	all := scenarios.All()
	switch o.catalog {
	case "":
	case catalog.Name:
		all, p.catalog = catalog.Scenarios(nil), true
	default:
		return p, unknownName("catalog", o.catalog, []string{catalog.Name})
	}
	var names []string
	for _, sc := range all {
		names = append(names, sc.Name)
	}
	p.scenarios = all
	if len(o.scenarios) > 0 {
		p.scenarios = nil
		for _, n := range o.scenarios {
			i := slices.Index(names, n)
			if i < 0 {
				return p, unknownName("scenario", n, names)
			}
			if !slices.ContainsFunc(p.scenarios, func(s bench.Scenario) bool { return s.Name == n }) {
				p.scenarios = append(p.scenarios, all[i])
			}
		}
	}
	var strategies []string
	for _, s := range bench.Strategies {
		strategies = append(strategies, string(s))
	}
	for _, n := range o.strategies {
		if !slices.Contains(strategies, n) {
			return p, unknownName("strategy", n, strategies)
		}
		if !slices.Contains(p.cfg.Strategies, bench.Strategy(n)) {
			p.cfg.Strategies = append(p.cfg.Strategies, bench.Strategy(n))
		}
	}
	if !p.catalog && slices.Contains(p.cfg.Strategies, bench.Search) {
		// The whiteboard's scenarios have no search runs: asked alone,
		// search would run nothing and print an empty table.
		return p, fmt.Errorf("search runs on catalogs only: add --catalog %s", catalog.Name)
	}
	p.cfg.Repeat = int(o.repeat)
	p.cfg.MaxTurns = int(o.maxTurns)

	latency := []*latencyFlag{&o.latencyRoundTrip, &o.latencyInputToken, &o.latencyOutputToken}
	given := slices.ContainsFunc(latency, func(l *latencyFlag) bool { return l.set })
	p.cfg.Latency = bench.DefaultLatency()
	for i, d := range []*time.Duration{&p.cfg.Latency.PerRoundTrip, &p.cfg.Latency.PerInputToken, &p.cfg.Latency.PerOutputToken} {
		if latency[i].set {
			*d = latency[i].d
		}
	}
	if p.cfg.Latency == (bench.Latency{}) {
		return p, errors.New("the --latency-* flags cannot all be 0: give one a value above 0")
	}

	switch {
	case !o.live && (o.baseURL != "" || o.model != ""):
		return p, errors.New("--base-url and --model are for --live")
	case !o.live:
		return p, nil
	case o.baseURL == "" || o.model == "":
		return p, errors.New("--live needs --base-url URL and --model NAME")
	case given:
		return p, errors.New("--latency-* model the scripted model's wall time; a live model's is measured, leave them out with --live")
	}
	model, err := liveModel(o.baseURL, o.model)
	if err != nil {
		return p, err
	}
	p.cfg.Model = func(bench.Strategy) bench.Model { return model }
	p.cfg.ModelName = o.model
	return p, nil
}

// liveModel is the model of --live: the endpoint at baseURL, with the key
// of the first of benchKeyEnvs that is set.
func liveModel(baseURL, name string) (bench.Model, error) {
	var key string
	for _, env := range benchKeyEnvs {
		if key = os.Getenv(env); key != "" {
			break
		}
	}
	m, err := bench.NewOpenAIModel(bench.OpenAIOptions{BaseURL: baseURL, Model: name, APIKey: key})
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "bench: "))
	}
	if key == "" {
		return nil, fmt.Errorf("--live needs an API key: set $%s (or $%s); for an endpoint that takes none, set it to any value",
			benchKeyEnvs[0], strings.Join(benchKeyEnvs[1:], ", $"))
	}
	return m, nil
}

// unknownName says that name is none of the valid ones of kind, with the one
// meant if it is a near miss, and lists them.
func unknownName(kind, name string, valid []string) error {
	meant := ""
	if s := suggest.Names(name, valid); len(s) > 0 {
		meant = fmt.Sprintf(" (did you mean %s?)", s[0])
	}
	plural := kind + "s"
	if strings.HasSuffix(kind, "y") {
		plural = strings.TrimSuffix(kind, "y") + "ies"
	}
	return fmt.Errorf("unknown %s %q%s; the %s: %s", kind, name, meant, plural, strings.Join(valid, ", "))
}

// showProgress says whether bench shows its progress line on stderr: only
// on a terminal, where it can be rewritten in place (a variable, so that a
// test can pretend).
var showProgress = func(stderr io.Writer) bool {
	f, ok := stderr.(*os.File)
	return ok && isTerminal(f)
}

// progress is the line bench keeps up to date on a terminal's stderr while
// it runs, rewritten in place (\r) and cleared at the end, so that it never
// stays among the output.
type progress struct {
	w     io.Writer
	width int // of the line shown
}

func (p *progress) update(done, total int, r *bench.Result) {
	mark := "✓"
	if !r.Correct {
		mark = "✗"
	}
	line := fmt.Sprintf("bench: %d/%d runs, last %s / %s %s", done, total, r.Scenario, r.Strategy, mark)
	p.show(line)
}

func (p *progress) show(line string) {
	n := len([]rune(line))
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", max(p.width-n, 0)))
	p.width = n
}

func (p *progress) clear() {
	if p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
		p.width = 0
	}
}

// nameList is a flag of names, comma-separated and repeatable.
type nameList []string

func (l *nameList) String() string { return strings.Join(*l, ",") }
func (l *nameList) Set(v string) error {
	if v == "" {
		return errEmpty
	}
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n == "" {
			return errors.New("an empty name in the list")
		}
		*l = append(*l, n)
	}
	return nil
}

// latencyFlag is a --latency-* flag: a Go duration of 0 or more, and whether
// it was given.
type latencyFlag struct {
	d   time.Duration
	set bool
}

func (l *latencyFlag) String() string { return l.d.String() }
func (l *latencyFlag) Set(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return errors.New("want a duration of 0 or more, such as 500ms, 12.5ms or 50us")
	}
	l.d, l.set = d, true
	return nil
}
