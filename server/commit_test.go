package server

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
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

// TestCommitFails: a run whose commit the store refuses is answered as it
// ran, marked not committed; the server's board is the store's again and
// watchers are sent it.
func TestCommitFails(t *testing.T) {
	for _, err := range []error{ErrConflict, fmt.Errorf("disk full")} {
		t.Run(err.Error(), func(t *testing.T) {
			var logs bytes.Buffer
			s := newTestServer(t, Options{Store: failingCommits{NewMemoryStore(), err}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			ts, c := serveHTTP(t, s)
			createBoard(t, s, "b")
			_, sr := watchBoard(t, c, ts.URL, "b")
			next(t, sr)
			res, body := do(t, s, "POST", "/v1/boards/b/batch", batchOf(sticky("lost", 0)))
			if res.StatusCode != 200 || res.Header.Get("Codemode-Board-Committed") != "false" || res.Header.Get("Codemode-Board-Version") != "1" {
				t.Fatalf("%d %v %s", res.StatusCode, res.Header, body)
			}
			if !strings.Contains(string(body), `"successful": 1`) {
				t.Errorf("the run's own result: %s", body)
			}
			if got := getTexts(t, s, "b"); len(got) != 0 {
				t.Errorf("board %q", got)
			}
			end := untilEvent(t, sr, "run_end")
			if !strings.Contains(end.Data, `"board":{"version":1,"committed":false}`) {
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
