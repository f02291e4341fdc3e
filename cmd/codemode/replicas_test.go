//go:build unix

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/codemode-dev/codemode/internal/pgtest"
	"github.com/codemode-dev/codemode/server/clustertest"
)

// Replicas of codemode serve on one PostgreSQL database, as processes:
// what only whole processes show (a replica killed with SIGKILL, one that
// shuts down while its run waits, the database restarting under them).
// What replicas do for each other in normal work is server/clustertest's,
// run against PostgreSQL by server/pgstore's tests.

// startReplicas starts n codemode serve --store url.
func startReplicas(t *testing.T, url string, n int) []*servedCmd {
	t.Helper()
	var rs []*servedCmd
	for range n {
		rs = append(rs, startServe(t, "--addr", "127.0.0.1:0", "--store", url))
	}
	return rs
}

// watchEvents opens a board's event stream on s; its events arrive on the
// channel, which is closed when the stream ends.
func watchEvents(t *testing.T, s *servedCmd, board string) <-chan clustertest.Event {
	t.Helper()
	res, err := http.Get(s.base + "/v1/boards/" + board + "/events")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("watching %s: %v %v", board, err, res)
	}
	t.Cleanup(func() { res.Body.Close() })
	out := make(chan clustertest.Event, 256)
	go clustertest.ReadEvents(res.Body, out)
	return out
}

// untilType reads events up to one of type typ (failing after 30 s).
func untilType(t *testing.T, evs <-chan clustertest.Event, typ string) clustertest.Event {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-evs:
			if !ok {
				t.Fatalf("the stream ended before %s", typ)
			}
			if ev.Type == typ {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %s within 30 s", typ)
		}
	}
}

// halfThenAsk makes a sticky, then asks to delete it: the run waits for a
// person's approval (deleteObject is gated by default), holding its board,
// with a change drawn but not committed.
var halfThenAsk, _ = json.Marshal(map[string]string{"code": `await tools.createStickyNote({text: "half", x: 0, y: 300}); await tools.deleteObject({objectId: "sticky-1"}); return "done";`})

func mustDo(t *testing.T, s *servedCmd, want int, method, path, body string) string {
	t.Helper()
	code, out := s.do(t, method, path, body)
	if code != want {
		t.Fatalf("%s %s: %d %s, want %d\nserver's output:\n%s", method, path, code, out, want, s.stderr.String())
	}
	return out
}

// A replica killed with SIGKILL in the middle of a run: the board is free
// for the others at once, the dead run left nothing (its change is sent
// away from the watchers of other replicas), and what was committed before
// stays.
func TestReplicaKilledMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	rs := startReplicas(t, pgtest.URL(t), 3)
	a, b, c := rs[0], rs[1], rs[2]
	mustDo(t, a, 201, "POST", "/v1/boards", `{"id": "k"}`)
	mustDo(t, a, 200, "POST", "/v1/boards/k/batch", `{"operations":[{"tool":"createStickyNote","args":{"text":"kept","x":0,"y":0}}]}`)
	evs := watchEvents(t, b, "k")
	untilType(t, evs, "board")
	go func() { // answered by nobody: a dies (so not a.do, which fails the test)
		req, _ := http.NewRequest("POST", a.base+"/v1/boards/k/execute", strings.NewReader(string(halfThenAsk)))
		req.Header.Set("Content-Type", "application/json")
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	untilType(t, evs, "approval_required")
	a.cmd.Process.Signal(syscall.SIGKILL)
	<-a.done

	began := time.Now()
	mustDo(t, c, 200, "POST", "/v1/boards/k/batch", `{"operations":[{"tool":"createStickyNote","args":{"text":"after","x":300,"y":0}}]}`)
	if took := time.Since(began); took > 10*time.Second {
		t.Errorf("the board was free again after %v", took)
	}
	board := untilType(t, evs, "board")
	if strings.Contains(board.Data, `"half"`) || !strings.Contains(board.Data, `"kept"`) {
		t.Errorf("the board sent whole after the death: %s", board.Data)
	}
	if d := cmp.Diff([]string{"kept", "after"}, objectTexts(t, mustDo(t, b, 200, "GET", "/v1/boards/k", ""))); d != "" {
		t.Errorf("the board on B (-want +got):\n%s", d)
	}
}

// A replica told to stop (SIGTERM) while its run waits for approval: the
// run is decided on another replica, finishes and is committed before the
// replica leaves, exit status 0; the others go on from it, nothing lost.
func TestReplicaShutsDownGracefully(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	rs := startReplicas(t, pgtest.URL(t), 2)
	a, b := rs[0], rs[1]
	mustDo(t, a, 201, "POST", "/v1/boards", `{"id": "g"}`)
	evs := watchEvents(t, b, "g")
	untilType(t, evs, "board")
	answered := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest("POST", a.base+"/v1/boards/g/execute", strings.NewReader(string(halfThenAsk)))
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- err.Error()
			return
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		answered <- string(body)
	}()
	ask := untilType(t, evs, "approval_required")
	var asked struct{ RunID string }
	json.Unmarshal([]byte(ask.Data), &asked)
	a.cmd.Process.Signal(syscall.SIGTERM)
	mustDo(t, b, 200, "POST", "/v1/runs/"+asked.RunID+"/approvals", `{"decisions":[{"callId":"1","approved":true}]}`)
	if code := a.wait(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("exit status %d after SIGTERM, want 0:\n%s", code, a.stderr.String())
	}
	if body := <-answered; !strings.Contains(body, `"done"`) {
		t.Errorf("the run on the replica that stopped: %s", body)
	}
	end := untilType(t, evs, "run_end")
	if !strings.Contains(end.Data, `"committed":true`) {
		t.Errorf("run_end on B: %s", end.Data)
	}
	mustDo(t, b, 200, "POST", "/v1/boards/g/batch", `{"operations":[{"tool":"createStickyNote","args":{"text":"next","x":0,"y":0}}]}`)
	var st struct{ Version int }
	json.Unmarshal([]byte(mustDo(t, b, 200, "GET", "/v1/boards/g", "")), &st)
	if d := cmp.Diff([]string{"next"}, objectTexts(t, mustDo(t, b, 200, "GET", "/v1/boards/g", ""))); d != "" || st.Version != 3 {
		t.Errorf("the board after (version %d, want 3; -want +got):\n%s", st.Version, d)
	}
}

// The database going away under running replicas: runs are answered 503
// (to be tried again) in bounded time, and once it is back the replicas
// serve again, without a restart, live events included.
func TestReplicasDatabaseRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	srv := pgtest.Server(t)
	rs := startReplicas(t, srv.URL(t), 2)
	a, b := rs[0], rs[1]
	mustDo(t, a, 201, "POST", "/v1/boards", `{"id": "r"}`)
	run := `{"operations":[{"tool":"createStickyNote","args":{"text":"n","x":0,"y":0}}]}`
	mustDo(t, a, 200, "POST", "/v1/boards/r/batch", run)

	srv.Stop(t)
	began := time.Now()
	code, body := a.do(t, "POST", "/v1/boards/r/batch", run)
	if code != http.StatusServiceUnavailable || time.Since(began) > 30*time.Second {
		t.Errorf("a run with the database gone: %d after %v: %s", code, time.Since(began), body)
	}
	if code, body := b.do(t, "POST", "/v1/boards", `{"id": "r2"}`); code != http.StatusServiceUnavailable {
		t.Errorf("creating a board with the database gone: %d %s", code, body)
	}

	srv.Start(t)
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body = a.do(t, "POST", "/v1/boards/r/batch", run)
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no run committed within 30 s of the database's return: %d %s\n%s", code, body, a.stderr.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	// B follows A live again (its listening session came back too).
	evs := watchEvents(t, b, "r")
	untilType(t, evs, "board")
	mustDo(t, a, 200, "POST", "/v1/boards/r/batch", run)
	untilType(t, evs, "run_end")
}
