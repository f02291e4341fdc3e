package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// memoryMaxHistory is how many undo steps a memory store keeps per board,
// the same as server/sqlitestore's default.
const memoryMaxHistory = 100

// emptyDoc is the document of a board created without one.
var emptyDoc = json.RawMessage(`{"objects":[]}`)

// errMemoryClosed is what a memory store's methods return after Close.
var errMemoryClosed = errors.New("memory store: closed")

// NewMemoryStore returns a Store that keeps boards in this process's memory
// and loses them when it exits: for tests, and for a Go server that mounts
// the handler and wants no persistence (its boards live as long as the
// process). It keeps the last 100 undo steps of each board, like
// server/sqlitestore by default. It is safe for concurrent use; documents are
// copied in and out, so a caller may reuse its buffers.
func NewMemoryStore() Store {
	return &memoryStore{boards: make(map[string]*memBoard), maxHistory: memoryMaxHistory}
}

type memoryStore struct {
	mu         sync.Mutex
	closed     bool
	boards     map[string]*memBoard
	maxHistory int
}

// memBoard is one board: its states, oldest first, and which one is current.
// states[:cur] can be undone to, states[cur+1:] redone to.
type memBoard struct {
	info    BoardInfo
	version int64
	states  []memStep
	cur     int
}

type memStep struct {
	doc   json.RawMessage
	runID string
}

// now is the store's clock: wall time in UTC without the monotonic reading,
// so a time compares equal to itself after a round trip through a store.
func now() time.Time { return time.Now().UTC().Round(0) }

func (s *memoryStore) lock(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errMemoryClosed
	}
	return nil
}

func (s *memoryStore) CreateBoard(ctx context.Context, info BoardInfo, doc json.RawMessage) (BoardState, error) {
	if len(doc) == 0 {
		doc = emptyDoc
	} else if !json.Valid(doc) {
		return BoardState{}, fmt.Errorf("board %q: the document is not valid JSON", info.ID)
	}
	if err := s.lock(ctx); err != nil {
		return BoardState{}, err
	}
	defer s.mu.Unlock()
	if _, ok := s.boards[info.ID]; ok {
		return BoardState{}, fmt.Errorf("board %q: %w", info.ID, ErrExists)
	}
	t := now()
	if info.Created.IsZero() {
		info.Created = t
	}
	if info.Updated.IsZero() {
		info.Updated = info.Created
	}
	b := &memBoard{info: info, version: 1, states: []memStep{{doc: slices.Clone(doc)}}}
	s.boards[info.ID] = b
	return b.state(), nil
}

func (s *memoryStore) ListBoards(ctx context.Context, after string, limit int) ([]BoardInfo, error) {
	if limit < 1 {
		return nil, fmt.Errorf("memory store: listing %d boards: the limit must be at least 1", limit)
	}
	if err := s.lock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.boards))
	for id := range s.boards {
		if id > after {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	infos := make([]BoardInfo, 0, min(limit, len(ids)))
	for _, id := range ids[:min(limit, len(ids))] {
		infos = append(infos, s.boards[id].info)
	}
	return infos, nil
}

func (s *memoryStore) CountBoards(ctx context.Context) (int, error) {
	if err := s.lock(ctx); err != nil {
		return 0, err
	}
	defer s.mu.Unlock()
	return len(s.boards), nil
}

func (s *memoryStore) LoadBoard(ctx context.Context, id string) (BoardState, error) {
	if err := s.lock(ctx); err != nil {
		return BoardState{}, err
	}
	defer s.mu.Unlock()
	b, err := s.board(id)
	if err != nil {
		return BoardState{}, err
	}
	return b.state(), nil
}

func (s *memoryStore) DeleteBoard(ctx context.Context, id string) error {
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if _, err := s.board(id); err != nil {
		return err
	}
	delete(s.boards, id)
	return nil
}

func (s *memoryStore) Commit(ctx context.Context, id string, c Commit) (BoardState, error) {
	if !json.Valid(c.Doc) {
		return BoardState{}, fmt.Errorf("board %q: the document is not valid JSON", id)
	}
	doc := slices.Clone(c.Doc)
	if err := s.lock(ctx); err != nil {
		return BoardState{}, err
	}
	defer s.mu.Unlock()
	b, err := s.board(id)
	if err != nil {
		return BoardState{}, err
	}
	if b.version != c.Base {
		return BoardState{}, fmt.Errorf("board %q is at version %d, the run started from %d: %w", id, b.version, c.Base, ErrConflict)
	}
	// Drop what could be redone, add the new state, and forget the oldest
	// states beyond the bound.
	clear(b.states[b.cur+1:])
	b.states = append(b.states[:b.cur+1], memStep{doc: doc, runID: c.RunID})
	if drop := len(b.states) - 1 - s.maxHistory; drop > 0 {
		clear(b.states[:drop])
		b.states = b.states[drop:]
	}
	b.cur = len(b.states) - 1
	b.moved()
	return b.state(), nil
}

func (s *memoryStore) Undo(ctx context.Context, id string) (BoardState, error) {
	if err := s.lock(ctx); err != nil {
		return BoardState{}, err
	}
	defer s.mu.Unlock()
	b, err := s.board(id)
	if err != nil {
		return BoardState{}, err
	}
	if b.cur == 0 {
		return BoardState{}, fmt.Errorf("board %q: %w", id, ErrNothingToUndo)
	}
	undone := b.states[b.cur].runID
	b.cur--
	b.moved()
	st := b.state()
	st.StepRunID = undone
	return st, nil
}

func (s *memoryStore) Redo(ctx context.Context, id string) (BoardState, error) {
	if err := s.lock(ctx); err != nil {
		return BoardState{}, err
	}
	defer s.mu.Unlock()
	b, err := s.board(id)
	if err != nil {
		return BoardState{}, err
	}
	if b.cur == len(b.states)-1 {
		return BoardState{}, fmt.Errorf("board %q: %w", id, ErrNothingToRedo)
	}
	b.cur++
	b.moved()
	st := b.state()
	st.StepRunID = b.states[b.cur].runID
	return st, nil
}

// Close drops every board. Calls after it fail; closing again does nothing.
func (s *memoryStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.boards = nil
	return nil
}

func (s *memoryStore) board(id string) (*memBoard, error) {
	b, ok := s.boards[id]
	if !ok {
		return nil, fmt.Errorf("board %q: %w", id, ErrNotFound)
	}
	return b, nil
}

// moved records a commit, undo or redo.
func (b *memBoard) moved() {
	b.version++
	t := now()
	if t.Before(b.info.Updated) { // the wall clock went back
		t = b.info.Updated
	}
	b.info.Updated = t
}

func (b *memBoard) state() BoardState {
	return BoardState{
		BoardInfo: b.info,
		Version:   b.version,
		Doc:       slices.Clone(b.states[b.cur].doc),
		UndoSteps: b.cur,
		RedoSteps: len(b.states) - 1 - b.cur,
	}
}
