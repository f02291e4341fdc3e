package server

import (
	"context"
	"errors"
)

// Cluster is what several servers sharing one Store need of each other to
// serve every board from every replica as one server would (docs/design.md,
// "Many replicas"). Options.Cluster gives a server its membership; without
// one a server is alone with its store, as `codemode serve` on SQLite is.
//
// Three things travel through it:
//
//   - A lock per board across the replicas, held by whatever changes the
//     board (a run, an undo, a redo, a delete), so that runs on one board are
//     serialised across replicas exactly as within one. A holder that dies
//     loses its lock within seconds, and the next holder is told (Dirty).
//   - The board's event log: every event of every change to the board, with
//     a sequence number per board, appended by the lock's holder and
//     announced to every replica (Listen), so that watchers on any replica
//     see every run live and a client resumes its stream (Last-Event-ID) on
//     any replica.
//   - Requests about a run forwarded to the replica running it (Forward,
//     Serve): a call waiting for approval is decided on any replica.
//
// NewMemoryCluster is a cluster of servers in one process (tests, and a
// program that runs several servers over one store); server/pgstore's is
// one over PostgreSQL, beside its Store. Implementations are safe for
// concurrent use.
type Cluster interface {
	// Lock takes board id's lock, waiting while ctx lasts (ctx's error,
	// wrapped, when it ends first). The lock is the holder's until it
	// calls Unlock, or until its process ends or loses the cluster (then
	// it is released within seconds, and the next holder's lock says
	// Dirty).
	Lock(ctx context.Context, id string) (BoardLock, error)
	// TryLock is Lock without the wait: ErrBoardLocked when another
	// holds the lock. A replica whose watchers saw another's change
	// begin and never end uses it to find out whether the holder died
	// (the lock is free, and Dirty).
	TryLock(ctx context.Context, id string) (BoardLock, error)
	// Log returns board id's log: its state, and the events kept after
	// seq after, oldest first. The oldest kept may be later than after+1:
	// a log keeps at most a bounded number of events per board (as a
	// server's ring does). A board never logged has an empty log with an
	// epoch of its own.
	Log(ctx context.Context, id string, after uint64) (LogState, []LoggedEvent, error)
	// Listen calls f with a board's id and its log's last seq whenever
	// events are appended to the log by any replica, this one included,
	// until stop is called; an id of "" means notices may have been lost
	// (the cluster's connection was lost and is back): every board may
	// have changed. f must not block for long.
	Listen(f func(boardID string, seq uint64)) (stop func())
	// Own makes this replica the one that answers Forward for runID, until
	// release is called.
	Own(ctx context.Context, runID string) (release func(), err error)
	// Forward sends a request about runID to the replica that owns it and
	// returns that replica's answer (Serve's). ErrNoOwner if no replica
	// owns the run.
	Forward(ctx context.Context, runID string, req []byte) ([]byte, error)
	// Serve sets what answers the requests forwarded to this replica.
	Serve(f func(ctx context.Context, runID string, req []byte) []byte)
	// Close leaves the cluster: locks held are released, Listen stops.
	Close() error
}

// BoardLock is a board's lock across a cluster, and the right to append to
// its log.
type BoardLock interface {
	// State is the board's log and committed version when the lock was
	// taken.
	State() LockState
	// Append adds events to the board's log and announces them; their
	// seqs follow the last one's without gaps.
	Append(ctx context.Context, events []LoggedEvent) error
	// Unlock releases the lock. settled is the seq up to which the board
	// as the store holds it has every change that events announced, and
	// version the board's committed version; the next holder reads both
	// (State). deleted says the board was deleted: its log goes, and the
	// next board of the same id logs under another epoch.
	Unlock(ctx context.Context, settled uint64, version int64, deleted bool) error
}

// LogState is where a board's log stands.
type LogState struct {
	// Epoch names this log: a board deleted and made again logs under
	// another epoch, so that an event id of the old board is never taken
	// for one of the new.
	Epoch string
	// Seq is the last event's (0 before any).
	Seq uint64
	// Settled is the seq up to which the committed board has every change
	// the log's events carry: a watcher sent the committed board is sent
	// the events after Settled too (events applied again to a board that
	// has them already change nothing: objects carry their whole state).
	Settled uint64
}

// LockState is what a lock's holder learns as it takes it.
type LockState struct {
	LogState
	// Version is the board's committed version as the last holder left it
	// (0 if unknown): a replica whose copy of the board is at another
	// version loads it again.
	Version int64
	// Dirty says the last holder ended without unlocking (its process
	// died mid-change): what its events announced may not be the board,
	// so the board is loaded again and sent whole to its watchers.
	Dirty bool
}

// LoggedEvent is one event of a board's log: a frame of its event stream
// without the id, which each replica makes from the log's epoch and Seq.
type LoggedEvent struct {
	Seq  uint64 `json:"seq"`
	Type string `json:"type"`
	Data []byte `json:"data"`
}

// ErrBoardLocked: TryLock found the board's lock held.
var ErrBoardLocked = errors.New("the board's lock is held")

// ErrNoOwner: no replica of the cluster owns the run (it is over, or never
// was).
var ErrNoOwner = errors.New("no replica runs this run")
