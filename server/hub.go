package server

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// ringSize is how many of a board's latest events a client can resume
// after (Last-Event-ID), if they fit in the server's ringBytes.
const ringSize = 1024

// kept is an event kept for resuming.
type kept struct {
	seq   uint64
	frame []byte
}

// hub fans a board's events out to its watchers and keeps the latest in a
// ring, so that a client that lost its connection can resume where it was.
// Event ids are "<epoch>-<seq>": seq counts the board's events since the
// board came into memory, and the epoch (the server's start, then the
// board's stay in memory, in base 36) tells ids of an earlier server, or of
// an earlier stay in memory, from this one's.
type hub struct {
	s  *Server
	id string

	mu      sync.Mutex
	epoch   string // the server's, and when the board came into memory
	seq     uint64 // the last event's
	ring    []kept // the latest events, oldest first
	bytes   int    // of the frames in ring
	subs    map[*subscriber]struct{}
	working *whiteboard.Board // the board a run is changing, if one is
	running string            // that run's id, once its run_start came
	last    []byte            // the final frame, once the board is deleted
	left    time.Time         // when the last watcher left; zero: never watched, or watched now
	drawn   *drawing          // the board as last drawn for a `board` event
	fade    *time.Timer       // lets ring and drawn go resumeGrace after the last watcher left

	// In a cluster (s.cluster set), also guarded by mu: epoch and seq are
	// the board's log's (hubcluster.go) once logged.
	writer   *appender     // this replica holds the board's lock: it publishes, appending to the log
	logged   bool          // epoch and seq have been read from the log
	settled  uint64        // the log's Settled as last read or left
	syncing  bool          // a catch-up with the log is under way (syncLater)
	again    bool          // another is wanted after it
	checking bool          // a check on another replica's open change is armed (checkOpenLater)
	retry    time.Duration // the wait before a failed catch-up is tried again (syncLater)
}

func newHub(s *Server, id string) *hub {
	return &hub{s: s, id: id, epoch: s.epoch + strconv.FormatUint(s.boardEpochs.Add(1), 36), subs: make(map[*subscriber]struct{})}
}

// publish sends an event to every watcher and keeps it for resuming. When
// nobody has watched the board for resumeGrace, the event is not even made
// (build is not called): its number is used up and the ring emptied, so that
// a client resuming from before it gets the board whole instead. A board
// nobody watches costs its runs no encoding and no SVG, and a client whose
// connection dropped has resumeGrace to come back to a replay.
func (h *hub) publish(typ string, build func() []byte) { h.publishSeen(typ, build, nil) }

// publishSeen is publish; seen, if set, is called with the event's seq
// under the hub's lock (an approval_required event is announced so: see
// subscribe).
//
// In a cluster, only the replica that holds the board's lock publishes (its
// runs and changes), and every event is made, whoever watches where: it
// goes to the board's log too, for the watchers of other replicas. An
// event that comes after the change that made it let the board go (a call
// that outlived its run) has no place in the log and is not sent: the
// change sends the board whole instead (runSink.boardChanged).
func (h *hub) publishSeen(typ string, build func() []byte, seen func(seq uint64)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.s.cluster != nil && h.writer == nil {
		return
	}
	h.seq++
	if seen != nil {
		seen(h.seq)
	}
	if h.writer == nil && h.unwatched() {
		h.letGo()
		return
	}
	data := build()
	h.deliver(h.seq, typ, data)
	if h.writer != nil {
		h.writer.add(LoggedEvent{Seq: h.seq, Type: typ, Data: data})
	}
}

// deliver keeps event seq in the ring and sends it to every watcher. h.mu is
// held.
func (h *hub) deliver(seq uint64, typ string, data []byte) {
	f := frame(h.eventID(seq), typ, data)
	h.ring = append(h.ring, kept{seq, f})
	h.bytes += len(f)
	for len(h.ring) > ringSize || (h.bytes > h.s.ringBytes && len(h.ring) > 1) {
		h.bytes -= len(h.ring[0].frame)
		h.ring[0] = kept{}
		h.ring = h.ring[1:]
	}
	for q := range h.subs {
		if !q.push(f) {
			delete(h.subs, q) // dropped: its handler ends the stream
		}
	}
}

func (h *hub) eventID(seq uint64) string { return h.epoch + "-" + strconv.FormatUint(seq, 10) }

// unwatched: nobody watches the board, nor may come back to resume. h.mu
// is held.
func (h *hub) unwatched() bool {
	return len(h.subs) == 0 && (h.left.IsZero() || time.Since(h.left) >= h.s.resumeGrace)
}

// letGo drops what the hub keeps for watchers: the events for resuming and
// the drawing. h.mu is held.
func (h *hub) letGo() {
	clear(h.ring)
	h.ring, h.bytes, h.drawn = nil, 0, nil
}

// fadeLater lets the hub's keepings go once resumeGrace has passed with
// nobody watching: publish would, but only at the board's next event, and
// an idle board may have none for good. h.mu is held.
func (h *hub) fadeLater() {
	if h.fade == nil {
		h.fade = time.AfterFunc(h.s.resumeGrace, h.fadeOut)
	} else {
		h.fade.Reset(h.s.resumeGrace)
	}
}

func (h *hub) fadeOut() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.unwatched() {
		h.letGo()
	}
}

// close lets the hub's keepings go at once: its board left memory (nobody
// watched it, or it would have stayed).
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fade != nil {
		h.fade.Stop()
	}
	h.letGo()
}

// boardEvent is a `board` event's data: the whole board, replacing whatever
// a client drew.
type boardEvent struct {
	BoardID   string              `json:"boardId"`
	Version   int64               `json:"version"`
	UndoSteps int                 `json:"undoSteps"`
	RedoSteps int                 `json:"redoSteps"`
	Objects   []whiteboard.Object `json:"objects"`
	SVG       string              `json:"svg"`
}

func boardEventJSON(id string, st BoardState, b *whiteboard.Board) []byte {
	objs := b.Objects()
	if objs == nil {
		objs = []whiteboard.Object{}
	}
	return mustJSON(boardEvent{BoardID: id, Version: st.Version, UndoSteps: st.UndoSteps, RedoSteps: st.RedoSteps, Objects: objs, SVG: string(boardSVG(b))})
}

// drawing is a `board` event's data for one state of a board, drawn once
// however many watchers come for it: drawing a big board (its objects as
// JSON and its SVG) is costly, and clients can come in any number.
type drawing struct {
	key  drawingKey
	draw func() []byte
	once sync.Once
	data []byte
}

// drawingKey tells what a drawing shows. A committed board is never changed
// (it is replaced), so its drawing holds as long as it is the committed
// one. The board a run changes is, so its drawing holds only for the
// watchers that come at the event it was drawn at (seq): it has the changes
// of every event up to seq, maybe of later ones too, whose events then
// apply again harmlessly (see setWorking).
type drawingKey struct {
	board                *whiteboard.Board
	version              int64
	undoSteps, redoSteps int
	seq                  uint64 // for the board a run changes
}

// drawingOf returns the drawing of b (the committed board, in state st, or
// the board a run changes): the one the hub keeps if it shows the same,
// else a new one, which the hub keeps then. h.mu is held.
func (h *hub) drawingOf(st BoardState, b *whiteboard.Board) *drawing {
	key := drawingKey{board: b, version: st.Version, undoSteps: st.UndoSteps, redoSteps: st.RedoSteps}
	if b == h.working {
		key.seq = h.seq
	}
	if h.drawn == nil || h.drawn.key != key {
		id := h.id
		h.drawn = &drawing{key: key, draw: func() []byte { return h.s.drawBoard(id, st, b) }}
	}
	return h.drawn
}

// get returns the drawing's data, drawing it unless someone has, or is
// (then it waits for that). Call it without h.mu, so that neither runs nor
// watchers wait for a drawing. A drawing that failed (panicked) is shared
// with nobody: each caller tries its own.
func (d *drawing) get() []byte {
	d.once.Do(func() { d.data = d.draw() })
	if d.data == nil {
		return d.draw()
	}
	return d.data
}

// publishBoard sends the committed board to every watcher (after a
// rollback, an undo, a redo). It is drawn outside the hub's lock when
// someone watches (and then once for them and for the watchers coming
// next), and not at all when nobody does. The caller holds lb's lock.
func (h *hub) publishBoard(lb *liveBoard, extra ...field) {
	st, b := lb.committed()
	var d *drawing
	h.mu.Lock()
	if !h.unwatched() {
		d = h.drawingOf(st, b)
	}
	h.mu.Unlock()
	if d != nil {
		d.get()
	}
	h.publish("board", func() []byte {
		if d == nil { // a watcher came meanwhile
			d = h.drawingOf(st, b)
		}
		return withFields(d.get(), extra...)
	})
}

// setWorking notes the board a run is changing (nil when it ends), so that
// a watcher joining mid-run is sent that board: the run's later events then
// apply to what it has. (An event of a change the sent board holds already
// applies again harmlessly: objects carry their whole state.)
func (h *hub) setWorking(b *whiteboard.Board) {
	h.mu.Lock()
	h.working = b
	h.running = ""
	h.mu.Unlock()
}

// setRunning notes the id of the run changing the board (its run_start).
func (h *hub) setRunning(runID string) {
	h.mu.Lock()
	if h.working != nil {
		h.running = runID
	}
	h.mu.Unlock()
}

// subscribe adds a watcher, or refuses it (503) when the board has
// s.maxBoardWatchers already. If lastID names an event still in the ring,
// the events after it are queued; otherwise a `board` event with the board
// as it is now — the committed one from state, or the one a run is
// changing — whose id is the latest event's, so that resuming from it
// misses nothing.
//
// The board is drawn outside the hub's lock (runs publish under it) and
// shared by the watchers that need the same drawing (drawingOf): the
// watcher is added before, so the events that come meanwhile are queued,
// and its `board` event goes ahead of them.
//
// Sets of calls still waiting for approval on the board are sent too, so
// that a client that comes while a run waits can answer it: after the
// `board` event, each set's approval_required event listing its undecided
// calls (with the board event's id); on a resume, the sets announced before
// lastID (with its id) ahead of the replay, which holds the later ones.
func (h *hub) subscribe(lastID string, state func() (BoardState, *whiteboard.Board)) (*subscriber, *httpError) {
	q := newSubscriber(h.s.queueBytes)
	h.mu.Lock()
	if h.last != nil { // deleted while this watcher was on its way
		h.mu.Unlock()
		q.push(h.last)
		q.close()
		return q, nil
	}
	if n := len(h.subs); n >= h.s.maxBoardWatchers {
		h.mu.Unlock()
		return nil, unavailable("board %s has %d watchers, the most it takes: try again shortly", quoteID(h.id), n)
	}
	h.subs[q] = struct{}{}
	h.left = time.Time{}
	if seq, ok := h.resumable(lastID); ok {
		for _, f := range h.pending(seq) {
			q.push(f)
		}
		for _, k := range h.ring {
			if k.seq > seq {
				q.push(k.frame)
			}
		}
		h.mu.Unlock()
		return q, nil
	}
	st, b := state()
	var extra []field
	if h.working != nil {
		b = h.working
		if h.running != "" {
			// Its run_start went out before this watcher came: a view
			// learns of the run (to stop it) from its board.
			extra = append(extra, field{"runUnderWay", jsonString(h.running)})
		}
	}
	d := h.drawingOf(st, b)
	id := h.eventID(h.seq)
	pending := h.pending(h.seq)
	if replay, ok := h.sinceSettled(); ok {
		// The committed board of a cluster's log, and the events after
		// the seq it holds every change of: those of a run under way on
		// another replica, its approval_required events among them.
		id, pending = h.eventID(h.settled), replay
	}
	h.mu.Unlock()
	added := false
	defer func() {
		if !added { // the drawing panicked
			h.unsubscribe(q)
		}
	}()
	q.pushFirst(append([][]byte{frame(id, "board", withFields(d.get(), extra...))}, pending...)...)
	added = true
	return q, nil
}

// pending is an approval_required event for each set of calls waiting for
// approval on the board that was announced by event upTo or before, with
// upTo's id. h.mu is held.
func (h *hub) pending(upTo uint64) [][]byte {
	var frames [][]byte
	for _, p := range h.s.approvals.pendingOn(h.id) {
		if p.seq <= upTo {
			frames = append(frames, frame(h.eventID(upTo), string(engine.EventApprovalRequired), withFields(eventJSON(p.event), field{"boardId", jsonString(h.id)})))
		}
	}
	return frames
}

// resumable reports whether the events after lastID are all in the ring.
func (h *hub) resumable(lastID string) (uint64, bool) {
	epoch, n, ok := strings.Cut(lastID, "-")
	if !ok || epoch != h.epoch {
		return 0, false
	}
	seq, err := strconv.ParseUint(n, 10, 64)
	if err != nil || seq > h.seq {
		return 0, false
	}
	// Every event after seq is kept: the oldest kept is at most seq+1 (or
	// nothing happened since seq).
	if seq < h.seq && (len(h.ring) == 0 || h.ring[0].seq > seq+1) {
		return 0, false
	}
	return seq, true
}

// unsubscribe removes a watcher.
func (h *hub) unsubscribe(q *subscriber) {
	h.mu.Lock()
	delete(h.subs, q)
	if len(h.subs) == 0 {
		h.left = time.Now()
		h.fadeLater()
	}
	h.mu.Unlock()
	q.close()
}

// end sends a last event to every watcher and ends their streams: the board
// was deleted.
func (h *hub) end(typ string, data []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	if h.writer != nil {
		h.writer.add(LoggedEvent{Seq: h.seq, Type: typ, Data: data})
	}
	h.endAt(h.seq, typ, data)
}

// endAt is end's with the event's seq given. h.mu is held.
func (h *hub) endAt(seq uint64, typ string, data []byte) {
	f := frame(h.eventID(seq), typ, data)
	h.last = f
	for q := range h.subs {
		q.push(f)
		q.close()
	}
	clear(h.subs)
}
