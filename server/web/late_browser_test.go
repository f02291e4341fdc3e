package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/codemode-dev/codemode/server"
)

// TestApprovalInLateTab: a run started over HTTP waits for an approval
// before any tab is open; a tab opened then shows the dialog (the board's
// stream sends a new watcher the sets still waiting), its answer lets the
// run go on, and the run finishes.
func TestApprovalInLateTab(t *testing.T) {
	e := newEnv(t, envOptions{})
	id := e.newBoard(threeNotes)

	// The run, from another client: its stream says when it waits.
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.ts.URL+"/v1/boards/"+id+"/batch",
		strings.NewReader(`{"operations": [{"tool": "deleteObject", "args": {"objectId": "n1"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := make(chan string, 16)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if typ, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				events <- typ
			}
		}
	}()
	waitFor := func(want string) {
		t.Helper()
		timeout := time.After(waitTimeout)
		for {
			select {
			case typ, ok := <-events:
				if !ok {
					t.Fatalf("the run's stream ended before %s", want)
				}
				if typ == want {
					return
				}
			case <-timeout:
				t.Fatalf("no %s on the run's stream", want)
			}
		}
	}
	waitFor("approval_required")

	tb := e.open("#/boards/" + id)
	tb.boardID()
	tb.wait("the late tab shows the dialog", `document.querySelector("#approval").open && document.querySelectorAll("#approval .approval").length === 1`)
	if got := tb.text("#approval .call-tool"); got != "deleteObject" {
		t.Errorf("the dialog asks about %q", got)
	}
	tb.click("Approve all")
	tb.wait("the dialog closes", `!document.querySelector("#approval").open`)
	waitFor("run_end")
	tb.runState("succeeded")
	tb.wait("n1 is gone", `JSON.stringify([...document.querySelectorAll("#canvas g[data-id]")].map(g => g.dataset.id)) === '["n2","n3"]'`)
	if diff := cmp.Diff([]string{"n2", "n3"}, boardIDs(t, e, id)); diff != "" {
		t.Errorf("board (-want +got):\n%s", diff)
	}
}

// TestFirstVisitsAtOnce: two tabs making their first visit to an empty
// server at the same moment (both have listed no boards before either makes
// one) end on the same first board, and the server holds only that one.
func TestFirstVisitsAtOnce(t *testing.T) {
	var mu sync.Mutex
	lists := 0
	bothListed := make(chan struct{})
	wrap := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && r.URL.Path == "/v1/boards" {
				// Hold each tab's first list until both have asked, so that
				// both see no board.
				mu.Lock()
				lists++
				if lists == 2 {
					close(bothListed)
				}
				n := lists
				mu.Unlock()
				if n <= 2 {
					select {
					case <-bothListed:
					case <-time.After(waitTimeout):
					}
				}
			}
			next.ServeHTTP(w, r)
		})
	}
	e := newEnv(t, envOptions{wrap: wrap})
	a := e.open("")
	b := e.open("")
	idA, idB := a.boardID(), b.boardID()
	if idA != idB {
		t.Errorf("the tabs opened boards %s and %s, want one first board", idA, idB)
	}
	_, data := e.api(http.MethodGet, "/v1/boards", "")
	var list struct{ Boards []struct{ ID, Name string } }
	json.Unmarshal(data, &list)
	if len(list.Boards) != 1 || list.Boards[0].Name != "My first board" {
		t.Errorf("boards on the server: %+v, want one, My first board", list.Boards)
	}
	if got := b.text("#crumb"); got != "My first board" {
		t.Errorf("crumb = %q", got)
	}
}

// refusingStore is a store whose commits another server always wins.
type refusingStore struct{ server.Store }

func (refusingStore) Commit(context.Context, string, server.Commit) (server.BoardState, error) {
	return server.BoardState{}, server.ErrConflict
}

// TestCommitRefusedOnTimeline: a run whose commit the store refuses is
// shown as not saved, with the server's reason, not as committed or rolled
// back; the drawing goes back to the board as stored.
func TestCommitRefusedOnTimeline(t *testing.T) {
	e := newEnv(t, envOptions{store: refusingStore{server.NewMemoryStore()}})
	id := e.newBoard(`[]`)
	tb := e.open("#/boards/" + id)
	tb.boardID()
	tb.setEditor("batch", `{"operations": [{"tool": "createStickyNote", "args": {"text": "lost", "x": 0, "y": 0}}]}`)
	tb.click("Run")
	tb.runState("succeeded", "failed")
	tb.wait("the footer says the run was not saved", `/Not saved \(bad_request\): the run's changes were not saved/.test(document.querySelector("#timeline .run-footer").textContent)`)
	tb.wait("the drawing is the stored board again", `document.querySelectorAll("#canvas g[data-id]").length === 0`)
}
