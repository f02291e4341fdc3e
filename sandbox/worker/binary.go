package worker

import (
	"encoding/binary"
	"encoding/json"
	"errors"
)

// The two frames of a tool call's round trip are binary, not JSON: they
// carry the call's arguments and its result, which may be large, and which
// are passed on as they are — slices of the frame, never re-encoded or
// copied.
//
//	calls:  per call: index u32, line u32, column u32, len u16 + tool, len u32 + args
//	settle: index u32, flags u8 (1: error, 2: abort), then the result, or a JSON errMsg

var errShort = errors.New("a truncated message")

func appendCalls(b []byte, calls []callMsg) []byte {
	for _, c := range calls {
		b = binary.BigEndian.AppendUint32(b, uint32(c.Index))
		b = binary.BigEndian.AppendUint32(b, uint32(c.Line))
		b = binary.BigEndian.AppendUint32(b, uint32(c.Column))
		b = binary.BigEndian.AppendUint16(b, uint16(len(c.Tool)))
		b = append(b, c.Tool...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(c.Args)))
		b = append(b, c.Args...)
	}
	return b
}

func parseCalls(b []byte) ([]callMsg, error) {
	var calls []callMsg
	for len(b) > 0 {
		if len(b) < 14 {
			return nil, errShort
		}
		c := callMsg{Index: int(binary.BigEndian.Uint32(b)), Line: int(binary.BigEndian.Uint32(b[4:])), Column: int(binary.BigEndian.Uint32(b[8:]))}
		n := int(binary.BigEndian.Uint16(b[12:]))
		b = b[14:]
		if len(b) < n+4 {
			return nil, errShort
		}
		c.Tool = string(b[:n])
		b = b[n:]
		m := int(binary.BigEndian.Uint32(b))
		b = b[4:]
		if m > len(b) {
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
)

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
	return append(binary.BigEndian.AppendUint32(nil, uint32(m.Index)), flags)
}

func parseSettle(b []byte) (settleMsg, error) {
	if len(b) < 5 {
		return settleMsg{}, errShort
	}
	m := settleMsg{Index: int(binary.BigEndian.Uint32(b)), Abort: b[4]&settleAbort != 0}
	if b[4]&settleError != 0 {
		m.Err = &errMsg{}
		if err := json.Unmarshal(b[5:], m.Err); err != nil {
			return settleMsg{}, err
		}
		return m, nil
	}
	m.Result = json.RawMessage(b[5:])
	return m, nil
}
