package bench

import (
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

//go:embed report.html.tmpl
var reportTemplate string

var reportPage = template.Must(template.New("report").Parse(reportTemplate))

// WriteHTML writes rep as one self-contained HTML page: the strategies
// compared in bar charts (tokens, round trips, wall time; in total and per
// scenario), and per scenario a drill-down to each run's measures, failure,
// transcript and final board. The page loads nothing: its style is inline,
// its charts inline SVG, a board an <img> of a data: URL (so that nothing in
// a board's drawing runs or reaches the page), and a Content-Security-Policy
// forbids the rest. Every text is escaped (html/template); long texts are cut.
func WriteHTML(w io.Writer, rep *Report) error {
	return reportPage.Execute(w, newPage(rep))
}

// page is what the template shows.
type page struct {
	Model, Tokenizer, Latency string
	Repeats                   int
	Strategies                []Strategy
	Totals                    []Summary
	TotalsText                [][]string // per strategy: the totals as shown
	Ratios                    []string
	Catalog                   []string // the catalogs' sizes, and whether per-call fits a context window
	Charts                    []chart  // the totals'
	ScenarioCharts            []chart
	Scenarios                 []scenarioView
}

type scenarioView struct {
	Name  string
	Task  string
	Marks []markView
	Runs  []runView
}

type markView struct {
	Strategy Strategy
	Text     string // ✓, ✗ or k/N
	OK       bool
}

type runView struct {
	Title      string // "per-call · 15 round trips · ..."
	Strategy   Strategy
	Correct    bool
	Failure    string
	Board      template.URL // a data: URL of the board's SVG, "" for none
	Transcript []messageView
}

type messageView struct {
	Role    string
	Content string
	Calls   []callView
	CallID  string // a tool result's call
}

type callView struct {
	ID, Name, Args string
}

// The lengths at which texts of a transcript are cut: what the model
// wrote (a script) is kept longer than what it was sent.
const (
	cutWritten = 6000
	cutRead    = 1500
)

func newPage(rep *Report) page {
	runs := repeats(rep)
	p := page{Model: rep.Model, Tokenizer: rep.Tokenizer, Latency: latencyText(rep), Repeats: runs, Totals: rep.Strategies,
		Ratios: ratios(rep.Strategies), Catalog: catalogLines(rep)}
	for _, s := range rep.Strategies {
		p.Strategies = append(p.Strategies, s.Strategy)
		n := float64(runs)
		p.TotalsText = append(p.TotalsText, []string{string(s.Strategy), mean(s.RoundTrips, n), mean(s.InputTokens, n),
			mean(s.OutputTokens, n), mean(s.ToolCalls, n), seconds(s.Wall / time.Duration(runs)), fmt.Sprintf("%d/%d", s.Correct, s.Runs)})
	}
	p.Charts, p.ScenarioCharts = charts(rep, runs)

	index := map[string]int{}
	for _, c := range cells(rep) {
		i, ok := index[c.scenario]
		if !ok {
			i = len(p.Scenarios)
			index[c.scenario] = i
			p.Scenarios = append(p.Scenarios, scenarioView{Name: c.scenario})
		}
		m := markView{Strategy: c.strategy, Text: fmt.Sprintf("%d/%d", c.correct, c.runs), OK: c.correct == c.runs}
		if c.runs == 1 {
			m.Text = map[bool]string{true: "✓", false: "✗"}[m.OK]
		}
		p.Scenarios[i].Marks = append(p.Scenarios[i].Marks, m)
	}
	for _, r := range rep.Results {
		sv := &p.Scenarios[index[r.Scenario]]
		if sv.Task == "" {
			sv.Task = taskOf(r.Transcript)
		}
		sv.Runs = append(sv.Runs, newRunView(r, runs))
	}
	return p
}

// charts are the totals' charts and the per-scenario ones: tokens (in and
// out), round trips, wall time, each strategy a bar. Repeated runs count
// by their means.
func charts(rep *Report, runs int) (totals, perScenario []chart) {
	type metric struct {
		title string
		value func(tokens, roundTrips int, wall time.Duration, n float64) chartValue
	}
	metrics := []metric{
		{"Tokens (in + out)", func(tok, _ int, _ time.Duration, n float64) chartValue {
			return chartValue{v: float64(tok) / n, text: mean(tok, n)}
		}},
		{"Round trips", func(_, rt int, _ time.Duration, n float64) chartValue {
			return chartValue{v: float64(rt) / n, text: mean(rt, n)}
		}},
		{"Wall time", func(_, _ int, wall time.Duration, n float64) chartValue {
			d := time.Duration(float64(wall) / n)
			return chartValue{v: d.Seconds(), text: seconds(d)}
		}},
	}
	cs := cells(rep)
	for _, m := range metrics {
		total := chartGroup{name: "all scenarios"}
		for _, s := range rep.Strategies {
			v := m.value(s.InputTokens+s.OutputTokens, s.RoundTrips, s.Wall, float64(runs))
			v.strategy = s.Strategy
			total.values = append(total.values, v)
		}
		totals = append(totals, barChart(m.title, []chartGroup{total}))

		var groups []chartGroup
		for _, c := range cs {
			if len(groups) == 0 || groups[len(groups)-1].name != c.scenario {
				groups = append(groups, chartGroup{name: c.scenario})
			}
			v := m.value(c.inputTokens+c.outputTokens, c.roundTrips, c.wall, float64(c.runs))
			v.strategy = c.strategy
			if c.correct < c.runs {
				v.text += " ✗"
			}
			g := &groups[len(groups)-1]
			g.values = append(g.values, v)
		}
		perScenario = append(perScenario, barChart(m.title+" per scenario", groups))
	}
	return totals, perScenario
}

// taskOf is the user's task: the chat's first user message.
func taskOf(chat []Message) string {
	for _, m := range chat {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

func newRunView(r Result, runs int) runView {
	title := string(r.Strategy)
	if runs > 1 {
		title += fmt.Sprintf(", run %d", r.Repeat+1)
	}
	mark := map[bool]string{true: "✓", false: "✗"}[r.Correct]
	v := runView{
		Title: fmt.Sprintf("%s · %d round trips · %s tokens in, %s out · %d tool calls · %s · %s", title, r.RoundTrips,
			thousands(r.InputTokens), thousands(r.OutputTokens), r.ToolCalls, seconds(r.Wall), mark),
		Strategy: r.Strategy,
		Correct:  r.Correct,
		Failure:  r.Failure,
	}
	if r.BoardSVG != "" {
		// An image, not inline SVG: nothing in it runs or loads, and no
		// text in it can end the page's markup.
		v.Board = template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(r.BoardSVG)))
	}
	for _, m := range r.Transcript {
		mv := messageView{Role: m.Role, CallID: m.ToolCallID}
		limit := cutRead
		if m.Role == "assistant" {
			limit = cutWritten
		}
		mv.Content = cut(m.Content, limit)
		for _, c := range m.ToolCalls {
			mv.Calls = append(mv.Calls, callView{ID: c.ID, Name: c.Function.Name, Args: cut(readableArgs(c.Function.Arguments), cutWritten)})
		}
		v.Transcript = append(v.Transcript, mv)
	}
	return v
}

// readableArgs is a call's arguments as a reader wants them: a script's code
// as it was written (not as a JSON string), other arguments as JSON.
func readableArgs(args string) string {
	var code struct {
		Code *string `json:"code"`
	}
	if json.Unmarshal([]byte(args), &code) == nil && code.Code != nil {
		return *code.Code
	}
	return args
}

// cut keeps the first n characters of s, and says how many it left out.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return strings.TrimRight(string(runes[:n]), " \n") + fmt.Sprintf("… (%s more characters)", thousands(len(runes)-n))
}
