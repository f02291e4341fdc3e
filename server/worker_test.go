package server

import (
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
