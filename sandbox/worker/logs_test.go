package worker

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/sandbox/js"
	"github.com/google/go-cmp/cmp"
)

func init() {
	brokenWorkers["logflood"] = func() { // sends more log lines than any budget, then a result
		handshake()
		in := bufio.NewReader(os.Stdin)
		if _, _, err := readFrame(in, 1<<30); err != nil {
			os.Exit(0) // no run: stopped while idle
		}
		w := bufio.NewWriterSize(os.Stdout, 1<<16)
		for range 1000 {
			_ = writeFrame(w, kindLog, js.Log{Level: "log", Message: ""})
		}
		_ = writeFrame(w, kindDone, doneMsg{Value: json.RawMessage("1"), Retire: true})
		_ = w.Flush()
		time.Sleep(10 * time.Second) // the host stops it
	}
}

// logRun runs code in p under a small output budget and returns the result
// and the lines OnLog saw.
func logRun(t *testing.T, p *Pool, code string, limit int) (*js.Result, []js.Log) {
	t.Helper()
	var mu sync.Mutex
	var seen []js.Log
	h := &host{}
	res := p.RunScript(context.Background(), js.Job{Code: code, Options: js.Options{
		Limits: js.Limits{MaxOutputChars: limit, Timeout: 5 * time.Second},
		Tools:  tools, Host: h,
		OnLog: func(l js.Log) {
			mu.Lock()
			seen = append(seen, l)
			mu.Unlock()
		},
	}})
	h.wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	return res, seen
}

// TestHostileLogFlood: in a worker process as in process, a script logging
// without end gets OnLog calls only for the lines its result keeps — a
// bounded number, empty lines costing a character each — and is ended by
// the output limit; and a worker that sends lines past the budget anyway
// is held to it by the host.
func TestHostileLogFlood(t *testing.T) {
	const limit = 100
	p := newPool(t, Config{Warm: 1, Max: 1})
	for _, tc := range []struct {
		name, code string
		want       int
	}{
		{"empty lines", `for (;;) console.log('')`, limit},
		{"short lines", `for (;;) console.log('abc')`, 34}, // 33 whole, then "a"
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, seen := logRun(t, p, tc.code, limit)
			if code(res) != string(js.CodeOutputLimit) {
				t.Errorf("got %s (%v), want output_limit", code(res), res.Err)
			}
			if len(res.Logs) != tc.want || !res.LogsTruncated {
				t.Errorf("kept %d lines (truncated %v), want %d and truncated", len(res.Logs), res.LogsTruncated, tc.want)
			}
			if diff := cmp.Diff(res.Logs, seen); diff != "" {
				t.Errorf("OnLog saw other lines than the result keeps (-kept +seen):\n%s", diff)
			}
		})
	}

	t.Run("a worker past the budget", func(t *testing.T) {
		bad := newPool(t, Config{Command: self("logflood"), Warm: 1, Max: 1})
		res, seen := logRun(t, bad, `return 1`, limit)
		if res.Err != nil || string(res.Value) != "1" {
			t.Errorf("result %s, %v; want 1", res.Value, res.Err)
		}
		if len(seen) != limit {
			t.Errorf("OnLog saw %d of the worker's 1000 empty lines, want %d (the budget)", len(seen), limit)
		}
	})
}
