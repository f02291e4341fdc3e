package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/syncbuf"
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
	var logs syncbuf.Buffer
	s := newTestServer(t, Options{Cluster: forwardFails{NewMemoryCluster().Join()}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	createBoard(t, s, "b")
	for _, m := range []string{"GET", "DELETE"} {
		res, data := do(t, s, m, "/v1/boards/b/previews/pv_elsewhere", "")
		if _, msg := errorOf(t, data); res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" ||
			!strings.Contains(msg, "preview \"pv_elsewhere\" is kept by another replica, which cannot be reached now") {
			t.Errorf("%s: %d %s", m, res.StatusCode, data)
		}
	}
	if !strings.Contains(logs.String(), `preview=pv_elsewhere err="the database is away"`) {
		t.Errorf("the log: %s", logs.String())
	}
}

// holdingStore is a store whose commits can be held (hold: each waits in
// Commit, telling entered, until release), or fail once (fail).
type holdingStore struct {
	Store
	hold    atomic.Bool
	entered chan struct{}
	release chan struct{}
	fail    chan error
}

func newHoldingStore() *holdingStore {
	return &holdingStore{Store: NewMemoryStore(), entered: make(chan struct{}, 1), release: make(chan struct{}), fail: make(chan error, 1)}
}

func (h *holdingStore) Commit(ctx context.Context, id string, c Commit) (BoardState, error) {
	if h.hold.Load() {
		h.entered <- struct{}{}
		<-h.release
	}
	select {
	case err := <-h.fail:
		return BoardState{}, err
	default:
	}
	return h.Store.Commit(ctx, id, c)
}

// previewID runs body as a preview on board id and returns its id.
func previewID(t *testing.T, h http.Handler, id, body string) string {
	t.Helper()
	kind := "/batch"
	if strings.HasPrefix(body, `{"code"`) {
		kind = "/execute"
	}
	res, data := do(t, h, "POST", "/v1/boards/"+id+kind, body)
	p, _ := decode(t, data)["preview"].(map[string]any)
	if res.StatusCode != 200 || p == nil {
		t.Fatalf("preview on %s: %d %s", id, res.StatusCode, data)
	}
	return p["previewId"].(string)
}

// previewBatch is a batch previewing a sticky note text.
func previewBatch(text string) string {
	return `{"operations":[` + sticky(text, 0) + `],"preview":true}`
}

// boardVersion returns board id's version and undo steps.
func boardVersion(t *testing.T, h http.Handler, id string) (version, undoSteps float64) {
	t.Helper()
	_, data := do(t, h, "GET", "/v1/boards/"+id, "")
	b := decode(t, data)
	return b["version"].(float64), b["undoSteps"].(float64)
}

// TestPreviewDiscardDuringApply: a discard that comes while an apply of
// the same preview commits is a 404, as a second apply is: exactly one of
// them has it (the discard used to answer 204 for a preview then applied).
func TestPreviewDiscardDuringApply(t *testing.T) {
	st := newHoldingStore()
	s := newTestServer(t, Options{Store: st})
	createBoard(t, s, "b")
	id := previewID(t, s, "b", previewBatch("p"))
	st.hold.Store(true)
	applied := make(chan int, 1)
	go func() {
		res, _ := do(t, s, "POST", "/v1/boards/b/previews/"+id+"/apply", "")
		applied <- res.StatusCode
	}()
	<-st.entered
	for _, m := range []string{"DELETE", "GET"} {
		if res, data := do(t, s, m, "/v1/boards/b/previews/"+id, ""); res.StatusCode != 404 {
			t.Errorf("%s during the apply: %d %s", m, res.StatusCode, data)
		}
	}
	close(st.release)
	if status := <-applied; status != 200 {
		t.Errorf("the apply: %d", status)
	}
	if got := strings.Join(getTexts(t, s, "b"), ","); got != "p" {
		t.Errorf("the board: %q", got)
	}
}

// TestPreviewApplyStoreFails: an apply whose commit the store refuses
// (away: 503) changes nothing and keeps the preview, which applies once
// the store is back; one it refuses because another server committed
// (409) is kept to be discarded.
func TestPreviewApplyStoreFails(t *testing.T) {
	st := newHoldingStore()
	var logs syncbuf.Buffer
	s := newTestServer(t, Options{Store: st, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	createBoard(t, s, "b")
	id := previewID(t, s, "b", previewBatch("p"))
	apply := "/v1/boards/b/previews/" + id + "/apply"
	st.fail <- ErrUnavailable
	res, data := do(t, s, "POST", apply, "")
	if _, msg := errorOf(t, data); res.StatusCode != 503 || !strings.Contains(msg, "apply it again shortly") {
		t.Errorf("apply with the store away: %d %s", res.StatusCode, data)
	}
	if !strings.Contains(logs.String(), `applying a preview failed" board=b preview=`+id) {
		t.Errorf("the log: %s", logs.String())
	}
	mustDo(t, s, 200, "GET", "/v1/boards/b/previews/"+id, "")
	mustDo(t, s, 200, "POST", apply, "")
	if got := strings.Join(getTexts(t, s, "b"), ","); got != "p" {
		t.Errorf("the board: %q", got)
	}

	id = previewID(t, s, "b", previewBatch("q"))
	st.fail <- ErrConflict
	res, data = do(t, s, "POST", "/v1/boards/b/previews/"+id+"/apply", "")
	if _, msg := errorOf(t, data); res.StatusCode != 409 || !strings.Contains(msg, "nothing was applied") {
		t.Errorf("apply refused by the store: %d %s", res.StatusCode, data)
	}
	mustDo(t, s, 204, "DELETE", "/v1/boards/b/previews/"+id, "")
	if n := s.previews.count(); n != 0 {
		t.Errorf("%d previews kept", n)
	}
}

// checkPreviews checks the previews' books: what they count and weigh is
// what they hold, within every bound.
func checkPreviews(t *testing.T, ps *previews) (count, bytes, boardMost, boardHeaviest int) {
	t.Helper()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	byBoard, weighs, total := map[string]int{}, map[string]int{}, 0
	for e := ps.order.Front(); e != nil; e = e.Next() {
		p := e.Value.(*preview)
		if ps.byID[p.id] != p {
			t.Errorf("preview %s in the order, not by id", p.id)
		}
		if b := ps.boards[p.boardID]; b == nil || p.belem == nil || p.belem.Value != p {
			t.Errorf("preview %s is not in its board's list", p.id)
		}
		byBoard[p.boardID]++
		weighs[p.boardID] += p.weight()
		total += p.weight()
	}
	heldCount, heldWeighs := map[string]int{}, map[string]int{}
	for id, b := range ps.boards {
		heldCount[id], heldWeighs[id] = b.order.Len(), b.bytes
	}
	if len(ps.byID) != ps.order.Len() || total != ps.bytes || !maps.Equal(byBoard, heldCount) || !maps.Equal(weighs, heldWeighs) {
		t.Errorf("the books: %d by id, %d in order; %d bytes counted, %d held; by board %v, held %v; weighs %v, held %v",
			len(ps.byID), ps.order.Len(), ps.bytes, total, heldCount, byBoard, heldWeighs, weighs)
	}
	if total > ps.maxBytes {
		t.Errorf("the previews weigh %d bytes, more than %d", total, ps.maxBytes)
	}
	for b, n := range byBoard {
		if n > ps.maxPerBoard || weighs[b] > ps.boardBytes {
			t.Errorf("board %s has %d previews weighing %d bytes, more than %d or %d", b, n, weighs[b], ps.maxPerBoard, ps.boardBytes)
		}
		boardMost, boardHeaviest = max(boardMost, n), max(boardHeaviest, weighs[b])
	}
	return len(ps.byID), total, boardMost, boardHeaviest
}

// TestPreviewStorm: 8 clients preview on 16 boards at once, applying,
// discarding and fetching as they go, while the bounds hold at every
// moment: 6 a board, 4 × 2.5 KiB a board, 24,000 bytes in all. Every
// preview is found until it is pushed out; the cluster owns exactly the
// previews kept.
func TestPreviewStorm(t *testing.T) {
	cluster := NewMemoryCluster()
	s := newTestServer(t, Options{MaxPreviews: 6, MaxBoardBytes: 2560, MaxPreviewBytes: 24000, Cluster: cluster.Join()})
	if s.previews.maxPerBoard != 6 || s.previews.boardBytes != 4*2560 || s.previews.maxBytes != 24000 {
		t.Fatalf("bounds %d %d %d", s.previews.maxPerBoard, s.previews.boardBytes, s.previews.maxBytes)
	}
	const boards, clients, each = 16, 8, 40
	for i := range boards {
		createBoard(t, s, fmt.Sprint("b", i))
	}
	done := make(chan struct{})
	checked := make(chan [4]int) // checks, and the most seen: bytes, previews of a board, bytes of a board
	go func() {
		var seen [4]int
		for {
			select {
			case <-done:
				checked <- seen
				return
			default:
				_, bytes, most, heaviest := checkPreviews(t, s.previews)
				seen = [4]int{seen[0] + 1, max(seen[1], bytes), max(seen[2], most), max(seen[3], heaviest)}
			}
		}
	}()
	var wg sync.WaitGroup
	var statuses sync.Map // status → count
	for c := range clients {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(c), 1))
			for i := range each {
				board := fmt.Sprint("b", r.IntN(boards))
				if i%2 == 0 {
					board = "b0" // a board that has many, at its bounds
				}
				// The board's notes replaced by one of 60 to 1,000 bytes of
				// text: a preview weighs up to about 2,300 (its document
				// and previewOverhead), and an applied one keeps its board
				// under 2.5 KiB. (Deletes in a preview wait for no one.)
				id := previewID(t, s, board, `{"code":"for (const o of (await tools.getBoardState({})).objects) await tools.deleteObject({objectId: o.id}); await tools.createStickyNote({text: '`+
					strings.Repeat("x", 60+r.IntN(940))+`', x: 0, y: 0})","preview":true}`)
				var res *http.Response
				switch i % 4 {
				case 0:
					res, _ = do(t, s, "POST", "/v1/boards/"+board+"/previews/"+id+"/apply", "")
				case 1:
					res, _ = do(t, s, "DELETE", "/v1/boards/"+board+"/previews/"+id, "")
				default:
					res, _ = do(t, s, "GET", "/v1/boards/"+board+"/previews/"+id, "")
				}
				n, _ := statuses.LoadOrStore(res.StatusCode, new(atomic.Int32))
				n.(*atomic.Int32).Add(1)
			}
		})
	}
	wg.Wait()
	close(done)
	// Each bound was reached (within a preview's weight, 2,300 bytes).
	if seen := <-checked; seen[0] == 0 || seen[1] < 24000-2300 || seen[2] != 6 || seen[3] < 4*2560-2300 {
		t.Errorf("%d checks of the books; the most seen: %d bytes, %d previews of a board, %d bytes of a board", seen[0], seen[1], seen[2], seen[3])
	}
	statuses.Range(func(k, v any) bool {
		if code := k.(int); code != 200 && code != 204 && code != 404 && code != 409 {
			t.Errorf("%d answers %d", v.(*atomic.Int32).Load(), code)
		}
		return true
	})
	count, bytes, _, _ := checkPreviews(t, s.previews)
	if made := clients * each; count == 0 || count >= made/2 {
		t.Errorf("%d of %d previews kept: none pushed out?", count, made)
	}
	cluster.mu.Lock()
	owned := len(cluster.owners)
	cluster.mu.Unlock()
	if owned != count {
		t.Errorf("the cluster owns %d previews, %d are kept", owned, count)
	}
	t.Logf("%d previews kept, %d bytes", count, bytes)
}

// TestPreviewApplyStorm: 200 applies of one preview at once: exactly one
// is applied (200), every other finds it gone (404), and the board has
// one version and one undo step more.
func TestPreviewApplyStorm(t *testing.T) {
	s := newTestServer(t, Options{})
	twoStickies(t, s, "b")
	version, steps := boardVersion(t, s, "b")
	id := previewID(t, s, "b", previewBatch("once"))
	var wg sync.WaitGroup
	statuses := make(chan int, 200)
	for range 200 {
		wg.Go(func() {
			res, _ := do(t, s, "POST", "/v1/boards/b/previews/"+id+"/apply", "")
			statuses <- res.StatusCode
		})
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for st := range statuses {
		count[st]++
	}
	if !maps.Equal(count, map[int]int{200: 1, 404: 199}) {
		t.Errorf("answers %v, want one 200 and 199 404s", count)
	}
	if v, u := boardVersion(t, s, "b"); v != version+1 || u != steps+1 {
		t.Errorf("version %v and %v undo steps after, %v and %v before", v, u, version, steps)
	}
	if got := strings.Join(getTexts(t, s, "b"), ","); got != "one,two,once" {
		t.Errorf("the board: %q", got)
	}
}

// TestPreviewApplyRacesDiscard: an apply and a discard of one preview at
// once, 100 times: exactly one of them has it, and the board changed
// exactly when the apply did.
func TestPreviewApplyRacesDiscard(t *testing.T) {
	s := newTestServer(t, Options{})
	createBoard(t, s, "b")
	applied := 0
	for i := range 100 {
		id := previewID(t, s, "b", previewBatch(fmt.Sprint("p", i)))
		var apply, discard int
		var wg sync.WaitGroup
		wg.Go(func() {
			res, _ := do(t, s, "POST", "/v1/boards/b/previews/"+id+"/apply", "")
			apply = res.StatusCode
		})
		wg.Go(func() {
			res, _ := do(t, s, "DELETE", "/v1/boards/b/previews/"+id, "")
			discard = res.StatusCode
		})
		wg.Wait()
		if !(apply == 200 && discard == 404 || apply == 404 && discard == 204) {
			t.Fatalf("round %d: apply %d, discard %d", i, apply, discard)
		}
		if apply == 200 {
			applied++
		}
		if n := len(getTexts(t, s, "b")); n != applied {
			t.Fatalf("round %d: %d notes after %d applies", i, n, applied)
		}
	}
	if s.previews.count() != 0 {
		t.Errorf("%d previews kept", s.previews.count())
	}
	t.Logf("%d of 100 applied", applied)
}

// TestPreviewApplyRacesRun: an apply waits for a run under way on its
// board and then finds the board moved (409, the run's work kept); an
// apply and a run at once, 50 times, end as one order or the other: the
// board has every run's note, and a preview's exactly when its apply was
// answered 200 (before the run: else 409).
func TestPreviewApplyRacesRun(t *testing.T) {
	g := newGate()
	s := newTestServer(t, Options{Tools: []engine.Tool{g.tool()}})
	createBoard(t, s, "b")
	id := previewID(t, s, "b", previewBatch("previewed"))
	ran := make(chan int, 1)
	go func() {
		res, _ := do(t, s, "POST", "/v1/boards/b/execute", `{"code":"await tools.createStickyNote({text: 'run', x: 0, y: 0}); await tools['test.wait']({}); return 1"}`)
		ran <- res.StatusCode
	}()
	g.waitEntered(t) // the run holds the board
	applied := make(chan []byte, 1)
	go func() {
		_, data := do(t, s, "POST", "/v1/boards/b/previews/"+id+"/apply", "")
		applied <- data
	}()
	close(g.open)
	if status := <-ran; status != 200 {
		t.Fatalf("the run: %d", status)
	}
	if _, msg := errorOf(t, <-applied); !strings.Contains(msg, "at version 2, not 1") {
		t.Errorf("the apply after the run: %s", msg)
	}
	if got := strings.Join(getTexts(t, s, "b"), ","); got != "run" {
		t.Errorf("the board: %q", got)
	}
	mustDo(t, s, 204, "DELETE", "/v1/boards/b/previews/"+id, "")

	var want []string
	for i := range 50 {
		id := previewID(t, s, "b", previewBatch(fmt.Sprint("p", i)))
		var apply, run int
		var wg sync.WaitGroup
		wg.Go(func() {
			res, _ := do(t, s, "POST", "/v1/boards/b/previews/"+id+"/apply", "")
			apply = res.StatusCode
		})
		wg.Go(func() {
			res, _ := do(t, s, "POST", "/v1/boards/b/batch", batchOf(sticky(fmt.Sprint("r", i), 0)))
			run = res.StatusCode
		})
		wg.Wait()
		switch {
		case run != 200:
			t.Fatalf("round %d: the run %d", i, run)
		case apply == 200:
			want = append(want, fmt.Sprint("p", i), fmt.Sprint("r", i))
		case apply == 409:
			want = append(want, fmt.Sprint("r", i))
			mustDo(t, s, 204, "DELETE", "/v1/boards/b/previews/"+id, "")
		default:
			t.Fatalf("round %d: the apply %d", i, apply)
		}
	}
	if got := getTexts(t, s, "b")[1:]; !slices.Equal(got, want) {
		t.Errorf("the board %q, want %q", got, want)
	}
}

// TestPreviewTooLarge: a preview whose board would weigh more than
// MaxBoardBytes is a 413 and is not kept, streamed or not; the board is
// as it was.
func TestPreviewTooLarge(t *testing.T) {
	s := newTestServer(t, Options{MaxBoardBytes: 4096})
	ts, c := serveHTTP(t, s)
	twoStickies(t, s, "b")
	_, before := do(t, s, "GET", "/v1/boards/b", "")
	big := `{"code":"for (let i = 0; i < 5; i++) await tools.createStickyNote({text: 'x'.repeat(1000), x: 0, y: 0}); return 1","preview":true}`
	res, data := do(t, s, "POST", "/v1/boards/b/execute", big)
	if code, msg := errorOf(t, data); res.StatusCode != 413 || code != "limit_exceeded" || !strings.Contains(msg, "the preview was not kept") {
		t.Errorf("a preview too large: %d %s", res.StatusCode, data)
	}
	sres := post(t, c, ts.URL+"/v1/boards/b/execute", big, "Accept", "text/event-stream")
	defer sres.Body.Close()
	end := endOf(t, newSSEReader(sres.Body))
	if p, ok := end["preview"]; !ok || p != nil || !strings.Contains(fmt.Sprint(end["board"]), "the preview was not kept") {
		t.Errorf("run_end of a preview too large: %v", end)
	}
	if n := s.previews.count(); n != 0 {
		t.Errorf("%d previews kept", n)
	}
	if _, after := do(t, s, "GET", "/v1/boards/b", ""); string(after) != string(before) {
		t.Errorf("the board changed:\n%s\n%s", before, after)
	}
}

// TestPreviewHostileIDs: preview ids no server makes — long, unicode, path
// tricks, NUL, another case of a real one — are 404s (405 for a GET of what
// decodes to an apply), never a 5xx, alone and in a cluster (where they are
// forwarded first); the real preview is untouched.
func TestPreviewHostileIDs(t *testing.T) {
	store, cluster := NewMemoryStore(), NewMemoryCluster()
	servers := map[string]*Server{
		"alone":   newTestServer(t, Options{}),
		"replica": newTestServer(t, Options{Store: store, Cluster: cluster.Join()}),
	}
	keeper := newTestServer(t, Options{Store: store, Cluster: cluster.Join()})
	createBoard(t, servers["alone"], "b")
	createBoard(t, keeper, "b")
	for name, s := range servers {
		ts, c := serveHTTP(t, s)
		holder := s
		if name == "replica" {
			holder = keeper // the replica forwards to it
		}
		real := previewID(t, holder, "b", previewBatch("real"))
		ids := []string{
			strings.Repeat("a", 65), strings.Repeat("pv_", 3000), "pv_%E2%98%83", "%E2%98%83", "%2F", "%2F..%2F..%2Fboards%2Fb",
			"..", "...", "%2e%2e", ".", "%00", "pv_x%00", real + "%00", real + "%20", strings.ToLower(real), "pv_x%2Fapply",
			"pv_x;y", "*", "%FF%FE", real + "%2F..",
		}
		for _, id := range ids {
			for _, m := range []struct{ method, suffix string }{{"GET", ""}, {"DELETE", ""}, {"POST", "/apply"}, {"GET", "/apply"}} {
				req, err := http.NewRequest(m.method, ts.URL+"/v1/boards/b/previews/"+id+m.suffix, nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				res, err := c.Do(req)
				if err != nil {
					t.Fatalf("%s %s: %v", m.method, id, err)
				}
				data, _ := io.ReadAll(res.Body)
				res.Body.Close()
				want := res.StatusCode == 404
				if m.method == "GET" && m.suffix == "/apply" || strings.Contains(id, "%2F") {
					// A GET of an apply, or an id that decodes to
					// several parts of the path (an apply's, maybe).
					want = want || res.StatusCode == 405
				}
				if !want || !strings.Contains(string(data), `"code": "bad_request"`) {
					t.Errorf("%s: %s %.40s%s: %d %.200s", name, m.method, id, m.suffix, res.StatusCode, data)
				}
			}
		}
		mustDo(t, s, 200, "GET", "/v1/boards/b/previews/"+real, "")
	}
}

// TestPreviewShutdown: once Shutdown began a preview run is refused and an
// apply too (503); a preview run under way ends, and Shutdown drops every
// preview (404 after), letting their ownership in the cluster go.
func TestPreviewShutdown(t *testing.T) {
	g := newGate()
	cluster := NewMemoryCluster()
	s, err := New(Options{Store: NewMemoryStore(), Cluster: cluster.Join(), Tools: []engine.Tool{g.tool()}})
	if err != nil {
		t.Fatal(err)
	}
	createBoard(t, s, "b")
	made := previewID(t, s, "b", previewBatch("before"))
	underWay := make(chan int, 1)
	go func() {
		res, _ := do(t, s, "POST", "/v1/boards/b/execute", `{"code":"await tools.createStickyNote({text: 'p', x: 0, y: 0}); await tools['test.wait']({}); return 1","preview":true}`)
		underWay <- res.StatusCode
	}()
	g.waitEntered(t)
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		shut <- s.Shutdown(ctx)
	}()
	for !s.shuttingDown() {
		runtime.Gosched()
	}
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/v1/boards/b/batch", previewBatch("after")},
		{"POST", "/v1/boards/b/previews/" + made + "/apply", ""},
	} {
		if res, data := do(t, s, r.method, r.path, r.body); res.StatusCode != 503 {
			t.Errorf("%s %s while shutting down: %d %s", r.method, r.path, res.StatusCode, data)
		}
	}
	close(g.open)
	if status := <-underWay; status != 200 && status != 503 {
		t.Errorf("the preview under way: %d", status)
	}
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
	if n := s.previews.count(); n != 0 {
		t.Errorf("%d previews kept after Shutdown", n)
	}
	if res, _ := do(t, s, "GET", "/v1/boards/b/previews/"+made, ""); res.StatusCode != 404 {
		t.Errorf("a preview after Shutdown: %d", res.StatusCode)
	}
	cluster.mu.Lock()
	owned := len(cluster.owners)
	cluster.mu.Unlock()
	if owned != 0 {
		t.Errorf("the cluster still owns %d", owned)
	}
}

// TestPreviewsMemoryBounded: 2,000 previews on a long-lived server with
// MaxPreviews 2 on 4 boards: what is kept stays at 8 previews whatever
// came before, and the heap does not grow with the previews made.
func TestPreviewsMemoryBounded(t *testing.T) {
	s := newTestServer(t, Options{MaxPreviews: 2})
	for i := range 4 {
		twoStickies(t, s, fmt.Sprint("b", i))
	}
	text := strings.Repeat("y", 2000)
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var base uint64
	for i := range 2000 {
		board := fmt.Sprint("b", i%4)
		id := previewID(t, s, board, previewBatch(text))
		if i%3 == 0 {
			mustDo(t, s, 200, "GET", "/v1/boards/"+board+"/previews/"+id, "")
		}
		if i == 199 {
			base = heap()
		}
	}
	count, bytes, most, _ := checkPreviews(t, s.previews)
	if count != 8 || most != 2 || bytes > 8*(3000+previewOverhead) {
		t.Errorf("after 2,000 previews: %d kept (at most %d a board), %d bytes", count, most, bytes)
	}
	grown := int64(heap()) - int64(base)
	t.Logf("the heap grew by %d bytes over 1,800 previews", grown)
	if grown > 1<<20 {
		t.Errorf("the heap grew by %d bytes over 1,800 previews", grown)
	}
}

// TestPreviewExpiresInServer: a server's preview is there until its TTL
// (its expiresAt), and then gone for every request, its ownership in the
// cluster with it; the board is as it was. (In real time: the engine pools
// its calls' timers, which must not be made in a synctest bubble and
// reused outside it; TestPreviewsExpire times the previews in one.)
func TestPreviewExpiresInServer(t *testing.T) {
	const ttl = 300 * time.Millisecond
	cluster := NewMemoryCluster()
	s := newTestServer(t, Options{Cluster: cluster.Join(), PreviewTTL: ttl})
	twoStickies(t, s, "b")
	before := time.Now()
	_, data := do(t, s, "POST", "/v1/boards/b/batch", previewBatch("p"))
	p := decode(t, data)["preview"].(map[string]any)
	id := p["previewId"].(string)
	exp, err := time.Parse(time.RFC3339Nano, p["expiresAt"].(string))
	if err != nil || exp.Before(before.Add(ttl)) || exp.After(time.Now().Add(ttl)) {
		t.Errorf("expiresAt %v, want %v after the run (%v)", p["expiresAt"], ttl, err)
	}
	if time.Now().Before(exp) {
		mustDo(t, s, 200, "GET", "/v1/boards/b/previews/"+id, "")
	}
	time.Sleep(time.Until(exp))
	owned := func() int {
		cluster.mu.Lock()
		defer cluster.mu.Unlock()
		return len(cluster.owners)
	}
	for deadline := time.Now().Add(5 * time.Second); s.previews.count() != 0 || owned() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("5 s after its TTL: %d kept, %d owned", s.previews.count(), owned())
		}
	}
	for _, m := range []string{"GET", "DELETE", "POST"} {
		path := "/v1/boards/b/previews/" + id
		if m == "POST" {
			path += "/apply"
		}
		if res, data := do(t, s, m, path, ""); res.StatusCode != 404 {
			t.Errorf("%s after the TTL: %d %s", m, res.StatusCode, data)
		}
	}
	if got := strings.Join(getTexts(t, s, "b"), ","); got != "one,two" {
		t.Errorf("the board: %q", got)
	}
}

// TestPreviewCanceled: a preview run is stopped as any run is (POST
// .../cancel from another client): it ends canceled and, atomic, previews
// nothing; not atomic, what it did before the cancel is previewed.
func TestPreviewCanceled(t *testing.T) {
	g := newGate()
	s := newTestServer(t, Options{Tools: []engine.Tool{g.tool()}})
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "b")
	for _, atomic := range []bool{true, false} {
		res := post(t, c, ts.URL+"/v1/boards/b/execute",
			fmt.Sprintf(`{"code":"await tools.createStickyNote({text: 'half', x: 0, y: 0}); await tools['test.wait']({}); return 1","preview":true,"atomic":%v}`, atomic),
			"Accept", "text/event-stream")
		sr := newSSEReader(res.Body)
		start := next(t, sr).decode(t)
		g.waitEntered(t)
		if r, data := do(t, s, "POST", "/v1/runs/"+start["runId"].(string)+"/cancel", ""); r.StatusCode != 200 {
			t.Fatalf("cancel: %d %s", r.StatusCode, data)
		}
		end := endOf(t, sr)
		res.Body.Close()
		p, _ := end["preview"].(map[string]any)
		if end["success"] != false || !strings.Contains(fmt.Sprint(end["result"]), "canceled") || (p == nil) == !atomic {
			t.Errorf("atomic %v: run_end %v", atomic, end)
		}
		if want := map[bool]int{true: 0, false: 1}[atomic]; s.previews.count() != want {
			t.Errorf("atomic %v: %d previews kept", atomic, s.previews.count())
		}
	}
	if got := getTexts(t, s, "b"); len(got) != 0 {
		t.Errorf("the board: %q", got)
	}
}
