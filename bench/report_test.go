package bench_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/bench"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/NAME.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./bench -run %s -update to create it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got); if the change is intended, rerun with -update:\n%s", name, diff)
	}
}

// fixtureTask is a user's task with text a page must escape.
const fixtureTask = `Make a retro board <script>alert("task")</script> & more`

// fixture is a report of two scenarios with every strategy, fixed so that
// the outputs are too: one run failed, texts a page must escape, a long
// result a page must cut, and a board picture.
func fixture() *bench.Report {
	ms := time.Millisecond
	call := func(id, name, args string) bench.ToolCall {
		return bench.ToolCall{ID: id, Type: "function", Function: bench.FunctionCall{Name: name, Arguments: args}}
	}
	chat := func(msgs ...bench.Message) []bench.Message {
		return append([]bench.Message{
			{Role: "system", Content: "You edit a shared whiteboard."},
			{Role: "user", Content: fixtureTask},
		}, msgs...)
	}
	svg := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100" width="200" height="100"><rect x="10" y="10" width="80" height="60" fill="#fde68a"/><text x="20" y="40">&lt;b&gt; note</text></svg>`
	results := []bench.Result{
		{Scenario: "retro", Strategy: bench.PerCall, Turns: 3, RoundTrips: 2, InputTokens: 9000, OutputTokens: 120, ToolCalls: 2, EngineTime: 2 * ms, Wall: 2002 * ms, Correct: true, BoardSVG: svg,
			Transcript: chat(
				bench.Message{Role: "assistant", ToolCalls: []bench.ToolCall{call("c1", "createFrame", `{"title":"Went well","x":0,"y":0}`)}},
				bench.Message{Role: "tool", ToolCallID: "c1", Content: `{"id":"frame-1"}`},
				bench.Message{Role: "assistant", ToolCalls: []bench.ToolCall{call("c2", "createStickyNote", `{"text":"</pre><img src=x onerror=alert(1)>","parentId":"frame-1"}`)}},
				bench.Message{Role: "tool", ToolCallID: "c2", Content: `{"id":"sticky-2"}`},
				bench.Message{Role: "assistant", Content: "Done."},
			)},
		{Scenario: "retro", Strategy: bench.Batch, Turns: 2, RoundTrips: 1, InputTokens: 3000, OutputTokens: 90, ToolCalls: 2, EngineTime: ms, Wall: 1501 * ms, Correct: true, BoardSVG: svg,
			Transcript: chat(
				bench.Message{Role: "assistant", ToolCalls: []bench.ToolCall{call("c1", "batch", `{"operations":[{"tool":"createFrame","args":{"title":"Went well"},"label":"f"}]}`)}},
				bench.Message{Role: "tool", ToolCallID: "c1", Content: `{"summary":{"total":2}}`},
				bench.Message{Role: "assistant", Content: "Done."},
			)},
		{Scenario: "retro", Strategy: bench.Code, Turns: 2, RoundTrips: 1, InputTokens: 2500, OutputTokens: 80, ToolCalls: 2, EngineTime: 3 * ms, Wall: 1303 * ms, Correct: true, BoardSVG: svg,
			Transcript: chat(
				bench.Message{Role: "assistant", ToolCalls: []bench.ToolCall{call("c1", "execute_code", `{"code":"const f = await tools.createFrame({ title: \"Went well\" });\nreturn f.id;"}`)}},
				bench.Message{Role: "tool", ToolCallID: "c1", Content: `{"success":true,"result":"` + strings.Repeat("x", 3000) + `"}`},
				bench.Message{Role: "assistant", Content: "Done."},
			)},
		{Scenario: "bug-recolor", Strategy: bench.PerCall, Turns: 2, RoundTrips: 1, InputTokens: 5000, OutputTokens: 40, ToolCalls: 1, Wall: 1100 * ms, Correct: true,
			Transcript: chat(bench.Message{Role: "assistant", Content: "Done."})},
		{Scenario: "bug-recolor", Strategy: bench.Batch, Turns: 1, InputTokens: 1000, OutputTokens: 10, Wall: 600 * ms,
			Failure:    "note \"Login bug\" is yellow,\nwant red",
			Transcript: chat(bench.Message{Role: "assistant", Content: "Done."})},
		{Scenario: "bug-recolor", Strategy: bench.Code, Turns: 2, RoundTrips: 1, InputTokens: 1400, OutputTokens: 60, ToolCalls: 3, EngineTime: ms, Wall: 1201 * ms, Correct: true,
			Transcript: chat(bench.Message{Role: "assistant", Content: "Done."})},
	}
	return report(results)
}

// report is the report of results, with each strategy's totals.
func report(results []bench.Result) *bench.Report {
	return &bench.Report{Model: "scripted", Latency: bench.DefaultLatency(), Tokenizer: "o200k_base", Results: results,
		Strategies: bench.Summarize(bench.Strategies, results)}
}

// TestWriteTable pins the terminal table: rows, totals, the comparison
// with per-call, and the failed run's reason on one line below.
func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	if err := bench.WriteTable(&b, fixture()); err != nil {
		t.Fatal(err)
	}
	golden(t, "table.txt", b.Bytes())
}

// TestWriteTableRepeated: with repeated runs a row shows the means and how
// many runs were correct, and a failure says which run.
func TestWriteTableRepeated(t *testing.T) {
	rep := fixture()
	var again []bench.Result
	for _, r := range rep.Results {
		r.Repeat = 1
		r.Correct, r.Failure = true, ""
		r.InputTokens *= 3
		again = append(again, r)
	}
	rep = report(append(rep.Results, again...))
	var b bytes.Buffer
	if err := bench.WriteTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	golden(t, "table-repeated.txt", b.Bytes())
}

// TestWriteHTML pins the page.
func TestWriteHTML(t *testing.T) {
	var b bytes.Buffer
	if err := bench.WriteHTML(&b, fixture()); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.html", b.Bytes())
}

// TestHostileHTMLLoadsNothing: the page is self-contained — no URL of
// another place in any src, href or CSS url(), no script — and forbids
// loading anything else (Content-Security-Policy), whatever the model wrote
// and the boards hold: a transcript's markup is text, a board is an image
// of a data: URL.
func TestHostileHTMLLoadsNothing(t *testing.T) {
	rep := fixture()
	r := &rep.Results[0]
	r.Transcript = append(r.Transcript, bench.Message{Role: "assistant", Content: `<img src="http://evil.example/x.png"><a href='https://evil.example/'>x</a><style>@import url(//evil.example/s.css)</style>`})
	r.BoardSVG = `<svg xmlns="http://www.w3.org/2000/svg"><image href="https://evil.example/i.png"/><script>alert(1)</script></svg>`
	var b bytes.Buffer
	if err := bench.WriteHTML(&b, rep); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	// In the page's markup (texts are escaped, so a "<" starts a tag of
	// the page's own) and in its style sheet.
	attr := regexp.MustCompile(`(?i)\b(src|href|action|poster|srcset|xlink:href)\s*=\s*["']?\s*(https?:|//)`)
	for _, tag := range regexp.MustCompile(`<[a-zA-Z][^>]*>`).FindAllString(page, -1) {
		if attr.MatchString(tag) {
			t.Errorf("the page loads from elsewhere: %s", tag)
		}
		if strings.HasPrefix(tag, "<img ") && !strings.HasPrefix(tag, `<img src="data:`) {
			t.Errorf("an image not of a data: URL: %s", tag)
		}
	}
	for _, css := range regexp.MustCompile(`(?s)<style>.*?</style>`).FindAllString(page, -1) {
		if regexp.MustCompile(`(?i)url\(|@import`).MatchString(css) {
			t.Errorf("the style sheet loads something: %s", css)
		}
	}
	for _, bad := range []string{"<script", "<a ", "<iframe", "<link", "<object", "<embed"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">`) {
		t.Error("no Content-Security-Policy")
	}
	for _, text := range []string{fixtureTask, `</pre><img src=x onerror=alert(1)>`} {
		if strings.Contains(page, text) {
			t.Errorf("%q is in the page unescaped", text)
		}
	}
	if !strings.Contains(page, "… (1,528 more characters)") {
		t.Error("the long result is not cut")
	}
}

// TestCatalogLines: a catalog's report says how big the catalog is, what
// code and search send in its place, and by how much per-call's largest
// request is over each context window (or that it fits).
func TestCatalogLines(t *testing.T) {
	rep := report([]bench.Result{
		{Scenario: "a", Strategy: bench.PerCall, Correct: true, MaxInputTokens: 150_000},
		{Scenario: "b", Strategy: bench.PerCall, Correct: true, MaxInputTokens: 441_341},
		{Scenario: "b", Strategy: bench.Code, Correct: true, MaxInputTokens: 12_000},
	})
	rep.Catalogs = []bench.Catalog{{Name: "github", Tools: 1223, Tokens: 404_842, CodeTokens: 553, SearchTokens: 166}}
	var b strings.Builder
	if err := bench.WriteTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"catalog github: 1,223 tools, 404,842 tokens as tool definitions (what per-call sends every turn); in their place code sends 553 (execute_code, naming the namespaces), search 166 (search_tools)\n",
		"per-call's largest request: 441,341 tokens, over a 128K-token window by 313,341 (3.4×), over a 200K-token window by 241,341 (2.2×)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, b.String())
		}
	}
	rep.Results[1].MaxInputTokens = 100_000
	b.Reset()
	bench.WriteTable(&b, rep)
	if !strings.Contains(b.String(), "per-call's largest request: 150,000 tokens, over a 128K-token window by 22,000 (1.2×), fits a 200K-token context window\n") {
		t.Errorf("a request that fits one window:\n%s", b.String())
	}
	rep.Catalogs = nil
	b.Reset()
	bench.WriteTable(&b, rep)
	if strings.Contains(b.String(), "largest request") {
		t.Errorf("a board's report says how large requests were:\n%s", b.String())
	}
}
