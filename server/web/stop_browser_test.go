package web_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestStop: a script that never ends shows Stop in the tab that started it
// and in another on the board; Stop in the other tab ends it: both
// timelines say canceled, the half-done sticky goes (the run was atomic),
// on the page and on the server, and Stop hides again. Then the tab that
// starts a run stops it itself.
func TestStop(t *testing.T) {
	e := newEnv(t, envOptions{})
	id := e.newBoard(threeNotes)
	a := e.open("#/boards/" + id)
	b := e.open("#/boards/" + id)
	a.boardID()
	b.boardID()
	for _, tb := range []*tab{a, b} {
		tb.wait("the notes are drawn", `document.querySelectorAll("#canvas g[data-id]").length === 3`)
		tb.wait("no Stop while nothing runs", `document.querySelector("#stop").hidden`)
	}
	a.setEditor("script", `await tools.createStickyNote({text: "half done", x: 0, y: 300});
for (;;) {}`)

	for i, stopper := range []*tab{b, a} {
		a.click("Run")
		for _, tb := range []*tab{a, b} {
			tb.wait("the half-done sticky is drawn", `document.querySelectorAll("#canvas g[data-id]").length === 4`)
			tb.wait("Stop shows", `!document.querySelector("#stop").hidden`)
		}
		stopper.click("Stop")
		for _, tb := range []*tab{a, b} {
			tb.runState("canceled")
			tb.wait("the board is as it was", `document.querySelectorAll("#canvas g[data-id]").length === 3 && !document.querySelector("#canvas").textContent.includes("half done")`)
			tb.wait("Stop hides", `document.querySelector("#stop").hidden`)
		}
		got := a.text("#timeline .run-footer")
		for _, want := range []string{"Script stopped", "canceled", "Rolled back"} {
			if !strings.Contains(got, want) {
				t.Errorf("round %d: the timeline's footer %q does not say %q", i, got, want)
			}
		}
		if diff := cmp.Diff([]string{"n1", "n2", "n3"}, boardIDs(t, e, id)); diff != "" {
			t.Errorf("round %d: board on the server (-want +got):\n%s", i, diff)
		}
		a.wait("Run is enabled again", `!document.querySelector("#run").disabled`)
	}
}

// TestEditorsWrapAndIcon: a long line in the editor wraps instead of
// running off to the right, and the page's icon loads.
func TestEditorsWrapAndIcon(t *testing.T) {
	e := newEnv(t, envOptions{})
	id := e.newBoard(`[]`)
	tb := e.open("#/boards/" + id)
	tb.boardID()
	tb.setEditor("script", "// "+strings.Repeat("a long comment that goes on and on ", 20)+"\nreturn 1")
	tb.wait("the long line wraps", `(() => { const ta = document.querySelector("#script-editor"); return getComputedStyle(ta).whiteSpace === "pre-wrap" && ta.scrollWidth <= ta.clientWidth })()`)
	tb.wait("the icon loads", `(() => { const l = document.querySelector('link[rel="icon"]'); return !!l && l.href.endsWith("favicon.svg") })()`)
	var status int
	tb.eval(`fetch("favicon.ico").then(r => r.status)`, &status)
	if status != 200 {
		t.Errorf("GET /favicon.ico from the page: %d", status)
	}
}

// TestStopFromLateTab: a tab opened while another client's script loops
// learns of the run from the board it is sent first, shows Stop, and stops
// it.
func TestStopFromLateTab(t *testing.T) {
	e := newEnv(t, envOptions{})
	id := e.newBoard(threeNotes)
	answered := make(chan string, 1)
	go func() {
		res, err := http.Post(e.ts.URL+"/v1/boards/"+id+"/execute", "application/json",
			strings.NewReader(`{"code": "await tools.createStickyNote({text: 'half done', x: 0, y: 300}); for (;;) {}"}`))
		if err != nil {
			answered <- err.Error()
			return
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		answered <- string(body)
	}()
	// The tab opens once the run is under way: the board a watcher is
	// sent first names it.
	for deadline := time.Now().Add(testTimeout); !firstBoardNamesARun(t, e, id); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the run was not under way in time")
		}
	}
	tb := e.open("#/boards/" + id)
	tb.boardID()
	tb.wait("the run's half-done sticky is drawn", `document.querySelectorAll("#canvas g[data-id]").length === 4`)
	tb.wait("Stop shows", `!document.querySelector("#stop").hidden`)
	tb.click("Stop")
	tb.wait("the board is as it was", `document.querySelectorAll("#canvas g[data-id]").length === 3`)
	tb.wait("Stop hides", `document.querySelector("#stop").hidden`)
	select {
	case body := <-answered:
		if !strings.Contains(body, `"code": "canceled"`) {
			t.Errorf("the run's answer: %s", body)
		}
	case <-time.After(testTimeout):
		t.Error("the run did not end")
	}
}

// firstBoardNamesARun reports whether the board a new watcher of board id
// is sent first names a run under way (runUnderWay).
func firstBoardNamesARun(t *testing.T, e *env, id string) bool {
	t.Helper()
	res, err := http.Get(e.ts.URL + "/v1/boards/" + id + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			return strings.Contains(data, `"runUnderWay":"run_`)
		}
	}
	return false
}
