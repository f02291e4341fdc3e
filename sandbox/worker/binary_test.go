package worker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/sandbox/js"

	"github.com/google/go-cmp/cmp"
)

func TestCallsRoundTrip(t *testing.T) {
	calls := []callMsg{
		{Index: 0, Tool: "add", Args: json.RawMessage(`{"a":1}`), Line: 3, Column: 9},
		{Index: 7, Tool: "board.getState", Args: json.RawMessage(`{}`)},
		{Index: 8, Tool: "", Args: json.RawMessage(``)},
		// Every length past what 16 and 32 bits hold (65,536 + n bytes once
		// reached the host as n), and numbers past 32 bits.
		{Index: math.MaxInt, Tool: string(bytes.Repeat([]byte("x"), 1<<16+5)), Args: json.RawMessage(`{}`), Line: 1 << 40, Column: math.MaxInt},
	}
	b := appendCalls(nil, calls)
	if n := callsSize(calls); n != len(b) {
		t.Errorf("callsSize = %d, the encoding has %d bytes", n, len(b))
	}
	got, err := parseCalls(b)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(calls, got); d != "" {
		t.Error(d)
	}
}

// TestParseCallsRefusesWhatAnIntCannotHold: a number past an int is an
// error, never a negative or wrapped value.
func TestParseCallsRefusesWhatAnIntCannotHold(t *testing.T) {
	for field := range 4 {
		b := appendCalls(nil, []callMsg{{Index: 1, Tool: "t", Args: json.RawMessage(`{}`)}})
		binary.BigEndian.PutUint64(b[8*field:], math.MaxInt+1)
		if calls, err := parseCalls(b); err == nil {
			t.Errorf("field %d past an int: parsed %+v", field, calls)
		}
	}
	b := appendCalls(nil, []callMsg{{Index: 1, Tool: "t", Args: json.RawMessage(`{}`)}})
	binary.BigEndian.PutUint64(b[callHeader-8+1:], math.MaxUint64) // the arguments' length
	if calls, err := parseCalls(b); err == nil {
		t.Errorf("arguments' length 2^64-1: parsed %+v", calls)
	}
}

func TestSettleRoundTrip(t *testing.T) {
	for _, m := range []settleMsg{
		{Index: 2, Result: json.RawMessage(`{"ok":true}`)},
		{Index: 3, Err: &errMsg{Code: "tool_error", Message: "no", Props: json.RawMessage(`{"details":[1]}`), Call: 4}, Abort: true},
		{Index: math.MaxInt, Result: json.RawMessage(`1`)},
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
// parser of its calls must refuse any bytes cleanly; what it accepts must
// encode back to the same bytes, and holds no more calls than its length
// allows (callHeader bytes each). The same inputs, taken as calls to
// encode (fuzzCalls), must decode to exactly what was encoded.
func FuzzParseCalls(f *testing.F) {
	f.Add(appendCalls(nil, []callMsg{{Index: 1, Tool: "t", Args: json.RawMessage(`{}`), Line: 1, Column: 2}}))
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xff, 0xff, 'x'})
	f.Add(appendCalls(nil, []callMsg{{Index: 0, Tool: string(make([]byte, 1<<16+3)), Args: json.RawMessage(`{}`)}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if calls, err := parseCalls(b); err == nil {
			if len(calls)*callHeader > len(b) {
				t.Errorf("%d bytes decoded to %d calls", len(b), len(calls))
			}
			if back := appendCalls(nil, calls); !bytes.Equal(back, b) {
				t.Errorf("parsed %d calls that encode to %x, not %x", len(calls), back, b)
			}
		}
		calls := fuzzCalls(b)
		enc := appendCalls(nil, calls)
		got, err := parseCalls(enc)
		if err != nil {
			t.Fatalf("encoded %d calls, parse: %v", len(calls), err)
		}
		if len(calls) == 0 && got == nil {
			return
		}
		if d := cmp.Diff(calls, got); d != "" {
			t.Error(d)
		}
	})
}

// fuzzCalls makes calls of any sizes and numbers out of b.
func fuzzCalls(b []byte) []callMsg {
	var calls []callMsg
	for len(b) >= 4 {
		n, m := int(b[0])*int(b[1]), int(b[2])
		b = b[4:]
		n, m = min(n, len(b)), min(m, len(b)-min(n, len(b)))
		c := callMsg{Index: len(calls) << (8 * (len(calls) % 8)) & math.MaxInt, Line: len(b), Column: math.MaxInt >> len(calls), Tool: string(b[:n])}
		c.Args = json.RawMessage(b[n : n+m : n+m])
		calls = append(calls, c)
		b = b[n+m:]
	}
	return calls
}

// FuzzParseSettle is the other direction, host to worker: what the worker
// accepts encodes back to the same bytes, and what the host encodes
// decodes to exactly what it was.
func FuzzParseSettle(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1, 0, '{', '}'})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1, 3, '{', '}'})
	f.Add(append([]byte{0x80, 0, 0, 0, 0, 0, 0, 0, 1}, `{"code":"tool_error","message":"m","call":2}`...))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseSettle(b)
		if err == nil && m.Err == nil {
			if back := append(settleHeader(&m), m.Result...); !bytes.Equal(back, b) {
				t.Errorf("parsed %+v that encodes to %x, not %x", m, back, b)
			}
		}
		if len(b) < 2 {
			return
		}
		// b as a message: index from its first byte, result or error
		// message from the rest.
		want := settleMsg{Index: int(b[0]) << (8 * int(b[1]%8)) & math.MaxInt, Abort: b[1]&1 != 0, Result: json.RawMessage(b[2:])}
		body := b[2:]
		if b[1]&2 != 0 {
			// A message is text: JSON has no other bytes.
			msg := string(bytes.ToValidUTF8(b[2:], []byte("\uFFFD")))
			want.Err, want.Result = &errMsg{Code: "tool_error", Message: msg, Call: int(b[0])}, nil
			body, _ = json.Marshal(want.Err)
		}
		got, err := parseSettle(append(settleHeader(&want), body...))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Error(d)
		}
	})
}

// forgers are workers that send the host calls no script could make.
var forgers = map[string]struct {
	frames func() [][]byte // kind byte + body
	msg    string          // what the run's error says
}{
	// Not calls, but what a script cannot write either: a log line of no
	// console level, a result's error code that is no code (each went into
	// the answer and every event uncut, up to a frame's 128 MiB).
	"forge-log-level": {func() [][]byte {
		b, _ := json.Marshal(js.Log{Level: strings.Repeat("x", 1<<20), Message: "hi"})
		return [][]byte{append([]byte{kindLog}, b...)}
	}, "a malformed log line"},
	"forge-done-level": {func() [][]byte {
		b, _ := json.Marshal(doneMsg{Value: json.RawMessage(`1`), Logs: []js.Log{{Level: "<script>", Message: "hi"}}})
		return [][]byte{append([]byte{kindDone}, b...)}
	}, "a result with a malformed log line"},
	"forge-done-code": {func() [][]byte {
		b, _ := json.Marshal(doneMsg{Err: &errMsg{Code: js.Code(strings.Repeat("x", 1<<20)), Message: "m"}})
		return [][]byte{append([]byte{kindDone}, b...)}
	}, "a result with an error code no run ends with"},
	"forge-done-blame": {func() [][]byte { // a tool error for a call never made
		b, _ := json.Marshal(doneMsg{Err: &errMsg{Code: "denied", Message: "m", Call: 1}})
		return [][]byte{append([]byte{kindDone}, b...)}
	}, "a result with an error the host did not give the call it names"},
	"forge-badargs": {func() [][]byte {
		return [][]byte{calls1(kindCalls, callMsg{Index: 0, Tool: "add", Args: json.RawMessage(`{"a":`)})}
	}, "call 0 with arguments that are not JSON"},
	"forge-emptyargs": {func() [][]byte {
		return [][]byte{calls1(kindCalls, callMsg{Index: 0, Tool: "add"})}
	}, "call 0 with arguments that are not JSON"},
	"forge-duplicate": {func() [][]byte {
		c := callMsg{Index: 0, Tool: "add", Args: json.RawMessage(`{}`)}
		return [][]byte{calls1(kindCalls, c, c)}
	}, "call 0 where call 1"},
	"forge-skip": {func() [][]byte {
		return [][]byte{calls1(kindCalls, callMsg{Index: 1, Tool: "add", Args: json.RawMessage(`{}`)})}
	}, "call 1 where call 0"},
	"forge-length": {func() [][]byte {
		b := calls1(kindCalls, callMsg{Index: 0, Tool: "add", Args: json.RawMessage(`{}`)})
		binary.BigEndian.PutUint64(b[1+24:], 1<<63) // the name's length
		return [][]byte{b}
	}, "a malformed call"},
	"forge-trailing": {func() [][]byte {
		return [][]byte{append(calls1(kindCalls, callMsg{Index: 0, Tool: "add", Args: json.RawMessage(`{}`)}), 0, 0, 0)}
	}, "a malformed call"},
	"forge-part-then-bad": {func() [][]byte {
		return [][]byte{
			calls1(kindMore, callMsg{Index: 0, Tool: "add", Args: json.RawMessage(`{}`)}),
			calls1(kindCalls, callMsg{Index: 1, Tool: "add", Args: json.RawMessage(`nope`)}),
		}
	}, "call 1 with arguments that are not JSON"},
	"forge-turn-over-budget": {func() [][]byte {
		var frames [][]byte
		for i := range 3 {
			frames = append(frames, calls1(kindMore, callMsg{Index: i, Tool: "add", Args: json.RawMessage(`"` + strings.Repeat("x", 600<<10) + `"`)}))
		}
		return frames
	}, "a turn of tool calls of more than 1048576 bytes"},
}

// calls1 is a calls frame (kind and body).
func calls1(kind byte, calls ...callMsg) []byte {
	return appendCalls([]byte{kind}, calls)
}

func init() {
	for name, f := range forgers {
		brokenWorkers[name] = func() {
			handshake()
			in := bufio.NewReader(os.Stdin)
			_, _, _ = readFrame(in, maxToWorker)
			w := bufio.NewWriter(os.Stdout)
			for _, fr := range f.frames() {
				_ = writeFrame(w, fr[0], fr[1:])
			}
			time.Sleep(brokenFor)
		}
	}
}

// TestHostRefusesForgedCalls: a worker is as untrusted as its script.
// Calls no script could make — arguments that are not JSON, an index out
// of turn or repeated, a length past the frame, bytes after the last call,
// a turn past the run's memory budget — end the run with a clear error,
// the worker is stopped, and the host starts none of the turn's calls.
func TestHostRefusesForgedCalls(t *testing.T) {
	for name, f := range forgers {
		t.Run(name, func(t *testing.T) {
			p := newPool(t, Config{Command: self(name), Warm: 1})
			h := &rtHost{}
			res := p.RunScript(context.Background(), js.Job{Code: `return 1`, Options: js.Options{
				Limits: js.Limits{Timeout: time.Minute, MaxMemoryBytes: 1 << 20}, Tools: rtTools, Host: h}})
			h.wg.Wait()
			if code(res) != "runtime_error" || !strings.Contains(res.Err.Message, f.msg) || !strings.Contains(res.Err.Message, "it was stopped") {
				t.Errorf("got %+v, want runtime_error saying %q and that the worker was stopped", res.Err, f.msg)
			}
			if n := h.entered.Load(); n != 0 {
				t.Errorf("the host started %d calls", n)
			}
			if s := p.Stats(); s.Replaced != 1 {
				t.Errorf("stats %+v, want the worker replaced", s)
			}
		})
	}
}
