package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// JSON-RPC's error codes for messages that cannot be handled at all.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
)

// maxMessageBytes bounds one inbound message, as the SDK's own default.
const maxMessageBytes = sdk.DefaultMaxLineLength

// StdioTransport is the SDK's newline-delimited transport over in and out
// with one difference: a line that is not a JSON-RPC message — not JSON, or
// not a request, notification or response, or over 16 MiB — is answered
// with a JSON-RPC error (parse error or invalid request) and skipped. The
// SDK's transport ends the whole session on such a line; one client's bad
// line must cost it that line only.
//
// And when in ends, the requests under way are answered before the session
// ends: a client that writes its requests and closes its end ("printf ... |
// codemode mcp") still gets every answer, until the context given to
// Connect (Server.Run's) ends. Neither in nor out is closed.
func StdioTransport(in io.Reader, out io.Writer) sdk.Transport {
	open := &openRequests{ids: map[string]bool{}}
	open.settled = sync.NewCond(&open.mu)
	w := &lockedWriter{w: out, open: open}
	return &stdioTransport{open: open, io: &sdk.IOTransport{
		Reader: &messageFilter{in: bufio.NewReader(in), out: w, open: open},
		Writer: w,
	}}
}

type stdioTransport struct {
	open *openRequests
	io   *sdk.IOTransport
}

// Connect stops the wait for answers when ctx ends: Server.Run then
// closes the session, which waits for its reader.
func (t *stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	context.AfterFunc(ctx, t.open.close)
	return t.io.Connect(ctx)
}

// openRequests are the ids of the requests passed on and not yet answered.
type openRequests struct {
	mu      sync.Mutex
	settled *sync.Cond // signalled when an answer goes out or the session closes
	ids     map[string]bool
	closed  bool
}

func (o *openRequests) add(ids []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, id := range ids {
		o.ids[id] = true
	}
}

func (o *openRequests) answered(ids []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, id := range ids {
		delete(o.ids, id)
	}
	o.settled.Broadcast()
}

func (o *openRequests) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	o.settled.Broadcast()
}

// wait returns once every open request is answered or the session closes.
func (o *openRequests) wait() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for len(o.ids) > 0 && !o.closed {
		o.settled.Wait()
	}
}

// lockedWriter serialises the SDK's writes and the filter's error replies
// (each Write is one whole line), and notes the requests answered.
type lockedWriter struct {
	mu   sync.Mutex
	w    io.Writer
	open *openRequests
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	l.mu.Unlock()
	l.open.answered(responseIDs(p))
	return n, err
}

func (l *lockedWriter) Close() error { return nil }

// messageFilter passes on the lines that are JSON-RPC messages and answers
// the others.
type messageFilter struct {
	in      *bufio.Reader
	out     io.Writer
	open    *openRequests
	pending []byte // the rest of a line passed on
}

func (f *messageFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, err := f.readLine()
		if len(bytes.TrimSpace(line)) > 0 {
			if reply := checkMessage(line); reply != nil {
				if _, werr := f.out.Write(reply); werr != nil {
					return 0, werr
				}
			} else {
				f.open.add(requestIDs(line))
				f.pending = append(line, '\n')
			}
		}
		if err != nil && len(f.pending) == 0 {
			if errors.Is(err, io.EOF) {
				f.open.wait()
			}
			return 0, err
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// Close ends the wait for answers: the session is over.
func (f *messageFilter) Close() error {
	f.open.close()
	return nil
}

// errTooLong marks a line over maxMessageBytes; the rest of it is skipped.
var errTooLong = errors.New("too long")

// readLine returns the next line without its newline. A line over
// maxMessageBytes comes back as a marker that checkMessage rejects.
func (f *messageFilter) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := f.in.ReadSlice('\n')
		if len(line)+len(chunk) > maxMessageBytes {
			line = nil
			for errors.Is(err, bufio.ErrBufferFull) { // skip to the end of the line
				_, err = f.in.ReadSlice('\n')
			}
			return []byte(tooLongLine), dropErr(err)
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimSuffix(line, []byte("\n")), dropErr(err)
		}
	}
}

// dropErr keeps io.EOF and real read errors, not the end of a line.
func dropErr(err error) error {
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil
	}
	return err
}

// tooLongLine stands for a line over the limit: not JSON, so rejected.
const tooLongLine = "\x00too long"

// checkMessage returns nil for a line that is a JSON-RPC message, or the
// error reply to write for one that is not.
func checkMessage(line []byte) []byte {
	if string(line) == tooLongLine {
		return rpcError(nil, rpcParseError, fmt.Sprintf("message over %d bytes", maxMessageBytes))
	}
	if !json.Valid(line) {
		return rpcError(nil, rpcParseError, "parse error: not JSON")
	}
	trimmed := bytes.TrimSpace(line)
	if trimmed[0] != '[' {
		return checkObject(trimmed)
	}
	var batch []json.RawMessage
	if json.Unmarshal(trimmed, &batch) != nil || len(batch) == 0 {
		return rpcError(nil, rpcInvalidRequest, "invalid request: an empty batch")
	}
	for _, m := range batch {
		if reply := checkObject(m); reply != nil {
			return reply // a batch is passed on whole or not at all
		}
	}
	return nil
}

// checkObject checks one message: "jsonrpc": "2.0", an id that is a
// string or number when present, and a string method (request,
// notification) or a result or error (response).
func checkObject(raw json.RawMessage) []byte {
	var m struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return rpcError(nil, rpcInvalidRequest, "invalid request: not a JSON object")
	}
	var id json.RawMessage
	if len(m.ID) > 0 {
		if c := m.ID[0]; c != '"' && c != '-' && (c < '0' || c > '9') {
			return rpcError(nil, rpcInvalidRequest, "invalid request: id must be a string or a number")
		}
		id = m.ID
	}
	var method string
	switch {
	case m.JSONRPC == nil || *m.JSONRPC != "2.0":
		return rpcError(id, rpcInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	case len(m.Method) > 0:
		if json.Unmarshal(m.Method, &method) != nil || method == "" {
			return rpcError(id, rpcInvalidRequest, "invalid request: method must be a non-empty string")
		}
	case len(m.ID) == 0 || (len(m.Result) == 0 && len(m.Error) == 0):
		return rpcError(id, rpcInvalidRequest, "invalid request: neither a request, a notification nor a response")
	}
	return nil
}

// rpcErrorLine is a JSON-RPC error response.
type rpcErrorLine struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcErrorObject  `json:"error"`
}

type rpcErrorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// rpcError is a JSON-RPC error response line; id nil is written as null.
func rpcError(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	line, _ := json.Marshal(rpcErrorLine{JSONRPC: "2.0", ID: id, Error: rpcErrorObject{code, message}})
	return append(line, '\n')
}

// idsOf returns the ids of the messages of a line (one message or a
// batch) that keep pass, as comparable keys: the number 1 and 1.0 are one.
func idsOf(line []byte, keep func(method, result, errObj json.RawMessage) bool) []string {
	type message struct {
		ID     any             `json:"id"`
		Method json.RawMessage `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	var list []message
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '[' {
		if json.Unmarshal(line, &list) != nil {
			return nil
		}
	} else {
		var m message
		if json.Unmarshal(line, &m) != nil {
			return nil
		}
		list = []message{m}
	}
	var ids []string
	for _, m := range list {
		if m.ID != nil && keep(m.Method, m.Result, m.Error) {
			ids = append(ids, fmt.Sprint(m.ID))
		}
	}
	return ids
}

// requestIDs are the ids of a line's requests (which will be answered).
func requestIDs(line []byte) []string {
	return idsOf(line, func(method, _, _ json.RawMessage) bool { return len(method) > 0 })
}

// responseIDs are the ids of a line's responses.
func responseIDs(line []byte) []string {
	return idsOf(line, func(method, result, errObj json.RawMessage) bool {
		return len(method) == 0 && (len(result) > 0 || len(errObj) > 0)
	})
}
