package worker

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCallsRoundTrip(t *testing.T) {
	calls := []callMsg{
		{Index: 0, Tool: "add", Args: json.RawMessage(`{"a":1}`), Line: 3, Column: 9},
		{Index: 7, Tool: "board.getState", Args: json.RawMessage(`{}`)},
		{Index: 8, Tool: "", Args: json.RawMessage(``)},
	}
	got, err := parseCalls(appendCalls(nil, calls))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(calls, got); d != "" {
		t.Error(d)
	}
}

func TestSettleRoundTrip(t *testing.T) {
	for _, m := range []settleMsg{
		{Index: 2, Result: json.RawMessage(`{"ok":true}`)},
		{Index: 3, Err: &errMsg{Code: "tool_error", Message: "no", Props: json.RawMessage(`{"details":[1]}`), Call: 4}, Abort: true},
	} {
		body := []byte(m.Result)
		if m.Err != nil {
			body, _ = json.Marshal(m.Err)
		}
		got, err := parseSettle(append(settleHeader(&m), body...))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(m, got); d != "" {
			t.Error(d)
		}
	}
}

// FuzzParseCalls: a worker is as untrusted as its script, so the host's
// parser of its calls must refuse any bytes cleanly, and what it accepts
// must encode back to the same bytes.
func FuzzParseCalls(f *testing.F) {
	f.Add(appendCalls(nil, []callMsg{{Index: 1, Tool: "t", Args: json.RawMessage(`{}`), Line: 1, Column: 2}}))
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xff, 0xff, 'x'})
	f.Fuzz(func(t *testing.T, b []byte) {
		calls, err := parseCalls(b)
		if err != nil {
			return
		}
		if back := appendCalls(nil, calls); string(back) != string(b) {
			t.Errorf("parsed %d calls that encode to %x, not %x", len(calls), back, b)
		}
	})
}
