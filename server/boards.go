package server

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// maxIdleBoards is how many boards the server keeps in memory with nobody
// using them, and maxIdleBoardBytes how large their documents may be
// together (a board in memory takes a few times its document); beyond
// either the least recently used are let go (the store has them). A board
// with a run, a waiting run or a watcher is always kept.
const (
	maxIdleBoards     = 256
	maxIdleBoardBytes = 256 << 20
)

// liveBoard is a board in memory: its committed state, the lock that
// serialises what changes it (runs, undo, redo, delete), and its watchers.
type liveBoard struct {
	id  string
	hub *hub

	// lock is held by the one run (or undo, redo, delete) changing the
	// board; a channel so that waiting for it can be bounded.
	lock chan struct{}

	// Replaced (never changed) with lock held, under mu (see committed):
	mu    sync.Mutex
	board *whiteboard.Board // the committed state
	state BoardState        // its store metadata (Doc not kept)
	size  int               // the length of its document: what it weighs, roughly

	deleted bool // guarded by lock

	// checked is, in a cluster, the epoch of the board's log that the
	// cluster's lock last found the copy to be the board of (guarded by
	// lock): a copy checked against no log, or another, is loaded again
	// as the lock is taken (Server.lockCluster).
	checked string

	// stale: in a cluster, another replica changed the board since it was
	// loaded here (Server.refresh loads it again).
	stale atomic.Bool

	// Guarded by the registry's mu:
	refs    int           // handlers and runs using it
	ready   chan struct{} // closed once loaded
	loadErr error
	idleAt  *list.Element // in the registry's idle list, while idle
	weighs  int           // its size when it became idle, counted in idleBytes
}

// registry holds the live boards, loading them from the store on first use
// and letting idle ones go. The idle ones are in a list, the most recently
// used first, with their count and weight, so that letting them go costs
// nothing while they are within bounds.
type registry struct {
	s            *Server
	mu           sync.Mutex
	boards       map[string]*liveBoard
	idle         list.List // of *liveBoard
	idleBytes    int
	maxIdle      int
	maxIdleBytes int
}

func newRegistry(s *Server) *registry {
	return &registry{s: s, boards: make(map[string]*liveBoard), maxIdle: maxIdleBoards, maxIdleBytes: maxIdleBoardBytes}
}

// acquire returns the live board id, loading it if need be, and counts a
// use of it; release ends the use. 404 if there is no such board.
func (g *registry) acquire(ctx context.Context, id string) (*liveBoard, *httpError) {
	g.mu.Lock()
	lb, ok := g.boards[id]
	if !ok {
		lb = &liveBoard{id: id, lock: make(chan struct{}, 1), ready: make(chan struct{})}
		lb.hub = newHub(g.s, id)
		g.boards[id] = lb
	}
	g.busy(lb)
	lb.refs++
	g.mu.Unlock()
	if !ok {
		g.load(ctx, lb)
	}
	select {
	case <-lb.ready:
	case <-ctx.Done():
		g.release(lb)
		return nil, unavailable("board %s: gave up waiting for it to load", quoteID(id))
	}
	if lb.loadErr == nil && g.s.cluster != nil && lb.stale.Load() {
		if herr := g.s.refresh(lb); herr != nil {
			g.release(lb)
			return nil, herr
		}
	}
	if lb.loadErr != nil {
		g.release(lb)
		if errors.Is(lb.loadErr, ErrNotFound) {
			return nil, notFound("no board %s", quoteID(id))
		}
		if errors.Is(lb.loadErr, ErrUnavailable) {
			return nil, unavailable("board %s: the board store cannot be reached now: try again shortly", quoteID(id))
		}
		return nil, internal(fmt.Errorf("loading board %s: %w", quoteID(id), lb.loadErr))
	}
	return lb, nil
}

// load reads a board from the store; a failed load is forgotten, so the
// next request tries again.
func (g *registry) load(ctx context.Context, lb *liveBoard) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), g.s.storeTimeout)
	defer cancel()
	st, err := g.s.store.LoadBoard(ctx, lb.id)
	var b *whiteboard.Board
	if err == nil {
		b, err = parseDoc(st)
	}
	g.mu.Lock()
	if err != nil {
		lb.loadErr = err
		if g.boards[lb.id] == lb {
			delete(g.boards, lb.id)
		}
	} else {
		lb.setCommitted(st, b, st.Doc)
	}
	close(lb.ready)
	g.mu.Unlock()
}

// parseDoc reads a stored board document: one the server wrote, so read
// the quick way (in a cluster, replicas read boards others changed at every
// turn: the strict decoder was half a replica's CPU).
func parseDoc(st BoardState) (*whiteboard.Board, error) {
	b := whiteboard.NewBoard()
	if err := b.UnmarshalStored(st.Doc); err != nil {
		return nil, fmt.Errorf("board %q in the store: %w", st.ID, err)
	}
	return b, nil
}

// release ends a use of lb (nil is no board) and lets idle boards go.
func (g *registry) release(lb *liveBoard) {
	if lb == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if lb.refs--; lb.refs == 0 && g.boards[lb.id] == lb && lb.loadErr == nil {
		lb.weighs = lb.weight()
		lb.idleAt = g.idle.PushFront(lb)
		g.idleBytes += lb.weighs
	}
	g.evict()
}

// busy takes lb out of the idle list (it is used again). g.mu is held.
func (g *registry) busy(lb *liveBoard) {
	if lb.idleAt != nil {
		g.idle.Remove(lb.idleAt)
		g.idleBytes -= lb.weighs
		lb.idleAt = nil
	}
}

// evict lets the least recently used idle boards go while there are more
// than maxIdle, or they weigh more than maxIdleBytes together. g.mu is
// held.
func (g *registry) evict() {
	for g.idle.Len() > g.maxIdle || g.idleBytes > g.maxIdleBytes {
		lb := g.idle.Back().Value.(*liveBoard)
		g.busy(lb)
		delete(g.boards, lb.id)
		lb.hub.close()
	}
}

// peek returns the live board id if it is in memory, without using it.
func (g *registry) peek(id string) *liveBoard {
	g.mu.Lock()
	defer g.mu.Unlock()
	if lb := g.boards[id]; lb != nil && lb.loadErr == nil {
		return lb
	}
	return nil
}

// all returns the live boards in memory.
func (g *registry) all() []*liveBoard {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]*liveBoard, 0, len(g.boards))
	for _, lb := range g.boards {
		out = append(out, lb)
	}
	return out
}

// forget removes a deleted board, so that a board made later with its id
// starts afresh.
func (g *registry) forget(lb *liveBoard) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.boards[lb.id] == lb {
		g.busy(lb)
		delete(g.boards, lb.id)
	}
}
