package js

import (
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestHostileLogFlood: a script that logs without end — empty lines or short
// ones — under a small output budget gets a bounded number of OnLog calls
// (only the lines its result keeps, each costing at least one character) and
// a bounded result, and is ended for it; it used to make a log event of
// every line, past the budget too, and empty lines cost nothing.
func TestHostileLogFlood(t *testing.T) {
	const limit = 100
	for _, tc := range []struct {
		name, code string
		want       int // lines kept
	}{
		{"empty lines", `for (;;) console.log('')`, limit},
		{"short lines", `for (;;) console.log('abc')`, 34}, // 33 whole, then "a"
		{"empty after a long one", `console.log('x'.repeat(150)); for (let i = 0; i < 1000; i++) console.log(''); return 1`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen []Log
			res, _ := runCode(t, tc.code, Options{Limits: Limits{MaxOutputChars: limit, Timeout: 2 * time.Second}, OnLog: func(l Log) { seen = append(seen, l) }})
			if len(res.Logs) != tc.want || !res.LogsTruncated {
				t.Errorf("kept %d lines (truncated %v), want %d and truncated", len(res.Logs), res.LogsTruncated, tc.want)
			}
			if diff := cmp.Diff(res.Logs, seen); diff != "" {
				t.Errorf("OnLog saw other lines than the result keeps (-kept +seen):\n%s", diff)
			}
			chars := 0
			for _, l := range res.Logs {
				chars += max(utf8.RuneCountInString(l.Message), 1)
			}
			if chars > limit {
				t.Errorf("the lines kept cost %d characters, over the budget of %d", chars, limit)
			}
		})
	}
	// An endless loop of empty lines is ended by the output limit, not the clock.
	res, _ := runCode(t, `for (;;) console.log('')`, Options{Limits: Limits{MaxOutputChars: limit, Timeout: 2 * time.Second}})
	if res.Err == nil || res.Err.Code != CodeOutputLimit {
		t.Errorf("err = %v, want %s", res.Err, CodeOutputLimit)
	}
}
