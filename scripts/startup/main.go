// Command startup times the codemode CLI from process start to exit: "run"
// of a script that is just "return 1" (with the default worker runner, and
// with --runner inprocess), "batch" of one getBoardState, and "help", which
// loads nothing, as the floor
// every command pays (the binary and its package inits). It runs each
// command of each binary given in turn, round after round, so that a noisy
// machine slows them all alike, and prints the median, the 10th and 90th
// percentiles and the median's ratio to help's.
//
// Usage: go run ./scripts/startup [-n 30] BINARY...
//
// To compare two commits: go build -o /tmp/cm-a ./cmd/codemode at each, then
// go run ./scripts/startup /tmp/cm-a /tmp/cm-b.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

func main() {
	n := flag.Int("n", 30, "rounds: runs of each command of each binary")
	flag.Parse()
	bins := flag.Args()
	if len(bins) == 0 || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/startup [-n 30] BINARY...")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "startup")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "one.js")
	if err := os.WriteFile(script, []byte("return 1\n"), 0o644); err != nil {
		fail(err)
	}
	batch := filepath.Join(dir, "one.json")
	if err := os.WriteFile(batch, []byte(`{"operations":[{"tool":"getBoardState","args":{}}]}`), 0o644); err != nil {
		fail(err)
	}
	commands := [][]string{
		{"run", script},
		{"run", "--runner", "inprocess", script},
		{"batch", batch},
		{"help"},
	}
	times := make([][][]time.Duration, len(bins)) // [binary][command][round]
	for b := range bins {
		times[b] = make([][]time.Duration, len(commands))
		for c := range commands { // one untimed run each: the binary in the page cache
			if _, err := timeRun(bins[b], commands[c]); err != nil {
				fail(err)
			}
		}
	}
	for range *n {
		for b := range bins {
			for c := range commands {
				d, err := timeRun(bins[b], commands[c])
				if err != nil {
					fail(err)
				}
				times[b][c] = append(times[b][c], d)
			}
		}
	}
	fmt.Printf("%d runs each; milliseconds, process start to exit\n", *n)
	for b, bin := range bins {
		fmt.Printf("\n%s\n", bin)
		help := median(times[b][len(commands)-1])
		for c, args := range commands {
			ts := times[b][c]
			fmt.Printf("  %-28s median %6.1f  p10 %6.1f  p90 %6.1f  ×help %4.2f\n",
				label(args), ms(median(ts)), ms(pct(ts, 10)), ms(pct(ts, 90)), float64(median(ts))/float64(help))
		}
	}
}

// timeRun runs bin with args, output discarded, and returns how long it took.
func timeRun(bin string, args []string) (time.Duration, error) {
	cmd := exec.Command(bin, args...)
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%s %v: %v", bin, args, err)
	}
	return d, nil
}

func label(args []string) string {
	switch {
	case args[0] != "run":
		return args[0]
	case len(args) > 2:
		return "run --runner inprocess one.js"
	}
	return "run one.js"
}

func median(ts []time.Duration) time.Duration { return pct(ts, 50) }

// pct is the p-th percentile (nearest rank).
func pct(ts []time.Duration, p int) time.Duration {
	s := slices.Clone(ts)
	slices.Sort(s)
	i := (p*len(s) + 99) / 100
	return s[max(i-1, 0)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "startup:", err)
	os.Exit(1)
}
