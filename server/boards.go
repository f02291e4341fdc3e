package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// maxIdleBoards is how many boards the server keeps in memory with nobody
// using them; beyond it the least recently used are let go (the store has
// them). A board with a run, a waiting run or a watcher is always kept.
const maxIdleBoards = 256

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

	deleted bool // guarded by lock

	// Guarded by the registry's mu:
	refs     int // handlers and runs using it
	lastUsed time.Time
	ready    chan struct{} // closed once loaded
	loadErr  error
}

// registry holds the live boards, loading them from the store on first use
// and letting idle ones go.
type registry struct {
	s       *Server
	mu      sync.Mutex
	boards  map[string]*liveBoard
	maxIdle int
}

func newRegistry(s *Server) *registry {
	return &registry{s: s, boards: make(map[string]*liveBoard), maxIdle: maxIdleBoards}
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
	if lb.loadErr != nil {
		g.release(lb)
		if errors.Is(lb.loadErr, ErrNotFound) {
			return nil, notFound("no board %s", quoteID(id))
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
		lb.board, lb.state = b, st
		lb.state.Doc = nil
	}
	close(lb.ready)
	g.mu.Unlock()
}

// parseDoc reads a stored board document.
func parseDoc(st BoardState) (*whiteboard.Board, error) {
	b := whiteboard.NewBoard()
	if err := b.UnmarshalJSON(st.Doc); err != nil {
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
	lb.refs--
	lb.lastUsed = time.Now()
	g.evict()
}

// evict lets the least recently used idle boards go while there are more
// than maxIdle. g.mu is held.
func (g *registry) evict() {
	idle := 0
	for _, lb := range g.boards {
		if g.idle(lb) {
			idle++
		}
	}
	for ; idle > g.maxIdle; idle-- {
		var oldest *liveBoard
		for _, lb := range g.boards {
			if g.idle(lb) && (oldest == nil || lb.lastUsed.Before(oldest.lastUsed)) {
				oldest = lb
			}
		}
		delete(g.boards, oldest.id)
	}
}

// idle: loaded, and nobody uses it or watches it.
func (g *registry) idle(lb *liveBoard) bool {
	select {
	case <-lb.ready:
	default:
		return false
	}
	return lb.refs == 0 && lb.loadErr == nil
}

// forget removes a deleted board, so that a board made later with its id
// starts afresh.
func (g *registry) forget(lb *liveBoard) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.boards[lb.id] == lb {
		delete(g.boards, lb.id)
	}
}
