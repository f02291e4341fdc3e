// Package clustertest holds every server.Cluster to the same behaviour:
// three replicas (server.New over one shared database, each with its own
// membership) serve every board as one server would. A cluster's own tests
// call Run:
//
//	func TestCluster(t *testing.T) {
//		clustertest.Run(t, func(t *testing.T, n int) []clustertest.Member { ... })
//	}
//
// It talks to the replicas only through their HTTP API, as clients behind a
// load balancer would.
package clustertest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/server"
)

// Member is one replica's store and membership of the cluster, over the
// same database as the others'. Kill, if set, ends the member as a killed
// process would end (without unlocking anything); nil: Cluster.Close.
type Member struct {
	Store   server.Store
	Cluster server.Cluster
	Kill    func()
}

// Open makes n members over one fresh, empty database.
type Open func(t *testing.T, n int) []Member

// Run runs the conformance tests.
func Run(t *testing.T, open Open) {
	t.Run("WatcherSeesAnotherReplicasRun", func(t *testing.T) { testWatcher(t, open) })
	t.Run("UndoAndDeleteOnAnother", func(t *testing.T) { testUndoDelete(t, open) })
	t.Run("ApprovalOnAnother", func(t *testing.T) { testApproval(t, open) })
	t.Run("RunsFromThreeReplicasInOrder", func(t *testing.T) { testSerialised(t, open) })
	t.Run("ResumeOnAnother", func(t *testing.T) { testResume(t, open) })
	t.Run("HolderDiesMidRun", func(t *testing.T) { testHolderDies(t, open) })
	t.Run("HolderDiesWithNobodyAfter", func(t *testing.T) { testHolderDiesAlone(t, open) })
	t.Run("HolderDiesWatcherComesBack", func(t *testing.T) { testHolderDiesWatcherBack(t, open) })
	t.Run("WatchBoardMadeAgain", func(t *testing.T) { testWatchMadeAgain(t, open) })
	t.Run("TryLock", func(t *testing.T) { testTryLock(t, open) })
	t.Run("CancelOnAnother", func(t *testing.T) { testCancel(t, open) })
	t.Run("PreviewOnAnother", func(t *testing.T) { testPreview(t, open) })
	t.Run("PreviewOfABoardMadeAgain", func(t *testing.T) { testPreviewMadeAgain(t, open) })
	t.Run("PreviewsOfAReplicaGone", func(t *testing.T) { testPreviewKeeperGone(t, open) })
}

// replica is one server of the cluster, served on a loopback port.
type replica struct {
	s   *server.Server
	url string
	m   Member
}

// gate is a tool that holds a run until the test lets it go.
type gate struct {
	open    chan struct{}
	entered chan struct{}
}

func newGate() *gate { return &gate{open: make(chan struct{}), entered: make(chan struct{}, 16)} }

func (g *gate) tool() engine.Tool {
	return engine.Tool{
		Name: "test.wait", Description: "Wait until the test lets the call go.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: engine.Annotations{ReadOnlyHint: true},
		Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			g.entered <- struct{}{}
			select {
			case <-g.open:
				return json.RawMessage(`{}`), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	}
}

// start starts n replicas; g, if set, is a tool of theirs.
func start(t *testing.T, open Open, n int, g *gate) []*replica {
	t.Helper()
	ms := open(t, n)
	var out []*replica
	for _, m := range ms {
		opts := server.Options{Store: m.Store, Cluster: m.Cluster}
		if g != nil {
			opts.Tools = []engine.Tool{g.tool()}
		}
		s, err := server.New(opts)
		if err != nil {
			t.Fatalf("server.New: %v", err)
		}
		ts := httptest.NewServer(s)
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s.Shutdown(ctx)
			ts.Close()
		})
		out = append(out, &replica{s: s, url: ts.URL, m: m})
	}
	return out
}

var client = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// call sends a request and returns its status and body.
func call(t *testing.T, method, url, body string, header ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, data
}

func must(t *testing.T, want int, method, url, body string) []byte {
	t.Helper()
	status, data := call(t, method, url, body)
	if status != want {
		t.Fatalf("%s %s: %d %s, want %d", method, url, status, data, want)
	}
	return data
}

func sticky(text string) string {
	return fmt.Sprintf(`{"operations":[{"tool":"createStickyNote","args":{"text":%q,"x":0,"y":0}}]}`, text)
}

// texts are the texts of a board's objects, as replica r serves it.
func texts(t *testing.T, r *replica, id string) (version float64, out []string) {
	t.Helper()
	var b struct {
		Version float64
		Objects []struct{ Text string }
	}
	json.Unmarshal(must(t, 200, "GET", r.url+"/v1/boards/"+id, ""), &b)
	for _, o := range b.Objects {
		out = append(out, o.Text)
	}
	return b.Version, out
}

// Event is one server-sent event, as a client reads it.
type Event struct{ ID, Type, Data string }

// ReadEvents reads an event stream's events into out, until it ends; then
// it closes out.
func ReadEvents(r io.Reader, out chan<- Event) {
	defer close(out)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	var ev Event
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.Type != "" {
				out <- ev
			}
			ev = Event{}
		case strings.HasPrefix(line, "id: "):
			ev.ID = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.Type = line[7:]
		case strings.HasPrefix(line, "data: "):
			ev.Data += line[6:]
		}
	}
}

// stream is an open event stream.
type stream struct {
	t      *testing.T
	res    *http.Response
	events chan Event
}

// watch opens board id's event stream on r.
func watch(t *testing.T, r *replica, id string, lastID string) *stream {
	t.Helper()
	req, _ := http.NewRequest("GET", r.url+"/v1/boards/"+id+"/events", nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := client.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("watching %s: %v %v", id, err, res)
	}
	st := &stream{t: t, res: res, events: make(chan Event, 1024)}
	go ReadEvents(res.Body, st.events)
	t.Cleanup(st.close)
	return st
}

func (st *stream) close() { st.res.Body.Close() }

// next is the stream's next event; it fails the test after 10 s.
func (st *stream) next() Event {
	st.t.Helper()
	select {
	case ev, ok := <-st.events:
		if !ok {
			st.t.Fatal("the stream ended")
		}
		return ev
	case <-time.After(10 * time.Second):
		st.t.Fatal("no event within 10 s")
	}
	return Event{}
}

// until reads events up to one of type typ, and returns them all.
func (st *stream) until(typ string) []Event {
	st.t.Helper()
	var out []Event
	for {
		ev := st.next()
		out = append(out, ev)
		if ev.Type == typ {
			return out
		}
	}
}

func types(evs []Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

// testWatcher: a watcher on B sees a run on A live, with ids that follow
// on, and B serves the board as A left it.
func testWatcher(t *testing.T, open Open) {
	rs := start(t, open, 3, nil)
	a, b := rs[0], rs[1]
	must(t, 201, "POST", a.url+"/v1/boards", `{"id":"w"}`)
	st := watch(t, b, "w", "")
	if ev := st.next(); ev.Type != "board" {
		t.Fatalf("first event %s", ev.Type)
	}
	must(t, 200, "POST", a.url+"/v1/boards/w/batch", sticky("from A"))
	got := st.until("run_end")
	if want := "run_start tool_call_start tool_call_end run_end"; strings.Join(types(got), " ") != want {
		t.Errorf("B's watcher got %q, want %q", types(got), want)
	}
	if !strings.Contains(got[2].Data, `"from A"`) {
		t.Errorf("tool_call_end without the change: %s", got[2].Data)
	}
	// The same on C's stream started now: the board, as A committed it.
	stc := watch(t, rs[2], "w", "")
	if ev := stc.next(); ev.Type != "board" || !strings.Contains(ev.Data, `"from A"`) {
		t.Errorf("C's first event %s %s", ev.Type, ev.Data)
	}
	eventually(t, func() bool {
		v, txt := texts(t, b, "w")
		return v == 2 && strings.Join(txt, ",") == "from A"
	}, "B serves the board as A committed it")
}

// eventually waits up to 10 s for cond: replicas learn of each other's
// changes through the cluster's notices, a moment after they happen.
func eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 10 s: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// testUndoDelete: a run on A undone on C, redone on B; deleted on C, the
// watchers on A see board_deleted and the board is gone everywhere.
func testUndoDelete(t *testing.T, open Open) {
	rs := start(t, open, 3, nil)
	a, b, c := rs[0], rs[1], rs[2]
	must(t, 201, "POST", a.url+"/v1/boards", `{"id":"u"}`)
	must(t, 200, "POST", a.url+"/v1/boards/u/batch", sticky("one"))
	st := watch(t, a, "u", "")
	st.next()
	must(t, 200, "POST", c.url+"/v1/boards/u/undo", "")
	if ev := st.next(); ev.Type != "board" || strings.Contains(ev.Data, `"one"`) {
		t.Errorf("A's watcher after C's undo: %s %s", ev.Type, ev.Data)
	}
	must(t, 200, "POST", b.url+"/v1/boards/u/redo", "")
	if ev := st.next(); ev.Type != "board" || !strings.Contains(ev.Data, `"one"`) {
		t.Errorf("A's watcher after B's redo: %s %s", ev.Type, ev.Data)
	}
	// A runs on the board as B left it.
	must(t, 200, "POST", a.url+"/v1/boards/u/batch", sticky("two"))
	if v, txt := texts(t, a, "u"); v != 5 || strings.Join(txt, ",") != "one,two" {
		t.Errorf("after A's second run: version %v %q", v, txt)
	}
	must(t, 204, "DELETE", c.url+"/v1/boards/u", "")
	if evs := st.until("board_deleted"); len(evs) == 0 {
		t.Fatal("no board_deleted")
	}
	for _, r := range rs {
		eventually(t, func() bool { s, _ := call(t, "GET", r.url+"/v1/boards/u", ""); return s == 404 }, "the board is gone on every replica")
	}
	// Made again: a new board, on every replica.
	must(t, 201, "POST", b.url+"/v1/boards", `{"id":"u"}`)
	must(t, 200, "POST", a.url+"/v1/boards/u/batch", sticky("new"))
	if v, txt := texts(t, c, "u"); v != 2 || strings.Join(txt, ",") != "new" {
		t.Errorf("the new board on C: version %v %q", v, txt)
	}
}

// testApproval: a run on A waits for approval; C lists and decides it.
func testApproval(t *testing.T, open Open) {
	rs := start(t, open, 3, nil)
	a, c := rs[0], rs[2]
	must(t, 201, "POST", a.url+"/v1/boards", `{"id":"p"}`)
	must(t, 200, "POST", a.url+"/v1/boards/p/batch", sticky("doomed"))
	st := watch(t, c, "p", "")
	st.next()
	done := make(chan []byte, 1)
	go func() {
		_, body := call(t, "POST", a.url+"/v1/boards/p/batch", `{"operations":[{"tool":"deleteObject","args":{"objectId":"sticky-1"}}]}`)
		done <- body
	}()
	ask := st.until("approval_required")[0:]
	var asked struct{ RunID string }
	json.Unmarshal([]byte(ask[len(ask)-1].Data), &asked)
	status, listed := call(t, "GET", c.url+"/v1/runs/"+asked.RunID+"/approvals", "")
	if status != 200 || !strings.Contains(string(listed), "deleteObject") {
		t.Fatalf("GET approvals on C: %d %s", status, listed)
	}
	if s, body := call(t, "POST", c.url+"/v1/runs/"+asked.RunID+"/approvals", `{"decisions":[{"callId":"9","approved":true}]}`); s != 400 {
		t.Errorf("a call not waiting, decided on C: %d %s", s, body)
	}
	must(t, 200, "POST", c.url+"/v1/runs/"+asked.RunID+"/approvals", `{"decisions":[{"callId":"0","approved":true}]}`)
	select {
	case body := <-done:
		if !strings.Contains(string(body), `"successful": 1`) {
			t.Errorf("the run on A: %s", body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the run on A did not end after C's decision")
	}
	if _, txt := texts(t, a, "p"); len(txt) != 0 {
		t.Errorf("after the approved delete: %q", txt)
	}
	if s, _ := call(t, "GET", c.url+"/v1/runs/"+asked.RunID+"/approvals", ""); s != 404 {
		t.Errorf("GET approvals of a run that is over: %d", s)
	}
}

// testSerialised: 30 runs on one board, ten from each replica at once, are
// all committed, one after another: 30 versions, 30 notes.
func testSerialised(t *testing.T, open Open) {
	rs := start(t, open, 3, nil)
	must(t, 201, "POST", rs[0].url+"/v1/boards", `{"id":"s"}`)
	var wg sync.WaitGroup
	var mu sync.Mutex
	committed := map[int64]int{} // a version a run committed: the replica that ran it
	for i, r := range rs {
		wg.Go(func() {
			for j := range 10 {
				// Not call: it may t.Fatal, which only the test's goroutine may.
				res, err := client.Post(r.url+"/v1/boards/s/batch", "application/json", strings.NewReader(sticky(fmt.Sprintf("r%d-%d", i, j))))
				if err != nil {
					t.Errorf("run %d on replica %d: %v", j, i, err)
					continue
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				var out struct{ Summary struct{ Successful int } }
				json.Unmarshal(body, &out)
				if res.StatusCode != 200 || out.Summary.Successful != 1 {
					t.Errorf("run %d on replica %d: %d %s", j, i, res.StatusCode, body)
					continue
				}
				v, err := strconv.ParseInt(res.Header.Get("Codemode-Board-Version"), 10, 64)
				mu.Lock()
				if prev, dup := committed[v]; err != nil || dup {
					t.Errorf("run %d on replica %d committed version %q (replica %d's too: %v)", j, i, res.Header.Get("Codemode-Board-Version"), prev, dup)
				}
				committed[v] = i
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	// One after another: the runs committed versions 2 to 31, each once.
	for v := int64(2); v <= 31; v++ {
		if _, ok := committed[v]; !ok {
			t.Errorf("no run committed version %d (committed: %v)", v, slices.Sorted(maps.Keys(committed)))
		}
	}
	// The replica that committed the last serves it at once; the others
	// once the cluster's notice reaches them (a read there a moment before
	// may still see the board one run behind: docs/design.md, "Events go
	// through a log per board").
	if last, ok := committed[31]; ok {
		if v, txt := texts(t, rs[last], "s"); v != 31 || len(txt) != 30 {
			t.Errorf("replica %d after committing the 30th run: version %v, %d notes, want 31 and 30", last, v, len(txt))
		}
	}
	for i, r := range rs {
		eventually(t, func() bool {
			v, txt := texts(t, r, "s")
			return v == 31 && len(txt) == 30
		}, fmt.Sprintf("replica %d serves the board after 30 runs", i))
	}
}

// testResume: a client that watched on A resumes on B with Last-Event-ID
// and is sent exactly what it missed.
func testResume(t *testing.T, open Open) {
	rs := start(t, open, 3, nil)
	a, b := rs[0], rs[1]
	must(t, 201, "POST", a.url+"/v1/boards", `{"id":"r"}`)
	st := watch(t, a, "r", "")
	st.next()
	must(t, 200, "POST", a.url+"/v1/boards/r/batch", sticky("seen"))
	seen := st.until("run_end")
	st.close()
	must(t, 200, "POST", rs[2].url+"/v1/boards/r/batch", sticky("missed"))
	st2 := watch(t, b, "r", seen[len(seen)-1].ID)
	missed := st2.until("run_end")
	if strings.Join(types(missed), " ") != "run_start tool_call_start tool_call_end run_end" || !strings.Contains(missed[2].Data, `"missed"`) {
		t.Errorf("resumed on B: %q", types(missed))
	}
	// Ids go on from where the client was.
	if missed[0].ID <= seen[len(seen)-1].ID && len(missed[0].ID) == len(seen[len(seen)-1].ID) {
		t.Errorf("ids %s then %s", seen[len(seen)-1].ID, missed[0].ID)
	}
}

// runHalfThenWait posts to r a script that makes a sticky note "half" on
// board id and then waits in the gate; the channel gets the answer's
// status (0 if there was none).
func runHalfThenWait(r *replica, id string) <-chan int {
	done := make(chan int, 1)
	go func() {
		res, err := client.Post(r.url+"/v1/boards/"+id+"/execute", "application/json",
			strings.NewReader(`{"code":"await tools.createStickyNote({text:'half',x:0,y:0}); await tools['test.wait']({}); return 1"}`))
		if err != nil {
			done <- 0
			return
		}
		res.Body.Close()
		done <- res.StatusCode
	}()
	return done
}

// kill ends a member as a killed replica ends (Member.Kill, else its
// Cluster's Close).
func kill(m Member) {
	if m.Kill != nil {
		m.Kill()
	} else {
		m.Cluster.Close()
	}
}

// testHolderDies: a replica that dies in a run frees the board for the
// others within seconds; its watchers elsewhere are sent the board whole,
// and the dead run's work is not committed over what came after.
func testHolderDies(t *testing.T, open Open) {
	g := newGate()
	rs := start(t, open, 3, g)
	a, b := rs[0], rs[1]
	must(t, 201, "POST", a.url+"/v1/boards", `{"id":"d"}`)
	st := watch(t, b, "d", "")
	st.next()
	done := runHalfThenWait(a, "d")
	<-g.entered
	st.until("tool_call_end") // B's watcher drew the half-done change
	kill(a.m)
	began := time.Now()
	must(t, 200, "POST", b.url+"/v1/boards/d/batch", sticky("after"))
	if d := time.Since(began); d > 30*time.Second {
		t.Errorf("the board was free again after %v", d)
	}
	var board Event
	for ev := st.next(); ; ev = st.next() {
		if ev.Type == "board" {
			board = ev
			break
		}
	}
	if strings.Contains(board.Data, `"half"`) {
		t.Errorf("the board sent whole after the holder died has the dead run's change: %s", board.Data)
	}
	close(g.open)
	select {
	case s := <-done:
		if s == 200 {
			t.Errorf("the dead replica's run was answered 200: its work would overwrite what came after")
		}
	case <-time.After(10 * time.Second):
	}
	if _, txt := texts(t, b, "d"); strings.Join(txt, ",") != "after" {
		t.Errorf("the board after: %q", txt)
	}
}

// testHolderDiesAlone: a replica that dies in a run, when no other replica
// changes the board after it: the watchers of every other replica, shown
// the dead run's half, are sent the board whole without it within seconds,
// and the board stays as it was committed.
func testHolderDiesAlone(t *testing.T, open Open) {
	g := newGate()
	rs := start(t, open, 3, g)
	a, b, c := rs[0], rs[1], rs[2]
	must(t, 201, "POST", a.url+"/v1/boards", `{"id":"d"}`)
	must(t, 200, "POST", a.url+"/v1/boards/d/batch", sticky("kept"))
	var sts []*stream
	for _, r := range []*replica{b, c} {
		st := watch(t, r, "d", "")
		st.until("board")
		sts = append(sts, st)
	}
	runHalfThenWait(a, "d")
	<-g.entered
	for _, st := range sts {
		st.until("tool_call_end") // the half-done change, drawn
	}
	kill(a.m)
	defer close(g.open)
	for i, st := range sts {
		board := st.until("board")
		data := board[len(board)-1].Data
		if strings.Contains(data, `"half"`) || !strings.Contains(data, `"kept"`) {
			t.Errorf("watcher %d: the board sent whole after the holder died: %s", i, data)
		}
	}
	for _, r := range []*replica{b, c} {
		if _, txt := texts(t, r, "d"); strings.Join(txt, ",") != "kept" {
			t.Errorf("the board after: %q", txt)
		}
	}
}

// testWatchMadeAgain: a board deleted on A and made again there is watched
// on B, which ran on it before and had nobody watching it since: B's
// watcher is sent the new board, not board_deleted (the old board's end,
// which B had nobody to tell).
func testWatchMadeAgain(t *testing.T, open Open) {
	rs := start(t, open, 2, nil)
	a, b := rs[0], rs[1]
	must(t, 201, "POST", a.url+"/v1/boards", `{"id":"m"}`)
	must(t, 200, "POST", b.url+"/v1/boards/m/batch", sticky("old"))
	must(t, 204, "DELETE", a.url+"/v1/boards/m", "")
	must(t, 201, "POST", a.url+"/v1/boards", `{"id":"m"}`)
	must(t, 200, "POST", a.url+"/v1/boards/m/batch", sticky("new"))
	st := watch(t, b, "m", "")
	if ev := st.next(); ev.Type != "board" || !strings.Contains(ev.Data, `"new"`) || strings.Contains(ev.Data, `"old"`) {
		t.Fatalf("B's watcher of the board made again: first event %s %s", ev.Type, ev.Data)
	}
	must(t, 200, "POST", a.url+"/v1/boards/m/batch", sticky("later"))
	if evs := st.until("run_end"); !strings.Contains(evs[len(evs)-2].Data, `"later"`) {
		t.Errorf("B's watcher after A's next run: %q", types(evs))
	}
}

// testTryLock: TryLock takes a free lock, says ErrBoardLocked for a held
// one, and finds a dead holder's lock free and Dirty.
func testTryLock(t *testing.T, open Open) {
	ctx := context.Background()
	ms := open(t, 3)
	k, err := ms[0].Cluster.Lock(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ms[1].Cluster.TryLock(ctx, "t"); !errors.Is(err, server.ErrBoardLocked) {
		t.Fatalf("TryLock of a held lock: %v, want ErrBoardLocked", err)
	}
	if err := k.Unlock(ctx, 0, 1, false); err != nil {
		t.Fatal(err)
	}
	k, err = ms[1].Cluster.TryLock(ctx, "t")
	if err != nil || k.State().Dirty || k.State().Version != 1 {
		t.Fatalf("TryLock of a free lock: %v, %+v", err, k)
	}
	kill(ms[1])
	// The dead holder's change ends as a server's does (its unlock fails).
	k.Unlock(ctx, 0, 1, false)
	// The dead holder's lock is free within seconds (its session ends).
	eventually(t, func() bool {
		k, err = ms[2].Cluster.TryLock(ctx, "t")
		return !errors.Is(err, server.ErrBoardLocked)
	}, "the dead holder's lock free")
	if err != nil || !k.State().Dirty {
		t.Fatalf("TryLock after the holder died: %v, %+v", err, k)
	}
	k.Unlock(ctx, 0, 1, false)
}

// testCancel: a run on A is canceled by a POST to B, at once after its
// run_start and again later (a young run is found all the same); the run
// ends canceled and rolled back, B's answer says so, and a run no replica
// runs is a 404 everywhere.
func testCancel(t *testing.T, open Open) {
	g := newGate()
	rs := start(t, open, 3, g)
	a, b := rs[0], rs[1]
	must(t, 201, "POST", a.url+"/v1/boards", `{"id":"c"}`)
	st := watch(t, b, "c", "")
	st.until("board")
	for _, wait := range []time.Duration{0, 1500 * time.Millisecond} {
		done := runHalfThenWait(a, "c")
		var runID string
		for _, ev := range st.until("run_start") {
			if ev.Type == "run_start" {
				var d struct{ RunID string }
				json.Unmarshal([]byte(ev.Data), &d)
				runID = d.RunID
			}
		}
		<-g.entered
		time.Sleep(wait) // a run that has gone on a while (registered) or not
		got := must(t, 200, "POST", b.url+"/v1/runs/"+runID+"/cancel", "")
		if s := strings.Join(strings.Fields(string(got)), ""); s != `{"runId":"`+runID+`","status":"canceled"}` {
			t.Errorf("cancel on B after %v: %s", wait, s)
		}
		end := st.until("run_end")
		if d := end[len(end)-1].Data; !strings.Contains(d, `"code":"canceled"`) || !strings.Contains(d, `"committed":false`) {
			t.Errorf("run_end after a cancel on B: %s", d)
		}
		if s := <-done; s != 200 {
			t.Errorf("the run's own answer: %d", s)
		}
		for _, r := range rs {
			must(t, 404, "POST", r.url+"/v1/runs/"+runID+"/cancel", "")
		}
	}
	if _, txt := texts(t, b, "c"); len(txt) != 0 {
		t.Errorf("the board after two canceled runs: %q", txt)
	}
}

// testHolderDiesWatcherBack: a watcher on B that left while A's run was
// under way (B's checks on it stopped with nobody to show) comes back after
// A died: it is replayed the open change, and then sent the board whole
// without it, within seconds.
func testHolderDiesWatcherBack(t *testing.T, open Open) {
	g := newGate()
	rs := start(t, open, 2, g)
	a, b := rs[0], rs[1]
	must(t, 201, "POST", a.url+"/v1/boards", `{"id":"r"}`)
	must(t, 200, "POST", a.url+"/v1/boards/r/batch", sticky("kept"))
	st := watch(t, b, "r", "")
	st.until("board")
	runHalfThenWait(a, "r")
	<-g.entered
	st.until("tool_call_end")
	st.close()
	time.Sleep(3 * time.Second) // B's check, armed while it had a watcher, finds none and stops
	kill(a.m)
	defer close(g.open)
	again := watch(t, b, "r", "")
	again.until("tool_call_end") // the dead run's half, replayed from the log
	for {
		ev := again.next()
		if ev.Type == "board" {
			if strings.Contains(ev.Data, `"half"`) || !strings.Contains(ev.Data, `"kept"`) {
				t.Errorf("the board sent whole after the holder died: %s", ev.Data)
			}
			return
		}
	}
}

// previewed is what a preview run's answer says of its preview.
type previewed struct {
	PreviewID   string
	RunID       string
	BaseVersion float64
}

// previewOn runs batch (a request without "preview") on board id as a
// preview on r, and returns the preview it made.
func previewOn(t *testing.T, r *replica, id, batch string) previewed {
	t.Helper()
	body := strings.TrimSuffix(batch, "}") + `,"preview":true}`
	var a struct{ Preview *previewed }
	if err := json.Unmarshal(must(t, 200, "POST", r.url+"/v1/boards/"+id+"/batch", body), &a); err != nil || a.Preview == nil || a.Preview.PreviewID == "" {
		t.Fatalf("a preview on %s: no preview in the answer (%v)", id, err)
	}
	return *a.Preview
}

// testPreview: a preview is kept by the replica that ran it, A, and used
// from another, B: fetched, applied (once: every replica's watchers see
// the apply and nothing of the preview before it, and every replica serves
// the board it made), discarded, and refused once the board moved on B.
func testPreview(t *testing.T, open Open) {
	rs := start(t, open, 3, nil)
	a, b := rs[0], rs[1]
	must(t, 201, "POST", a.url+"/v1/boards", `{"id":"v"}`)
	must(t, 200, "POST", a.url+"/v1/boards/v/batch", sticky("one"))
	var sts []*stream
	for _, r := range []*replica{a, b} {
		st := watch(t, r, "v", "")
		st.until("board")
		sts = append(sts, st)
	}
	p := previewOn(t, a, "v", sticky("two"))
	if p.BaseVersion != 2 {
		t.Errorf("the preview's baseVersion: %v, want 2", p.BaseVersion)
	}
	url := func(r *replica, id string) string { return r.url + "/v1/boards/v/previews/" + id }
	var got previewed
	json.Unmarshal(must(t, 200, "GET", url(b, p.PreviewID), ""), &got)
	if got != p {
		t.Errorf("GET on B: %+v, want %+v", got, p)
	}
	var applied struct {
		Version        float64
		AppliedPreview string
		RunID          string
	}
	json.Unmarshal(must(t, 200, "POST", url(b, p.PreviewID)+"/apply", ""), &applied)
	if applied.Version != 3 || applied.AppliedPreview != p.PreviewID || applied.RunID != p.RunID {
		t.Errorf("the apply on B answered %+v", applied)
	}
	for i, st := range sts {
		// The first event since the watch began: the preview's own
		// events went to its client only.
		ev := st.next()
		if ev.Type != "board" || !strings.Contains(ev.Data, `"appliedPreview":"`+p.PreviewID+`"`) ||
			!strings.Contains(ev.Data, `"appliedRun":"`+p.RunID+`"`) || !strings.Contains(ev.Data, `"two"`) {
			t.Errorf("watcher %d: first event %s %.300s", i, ev.Type, ev.Data)
		}
	}
	for _, r := range rs {
		eventually(t, func() bool {
			v, txt := texts(t, r, "v")
			return v == 3 && strings.Join(txt, ",") == "one,two"
		}, "every replica serves the applied board")
	}
	for _, r := range rs {
		must(t, 404, "POST", url(r, p.PreviewID)+"/apply", "")
		must(t, 404, "GET", url(r, p.PreviewID), "")
	}

	// Discarded on B: gone on A.
	p = previewOn(t, a, "v", sticky("discarded"))
	must(t, 204, "DELETE", url(b, p.PreviewID), "")
	for _, r := range []*replica{a, b} {
		must(t, 404, "GET", url(r, p.PreviewID), "")
		must(t, 404, "DELETE", url(r, p.PreviewID), "")
	}

	// Stale: B ran on the board since A's preview.
	p = previewOn(t, a, "v", sticky("stale"))
	must(t, 200, "POST", b.url+"/v1/boards/v/batch", sticky("three"))
	for range 2 {
		if status, body := call(t, "POST", url(b, p.PreviewID)+"/apply", ""); status != 409 || !strings.Contains(string(body), "nothing was applied") {
			t.Errorf("a stale preview applied on B: %d %s", status, body)
		}
	}
	for _, r := range rs {
		eventually(t, func() bool {
			v, txt := texts(t, r, "v")
			return v == 4 && strings.Join(txt, ",") == "one,two,three"
		}, "the board as B's run left it, everywhere")
	}
	must(t, 204, "DELETE", url(b, p.PreviewID), "") // a refused preview is still there to discard
	for i, st := range sts {
		if evs := st.until("run_end"); strings.Join(types(evs), " ") != "run_start tool_call_start tool_call_end run_end" {
			t.Errorf("watcher %d after the stale preview and B's run: %q", i, types(evs))
		}
	}
}

// testPreviewMadeAgain: a preview of a board that was deleted on another
// replica, and made again there up to the preview's version, is not applied
// to the new board (it is another board's change): 404, the new board as
// it was.
func testPreviewMadeAgain(t *testing.T, open Open) {
	rs := start(t, open, 2, nil)
	a, b := rs[0], rs[1]
	must(t, 201, "POST", a.url+"/v1/boards", `{"id":"m"}`)
	must(t, 200, "POST", a.url+"/v1/boards/m/batch", sticky("old"))
	p := previewOn(t, a, "m", sticky("previewed"))
	must(t, 204, "DELETE", b.url+"/v1/boards/m", "")
	must(t, 201, "POST", b.url+"/v1/boards", `{"id":"m"}`)
	must(t, 200, "POST", b.url+"/v1/boards/m/batch", sticky("new"))
	for _, r := range rs {
		if status, body := call(t, "POST", r.url+"/v1/boards/m/previews/"+p.PreviewID+"/apply", ""); status != 404 {
			t.Errorf("the old board's preview applied to the new on %s: %d %s", r.url, status, body)
		}
	}
	for _, r := range rs {
		if v, txt := texts(t, r, "m"); v != 2 || strings.Join(txt, ",") != "new" {
			t.Errorf("the new board: version %v, %q", v, txt)
		}
	}
}

// testPreviewKeeperGone: previews go with the replica that keeps them: one
// that dies (left the cluster) or shuts down leaves nothing to forward to,
// and the others answer 404 at once, not 503 after a wait.
func testPreviewKeeperGone(t *testing.T, open Open) {
	rs := start(t, open, 3, nil)
	a, b, c := rs[0], rs[1], rs[2]
	must(t, 201, "POST", a.url+"/v1/boards", `{"id":"g"}`)
	fromA := previewOn(t, a, "g", sticky("a"))
	fromC := previewOn(t, c, "g", sticky("c"))
	kill(a.m)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range []previewed{fromA, fromC} {
		url := b.url + "/v1/boards/g/previews/" + p.PreviewID
		for _, m := range []string{"GET", "DELETE", "POST"} {
			began := time.Now()
			u := url
			if m == "POST" {
				u += "/apply"
			}
			if status, body := call(t, m, u, ""); status != 404 {
				t.Errorf("%s of a gone replica's preview on B: %d %s", m, status, body)
			}
			if d := time.Since(began); d > 3*time.Second {
				t.Errorf("%s of a gone replica's preview on B took %v", m, d)
			}
		}
	}
	if v, txt := texts(t, b, "g"); v != 1 || len(txt) != 0 {
		t.Errorf("the board: version %v, %q", v, txt)
	}
}
