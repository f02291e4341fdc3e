package server

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/sandbox/worker"
)

// TestWorkerRunner: with scripts in worker processes (as codemode serve
// runs them), a script's calls still work on its board, report their
// changes, and a failed script is rolled back.
func TestWorkerRunner(t *testing.T) {
	pool, err := worker.New(worker.Config{Warm: 1, Max: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() }) // after the server's shutdown (cleanups run last first)
	s := newTestServer(t, Options{Runner: pool})
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	res := post(t, c, ts.URL+"/v1/boards/b/execute", `{"code":"const a = await tools.createStickyNote({text: 'from a worker', x: 0, y: 0}); console.log(a.id); return a.id"}`, "Accept", "text/event-stream")
	evs := readAllSSE(t, res.Body)
	res.Body.Close()
	if got := types(evs); !slices.Equal(got, []string{"run_start", "tool_call_start", "tool_call_end", "log", "run_end"}) {
		t.Fatalf("events %q", got)
	}
	if !strings.Contains(evs[2].Data, `"change":{"objects":[{"id":"sticky-1"`) || !strings.Contains(evs[4].Data, `"board":{"version":2,"committed":true}`) {
		t.Errorf("events:\n%s\n%s", evs[2].Data, evs[4].Data)
	}
	do(t, s, "POST", "/v1/boards/b/execute", `{"code":"await tools.createStickyNote({text: 'gone', x: 0, y: 300}); throw new Error('no')"}`)
	if got := getTexts(t, s, "b"); !slices.Equal(got, []string{"from a worker"}) {
		t.Errorf("board %q", got)
	}
}

// forgedName is a tool name of 65,536 + 16 bytes written to be read,
// behind the 16-bit length the worker protocol once sent, as a call of
// createStickyNote followed by three calls that swallow the rest of the
// name and of the real call (engine/protocol_test.go has the same attack
// through the engine). Every byte is below 0x80: it passes through a
// JavaScript string unchanged.
func forgedName(t *testing.T) string {
	t.Helper()
	const tool = "createStickyNote"
	const total = 1<<16 + len(tool)
	b := []byte(tool)
	args := []byte(`{"text":"forged","x":0,"y":0}` + strings.Repeat(" ", 100-29))
	b = binary.BigEndian.AppendUint32(b, uint32(len(args)))
	b = append(b, args...)
	rest := total - len(b) + 4 + 2 // the name's rest, the real arguments' length and "{}"
	lens := []int{0x7f7f, 0x7f7f, rest - 3*19 - 2*0x7f7f}
	for i, n := range lens {
		b = binary.BigEndian.AppendUint32(b, uint32(i+1)) // index
		b = binary.BigEndian.AppendUint64(b, 0)           // line, column
		b = binary.BigEndian.AppendUint16(b, 1)
		b = append(b, 'x')
		b = binary.BigEndian.AppendUint32(b, uint32(n))
		if i < len(lens)-1 {
			b = append(b, strings.Repeat("x", n)...)
		}
	}
	for len(b) < total {
		b = append(b, 'x')
	}
	if len(b) != total || bytes.ContainsFunc(b, func(r rune) bool { return r >= 0x80 }) {
		t.Fatalf("the forged name has %d bytes, or one over 0x7f", len(b))
	}
	return string(b)
}

// TestWorkerCallsCannotBeForged: one call with a name crafted to forge a
// createStickyNote through the worker protocol is one unknown_tool call,
// as JSON and as a stream that ends with run_end; the board is unchanged.
func TestWorkerCallsCannotBeForged(t *testing.T) {
	pool, err := worker.New(worker.Config{Warm: 1, Max: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	s := newTestServer(t, Options{Runner: pool})
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	name, _ := json.Marshal(forgedName(t))
	body := `{"code":"try { await tools[input.name]({}) } catch (e) { return e.code }","input":{"name":` + string(name) + `}}`

	res, out := do(t, s, "POST", "/v1/boards/b/execute", body)
	var answer struct {
		Success bool
		Result  json.RawMessage
		Calls   []struct {
			Tool  string
			Error struct{ Code string }
		}
	}
	if res.StatusCode != 200 || json.Unmarshal(out, &answer) != nil {
		t.Fatalf("JSON answer %d: %.300s", res.StatusCode, out)
	}
	if string(answer.Result) != `"unknown_tool"` || len(answer.Calls) != 1 || answer.Calls[0].Error.Code != "unknown_tool" {
		t.Errorf("result %s, %d calls; want one unknown_tool call", answer.Result, len(answer.Calls))
	}

	sres := post(t, c, ts.URL+"/v1/boards/b/execute", body, "Accept", "text/event-stream")
	evs := readAllSSE(t, sres.Body)
	sres.Body.Close()
	if got := types(evs); !slices.Equal(got, []string{"run_start", "tool_call_start", "tool_call_end", "run_end"}) {
		t.Errorf("events %q", got)
	}
	for _, ev := range evs {
		if !json.Valid([]byte(ev.Data)) {
			t.Errorf("%s: data is not JSON: %.200s", ev.Type, ev.Data)
		}
	}
	if got := getTexts(t, s, "b"); len(got) != 0 {
		t.Errorf("the board has %q", got)
	}
}
