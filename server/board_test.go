package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine"
)

// boardTexts returns the texts of a board answer's objects, in board order.
func boardTexts(t *testing.T, body []byte) []string {
	t.Helper()
	var b struct {
		Objects []struct{ Text string } `json:"objects"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	out := []string{}
	for _, o := range b.Objects {
		out = append(out, o.Text)
	}
	return out
}

func getTexts(t *testing.T, h http.Handler, id string) []string {
	t.Helper()
	res, body := do(t, h, "GET", "/v1/boards/"+id, "")
	if res.StatusCode != 200 {
		t.Fatalf("GET board %s: %d %s", id, res.StatusCode, body)
	}
	return boardTexts(t, body)
}

func TestBoardLifecycle(t *testing.T) {
	s := newTestServer(t, Options{})
	res, body := do(t, s, "POST", "/v1/boards", `{"name":"Plan","objects":[{"id":"sticky-1","type":"sticky","x":0,"y":0,"width":200,"height":200,"text":"first","color":"yellow"}]}`)
	if res.StatusCode != 201 {
		t.Fatalf("create: %d %s", res.StatusCode, body)
	}
	b := decode(t, body)
	id, _ := b["id"].(string)
	if !regexp.MustCompile(`^b_[0-9a-z]{12}$`).MatchString(id) {
		t.Errorf("server-made id %q", id)
	}
	if loc := res.Header.Get("Location"); loc != "/v1/boards/"+id {
		t.Errorf("Location %q", loc)
	}
	if b["name"] != "Plan" || b["version"] != 1.0 || b["undoSteps"] != 0.0 {
		t.Errorf("created board %s", body)
	}
	createBoard(t, s, "second")
	res, body = do(t, s, "GET", "/v1/boards", "")
	var list struct{ Boards []BoardInfo }
	if err := json.Unmarshal(body, &list); err != nil || res.StatusCode != 200 {
		t.Fatalf("list: %d %s", res.StatusCode, body)
	}
	if len(list.Boards) != 2 || list.Boards[0].ID != id || list.Boards[1].ID != "second" {
		t.Errorf("list, oldest first: %+v", list.Boards)
	}
	if got := getTexts(t, s, id); !slices.Equal(got, []string{"first"}) {
		t.Errorf("objects %q", got)
	}
	res, body = do(t, s, "GET", "/v1/boards/"+id+"/svg", "")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(string(body), "<svg") || !strings.Contains(string(body), `data-id="sticky-1"`) {
		t.Errorf("svg: %d %s %.200s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	res, body = do(t, s, "DELETE", "/v1/boards/"+id, "")
	if res.StatusCode != 204 || len(body) != 0 {
		t.Fatalf("delete: %d %s", res.StatusCode, body)
	}
	if res, _ := do(t, s, "GET", "/v1/boards/"+id, ""); res.StatusCode != 404 {
		t.Errorf("GET after delete: %d", res.StatusCode)
	}
	res, body = do(t, s, "POST", "/v1/boards", `{"id":"`+id+`"}`)
	if res.StatusCode != 201 || len(boardTexts(t, body)) != 0 {
		t.Errorf("re-created after delete: %d %s", res.StatusCode, body)
	}
}

// TestRunsAreUndoSteps: each run is one undo step, whatever its number of
// calls; undo and redo walk them; a run that changed nothing adds none.
func TestRunsAreUndoSteps(t *testing.T) {
	s := newTestServer(t, Options{})
	createBoard(t, s, "b")
	run := func(body string) http.Header {
		res, out := do(t, s, "POST", "/v1/boards/b/batch", body)
		if res.StatusCode != 200 {
			t.Fatalf("run: %d %s", res.StatusCode, out)
		}
		return res.Header
	}
	h := run(`{"operations":[` + sticky("a1", 0) + `,` + sticky("a2", 300) + `],"executionMode":"sequential"}`)
	if h.Get("Codemode-Board-Version") != "2" || h.Get("Codemode-Board-Committed") != "true" || !strings.HasPrefix(h.Get("Codemode-Run-Id"), "run_") {
		t.Errorf("headers %v", h)
	}
	res, out := do(t, s, "POST", "/v1/boards/b/execute", `{"code":"await tools.createStickyNote({text: 'b1', x: 0, y: 300}); await tools.createStickyNote({text: 'b2', x: 300, y: 300});"}`)
	if res.StatusCode != 200 || decode(t, out)["success"] != true {
		t.Fatalf("script: %d %s", res.StatusCode, out)
	}
	h = run(batchOf(`{"tool":"getBoardState","args":{}}`))
	if h.Get("Codemode-Board-Version") != "3" || h.Get("Codemode-Board-Committed") != "true" {
		t.Errorf("a read-only run made a step: %v", h)
	}
	if got := getTexts(t, s, "b"); !slices.Equal(got, []string{"a1", "a2", "b1", "b2"}) {
		t.Fatalf("after two runs: %q", got)
	}
	steps := []struct {
		op   string
		want []string
	}{
		{"undo", []string{"a1", "a2"}},
		{"undo", []string{}},
		{"redo", []string{"a1", "a2"}},
		{"redo", []string{"a1", "a2", "b1", "b2"}},
		{"undo", []string{"a1", "a2"}},
	}
	for i, st := range steps {
		res, body := do(t, s, "POST", "/v1/boards/b/"+st.op, "")
		if res.StatusCode != 200 {
			t.Fatalf("step %d %s: %d %s", i, st.op, res.StatusCode, body)
		}
		if got := boardTexts(t, body); !slices.Equal(got, st.want) {
			t.Errorf("step %d %s: %q, want %q", i, st.op, got, st.want)
		}
	}
	// A new run after an undo drops what could be redone.
	run(batchOf(sticky("c", 0)))
	if res, _ := do(t, s, "POST", "/v1/boards/b/redo", ""); res.StatusCode != 409 {
		t.Errorf("redo after a new run: %d", res.StatusCode)
	}
	if got := getTexts(t, s, "b"); !slices.Equal(got, []string{"a1", "a2", "c"}) {
		t.Errorf("final: %q", got)
	}
}

// TestAtomic: a failed run is rolled back unless "atomic": false.
func TestAtomic(t *testing.T) {
	failing := func(extra string) string {
		return `{"operations":[` + sticky("kept?", 0) + `,{"tool":"deleteObject","args":{"objectId":"nope"}}],"executionMode":"sequential"` + extra + `}`
	}
	tests := []struct {
		name, path, body string
		committed        string
		want             []string
	}{
		{"batch rolled back", "batch", failing(""), "false", []string{}},
		{"batch atomic true", "batch", failing(`,"atomic":true`), "false", []string{}},
		{"batch atomic false", "batch", failing(`,"atomic":false`), "true", []string{"kept?"}},
		{"script rolled back", "execute", `{"code":"await tools.createStickyNote({text:'kept?',x:0,y:0}); throw new Error('boom')"}`, "false", []string{}},
		{"script atomic false", "execute", `{"code":"await tools.createStickyNote({text:'kept?',x:0,y:0}); throw new Error('boom')","atomic":false}`, "true", []string{"kept?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, Options{Approve: GateNone})
			createBoard(t, s, "b")
			res, body := do(t, s, "POST", "/v1/boards/b/"+tt.path, tt.body)
			if res.StatusCode != 200 {
				t.Fatalf("%d %s", res.StatusCode, body)
			}
			if got := res.Header.Get("Codemode-Board-Committed"); got != tt.committed {
				t.Errorf("committed %q, want %q", got, tt.committed)
			}
			if got := getTexts(t, s, "b"); !slices.Equal(got, tt.want) {
				t.Errorf("board %q, want %q", got, tt.want)
			}
			wantVersion := "1"
			if tt.committed == "true" {
				wantVersion = "2"
			}
			if got := res.Header.Get("Codemode-Board-Version"); got != wantVersion {
				t.Errorf("version %q, want %q", got, wantVersion)
			}
		})
	}
}

// TestSerialised: concurrent runs on one board never interleave: each
// run's calls form one block in the board's events, and in its objects.
func TestSerialised(t *testing.T) {
	s := newTestServer(t, Options{})
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	watch := get(t, c, ts.URL+"/v1/boards/b/events")
	defer watch.Body.Close()
	sr := newSSEReader(watch.Body)
	if ev, err := sr.next(); err != nil || ev.Type != "board" {
		t.Fatalf("first event %v %v", ev, err)
	}
	const runs, calls = 6, 5
	done := make(chan error, runs)
	for r := range runs {
		go func() {
			ops := make([]string, calls)
			for i := range ops {
				ops[i] = sticky(fmt.Sprintf("r%d-%d", r, i), i*10)
			}
			// Parallel mode: the calls of one run overlap each other, but
			// never another run's.
			res := post(t, c, ts.URL+"/v1/boards/b/batch", batchOf(ops...))
			res.Body.Close()
			if res.StatusCode != 200 {
				done <- fmt.Errorf("run %d: %d", r, res.StatusCode)
				return
			}
			done <- nil
		}()
	}
	for range runs {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	var current string
	finished := map[string]bool{}
	for n := 0; n < runs; {
		ev, err := sr.next()
		if err != nil {
			t.Fatal(err)
		}
		run, _ := ev.decode(t)["runId"].(string)
		switch {
		case ev.Type == "run_start":
			if current != "" {
				t.Fatalf("run %s started inside run %s", run, current)
			}
			current = run
		case run != current:
			t.Fatalf("%s of run %s inside run %s", ev.Type, run, current)
		case ev.Type == "run_end":
			finished[run], current = true, ""
			n++
		}
	}
	texts := getTexts(t, s, "b")
	if len(texts) != runs*calls {
		t.Fatalf("%d objects, want %d", len(texts), runs*calls)
	}
	for i := 0; i < len(texts); i += calls {
		prefix, _, _ := strings.Cut(texts[i], "-")
		for _, tx := range texts[i : i+calls] {
			if !strings.HasPrefix(tx, prefix+"-") {
				t.Fatalf("objects of runs interleave: %q", texts)
			}
		}
	}
	res, body := do(t, s, "GET", "/v1/boards/b", "")
	if v := decode(t, body)["version"]; res.StatusCode != 200 || v != float64(1+runs) {
		t.Errorf("version %v after %d runs", v, runs)
	}
}

// TestStateless: /v1/batch and /v1/execute work on a fresh board each time.
func TestStateless(t *testing.T) {
	s := newTestServer(t, Options{})
	for range 2 {
		res, body := do(t, s, "POST", "/v1/execute", `{"code":"await tools.createStickyNote({text:'x',x:0,y:0}); return (await tools.getBoardState({})).objects.length"}`)
		if res.StatusCode != 200 {
			t.Fatalf("%d %s", res.StatusCode, body)
		}
		if got := decode(t, body)["result"]; got != 1.0 {
			t.Errorf("objects on a fresh board: %v", got)
		}
		if res.Header.Get("Codemode-Board-Version") != "" {
			t.Errorf("stateless run with a board version")
		}
	}
	res, body := do(t, s, "POST", "/v1/batch", batchOf(sticky("a", 0), `{"tool":"getBoardState","args":{}}`))
	var got struct {
		Summary struct{ Successful int }
	}
	if err := json.Unmarshal(body, &got); err != nil || res.StatusCode != 200 || got.Summary.Successful != 2 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
}

// TestTraceCut: a script's answer has its call trace cut the way `codemode
// run` prints it, with the warning.
func TestTraceCut(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Limits.MaxResultChars = 200
	s := newTestServer(t, Options{Config: cfg})
	res, body := do(t, s, "POST", "/v1/execute", `{"code":"for (let i = 0; i < 5; i++) await tools.createStickyNote({text: 'note ' + i, x: i * 220, y: 0}); await tools.getBoardState({}); return 1"}`)
	var got engine.ExecuteResult
	if err := json.Unmarshal(body, &got); err != nil || res.StatusCode != 200 || !got.Success {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	last := got.Calls[len(got.Calls)-1]
	if last.Tool != "getBoardState" || !last.Truncated || !slices.Contains(got.Warnings, "the call trace was cut to fit the output limits (records marked truncated)") {
		t.Errorf("trace not cut: %+v %q", last, got.Warnings)
	}
}
