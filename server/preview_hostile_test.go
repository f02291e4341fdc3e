package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine"
)

// The attacks on previews (preview.go, previewapi.go): what a client, or
// several at once, can do to the previews' bounds, to an apply, and to the
// server that keeps them.

// TestPreviewOfBoardMadeAgainMidRun: a board deleted and made again (up to
// the same version) while a preview run on it was under way: its preview,
// kept after the delete forgot the board's previews, is the old board's
// change and is not applied to the new board (it used to be: the versions
// matched).
func TestPreviewOfBoardMadeAgainMidRun(t *testing.T) {
	g := newGate()
	s := newTestServer(t, Options{Tools: []engine.Tool{g.tool()}})
	createBoard(t, s, "b")
	mustDo(t, s, 200, "POST", "/v1/boards/b/batch", batchOf(sticky("old", 0)))
	answer := make(chan []byte, 1)
	go func() {
		_, data := do(t, s, "POST", "/v1/boards/b/execute",
			`{"code":"await tools.createStickyNote({text: 'previewed', x: 0, y: 0}); await tools['test.wait']({}); return 1","preview":true}`)
		answer <- data
	}()
	g.waitEntered(t)
	makeAgain(t, s, "b")
	close(g.open)
	id, _ := decode(t, <-answer)["preview"].(map[string]any)["previewId"].(string)
	res, data := do(t, s, "POST", "/v1/boards/b/previews/"+id+"/apply", "")
	if _, msg := errorOf(t, data); res.StatusCode != 404 || !strings.Contains(msg, "deleted and made again") {
		t.Errorf("the old board's preview applied to the new: %d %s", res.StatusCode, data)
	}
	if got := strings.Join(getTexts(t, s, "b"), ","); got != "new" {
		t.Errorf("the new board: %q", got)
	}
	if n := s.previews.count(); n != 0 {
		t.Errorf("%d previews kept", n)
	}
}

// forwardFails is a member of a cluster that cannot reach the replica a
// request is forwarded to.
type forwardFails struct{ Cluster }

func (forwardFails) Forward(context.Context, string, []byte) ([]byte, error) {
	return nil, errors.New("the database is away")
}

// TestPreviewForwardFails: a preview kept elsewhere whose replica cannot be
// reached is a 503 that says so (of the preview, not of "a run").
func TestPreviewForwardFails(t *testing.T) {
	s := newTestServer(t, Options{Cluster: forwardFails{NewMemoryCluster().Join()}})
	createBoard(t, s, "b")
	for _, m := range []string{"GET", "DELETE"} {
		res, data := do(t, s, m, "/v1/boards/b/previews/pv_elsewhere", "")
		if _, msg := errorOf(t, data); res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" ||
			!strings.Contains(msg, "preview \"pv_elsewhere\" is kept by another replica, which cannot be reached now") {
			t.Errorf("%s: %d %s", m, res.StatusCode, data)
		}
	}
}
