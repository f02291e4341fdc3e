package server

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Store keeps boards between runs and between processes: each board's current
// state and the history that undo and redo walk. The server holds live state
// in memory and calls the store once for every change that must outlive the
// process — a board created or deleted, a run committed, an undo, a redo — so
// a store is written to once per run, not once per tool call. Events are not
// stored: they are the server's, for the watchers connected to it.
//
// NewMemoryStore keeps boards in memory; package server/sqlitestore keeps
// them in an SQLite file and is what `codemode serve` uses. A store shared by
// several server processes (see docs/design.md) implements the same interface.
// Implementations must be safe for concurrent use.
type Store interface {
	// CreateBoard adds a board, empty or with the given document, at
	// version 1 with no history. ErrExists if the id is taken.
	CreateBoard(ctx context.Context, info BoardInfo, doc json.RawMessage) (BoardState, error)
	// ListBoards lists a page of the boards: up to limit (at least 1) of
	// them in the byte order of their ids, from the first id after after
	// ("" for the first page). after need not be a board's (one deleted
	// since still marks its place), so a client paging through sees every
	// board that stays, once. Ordering by id keeps a page cheap: an index
	// walk, not a sort of every board.
	ListBoards(ctx context.Context, after string, limit int) ([]BoardInfo, error)
	// CountBoards is how many boards there are, for the server's MaxBoards.
	CountBoards(ctx context.Context) (int, error)
	// LoadBoard returns a board's current state. ErrNotFound if there is
	// no such board.
	LoadBoard(ctx context.Context, id string) (BoardState, error)
	// DeleteBoard removes a board and its history. ErrNotFound if there is
	// no such board.
	DeleteBoard(ctx context.Context, id string) error
	// Commit makes c.Doc the board's current state as one undo step: undo
	// goes back to the state before it, and whatever could be redone is
	// dropped. ErrConflict if the board is no longer at c.Base (another
	// writer committed first); ErrNotFound if there is no such board.
	Commit(ctx context.Context, id string, c Commit) (BoardState, error)
	// Undo goes back one step. ErrNothingToUndo at the oldest kept state.
	Undo(ctx context.Context, id string) (BoardState, error)
	// Redo goes forward one step. ErrNothingToRedo after the newest.
	Redo(ctx context.Context, id string) (BoardState, error)
	// Close releases the store; calls after Close fail.
	Close() error
}

// BoardInfo describes a board.
type BoardInfo struct {
	ID      string    `json:"id"`
	Name    string    `json:"name,omitempty"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"` // the last commit, undo or redo
}

// BoardState is a board as a store holds it.
type BoardState struct {
	BoardInfo
	// Version goes up by one with every commit, undo and redo: two states
	// of a board with the same version are the same state.
	Version int64 `json:"version"`
	// Doc is the board document, {"objects": [...]} (docs/whiteboard.md).
	Doc json.RawMessage `json:"-"`
	// UndoSteps and RedoSteps are how many steps undo and redo can go.
	UndoSteps int `json:"undoSteps"`
	RedoSteps int `json:"redoSteps"`
	// StepRunID is, from Undo, the run whose step it took back, and from
	// Redo the run whose step it brought back again (Commit.RunID; "" for
	// a step made without one); "" from every other call.
	StepRunID string `json:"-"`
}

// Commit is a run's result, to become a board's current state.
type Commit struct {
	// Base is the version the run started from.
	Base int64
	// Doc is the board document after the run.
	Doc json.RawMessage
	// RunID is the run that made the change, kept with the step.
	RunID string
}

// Errors a Store returns (wrapped or not; test with errors.Is).
var (
	ErrNotFound      = errors.New("no such board")
	ErrExists        = errors.New("a board with this id exists")
	ErrConflict      = errors.New("the board changed since the run started")
	ErrNothingToUndo = errors.New("nothing to undo")
	ErrNothingToRedo = errors.New("nothing to redo")
	// ErrUnavailable: the store cannot be reached now (its database is
	// down or restarting); the request is answered 503, to be tried again.
	// A store wraps its connection failures with it.
	ErrUnavailable = errors.New("the board store is unavailable")
)
