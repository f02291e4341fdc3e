package worker

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"

	"github.com/codemode-dev/codemode/sandbox/js"
)

// The two frames of a tool call's round trip are binary, not JSON: they
// carry the call's arguments and its result, which may be large, and which
// are passed on as they are — slices of the frame, never re-encoded or
// copied.
//
//	calls:  per call: index u64, line u64, column u64, len u64 + tool, len u64 + args
//	settle: index u64, flags u8 (1: error, 2: abort), then the result, or a JSON errMsg
//
// Every integer is as wide as the value it carries (a Go int, or a length
// of a Go string), so none is ever cut: a field narrower than its value
// lets the writer choose the bytes the reader takes for the next fields — a
// tool name of 65,536 + n bytes behind a 16-bit length once made the host
// read n bytes of name and then call records the script had written into
// the rest of it. A value that does not fit the reader's int is refused,
// never wrapped.
//
// A call is at most one frame (maxFrame); in process no string can be so
// long either (the sandbox's cap on strings ends the run with
// memory_limit), and a worker refuses such a call the same way before
// writing anything. A turn's calls may take more than one frame: the worker
// then sends whole calls in kindMore frames, ended by one kindCalls frame,
// and the host starts the turn once it has it all. A turn is at most its
// run's memory budget (turnBudget): in process a script cannot hold more in
// call arguments without ending memory_limit, and a worker refuses a larger
// turn the same way (see remoteHost.Start).

// turnBudget is the most bytes a turn's calls may take on the wire: the
// run's memory budget.
func turnBudget(lim js.Limits) int64 {
	return cmp.Or(max(lim.MaxMemoryBytes, 0), js.DefaultMaxMemoryBytes)
}

// callHeader is the fixed part of a call: index, line, column and the two
// lengths. No input holds more calls than its length over callHeader.
const callHeader = 5 * 8

var errShort = errors.New("a truncated message")

// errTooBig is a number that does not fit the reader's int.
var errTooBig = errors.New("a number larger than an int")

// appendCalls encodes calls; Index, Line and Column are never negative.
func appendCalls(b []byte, calls []callMsg) []byte {
	for _, c := range calls {
		b = binary.BigEndian.AppendUint64(b, uint64(c.Index))
		b = binary.BigEndian.AppendUint64(b, uint64(c.Line))
		b = binary.BigEndian.AppendUint64(b, uint64(c.Column))
		b = binary.BigEndian.AppendUint64(b, uint64(len(c.Tool)))
		b = append(b, c.Tool...)
		b = binary.BigEndian.AppendUint64(b, uint64(len(c.Args)))
		b = append(b, c.Args...)
	}
	return b
}

// callsSize is the length of appendCalls(nil, calls), or -1 when it would
// be larger than an int.
func callsSize(calls []callMsg) int {
	n := 0
	for _, c := range calls {
		m := callHeader + len(c.Tool) + len(c.Args)
		if m < 0 || n > math.MaxInt-m {
			return -1
		}
		n += m
	}
	return n
}

// parseCalls decodes appendCalls. It refuses any input that is not exactly
// a sequence of whole calls, and any number that does not fit an int.
func parseCalls(b []byte) ([]callMsg, error) {
	var calls []callMsg
	for len(b) > 0 {
		if len(b) < callHeader-8 {
			return nil, errShort
		}
		var f [4]int
		for i := range f {
			v := binary.BigEndian.Uint64(b[8*i:])
			if v > math.MaxInt {
				return nil, errTooBig
			}
			f[i] = int(v)
		}
		b = b[callHeader-8:]
		c := callMsg{Index: f[0], Line: f[1], Column: f[2]}
		if n := f[3]; n > len(b) {
			return nil, errShort
		} else {
			c.Tool = string(b[:n])
			b = b[n:]
		}
		if len(b) < 8 {
			return nil, errShort
		}
		m := binary.BigEndian.Uint64(b)
		b = b[8:]
		if m > uint64(len(b)) {
			return nil, errShort
		}
		c.Args = json.RawMessage(b[:m:m])
		b = b[m:]
		calls = append(calls, c)
	}
	return calls, nil
}

const (
	settleError = 1
	settleAbort = 2
	settleFlags = settleError | settleAbort
)

// settleFixed is the length of settleHeader.
const settleFixed = 8 + 1

// settleHeader is the fixed part of a settle frame; the result or the
// encoded error follows.
func settleHeader(m *settleMsg) []byte {
	var flags byte
	if m.Err != nil {
		flags |= settleError
	}
	if m.Abort {
		flags |= settleAbort
	}
	return append(binary.BigEndian.AppendUint64(make([]byte, 0, settleFixed), uint64(m.Index)), flags)
}

func parseSettle(b []byte) (settleMsg, error) {
	if len(b) < settleFixed {
		return settleMsg{}, errShort
	}
	i := binary.BigEndian.Uint64(b)
	if i > math.MaxInt {
		return settleMsg{}, errTooBig
	}
	if b[8]&^settleFlags != 0 {
		return settleMsg{}, errors.New("a settle message with unknown flags")
	}
	m := settleMsg{Index: int(i), Abort: b[8]&settleAbort != 0}
	if b[8]&settleError != 0 {
		m.Err = &errMsg{}
		if err := json.Unmarshal(b[settleFixed:], m.Err); err != nil {
			return settleMsg{}, err
		}
		return m, nil
	}
	m.Result = json.RawMessage(b[settleFixed:])
	return m, nil
}
