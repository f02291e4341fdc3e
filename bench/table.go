package bench

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// WriteTable writes rep as a table for a terminal: a row per scenario and
// strategy (round trips, tokens in and out, tool calls, wall time, whether
// the checker agreed), each strategy's totals, how code and batch compare
// with per-call, and below it the reason of every run that failed. With
// repeated runs a row shows their means and how many were correct.
func WriteTable(w io.Writer, rep *Report) error {
	var b strings.Builder
	runs := repeats(rep)
	fmt.Fprintf(&b, "model: %s · tokens: %s · wall: %s\n", rep.Model, rep.Tokenizer, latencyText(rep))
	if runs > 1 {
		fmt.Fprintf(&b, "each row: the means of %d runs\n", runs)
	}
	b.WriteByte('\n')

	t := table{right: []bool{false, false, true, true, true, true, true, false}}
	t.add("SCENARIO", "STRATEGY", "ROUND TRIPS", "TOKENS IN", "TOKENS OUT", "TOOL CALLS", "WALL", "CORRECT")
	last := ""
	for _, c := range cells(rep) {
		name := c.scenario
		if name == last {
			name = ""
		}
		last = c.scenario
		correct := fmt.Sprintf("%d/%d", c.correct, c.runs)
		if c.runs == 1 {
			correct = map[bool]string{true: "✓", false: "✗"}[c.correct == 1]
		}
		n := float64(c.runs)
		t.add(name, string(c.strategy), mean(c.roundTrips, n), mean(c.inputTokens, n), mean(c.outputTokens, n),
			mean(c.toolCalls, n), seconds(c.wall/time.Duration(c.runs)), correct)
	}
	for i, s := range rep.Strategies {
		name := ""
		if i == 0 {
			name = "TOTAL"
		}
		n := float64(runs)
		t.add(name, string(s.Strategy), mean(s.RoundTrips, n), mean(s.InputTokens, n), mean(s.OutputTokens, n),
			mean(s.ToolCalls, n), seconds(s.Wall/time.Duration(runs)), fmt.Sprintf("%d/%d", s.Correct, s.Runs))
	}
	t.write(&b)

	if lines := catalogLines(rep); len(lines) > 0 {
		b.WriteByte('\n')
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	if lines := ratios(rep.Strategies); len(lines) > 0 {
		b.WriteByte('\n')
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	var failed []string
	for _, r := range rep.Results {
		if r.Correct {
			continue
		}
		which := fmt.Sprintf("%s / %s", r.Scenario, r.Strategy)
		if runs > 1 {
			which += fmt.Sprintf(", run %d", r.Repeat+1)
		}
		failed = append(failed, fmt.Sprintf("✗ %s: %s", which, oneLine(r.Failure)))
	}
	if len(failed) > 0 {
		fmt.Fprintf(&b, "\n%d of %d runs failed:\n%s\n", len(failed), len(rep.Results), strings.Join(failed, "\n"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell is the runs of one scenario with one strategy, added up.
type cell struct {
	scenario                                         string
	strategy                                         Strategy
	runs, correct                                    int
	roundTrips, inputTokens, outputTokens, toolCalls int
	wall                                             time.Duration
}

// cells adds up the results per scenario and strategy, in the report's order.
func cells(rep *Report) []*cell {
	var out []*cell
	index := map[[2]string]*cell{}
	for _, r := range rep.Results {
		key := [2]string{r.Scenario, string(r.Strategy)}
		c := index[key]
		if c == nil {
			c = &cell{scenario: r.Scenario, strategy: r.Strategy}
			index[key] = c
			out = append(out, c)
		}
		c.runs++
		if r.Correct {
			c.correct++
		}
		c.roundTrips += r.RoundTrips
		c.inputTokens += r.InputTokens
		c.outputTokens += r.OutputTokens
		c.toolCalls += r.ToolCalls
		c.wall += r.Wall
	}
	return out
}

// repeats is how many times each scenario ran with each strategy.
func repeats(rep *Report) int {
	n := 1
	for _, r := range rep.Results {
		n = max(n, r.Repeat+1)
	}
	return n
}

// latencyText says how wall time was counted.
func latencyText(rep *Report) string {
	if rep.Model != "scripted" {
		return "the provider's measured latency, plus engine time"
	}
	l := rep.Latency
	return fmt.Sprintf("%v a round trip + %v an input token + %v an output token, plus engine time",
		l.PerRoundTrip, l.PerInputToken, l.PerOutputToken)
}

// contextWindows are the context windows catalog lines measure requests
// against: GPT-4o's 128K tokens and Claude's 200K.
var contextWindows = []int{128_000, 200_000}

// catalogLines say how big each catalog is, and whether per-call's largest
// request would fit a model's context window, and by how much not.
func catalogLines(rep *Report) []string {
	var out []string
	for _, c := range rep.Catalogs {
		out = append(out, fmt.Sprintf("catalog %s: %s tools, %s tokens as tool definitions (what per-call sends every turn); "+
			"in their place code sends %s (execute_code, naming the namespaces), search %s (search_tools)",
			c.Name, thousands(c.Tools), thousands(c.Tokens), thousands(c.CodeTokens), thousands(c.SearchTokens)))
	}
	largest := 0
	for _, r := range rep.Results {
		if r.Strategy == PerCall {
			largest = max(largest, r.MaxInputTokens)
		}
	}
	if len(rep.Catalogs) == 0 || largest == 0 {
		return out
	}
	var fits []string
	for _, w := range contextWindows {
		if largest <= w {
			fits = append(fits, fmt.Sprintf("fits a %dK-token context window", w/1000))
		} else {
			fits = append(fits, fmt.Sprintf("over a %dK-token window by %s (%.1f×)", w/1000, thousands(largest-w), float64(largest)/float64(w)))
		}
	}
	return append(out, fmt.Sprintf("per-call's largest request: %s tokens, %s", thousands(largest), strings.Join(fits, ", ")))
}

// ratios says how each strategy compares with per-call, over the totals.
func ratios(sums []Summary) []string {
	var base *Summary
	for i := range sums {
		if sums[i].Strategy == PerCall {
			base = &sums[i]
		}
	}
	if base == nil {
		return nil
	}
	var out []string
	for _, s := range sums {
		if s.Strategy == PerCall {
			continue
		}
		out = append(out, fmt.Sprintf("%s vs per-call: %s tokens, %s round trips, %s wall time", s.Strategy,
			change(s.InputTokens+s.OutputTokens, base.InputTokens+base.OutputTokens, "fewer", "more"),
			change(s.RoundTrips, base.RoundTrips, "fewer", "more"),
			change(int(s.Wall), int(base.Wall), "less", "more")))
	}
	return out
}

// change is v against base in percent: "85% fewer", "12% more", "as many".
func change(v, base int, less, more string) string {
	if base == 0 {
		return "n/a"
	}
	p := float64(v-base) / float64(base) * 100
	switch {
	case p <= -99.5: // "100% fewer" would say nothing is left
		return fmt.Sprintf("%.1f%% %s", -p, less)
	case p <= -0.5:
		return fmt.Sprintf("%.0f%% %s", -p, less)
	case p >= 0.5:
		return fmt.Sprintf("%.0f%% %s", p, more)
	}
	return "the same"
}

// mean is sum / n as a whole number with thousands separators.
func mean(sum int, n float64) string {
	return thousands(int(float64(sum)/n + 0.5))
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// seconds is d in seconds, to a tenth.
func seconds(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// oneLine keeps a failure's reason on its line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// table lays out rows in columns, each left- or right-aligned (text/tabwriter
// aligns every column the same way), two spaces apart.
type table struct {
	right []bool
	rows  [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(b *strings.Builder) {
	width := make([]int, len(t.right))
	for _, r := range t.rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range t.rows {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				line.WriteString("  ")
			}
			if t.right[i] {
				line.WriteString(pad + c)
			} else {
				line.WriteString(c + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}
