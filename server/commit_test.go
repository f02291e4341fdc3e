package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// failingCommits is a store whose commits fail with err: another server
// committed first (ErrConflict), or the store broke.
type failingCommits struct {
	Store
	err error
}

func (f failingCommits) Commit(context.Context, string, Commit) (BoardState, error) {
	return BoardState{}, f.err
}

// TestCommitFails: a run whose commit the store refuses is not answered as
// a success: 409 when another server committed first, 500 when the store
// failed, with the error object saying the run's changes were not saved
// (and the run's headers, marked not committed); its stream's run_end says
// so in "board". The server's board is the store's again and watchers are
// sent it.
func TestCommitFails(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
		code   string
		msg    string
	}{
		{ErrConflict, 409, "bad_request", `the run's changes were not saved: board "b" changed since the run started (another server committed to it first); run it again on the board as it is now`},
		{fmt.Errorf("disk full"), 500, "tool_error", "internal server error: the run's changes were not saved: the board store failed; the server's log has the details"},
	} {
		err := tc.err
		t.Run(err.Error(), func(t *testing.T) {
			var logs bytes.Buffer
			s := newTestServer(t, Options{Store: failingCommits{NewMemoryStore(), err}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			ts, c := serveHTTP(t, s)
			createBoard(t, s, "b")
			_, sr := watchBoard(t, c, ts.URL, "b")
			next(t, sr)
			res, body := do(t, s, "POST", "/v1/boards/b/batch", batchOf(sticky("lost", 0)))
			if res.StatusCode != tc.status || res.Header.Get("Codemode-Board-Committed") != "false" || res.Header.Get("Codemode-Board-Version") != "1" || !strings.HasPrefix(res.Header.Get("Codemode-Run-Id"), "run_") {
				t.Fatalf("%d %v %s", res.StatusCode, res.Header, body)
			}
			if code, msg := errorOf(t, body); code != tc.code || msg != tc.msg {
				t.Errorf("error %s %q, want %s %q", code, msg, tc.code, tc.msg)
			}
			if got := getTexts(t, s, "b"); len(got) != 0 {
				t.Errorf("board %q", got)
			}
			end := untilEvent(t, sr, "run_end")
			var ev struct {
				Board struct {
					Version   int64
					Committed bool
					Error     struct{ Code, Message string }
				}
			}
			if json.Unmarshal([]byte(end.Data), &ev); ev.Board.Version != 1 || ev.Board.Committed || ev.Board.Error.Code != tc.code || !strings.Contains(tc.msg, ev.Board.Error.Message) {
				t.Errorf("run_end %s", end.Data)
			}
			if ev := next(t, sr); ev.Type != "board" || len(ev.decode(t)["objects"].([]any)) != 0 {
				t.Errorf("after the failed commit: %s %s", ev.Type, ev.Data)
			}
			if !strings.Contains(logs.String(), "committing a run failed") || !strings.Contains(logs.String(), err.Error()) {
				t.Errorf("log: %s", logs.String())
			}
		})
	}
}

// TestCommitFailsAfterEarlyAnswer: a JSON run whose answer began while it
// waited for an approval (status 200 sent) and whose commit then fails has
// the error object as its body, not its result, and trailers saying it was
// not committed.
func TestCommitFailsAfterEarlyAnswer(t *testing.T) {
	s := newTestServer(t, Options{Store: failingCommits{NewMemoryStore(), ErrConflict}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ts, c := serveHTTP(t, s)
	res, body := do(t, s, "POST", "/v1/boards", `{"id":"b","objects":[{"id":"n1","type":"sticky","x":0,"y":0,"width":100,"height":100,"text":"x"}]}`)
	if res.StatusCode != 201 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	req, _ := http.NewRequest("POST", ts.URL+"/v1/boards/b/batch", strings.NewReader(`{"operations":[{"tool":"deleteObject","args":{"objectId":"n1"}}]}`))
	req.Header.Set("Content-Type", "application/json")
	early, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer early.Body.Close()
	runID := early.Header.Get("Codemode-Run-Id")
	if status, v := decide(t, c, ts.URL, runID, `{"decisions":[{"callId":"0","approved":true}]}`); status != 200 {
		t.Fatalf("%d %v", status, v)
	}
	data, _ := io.ReadAll(early.Body)
	if code, msg := errorOf(t, data); code != "bad_request" || !strings.HasPrefix(msg, "the run's changes were not saved") {
		t.Errorf("body %s", data)
	}
	if early.StatusCode != 200 || early.Trailer.Get("Codemode-Board-Committed") != "false" || early.Trailer.Get("Codemode-Board-Version") != "1" {
		t.Errorf("%d, trailers %v", early.StatusCode, early.Trailer)
	}
}
