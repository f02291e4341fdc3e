package bench_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/bench/scenarios"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/browsertest"
)

var screenshot = flag.String("screenshot", "", "also write the screenshot of the report to this PNG file (../docs/bench-report.png)")

// TestReportInChromium opens the page of a real benchmark run (every
// scenario, on the tools of scenarios.Tools) from a file in
// Chromium, as a reader would offline: it loads nothing (no resource in the
// page's performance entries), its charts are drawn (a bar per scenario,
// strategy and metric, and per strategy in the totals), and a run's final
// board shows as an image once its drill-down is open. The screenshot is
// kept with the test's artefacts, and with -screenshot in that file.
func TestReportInChromium(t *testing.T) {
	exe := browsertest.Chromium(t)
	if testing.Short() {
		t.Skip("builds the scenarios' WASM tool and drives a browser")
	}
	tools, release, err := scenarios.Tools(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	eng, err := engine.NewBuilder().Add(tools...).Build()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := bench.Run(t.Context(), bench.Config{Engine: eng}, scenarios.All())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if !r.Correct {
			t.Errorf("%s / %s: %s", r.Scenario, r.Strategy, r.Failure)
		}
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := bench.WriteHTML(f, rep); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), browsertest.AllocatorOptions(exe)...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	ctx, cancel := context.WithTimeout(bctx, 60*time.Second)
	defer cancel()

	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1440, 900), chromedp.Navigate("file://"+page)); err != nil {
		t.Fatalf("opening the report: %v", err)
	}
	var got struct {
		Resources int     `json:"resources"`
		Bars      int     `json:"bars"`
		Widest    float64 `json:"widest"`
		Details   int     `json:"details"`
	}
	eval := func(expr string, v any) {
		t.Helper()
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr, chromedp.EvalAwaitPromise))
		if err == nil {
			err = json.Unmarshal(raw, v)
		}
		if err != nil {
			t.Fatalf("evaluating %s: %v", expr, err)
		}
	}
	eval(`({
		resources: performance.getEntriesByType("resource").length,
		bars: document.querySelectorAll("figure.chart svg rect").length,
		widest: Math.max(...[...document.querySelectorAll("figure.chart svg rect")].map(r => r.getBoundingClientRect().width)),
		details: document.querySelectorAll("details.scenario").length,
	})`, &got)
	n := len(scenarios.All())
	if got.Resources != 0 || got.Bars != 3*3+3*3*n || got.Widest < 100 || got.Details != n {
		t.Errorf("resources %d, bars %d, widest bar %.0f px, %d scenarios; want 0, %d, ≥ 100 px, %d", got.Resources, got.Bars, got.Widest, got.Details, 3*3+3*3*n, n)
	}

	// The first scenario and its code run opened, its board drawn.
	var board struct {
		Loaded bool    `json:"loaded"`
		Width  float64 `json:"width"`
	}
	eval(`(async () => {
		const s = document.querySelector("details.scenario");
		s.open = true;
		const run = s.querySelector("details.run.s-code");
		run.open = true;
		const img = run.querySelector("figure.board img");
		await img.decode();
		return { loaded: img.complete && img.naturalWidth > 0, width: img.getBoundingClientRect().width };
	})()`, &board)
	if !board.Loaded || board.Width < 100 {
		t.Errorf("the board's image: loaded %v, %.0f px wide", board.Loaded, board.Width)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("taking the screenshot: %v", err)
	}
	out := []string{filepath.Join(artefacts(t), "bench-report.png")}
	if *screenshot != "" {
		out = append(out, *screenshot)
	}
	for _, p := range out {
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", p)
	}
}

// artefacts is where a test keeps what a person may want to look at:
// $CODEMODE_ARTIFACTS, else a temporary directory.
func artefacts(t *testing.T) string {
	dir := os.Getenv("CODEMODE_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
