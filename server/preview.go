package server

import (
	"container/list"
	"context"
	"crypto/rand"
	"encoding/json"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// A preview run (`"preview": true` on a board's execute or batch) runs on a
// copy of the board, as a run does, and changes nothing: its events go to
// its own client only, its board's watchers see nothing of it, and the
// board's lock is not taken (a preview never waits for the board, nor makes
// a run wait). What it made is kept here as a preview, which
// POST .../previews/{id}/apply commits as one undo step if the board has not
// moved since, and DELETE discards (previewapi.go).
//
// Calls that would wait for a person do not in a preview: nothing it does is
// real. The whiteboard's tools run on the copy unasked; another tool runs
// only if it is read-only, and is denied otherwise, whatever the approval
// policy (guardForPreview), since it may act outside the board.

// Defaults of the preview options.
const (
	DefaultPreviewTTL = 10 * time.Minute
	// DefaultMaxPreviews is per board.
	DefaultMaxPreviews = 16
	// DefaultMaxPreviewBytes is over all boards.
	DefaultMaxPreviewBytes = 256 << 20
)

// preview is what a preview run made. Set once, never changed.
type preview struct {
	id, boardID, runID string
	base               int64 // the board's version the run started from
	// created is when the board was made: a board deleted and made again
	// (on another replica, or while the run went on) can reach base
	// again, and is another board all the same.
	created time.Time
	board   *whiteboard.Board // the board as the run left it
	doc     []byte            // its document, what apply commits
	changes previewChanges
	expires time.Time

	// Guarded by the previews' mu:
	elem    *list.Element // in previews.order
	belem   *list.Element // in its board's list (boardPreviews.order)
	timer   *time.Timer   // expires it
	release func()        // lets go of its ownership in the cluster; nil if none
}

// previewChanges are the ids of the objects a preview adds, changes and
// deletes, each sorted.
type previewChanges struct {
	Added   []string `json:"added"`
	Updated []string `json:"updated"`
	Deleted []string `json:"deleted"`
}

// changed reports whether applying the preview changes the board.
func (c previewChanges) changed() bool {
	return len(c.Added)+len(c.Updated)+len(c.Deleted) > 0
}

// previewJSON is a preview as answers carry it: the run's answer and
// run_end's "preview", and GET .../previews/{id}.
type previewJSON struct {
	PreviewID   string         `json:"previewId"`
	RunID       string         `json:"runId"`
	BaseVersion int64          `json:"baseVersion"`
	Changes     previewChanges `json:"changes"`
	ExpiresAt   time.Time      `json:"expiresAt"`
	// SVG is the board as it would be once applied.
	SVG string `json:"svg"`
}

func (p *preview) json() previewJSON {
	return previewJSON{PreviewID: p.id, RunID: p.runID, BaseVersion: p.base, Changes: p.changes,
		ExpiresAt: p.expires.UTC(), SVG: string(boardSVG(p.board))}
}

// weight is what a preview counts against the bounds: its document, and
// previewOverhead for the rest (the board it holds takes a few times its
// document, as a board in memory does).
func (p *preview) weight() int { return len(p.doc) + previewOverhead }

// previewOverhead is what a preview weighs besides its document: its
// record, ids, timer and change lists (≈ 650 bytes measured for a small
// board), so that many small previews are bounded by MaxPreviewBytes too.
const previewOverhead = 1 << 10

// diffBoards lists what turns board from into board to.
func diffBoards(from, to *whiteboard.Board) previewChanges {
	before := make(map[string]whiteboard.Object)
	for _, o := range from.Objects() {
		before[o.ID] = o
	}
	c := previewChanges{Added: []string{}, Updated: []string{}, Deleted: []string{}}
	for _, o := range to.Objects() {
		old, ok := before[o.ID]
		switch {
		case !ok:
			c.Added = append(c.Added, o.ID)
		case string(mustJSON(old)) != string(mustJSON(o)):
			c.Updated = append(c.Updated, o.ID)
		}
		delete(before, o.ID)
	}
	for id := range before {
		c.Deleted = append(c.Deleted, id)
	}
	slices.Sort(c.Added)
	slices.Sort(c.Updated)
	slices.Sort(c.Deleted)
	return c
}

// previews keeps the previews made on this server until they are applied,
// discarded or expire; within bounds, the oldest going first: at most
// maxPerBoard per board, weighing at most boardBytes per board and
// maxBytes in all. A preview pushed out is gone as an expired one is (404).
type previews struct {
	ttl         time.Duration
	maxPerBoard int
	boardBytes  int
	maxBytes    int

	mu    sync.Mutex
	byID  map[string]*preview
	order list.List // of *preview, the oldest first
	bytes int
	// boards has each board's previews, the oldest first: an add pushes
	// out only what it must, at the front of its board's list or of order,
	// never walking every preview kept (tens of thousands, under the lock
	// every preview request takes). A board without previews has no entry.
	boards map[string]*boardPreviews
	closed bool
}

// boardPreviews are one board's previews and what they weigh together.
type boardPreviews struct {
	order list.List // of *preview, the oldest first
	bytes int
}

// newPreviewsFor makes the previews of a server with opts, whose boards
// weigh at most maxBoard.
func newPreviewsFor(opts Options, maxBoard int64) *previews {
	orDefault := func(v, d int64) int64 {
		if v <= 0 {
			return d
		}
		return v
	}
	ttl := time.Duration(orDefault(int64(opts.PreviewTTL), int64(DefaultPreviewTTL)))
	perBoard := int(orDefault(int64(opts.MaxPreviews), DefaultMaxPreviews))
	maxBytes := max(orDefault(opts.MaxPreviewBytes, DefaultMaxPreviewBytes), maxBoard)
	boardBytes := min(maxBoard, maxBytes/4) * 4 // 4×maxBoard, without overflowing for a board cap near MaxInt64
	return newPreviews(ttl, perBoard, int(min(boardBytes, maxBytes)), int(min(maxBytes, math.MaxInt)))
}

func newPreviews(ttl time.Duration, maxPerBoard, boardBytes, maxBytes int) *previews {
	return &previews{ttl: ttl, maxPerBoard: maxPerBoard, boardBytes: boardBytes, maxBytes: maxBytes,
		byID: make(map[string]*preview), boards: make(map[string]*boardPreviews)}
}

// newPreviewID is a preview's id: "pv_" and 26 random characters.
func newPreviewID() string { return "pv_" + rand.Text() }

// add keeps p, pushing out the oldest previews that make room for it, and
// arms its expiry (at once if it is past). It returns false, keeping
// nothing and letting p's ownership go, once the previews are closed.
func (ps *previews) add(p *preview) bool {
	var gone []*preview
	defer func() { releaseAll(gone) }()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.closed {
		gone = append(gone, p)
		return false
	}
	w := p.weight()
	for b := ps.boards[p.boardID]; b != nil && (b.order.Len()+1 > ps.maxPerBoard || b.bytes+w > ps.boardBytes); b = ps.boards[p.boardID] {
		q := b.order.Front().Value.(*preview)
		ps.removeLocked(q)
		gone = append(gone, q)
	}
	for ps.order.Len() > 0 && ps.bytes+w > ps.maxBytes {
		q := ps.order.Front().Value.(*preview)
		ps.removeLocked(q)
		gone = append(gone, q)
	}
	b := ps.boards[p.boardID]
	if b == nil {
		b = &boardPreviews{}
		ps.boards[p.boardID] = b
	}
	ps.byID[p.id] = p
	p.elem = ps.order.PushBack(p)
	p.belem = b.order.PushBack(p)
	ps.bytes += w
	b.bytes += w
	p.timer = time.AfterFunc(time.Until(p.expires), func() { ps.expire(p) })
	return true
}

// get returns board boardID's preview id, or nil.
func (ps *previews) get(boardID, id string) *preview {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if p := ps.byID[id]; p != nil && p.boardID == boardID {
		return p
	}
	return nil
}

// remove forgets p, if it is still kept, and reports whether it was.
func (ps *previews) remove(p *preview) bool {
	kept := ps.take(p)
	if kept {
		releaseAll([]*preview{p})
	}
	return kept
}

// take forgets p, if it is still kept, but keeps its ownership in the
// cluster: an apply takes its preview before it commits it, so that no
// discard, expiry or bound takes it meanwhile (a discard answered 204 for
// a preview then applied), and gives it back (add) if the commit failed.
func (ps *previews) take(p *preview) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	kept := ps.byID[p.id] == p
	if kept {
		ps.removeLocked(p)
	}
	return kept
}

func (ps *previews) expire(p *preview) { ps.remove(p) }

// removeLocked forgets p; ps.mu is held. Its ownership is let go by the
// caller, after the lock (a round trip to the cluster's database).
func (ps *previews) removeLocked(p *preview) {
	delete(ps.byID, p.id)
	ps.order.Remove(p.elem)
	b := ps.boards[p.boardID]
	b.order.Remove(p.belem)
	b.bytes -= p.weight()
	p.timer.Stop()
	ps.bytes -= p.weight()
	if b.order.Len() == 0 {
		delete(ps.boards, p.boardID)
	}
}

// forgetBoard drops the previews of a board that was deleted.
func (ps *previews) forgetBoard(boardID string) {
	var gone []*preview
	ps.mu.Lock()
	for b := ps.boards[boardID]; b != nil; b = ps.boards[boardID] {
		q := b.order.Front().Value.(*preview)
		ps.removeLocked(q)
		gone = append(gone, q)
	}
	ps.mu.Unlock()
	releaseAll(gone)
}

// close drops every preview and keeps none from then on (Shutdown).
func (ps *previews) close() {
	var gone []*preview
	ps.mu.Lock()
	ps.closed = true
	for e := ps.order.Front(); e != nil; e = e.Next() {
		q := e.Value.(*preview)
		q.timer.Stop()
		gone = append(gone, q)
	}
	ps.order.Init()
	clear(ps.byID)
	clear(ps.boards)
	ps.bytes = 0
	ps.mu.Unlock()
	releaseAll(gone)
}

// count is how many previews are kept (tests).
func (ps *previews) count() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return len(ps.byID)
}

func releaseAll(gone []*preview) {
	for _, p := range gone {
		if p.release != nil {
			p.release()
		}
	}
}

// runPreview runs spec on a copy of k's board as it is committed now, and
// keeps what it made as a preview (when the run would have been kept: a
// failed atomic run previews nothing). It never changes the board.
func (s *Server) runPreview(ctx context.Context, spec runSpec, k *runSink) runOutcome {
	lb := k.previewOf
	st, b := lb.committed()
	k.work = b.Clone()
	answer, ok, herr := s.execute(k.context(ctx), spec)
	if herr != nil {
		k.discard()
		return runOutcome{herr: herr}
	}
	s.deactivate(k)
	o := runOutcome{runID: k.runID, answer: answer, board: &boardOutcome{Version: st.Version}, previewed: true}
	if ok || !spec.atomic {
		p, herr := s.keepPreview(lb, k, st, b)
		if herr != nil {
			o.board.Error, o.board.status = herr.err, herr.status
		} else {
			pj := p.json()
			o.preview = &pj
		}
	}
	k.finish(answer, o.board, o.previewField())
	return o
}

// keepPreview keeps what k's preview run made of board (as it was at st).
func (s *Server) keepPreview(lb *liveBoard, k *runSink, st BoardState, board *whiteboard.Board) (*preview, *httpError) {
	// A copy: a call that outlived its run may still change k.work, and a
	// preview is applied exactly as it was shown.
	work := k.work.Clone()
	doc, err := work.MarshalJSON()
	if err != nil {
		return nil, internal(err)
	}
	if herr := s.boardTooLarge(doc, "the preview was not kept: board "+quoteID(lb.id), "delete objects or shorten texts, then preview again"); herr != nil {
		return nil, herr
	}
	p := &preview{id: newPreviewID(), boardID: lb.id, runID: k.runID, base: st.Version, created: st.Created, board: work, doc: doc,
		changes: diffBoards(board, work), expires: time.Now().Add(s.previews.ttl)}
	if s.cluster != nil {
		// Applied or discarded on any replica: they forward to this one.
		ctx, cancel := s.storeCtx(context.Background())
		release, err := s.cluster.Own(ctx, p.id)
		cancel()
		if err != nil {
			s.log.Error("server: registering a preview in the cluster failed", "preview", p.id, "err", err)
			return nil, unavailable("the preview was not kept: the cluster's database cannot be reached now: try again shortly")
		}
		p.release = release
	}
	if !s.previews.add(p) {
		return nil, errShuttingDown()
	}
	return p, nil
}

// guardForPreview makes a tool that may act outside the board refuse to run
// in a preview run; a read-only tool runs as always.
func guardForPreview(t engine.Tool) engine.Tool {
	if t.Annotations.ReadOnlyHint {
		return t
	}
	h, name := t.Handler, t.Name
	t.Handler = func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		if k := sinkFrom(ctx); k != nil && k.previewOf != nil {
			return nil, engine.Errorf(engine.CodeDenied, "%s was not called: a preview changes nothing outside its copy of the board, and %s is not read-only (run the script without preview to call it)", name, name)
		}
		return h(ctx, args)
	}
	return t
}
