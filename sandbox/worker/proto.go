package worker

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/codemode-dev/codemode/sandbox/js"
	"github.com/codemode-dev/codemode/sandbox/wasm"
)

// The protocol between a pool and its workers: frames of a 4-byte
// big-endian length, one kind byte and a JSON payload, over the worker's
// stdin (host → worker) and stdout (worker → host).
const (
	kindHello   byte = 'H' // worker → host, first and unasked: helloMagic and the version (hello.go)
	kindConfig  byte = 'c' // host → worker, first: configMsg
	kindReady   byte = 'y' // worker → host: limits applied, ready to run
	kindRun     byte = 'r' // host → worker: runMsg
	kindSettle  byte = 's' // host → worker: settleMsg, binary (binary.go)
	kindHold    byte = 'h' // host → worker: holdMsg
	kindRelease byte = 'l' // host → worker: holdMsg
	kindCancel  byte = 'x' // host → worker: end the run now (no payload)
	kindCalls   byte = 't' // worker → host: []callMsg, one turn of the script (or its last part), binary (binary.go)
	kindMore    byte = 'u' // worker → host: a part of a turn's calls, more follows (binary.go)
	kindLog     byte = 'g' // worker → host: js.Log
	kindDone    byte = 'd' // worker → host: doneMsg

	kindModule   byte = 'm' // host → worker: before the first call of a module, u32 length, moduleMsg (JSON), the module (binary)
	kindLoaded   byte = 'o' // worker → host: "" when the module compiled, else why not
	kindWasmCall byte = 'w' // host → worker: 8-byte module id, then the call's arguments
	kindWasmDone byte = 'e' // worker → host: 0 and the result, or 1 and a JSON errMsg
)

// maxFrame bounds a frame from a worker: a worker is as untrusted as the
// script in it, so the host reads no more than this per message. A run
// whose result is larger fails with output_limit; a turn's calls may be
// larger, and are sent in parts (binary.go).
const maxFrame = 128 << 20

// maxToWorker bounds a frame from the host, which a worker reads whole.
const maxToWorker = 1 << 30

type configMsg struct {
	MemoryBytes  int64  `json:"memoryBytes"`            // RLIMIT_DATA
	StackBytes   int    `json:"stackBytes"`             // the largest goroutine stack
	WasmCacheDir string `json:"wasmCacheDir,omitempty"` // the WASM runtime's compilation cache
	Hardened     bool   `json:"hardened,omitempty"`     // run scripts with js.Hardened instead of js.Lean (Config.profile)
}

// moduleMsg is a module for a worker. Its module travels as raw bytes after
// the JSON (a Go tool's is megabytes: as a JSON string it cost ≈ 10 ms to
// encode and 60–90 ms to decode for graph.layout's 4.5 MB).
type moduleMsg struct {
	ID       uint64             `json:"id"`
	Binary   []byte             `json:"-"`
	Prepared bool               `json:"prepared,omitempty"` // Binary is what wasm.Runtime.Prepare made
	Options  wasm.ModuleOptions `json:"options"`
}

// encodeModule is a kindModule frame's body: the header's length, the
// header, the module.
func encodeModule(m moduleMsg) ([]byte, error) {
	head, err := marshal(m)
	if err != nil {
		return nil, err
	}
	b := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(head)+len(m.Binary)), uint32(len(head)))
	return append(append(b, head...), m.Binary...), nil
}

// decodeModule reads a kindModule frame's body.
func decodeModule(body []byte) (moduleMsg, error) {
	var m moduleMsg
	if len(body) < 4 || uint64(binary.BigEndian.Uint32(body)) > uint64(len(body)-4) {
		return m, errors.New("worker: a malformed module message")
	}
	n := 4 + int(binary.BigEndian.Uint32(body))
	if err := json.Unmarshal(body[4:n], &m); err != nil {
		return m, err
	}
	m.Binary = body[n:]
	return m, nil
}

type runMsg struct {
	Code         string          `json:"code"`
	MaxCodeBytes int             `json:"maxCodeBytes,omitempty"`
	Limits       js.Limits       `json:"limits"`
	Input        json.RawMessage `json:"input,omitempty"`
	Tools        []string        `json:"tools,omitempty"`     // nil: the previous run's
	SameTools    bool            `json:"sameTools,omitempty"` // Tools is the previous run's
	Logs         bool            `json:"logs,omitempty"`      // send each console line as it is written
}

// callMsg and settleMsg travel in binary (binary.go).
type callMsg struct {
	Index        int
	Tool         string
	Args         json.RawMessage
	Line, Column int
}

type settleMsg struct {
	Index  int
	Result json.RawMessage
	Err    *errMsg
	Abort  bool
}

type holdMsg struct {
	Index int `json:"i"`
}

type errMsg struct {
	Code    js.Code         `json:"code"`
	Message string          `json:"message"`
	Line    int             `json:"line,omitempty"`
	Column  int             `json:"column,omitempty"`
	Props   json.RawMessage `json:"props,omitempty"`
	// Call is 1 + the index of the tool call whose error this is, so the host
	// can hand back its own value (js.Error.Cause); 0 for the run's own.
	Call int `json:"call,omitempty"`
}

type doneMsg struct {
	Value         json.RawMessage `json:"value,omitempty"`
	Logs          []js.Log        `json:"logs,omitempty"`
	LogsTruncated bool            `json:"logsTruncated,omitempty"`
	Err           *errMsg         `json:"err,omitempty"`
	ToolCalls     int             `json:"toolCalls"`
	LateCalls     int             `json:"lateCalls,omitempty"`
	TypeScript    bool            `json:"typescript,omitempty"`
	// Retire asks the host not to reuse the worker: part of the run could
	// not be stopped and may still be running in it.
	Retire bool `json:"retire,omitempty"`
}

// callCause is the Cause a worker gives the errors of rejected calls, so the
// run's final error can name the call it came from.
type callCause int

func toErrMsg(e *js.Error) *errMsg {
	if e == nil {
		return nil
	}
	m := &errMsg{Code: e.Code, Message: e.Message, Line: e.Line, Column: e.Column, Props: e.Props}
	if c, ok := e.Cause.(callCause); ok {
		m.Call = int(c) + 1
	}
	return m
}

func (m *errMsg) toError() *js.Error {
	if m == nil {
		return nil
	}
	return &js.Error{Code: m.Code, Message: m.Message, Line: m.Line, Column: m.Column, Props: m.Props}
}

// writeFrame writes one frame and flushes it: payload as JSON, or as it is
// when it is a []byte, or as the concatenation of a [][]byte.
func writeFrame(w *bufio.Writer, kind byte, payload any) error {
	var parts [][]byte
	switch p := payload.(type) {
	case nil:
	case []byte:
		parts = [][]byte{p}
	case [][]byte:
		parts = p
	default:
		body, err := marshal(payload)
		if err != nil {
			return err
		}
		parts = [][]byte{body}
	}
	n := 1
	for _, p := range parts {
		n += len(p)
	}
	if uint64(n) > math.MaxUint32 {
		// The length is 32 bits: a larger one would be read as a smaller
		// one, and the rest as frames the writer did not mean.
		return errFrameTooLarge{uint64(n), math.MaxUint32}
	}
	var hdr [5]byte
	binary.BigEndian.PutUint32(hdr[:4], uint32(n))
	hdr[4] = kind
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return w.Flush()
}

// marshal is json.Marshal without its HTML escaping: a script's result (a
// json.RawMessage, which Marshal would re-escape) reaches the host as the
// bytes goja wrote, the same as in process ("<", not "\u003c", in what a
// model reads).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// errFrameTooLarge is a frame over the reader's limit.
type errFrameTooLarge struct{ size, max uint64 }

func (e errFrameTooLarge) Error() string {
	return fmt.Sprintf("a message of %d bytes, over the worker protocol's limit of %d", e.size, e.max)
}

// readFrame reads one frame of at most max bytes.
func readFrame(r *bufio.Reader, max uint32) (byte, []byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n == 0 {
		return 0, nil, fmt.Errorf("an empty frame")
	}
	if n > max {
		return 0, nil, errFrameTooLarge{uint64(n), uint64(max)}
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return buf[0], buf[1:], nil
}
