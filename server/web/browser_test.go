package web_test

// Browser tests of the web app in real Chromium, driven by chromedp: the app
// served by a real server (server.New over a memory store, on httptest),
// used the way a person would through its buttons' accessible names.
//
// Chromium is found by internal/browsertest: on PATH (chromium, chromium-browser, google-chrome,
// headless-shell) or at $CODEMODE_CHROMIUM. Without it the tests skip,
// unless CODEMODE_BROWSER_TESTS=1 (.ci/run sets it, after installing
// Debian's chromium), when a missing browser is an error.
//
// Every wait is bounded (waitTimeout); nothing is asserted by sleeping.
// Where a test must see the board in the middle of a run, the run is held
// at its end by the server's Observer (hold) until the test has looked.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/google/go-cmp/cmp"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/browsertest"
	"github.com/codemode-dev/codemode/server"
)

var screenshotFlag = flag.String("screenshot", "", "also write the README's screenshot (preview.png: a preview over the flowchart board) to this PNG file (e.g. ../../docs/web-app.png)")

const (
	waitTimeout = 15 * time.Second // one condition in the page
	testTimeout = 90 * time.Second // a whole browser test
)

// hold pauses runs at their end, before the server sends run_end, while
// held: the test can look at what the page drew from the run's calls alone.
type hold struct {
	mu      sync.Mutex
	on      bool
	release chan struct{}
	reached chan struct{} // a run is being held
}

func (h *hold) arm() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.on, h.release, h.reached = true, make(chan struct{}), make(chan struct{}, 1)
}

func (h *hold) observe(_ context.Context, ev engine.Event) {
	if ev.Type != engine.EventRunEnd {
		return
	}
	h.mu.Lock()
	on, release, reached := h.on, h.release, h.reached
	h.on = false
	h.mu.Unlock()
	if !on {
		return
	}
	reached <- struct{}{}
	select {
	case <-release:
	case <-time.After(testTimeout): // a failed test must not leave the run stuck
	}
}

// let ends the hold.
func (h *hold) let() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.release != nil {
		close(h.release)
		h.release = nil
	}
}

// env is a server and a browser.
type env struct {
	t       *testing.T
	srv     *server.Server
	ts      *httptest.Server
	hold    *hold
	browser context.Context
	token   string

	mu        sync.Mutex
	usedFirst bool     // the browser's first tab is in use
	lastIDs   []string // Last-Event-ID of each board stream request
	jsErrors  []string
}

type envOptions struct {
	approve engine.ApprovalPolicy
	token   string
	wrap    func(http.Handler) http.Handler // if set, wraps the server (to hold or watch requests)
	store   server.Store                    // nil: a memory store
	tools   []engine.Tool                   // beside the whiteboard's
}

func newEnv(t *testing.T, o envOptions) *env {
	exe := browsertest.Chromium(t)
	e := &env{t: t, hold: &hold{}, token: o.token}
	store := o.store
	if store == nil {
		store = server.NewMemoryStore()
	}
	srv, err := server.New(server.Options{
		Store:    store,
		Approve:  o.approve,
		Token:    o.token,
		Observer: engine.ObserverFunc(e.hold.observe),
		Tools:    o.tools,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	var h http.Handler = srv
	if o.wrap != nil {
		h = o.wrap(srv)
	}
	e.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/events") {
			e.mu.Lock()
			e.lastIDs = append(e.lastIDs, r.Header.Get("Last-Event-ID"))
			e.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		e.hold.let()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		e.ts.Close()
	})

	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), browsertest.AllocatorOptions(exe)...)
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithListener(e.listen))
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
	})
	e.startTarget(bctx, "starting "+exe)
	e.browser = bctx
	t.Cleanup(func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, msg := range e.jsErrors {
			t.Errorf("the page threw: %s", msg)
		}
	})
	return e
}

// startTarget makes ctx's browser or tab. Its first Run binds the target's
// life to the context it is given, so that one has no deadline; the wait for
// it is bounded here.
func (e *env) startTarget(ctx context.Context, what string) {
	e.t.Helper()
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(ctx) }()
	select {
	case err := <-done:
		if err != nil {
			e.t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(30 * time.Second):
		e.t.Fatalf("%s: no answer in 30 s", what)
	}
}

// listen notes the page's uncaught exceptions (and unhandled rejections):
// each fails the test.
func (e *env) listen(ev any) {
	if ex, ok := ev.(*runtime.EventExceptionThrown); ok && ex.ExceptionDetails != nil {
		msg := ex.ExceptionDetails.Text
		if ex.ExceptionDetails.Exception != nil {
			msg += " " + ex.ExceptionDetails.Exception.Description
		}
		e.mu.Lock()
		e.jsErrors = append(e.jsErrors, msg)
		e.mu.Unlock()
	}
}

// tab is a page in the browser (the first call uses the browser's first
// tab), opened at the app's fragment route.
type tab struct {
	e   *env
	ctx context.Context
}

func (e *env) open(route string) *tab {
	e.t.Helper()
	ctx := e.browser
	e.mu.Lock()
	first := !e.usedFirst
	e.usedFirst = true
	e.mu.Unlock()
	if !first {
		var cancel context.CancelFunc
		ctx, cancel = chromedp.NewContext(e.browser, chromedp.WithListener(e.listen))
		e.t.Cleanup(cancel)
		e.startTarget(ctx, "opening a tab")
	}
	tb := &tab{e: e, ctx: ctx}
	tb.run("opening the app", chromedp.EmulateViewport(1440, 900), chromedp.Navigate(e.ts.URL+"/"+route))
	return tb
}

// run runs actions, bounded by waitTimeout.
func (tb *tab) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	tb.e.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, waitTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.e.t.Fatalf("%s: %v\n%s", what, err, tb.state())
	}
}

// state describes the page, for failure messages.
func (tb *tab) state() string {
	ctx, cancel := context.WithTimeout(tb.ctx, 3*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({
		url: location.href,
		objects: document.querySelectorAll("#canvas g[data-id]").length,
		conn: document.querySelector("#conn")?.textContent,
		dialog: document.querySelector("#approval").open,
		timeline: document.querySelector("#timeline")?.innerText.slice(0, 1500),
		toast: document.querySelector("#toast")?.textContent,
	}, null, 1)`))
	return "page: " + s
}

// eval evaluates a JavaScript expression (awaiting a promise) into v.
func (tb *tab) eval(expr string, v any) {
	tb.e.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, waitTimeout)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr, chromedp.EvalAwaitPromise))
	if err == nil {
		err = json.Unmarshal(raw, v)
	}
	if err != nil {
		tb.e.t.Fatalf("evaluating %s: %v\n%s", expr, err, tb.state())
	}
}

// wait waits until a JavaScript expression is true.
func (tb *tab) wait(what, expr string) {
	tb.e.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, waitTimeout+time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(waitTimeout), chromedp.WithPollingInterval(20*time.Millisecond)))
	if err != nil {
		tb.e.t.Fatalf("waiting until %s: %v\n%s", what, err, tb.state())
	}
}

// click clicks the button with the accessible name.
func (tb *tab) click(label string) {
	tb.e.t.Helper()
	tb.run("clicking "+label, chromedp.Click(chromedp.CSS(fmt.Sprintf(`[aria-label=%q]:not([disabled])`, label)), chromedp.NodeVisible))
}

// setEditor puts text into the script or batch editor (as if pasted).
func (tb *tab) setEditor(mode, text string) {
	tb.e.t.Helper()
	tb.run("choosing the "+mode+" editor", chromedp.Click(chromedp.CSS("#tab-"+mode), chromedp.NodeVisible))
	src, _ := json.Marshal(text)
	var ok bool
	tb.eval(fmt.Sprintf(`(() => { const ta = document.querySelector("#%s-editor"); ta.value = %s; ta.dispatchEvent(new Event("input")); return true })()`, mode, src), &ok)
}

// ids are the data-ids of the objects drawn, in document order.
func (tb *tab) ids() []string {
	tb.e.t.Helper()
	var ids []string
	tb.eval(`[...document.querySelectorAll("#canvas g[data-id]")].map(g => g.getAttribute("data-id"))`, &ids)
	return ids
}

func (tb *tab) count(sel string) int {
	tb.e.t.Helper()
	var n int
	tb.eval(fmt.Sprintf(`document.querySelectorAll(%q).length`, sel), &n)
	return n
}

func (tb *tab) text(sel string) string {
	tb.e.t.Helper()
	var s string
	tb.eval(fmt.Sprintf(`document.querySelector(%q)?.textContent ?? ""`, sel), &s)
	return s
}

// boardID is the id of the board the page shows.
func (tb *tab) boardID() string {
	tb.e.t.Helper()
	tb.wait("a board is open", `/^#\/boards\/[A-Za-z0-9_-]+$/.test(location.hash) && document.querySelector("#conn").dataset.state === "live" && document.querySelector("#canvas").dataset.synced === "true"`)
	var h string
	tb.eval(`location.hash`, &h)
	return strings.TrimPrefix(h, "#/boards/")
}

// runState waits for the timeline's run to be in one of the given states.
func (tb *tab) runState(states ...string) {
	tb.e.t.Helper()
	js, _ := json.Marshal(states)
	tb.wait("the run is "+strings.Join(states, " or "), fmt.Sprintf(`%s.includes(document.querySelector("#timeline .run")?.dataset.state)`, js))
}

// api calls the server's API from Go.
func (e *env) api(method, path, body string) (int, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.ts.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	if e.token != "" {
		req.Header.Set("Authorization", "Bearer "+e.token)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	res, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, data
}

// newBoard creates a board through the API with the given objects.
func (e *env) newBoard(objects string) string {
	e.t.Helper()
	status, data := e.api(http.MethodPost, "/v1/boards", `{"name": "test", "objects": `+objects+`}`)
	var b struct{ ID string }
	if status != http.StatusCreated || json.Unmarshal(data, &b) != nil {
		e.t.Fatalf("creating a board: %d %s", status, data)
	}
	return b.ID
}

func readExample(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// screenshot saves the page as a PNG: into the test's artefacts
// ($CODEMODE_ARTIFACTS, else a temporary directory, named in the log) and,
// for the README's (readmeShot) with -screenshot, to that path too.
func (tb *tab) screenshot(name string) {
	t := tb.e.t
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, waitTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("taking a screenshot: %v", err)
	}
	dir := os.Getenv("CODEMODE_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	paths := []string{filepath.Join(dir, name)}
	if *screenshotFlag != "" && name == readmeShot {
		paths = append(paths, *screenshotFlag)
	}
	for _, p := range paths {
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", p)
	}
}

// readmeShot is the screenshot the README shows (TestPreviewScreenshot).
const readmeShot = "preview.png"

// held waits for a run to reach the hold.
func (tb *tab) held() {
	tb.e.t.Helper()
	select {
	case <-tb.e.hold.reached:
	case <-time.After(waitTimeout):
		tb.e.t.Fatalf("no run reached its end\n%s", tb.state())
	}
}

// TestFirstVisitAndBoardList: the first visit with no boards creates one
// and opens it; the list shows the boards; a board made from the list opens.
func TestFirstVisitAndBoardList(t *testing.T) {
	e := newEnv(t, envOptions{})
	tb := e.open("")
	first := tb.boardID()
	if got := tb.text("#crumb"); got != "My first board" {
		t.Errorf("crumb = %q, want the new board's name", got)
	}
	tb.wait("the empty board's hint shows", `document.querySelector("#canvas").classList.contains("is-empty")`)

	tb.run("going to the list", chromedp.Navigate(e.ts.URL+"/#/"))
	tb.wait("the list shows the board", fmt.Sprintf(`!!document.querySelector('#boards a[href="#/boards/%s"]')`, first))
	tb.run("naming a board", chromedp.SendKeys(chromedp.CSS("#new-board-name"), "Team retro"))
	tb.click("Create board")
	second := tb.boardID()
	if second == first {
		t.Fatalf("the new board has the first one's id %s", first)
	}
	tb.wait("the crumb names the new board", `document.querySelector("#crumb").textContent === "Team retro"`)
	_, data := e.api(http.MethodGet, "/v1/boards", "")
	var list struct{ Boards []server.BoardInfo }
	json.Unmarshal(data, &list)
	var names []string
	for _, b := range list.Boards {
		names = append(names, b.Name)
	}
	slices.Sort(names) // the server lists them in id order
	if diff := cmp.Diff([]string{"My first board", "Team retro"}, names); diff != "" {
		t.Errorf("boards on the server (-want +got):\n%s", diff)
	}
	tb.run("back to the list", chromedp.Navigate(e.ts.URL+"/#/"))
	tb.wait("both boards are listed", `document.querySelectorAll("#boards .card").length === 2`)
	tb.wait("thumbnails load", `[...document.querySelectorAll("#boards img")].every(i => i.complete && i.naturalWidth > 0)`)

	// A board deleted while open: the page says so and goes back to the list.
	tb.click("Open board Team retro")
	tb.boardID()
	if status, data := e.api(http.MethodDelete, "/v1/boards/"+second, ""); status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", status, data)
	}
	tb.wait("the page says the board was deleted", `document.querySelector("#toast").textContent === "This board was deleted."`)
	tb.wait("the list shows the board left", fmt.Sprintf(`location.hash === "#/" && document.querySelectorAll("#boards .card").length === 1 && !!document.querySelector('#boards a[href="#/boards/%s"]')`, first))
}

// TestBoardListPages: the list shows every board, however many pages of
// GET /v1/boards they take (1000 a page), the most recently changed first.
func TestBoardListPages(t *testing.T) {
	store := server.NewMemoryStore()
	const boards = 1001
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range boards {
		info := server.BoardInfo{ID: fmt.Sprintf("b%04d", i), Updated: t0.Add(time.Duration(i) * time.Minute)}
		if _, err := store.CreateBoard(t.Context(), info, nil); err != nil {
			t.Fatal(err)
		}
	}
	e := newEnv(t, envOptions{store: store})
	tb := e.open("")
	tb.wait("every board is listed", fmt.Sprintf(`document.querySelectorAll("#boards .card").length === %d`, boards))
	tb.wait("the last changed first", `document.querySelector("#boards .card").getAttribute("href") === "#/boards/b1000"`)
}

// TestFlowchartLive: examples/flowchart.ts picked and run in the app; its
// shapes and connectors are drawn while the run streams (the run is held
// at its end until the page has all 14), one object at a time; undo empties
// the board in one step, redo brings it back. The final board is the
// screenshot.
func TestFlowchartLive(t *testing.T) {
	e := newEnv(t, envOptions{})
	tb := e.open("")
	id := tb.boardID()

	tb.click("Load example flowchart.ts")
	tb.wait("the editor holds the example", `document.querySelector("#script-editor").value.includes("Flowchart of a password reset")`)
	var same bool
	tb.eval(fmt.Sprintf(`document.querySelector("#script-editor").value === %s`, mustJSON(readExample(t, "flowchart.ts"))), &same)
	if !same {
		t.Error("the editor does not hold examples/flowchart.ts as it is")
	}
	// Record every object the page puts into the drawing.
	var ok bool
	tb.eval(`(() => {
		window.added = [];
		new MutationObserver(recs => {
			for (const r of recs) for (const n of r.addedNodes)
				if (n.nodeType === 1 && n.matches("g[data-id]")) window.added.push(n.getAttribute("data-id"));
				else if (n.nodeType === 1 && n.querySelector?.("g[data-id]")) window.added.push("whole board");
		}).observe(document.querySelector("#canvas"), {childList: true, subtree: true});
		return true })()`, &ok)

	e.hold.arm()
	tb.click("Run")
	tb.held()
	// The run has not ended for the page: run_end is held back. Yet every
	// shape and connector is drawn.
	tb.wait("7 shapes and 7 connectors are drawn", `document.querySelectorAll("#canvas g.items > g.shape[data-id]").length === 7 && document.querySelectorAll("#canvas g.connectors > g.connector[data-id]").length === 7`)
	tb.runState("running")
	if n := tb.count(`#timeline .call[data-state="ok"]`); n != 14 {
		t.Errorf("%d calls succeeded on the timeline while the run streams, want 14", n)
	}
	var added []string
	tb.eval(`window.added`, &added)
	if len(added) != 14 || slices.Contains(added, "whole board") {
		t.Errorf("objects put into the drawing one by one: %q, want the 14 objects, each on its own", added)
	}
	e.hold.let()
	tb.runState("succeeded")
	if got := tb.text("#timeline .log .log-msg"); got != "flowchart: 7 shapes, 7 connectors" {
		t.Errorf("the log line on the timeline = %q", got)
	}
	tb.wait("the footer says the run was committed", `/Committed to the board as version 2/.test(document.querySelector("#timeline .run-footer").textContent)`)
	drawn := tb.ids()
	slices.Sort(drawn)
	if diff := cmp.Diff(boardIDs(t, e, id), drawn); diff != "" {
		t.Errorf("objects drawn differ from the board's (-board +drawn):\n%s", diff)
	}

	tb.click("Undo")
	tb.wait("undo empties the board in one step", `document.querySelectorAll("#canvas g[data-id]").length === 0 && document.querySelector("#undo").disabled && !document.querySelector("#redo").disabled`)
	if got := boardIDs(t, e, id); len(got) != 0 {
		t.Errorf("after undo the board holds %q", got)
	}
	tb.click("Redo")
	tb.wait("redo brings the flowchart back", `document.querySelectorAll("#canvas g[data-id]").length === 14 && !document.querySelector("#undo").disabled && document.querySelector("#redo").disabled`)
	tb.click("Fit board to view")
	tb.wait("animations are over", `document.querySelectorAll("#canvas .fresh").length === 0`)
	tb.screenshot("flowchart.png")
}

// boardIDs are the ids of the board's objects on the server, sorted.
func boardIDs(t *testing.T, e *env, id string) []string {
	t.Helper()
	status, data := e.api(http.MethodGet, "/v1/boards/"+id, "")
	var b struct{ Objects []struct{ ID string } }
	if status != http.StatusOK || json.Unmarshal(data, &b) != nil {
		t.Fatalf("GET board: %d %s", status, data)
	}
	ids := []string{}
	for _, o := range b.Objects {
		ids = append(ids, o.ID)
	}
	slices.Sort(ids)
	return ids
}

const threeNotes = `[
	{"id": "n1", "type": "sticky", "x": 0, "y": 0, "width": 160, "height": 160, "text": "one"},
	{"id": "n2", "type": "sticky", "x": 200, "y": 0, "width": 160, "height": 160, "text": "two", "color": "pink"},
	{"id": "n3", "type": "sticky", "x": 400, "y": 0, "width": 160, "height": 160, "text": "three", "color": "green"}]`

// TestApprovalDialog: deleteObject is gated by default; the dialog lists
// the set of pending calls, one approved and one denied there; then a set
// approved with "Approve all".
func TestApprovalDialog(t *testing.T) {
	e := newEnv(t, envOptions{})
	id := e.newBoard(threeNotes)
	tb := e.open("#/boards/" + id)
	tb.boardID()
	tb.wait("the notes are drawn", `document.querySelectorAll("#canvas g[data-id]").length === 3`)

	tb.setEditor("script", `const r = await Promise.allSettled([
  tools.deleteObject({objectId: "n1"}),
  tools.deleteObject({objectId: "n2"}),
]);
return r.map(x => x.status);`)
	tb.click("Run")
	tb.wait("the dialog shows both calls", `document.querySelector("#approval").open && document.querySelectorAll("#approval .approval").length === 2`)
	var listed []string
	tb.eval(`[...document.querySelectorAll("#approval .approval")].map(a => a.querySelector(".call-tool").textContent + " " + JSON.parse(a.querySelector(".approval-args").textContent).objectId)`, &listed)
	if diff := cmp.Diff([]string{"deleteObject n1", "deleteObject n2"}, listed); diff != "" {
		t.Errorf("calls in the dialog (-want +got):\n%s", diff)
	}
	if n := tb.count("#canvas g[data-id]"); n != 3 {
		t.Errorf("%d objects drawn while the calls wait, want all 3", n)
	}
	tb.click("Approve call 0")
	tb.wait("call 0 is approved and the dialog stays for call 1", `document.querySelector('#approval .approval[data-call-id="0"]').dataset.decided === "approved" && document.querySelector("#approval").open`)
	tb.click("Deny call 1")
	tb.wait("the dialog closes", `!document.querySelector("#approval").open`)
	tb.runState("succeeded")
	tb.wait("n1 is gone, n2 and n3 stay", `JSON.stringify([...document.querySelectorAll("#canvas g[data-id]")].map(g => g.dataset.id)) === '["n2","n3"]'`)
	if got := tb.text(`#timeline .call[data-call-id="1"] .err-code`); got != "denied" {
		t.Errorf("the denied call's error code on the timeline = %q", got)
	}
	if got := tb.text(`#timeline .run-footer .result pre`); !strings.Contains(got, `"fulfilled"`) || !strings.Contains(got, `"rejected"`) {
		t.Errorf("the run's result on the timeline = %q", got)
	}
	if diff := cmp.Diff([]string{"n2", "n3"}, boardIDs(t, e, id)); diff != "" {
		t.Errorf("board (-want +got):\n%s", diff)
	}

	tb.setEditor("script", `await tools.deleteObject({objectId: "n3"}); return "done";`)
	tb.click("Run")
	tb.wait("the dialog asks again", `document.querySelector("#approval").open && document.querySelectorAll("#approval .approval").length === 1`)
	tb.click("Approve all")
	tb.wait("the dialog closes", `!document.querySelector("#approval").open`)
	tb.runState("succeeded")
	tb.wait("n3 is gone", `JSON.stringify([...document.querySelectorAll("#canvas g[data-id]")].map(g => g.dataset.id)) === '["n2"]'`)
}

// TestTwoTabs: two tabs on one board stay in sync: a batch run in one is
// drawn in the other (and is on its timeline), an undo in the other empties
// the first; a gated call can be answered from either tab.
func TestTwoTabs(t *testing.T) {
	e := newEnv(t, envOptions{})
	id := e.newBoard(`[]`)
	a := e.open("#/boards/" + id)
	b := e.open("#/boards/" + id)
	a.boardID()
	b.boardID()

	a.click("Load example retro.json")
	a.wait("the batch editor holds the example", `!document.querySelector("#batch-editor").hidden && document.querySelector("#batch-editor").value.includes("operations")`)
	a.click("Run")
	a.runState("succeeded")
	drawnA := a.ids()
	if len(drawnA) == 0 {
		t.Fatalf("the batch drew nothing\n%s", a.state())
	}
	b.wait("the other tab draws the same objects", fmt.Sprintf(`JSON.stringify([...document.querySelectorAll("#canvas g[data-id]")].map(g => g.dataset.id)) === %q`, mustJSON(drawnA)))
	b.runState("succeeded")
	var runA, runB string
	a.eval(`document.querySelector("#timeline .run").dataset.runId`, &runA)
	b.eval(`document.querySelector("#timeline .run").dataset.runId`, &runB)
	if runA != runB {
		t.Errorf("the tabs' timelines show runs %q and %q", runA, runB)
	}

	b.click("Undo")
	a.wait("the first tab is empty again", `document.querySelectorAll("#canvas g[data-id]").length === 0 && !document.querySelector("#redo").disabled`)
	// Both timelines mark the run taken back, and back again after a redo.
	a.runState("undone")
	b.runState("undone")

	// A gated call started in one tab, answered in the other: both dialogs
	// close.
	b.click("Redo")
	a.wait("redo reaches the first tab", fmt.Sprintf(`document.querySelectorAll("#canvas g[data-id]").length === %d`, len(drawnA)))
	a.runState("succeeded")
	b.runState("succeeded")
	a.setEditor("script", fmt.Sprintf(`await tools.deleteObject({objectId: %q}); return 1`, drawnA[0]))
	a.click("Run")
	a.wait("the first tab asks", `document.querySelector("#approval").open`)
	b.wait("the second tab asks too", `document.querySelector("#approval").open`)
	b.click("Approve all")
	b.wait("the second tab's dialog closes", `!document.querySelector("#approval").open`)
	a.wait("the first tab's dialog closes", `!document.querySelector("#approval").open`)
	a.runState("succeeded")
	for _, tb := range []*tab{a, b} {
		tb.wait("the deleted object is gone", fmt.Sprintf(`!document.querySelector('#canvas g[data-id=%q]')`, drawnA[0]))
	}
}

// TestFailedScriptLeavesBoard: a script that draws and then fails is drawn
// live and rolled back: the board is as it was, in the page and on the
// server; with "atomic" unticked its partial work stays.
func TestFailedScriptLeavesBoard(t *testing.T) {
	e := newEnv(t, envOptions{})
	id := e.newBoard(threeNotes)
	tb := e.open("#/boards/" + id)
	tb.boardID()
	tb.wait("the notes are drawn", `document.querySelectorAll("#canvas g[data-id]").length === 3`)
	before := tb.ids()

	script := `await tools.createStickyNote({text: "temporary", x: 0, y: 300});
await tools.moveObject({objectId: "n1", x: 50, y: 500});
throw new Error("boom");`
	tb.setEditor("script", script)
	e.hold.arm()
	tb.click("Run")
	tb.held()
	tb.wait("the run's sticky is drawn while it streams", `document.querySelectorAll("#canvas g[data-id]").length === 4 && document.querySelector("#canvas").textContent.includes("temporary")`)
	e.hold.let()
	tb.runState("failed")
	tb.wait("the board is as it was", fmt.Sprintf(`JSON.stringify([...document.querySelectorAll("#canvas g[data-id]")].map(g => g.dataset.id)) === %q && !document.querySelector("#canvas").textContent.includes("temporary")`, mustJSON(before)))
	footer := tb.text("#timeline .run-footer")
	for _, want := range []string{"Script failed", "boom", "line 3", "Rolled back"} {
		if !strings.Contains(footer, want) {
			t.Errorf("the timeline's footer %q does not say %q", footer, want)
		}
	}
	if diff := cmp.Diff([]string{"n1", "n2", "n3"}, boardIDs(t, e, id)); diff != "" {
		t.Errorf("board on the server (-want +got):\n%s", diff)
	}
	var n1 string
	tb.eval(`document.querySelector('#canvas g[data-id="n1"] rect:last-of-type').getAttribute("y")`, &n1)
	if n1 != "0" {
		t.Errorf("n1 is drawn at y=%s after the rollback, want 0", n1)
	}

	tb.run("unticking atomic", chromedp.Click(chromedp.CSS("#atomic")))
	tb.click("Run")
	tb.runState("failed")
	tb.wait("the partial work stays", `document.querySelectorAll("#canvas g[data-id]").length === 4 && document.querySelector("#canvas").textContent.includes("temporary")`)
	if got := tb.text("#timeline .run-footer"); !strings.Contains(got, "Partial work kept") {
		t.Errorf("the timeline's footer = %q", got)
	}
	if got := boardIDs(t, e, id); len(got) != 4 {
		t.Errorf("board on the server: %q, want the 3 notes and the new one", got)
	}
}

// TestBatchErrorsOnTimeline: a batch with a misspelt tool: the timeline
// shows the failed operation with its code, message and suggestion, and the
// operation that depended on it; the failed batch is rolled back.
func TestBatchErrorsOnTimeline(t *testing.T) {
	e := newEnv(t, envOptions{})
	id := e.newBoard(`[]`)
	tb := e.open("#/boards/" + id)
	tb.boardID()
	tb.setEditor("batch", `{"operations": [
  {"tool": "createFrame", "label": "frame", "args": {"title": "Plan", "x": 0, "y": 0, "width": 600, "height": 400}},
  {"tool": "createStikyNote", "label": "note", "args": {"text": "Typo", "x": 20, "y": 60}},
  {"tool": "createConnector", "args": {"fromId": {"$ref": "frame.id"}, "toId": {"$ref": "note.id"}}}
]}`)
	tb.click("Run")
	tb.runState("failed")
	if got := tb.text(`#timeline .call[data-call-id="1"] .err-code`); got != "unknown_tool" {
		t.Errorf("operation 1's error code = %q", got)
	}
	if got := tb.text(`#timeline .call[data-call-id="1"] .suggest`); got != "did you mean createStickyNote?" {
		t.Errorf("operation 1's suggestion = %q", got)
	}
	if got := tb.text(`#timeline .call[data-call-id="2"] .err-code`); got != "dependency_failed" {
		t.Errorf("operation 2 (never started) shows %q", got)
	}
	if got := tb.text(`#timeline .call[data-call-id="0"] .call-label`); got != "frame" {
		t.Errorf("operation 0's label = %q", got)
	}
	if got := tb.text("#timeline .run-footer"); !strings.Contains(got, "1 of 3 operations succeeded") || !strings.Contains(got, "Rolled back") {
		t.Errorf("the timeline's footer = %q", got)
	}
	tb.wait("the frame the batch drew is rolled back", `document.querySelectorAll("#canvas g[data-id]").length === 0`)

	// A request the server refuses shows its error.
	tb.setEditor("batch", `{"operations": [], "bogus": 1}`)
	tb.click("Run")
	tb.wait("the refusal is shown", `document.querySelector("#timeline .run")?.dataset.state === "rejected"`)
	if got := tb.text("#timeline .err"); !strings.Contains(got, "bad_request") || !strings.Contains(got, "bogus") {
		t.Errorf("the refusal shown = %q", got)
	}
}

// TestTokenAndResume: with a token, the app takes it from #token=… (and
// out of the address bar), sends it with every request, and after a
// dropped connection resumes its board stream with Last-Event-ID. A tab
// without the token asks for it.
func TestTokenAndResume(t *testing.T) {
	const token = "s3cret-token"
	e := newEnv(t, envOptions{token: token})
	id := e.newBoard(`[]`)
	// The address codemode serve prints: the token after the app's URL.
	tb := e.open("#token=" + token)
	tb.click("Open board test")
	if got := tb.boardID(); got != id {
		t.Fatalf("open board %q, want %q", got, id)
	}
	var href string
	tb.eval(`location.href`, &href)
	if strings.Contains(href, token) {
		t.Errorf("the token is still in the address bar: %s", href)
	}

	e.ts.CloseClientConnections()
	tb.wait("the stream is back", `document.querySelector("#conn").dataset.state === "live"`)
	deadline := time.Now().Add(waitTimeout)
	for {
		e.mu.Lock()
		ids := slices.Clone(e.lastIDs)
		e.mu.Unlock()
		if len(ids) >= 2 && ids[len(ids)-1] != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no board stream request resumed with Last-Event-ID: %q\n%s", ids, tb.state())
		}
		time.Sleep(20 * time.Millisecond)
	}
	status, data := e.api(http.MethodPost, "/v1/boards/"+id+"/batch", `{"operations": [{"tool": "createStickyNote", "args": {"text": "from curl", "x": 0, "y": 0}}]}`)
	if status != http.StatusOK {
		t.Fatalf("batch: %d %s", status, data)
	}
	tb.wait("a run from another client is drawn", `document.querySelector("#canvas").textContent.includes("from curl")`)
	tb.runState("succeeded")

	// A new tab has no token (it is kept per tab): the app asks for one.
	other := e.open("#/boards/" + id)
	other.wait("the token dialog opens", `document.querySelector("#token-dialog").open`)
	other.run("typing the token", chromedp.SendKeys(chromedp.CSS("#token-input"), token))
	other.click("Use token")
	other.wait("the board is drawn", `document.querySelector("#canvas").textContent.includes("from curl") && document.querySelector("#conn").dataset.state === "live"`)
}

// TestSSEParser: the app's SSE parser, in the browser, on chunks cut in
// awkward places: CR, LF and CRLF line ends (a CRLF split between chunks),
// comments, multi-line data, a field without a space, ids that persist, an
// event without data.
func TestSSEParser(t *testing.T) {
	e := newEnv(t, envOptions{})
	tb := e.open("#/")
	chunks := []string{
		"id: 1\r", "\nevent: board\r\ndata: {\"a\"", ":1}\n\n",
		": ping\n\n",
		"data: x\ndata: y\n\n",
		"event: e\rdata:no-space\r\r",
		"id: 2\nevent: z\n\n",
		"data: after\n", "\n",
		"data: unfinished",
	}
	type event struct{ Type, Data, ID string }
	var got []event
	tb.eval(fmt.Sprintf(`(async () => {
		const {SSEParser} = await import("./sse.js");
		const out = [];
		const p = new SSEParser(e => out.push({Type: e.type, Data: e.data, ID: e.id}));
		for (const c of %s) p.push(c);
		return out;
	})()`, mustJSON(chunks)), &got)
	want := []event{
		{"board", `{"a":1}`, "1"},
		{"message", "x\ny", "1"},
		{"e", "no-space", "1"},
		{"message", "after", "2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

// TestEditorKeys: in the editor Tab indents with two spaces and Shift+Tab
// outdents the selected lines; Escape then Tab leaves the editor; Ctrl+Enter
// runs.
func TestEditorKeys(t *testing.T) {
	e := newEnv(t, envOptions{})
	id := e.newBoard(`[]`)
	tb := e.open("#/boards/" + id)
	tb.boardID()
	tb.setEditor("script", "")
	value := func() string {
		var v string
		tb.eval(`document.querySelector("#script-editor").value`, &v)
		return v
	}
	tb.run("typing with a Tab", chromedp.Focus(chromedp.CSS("#script-editor")), chromedp.KeyEvent("x"), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent("y"))
	if got := value(); got != "x  y" {
		t.Errorf("after x, Tab, y the editor holds %q, want %q", got, "x  y")
	}
	tb.setEditor("script", "  a\n    b")
	var ok bool
	tb.eval(`(() => { const ta = document.querySelector("#script-editor"); ta.focus(); ta.setSelectionRange(0, ta.value.length); return true })()`, &ok)
	tb.run("Shift+Tab", chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift)))
	if got := value(); got != "a\n  b" {
		t.Errorf("after Shift+Tab on both lines the editor holds %q, want %q", got, "a\n  b")
	}
	tb.run("Tab", chromedp.KeyEvent(kb.Tab))
	if got := value(); got != "  a\n    b" {
		t.Errorf("after Tab on both lines the editor holds %q, want %q", got, "  a\n    b")
	}
	tb.run("Escape, Tab", chromedp.KeyEvent(kb.Escape), chromedp.KeyEvent(kb.Tab))
	tb.wait("the focus left the editor", `document.activeElement !== document.querySelector("#script-editor")`)
	if got := value(); got != "  a\n    b" {
		t.Errorf("Escape and Tab changed the editor to %q", got)
	}

	tb.setEditor("script", "return 6 * 7")
	tb.run("Ctrl+Enter", chromedp.Focus(chromedp.CSS("#script-editor")), chromedp.KeyEvent(kb.Enter, chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	tb.runState("succeeded")
	if got := tb.text("#timeline .run-footer .result pre"); got != "42" {
		t.Errorf("the result shown = %q, want 42", got)
	}
}
