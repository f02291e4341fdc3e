package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"

	"github.com/codemode-dev/codemode/server"
)

// Options tune a Store; the zero value is the defaults.
type Options struct {
	// MaxHistory is how many undo steps each board keeps; older ones are
	// deleted by the commit that pushes them out. 0 means 100.
	MaxHistory int
	// BusyTimeout is how long a write waits for another Store's write to
	// the same file to finish before it fails. 0 means 5 s.
	BusyTimeout time.Duration
}

// DefaultMaxHistory is the number of undo steps kept when
// Options.MaxHistory is 0.
const DefaultMaxHistory = 100

const defaultBusyTimeout = 5 * time.Second

// Store is a server.Store in an SQLite file. It is safe for concurrent use.
type Store struct {
	path        string
	maxHistory  int
	busyTimeout time.Duration
	w           *sql.DB // one connection: writes take turns in this process
	r           *sql.DB // reads
	closed      atomic.Bool
	closeOnce   sync.Once
	closeErr    error

	// Writes.
	insertBoard, insertStep, commitBoard, dropSteps, version, undo, redo, stepDoc, stepRun, deleteBoard *sql.Stmt
	// Reads.
	loadBoard, listBoards, countBoards *sql.Stmt
}

var _ server.Store = (*Store)(nil)

// The columns a write returns of a board it moved.
const boardColumns = `seq, id, name, created, updated, version, lo, cur, hi`

// statements are the Store's SQL, prepared once by Open.
var statements = []struct {
	read bool
	dst  func(*Store) **sql.Stmt
	sql  string
}{
	{false, func(s *Store) **sql.Stmt { return &s.insertBoard }, `
		INSERT INTO boards (id, name, created, updated, version, lo, cur, hi)
		VALUES (?, ?, ?, ?, 1, 0, 0, 0)
		ON CONFLICT (id) DO NOTHING
		RETURNING seq`},
	{false, func(s *Store) **sql.Stmt { return &s.insertStep }, `
		INSERT INTO steps (board, step, run_id, doc) VALUES (?, ?, ?, ?)`},
	// A commit moves to a new step after the current one and drops the
	// oldest steps beyond the bound; the values on the right are the row's
	// before the update.
	{false, func(s *Store) **sql.Stmt { return &s.commitBoard }, `
		UPDATE boards SET version = version + 1, cur = cur + 1, hi = cur + 1,
			lo = max(lo, cur + 1 - ?), updated = max(updated, ?)
		WHERE id = ? AND version = ?
		RETURNING ` + boardColumns},
	// ... and deletes what could have been redone and what fell off.
	{false, func(s *Store) **sql.Stmt { return &s.dropSteps }, `
		DELETE FROM steps WHERE board = ? AND (step >= ? OR step < ?)`},
	{false, func(s *Store) **sql.Stmt { return &s.version }, `
		SELECT version FROM boards WHERE id = ?`},
	{false, func(s *Store) **sql.Stmt { return &s.undo }, `
		UPDATE boards SET version = version + 1, cur = cur - 1, updated = max(updated, ?)
		WHERE id = ? AND cur > lo
		RETURNING ` + boardColumns},
	{false, func(s *Store) **sql.Stmt { return &s.redo }, `
		UPDATE boards SET version = version + 1, cur = cur + 1, updated = max(updated, ?)
		WHERE id = ? AND cur < hi
		RETURNING ` + boardColumns},
	{false, func(s *Store) **sql.Stmt { return &s.stepDoc }, `
		SELECT doc FROM steps WHERE board = ? AND step = ?`},
	{false, func(s *Store) **sql.Stmt { return &s.stepRun }, `
		SELECT run_id FROM steps WHERE board = ? AND step = ?`},
	{false, func(s *Store) **sql.Stmt { return &s.deleteBoard }, `
		DELETE FROM boards WHERE id = ?`},
	{true, func(s *Store) **sql.Stmt { return &s.loadBoard }, `
		SELECT b.seq, b.id, b.name, b.created, b.updated, b.version, b.lo, b.cur, b.hi, s.doc
		FROM boards b JOIN steps s ON s.board = b.seq AND s.step = b.cur
		WHERE b.id = ?`},
	{true, func(s *Store) **sql.Stmt { return &s.listBoards }, `
		SELECT id, name, created, updated FROM boards WHERE id > ? ORDER BY id LIMIT ?`}, // walks id's unique index
	{true, func(s *Store) **sql.Stmt { return &s.countBoards }, `
		SELECT count(*) FROM boards`},
}

// Open opens the store in the SQLite file at path, creating the file and its
// directory if missing. A file that is not a codemode board database, or that
// a newer codemode wrote, is refused and left as it was.
func Open(path string, opts Options) (*Store, error) {
	var problems []string
	if opts.MaxHistory < 0 {
		problems = append(problems, fmt.Sprintf("MaxHistory is %d; it must be at least 1 (0 means %d)", opts.MaxHistory, DefaultMaxHistory))
	}
	if opts.BusyTimeout < 0 {
		problems = append(problems, fmt.Sprintf("BusyTimeout is %v; it must not be negative (0 means %v)", opts.BusyTimeout, defaultBusyTimeout))
	}
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		problems = append(problems, fmt.Sprintf("the path %q is not a file name (for boards in memory, use server.NewMemoryStore)", path))
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("sqlitestore: %s", strings.Join(problems, "; "))
	}
	if opts.MaxHistory == 0 {
		opts.MaxHistory = DefaultMaxHistory
	}
	if opts.BusyTimeout == 0 {
		opts.BusyTimeout = defaultBusyTimeout
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("sqlitestore: cannot create the directory of %s: %w", path, err)
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("sqlitestore: %s is a directory, not a database file", path)
	}

	s := &Store{path: path, maxHistory: opts.MaxHistory, busyTimeout: opts.BusyTimeout}
	// A URI, so that no character of the path is taken for a parameter;
	// the _ parameters are the driver's, run on every new connection.
	name := "file:" + (&url.URL{Path: filepath.ToSlash(abs)}).EscapedPath()
	pragmas := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)", opts.BusyTimeout.Milliseconds())
	// Transactions start with BEGIN IMMEDIATE: a writer waits for the lock
	// up front instead of failing with SQLITE_BUSY halfway.
	if s.w, err = sql.Open("sqlite", name+"?"+pragmas+"&_txlock=immediate"); err != nil {
		return nil, s.openError(err)
	}
	s.w.SetMaxOpenConns(1)
	s.w.SetMaxIdleConns(1)
	if err := s.init(); err != nil {
		s.w.Close()
		return nil, err
	}
	if s.r, err = sql.Open("sqlite", name+"?"+pragmas+"&_pragma=query_only(1)"); err != nil {
		s.w.Close()
		return nil, s.openError(err)
	}
	n := max(4, runtime.GOMAXPROCS(0))
	s.r.SetMaxOpenConns(n)
	s.r.SetMaxIdleConns(n)
	for _, st := range statements {
		db := s.w
		if st.read {
			db = s.r
		}
		if *st.dst(s), err = db.Prepare(st.sql); err != nil {
			err = s.openError(fmt.Errorf("preparing %s: %w", strings.Fields(st.sql)[0], err))
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// codemode's application id, "cmdb", in the file's header.
const applicationID = 0x636d6462

// schemaVersion is the version of the schema this package writes; the file
// keeps its own in PRAGMA user_version.
const schemaVersion = 1

// migrations[v] takes a database at schema version v to v+1; migrations[0]
// makes a new one. A later schema adds a step here, so Open upgrades older
// files in place.
var migrations = []string{
	0: `
	CREATE TABLE boards (
		seq     INTEGER PRIMARY KEY, -- creation order
		id      TEXT NOT NULL UNIQUE,
		name    TEXT NOT NULL,
		created INTEGER NOT NULL,    -- Unix nanoseconds
		updated INTEGER NOT NULL,    -- the last commit, undo or redo
		version INTEGER NOT NULL,
		lo      INTEGER NOT NULL,    -- the oldest step kept: undo goes down to it
		cur     INTEGER NOT NULL,    -- the current step
		hi      INTEGER NOT NULL     -- the newest step: redo goes up to it
	) STRICT;
	CREATE TABLE steps (
		board  INTEGER NOT NULL REFERENCES boards (seq) ON DELETE CASCADE,
		step   INTEGER NOT NULL,
		run_id TEXT NOT NULL,        -- the run that made it; empty for a new board
		doc    BLOB NOT NULL,        -- the board document, JSON as given
		PRIMARY KEY (board, step)
	) STRICT;`,
}

// init checks that the file is a codemode database of a schema this package
// knows, creates or upgrades the schema, and turns on WAL. It changes
// nothing in a file it refuses.
func (s *Store) init() error {
	ctx := context.Background()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return s.openError(err)
	}
	defer tx.Rollback()
	var appID, version, objects int64
	if err := tx.QueryRow(`PRAGMA application_id`).Scan(&appID); err != nil {
		return s.openError(err)
	}
	if err := tx.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
		return s.openError(err)
	}
	if err := tx.QueryRow(`SELECT count(*) FROM sqlite_schema`).Scan(&objects); err != nil {
		return s.openError(err)
	}
	switch {
	case appID == 0 && version == 0 && objects == 0: // a new database
	case appID != applicationID:
		return fmt.Errorf("sqlitestore: %s is an SQLite database but not a codemode board store (application_id %#x, want %#x)", s.path, appID, applicationID)
	case version > schemaVersion:
		return fmt.Errorf("sqlitestore: %s was written by a newer codemode (schema version %d; this one knows up to %d)", s.path, version, schemaVersion)
	case version < 1:
		return fmt.Errorf("sqlitestore: %s has no schema version; it is damaged or not a codemode board store", s.path)
	}
	if version < schemaVersion {
		for v := version; v < schemaVersion; v++ {
			if _, err := tx.Exec(migrations[v]); err != nil {
				return s.openError(fmt.Errorf("schema version %d to %d: %w", v, v+1, err))
			}
		}
		if _, err := tx.Exec(fmt.Sprintf(`PRAGMA application_id = %d; PRAGMA user_version = %d`, applicationID, schemaVersion)); err != nil {
			return s.openError(err)
		}
		if err := tx.Commit(); err != nil {
			return s.openError(err)
		}
	} else if err := tx.Rollback(); err != nil {
		return s.openError(err)
	}
	mode, err := s.useWAL()
	if err != nil {
		return s.openError(err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("sqlitestore: %s: SQLite cannot use a write-ahead log there (journal mode %s); put the file on a local file system", s.path, mode)
	}
	return nil
}

// useWAL turns on the write-ahead log, which stays on in the file. Turning
// it on needs the file to itself, and SQLite answers SQLITE_BUSY at once,
// without waiting for the busy timeout, while another Store opens the same
// file; so a busy answer is retried until the busy timeout has passed. A
// file already in WAL mode is left alone.
func (s *Store) useWAL() (string, error) {
	var mode string
	if err := s.w.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || strings.EqualFold(mode, "wal") {
		return mode, err
	}
	deadline := time.Now().Add(s.busyTimeout)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		err := s.w.QueryRow(`PRAGMA journal_mode = WAL`).Scan(&mode)
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != codeBusy || time.Now().After(deadline) {
			return mode, err
		}
		time.Sleep(wait)
	}
}

// SQLite's primary result codes the Store explains.
const (
	codeBusy     = 5
	codeCorrupt  = 11
	codeCantOpen = 14
	codeReadOnly = 8
	codeNotADB   = 26
)

// openError names the file in an error of Open.
func (s *Store) openError(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case codeNotADB:
			return fmt.Errorf("sqlitestore: %s is not an SQLite database (%w)", s.path, err)
		case codeCorrupt:
			return fmt.Errorf("sqlitestore: %s is damaged (%w)", s.path, err)
		case codeCantOpen, codeReadOnly:
			return fmt.Errorf("sqlitestore: cannot open %s for writing (%w)", s.path, err)
		}
	}
	return fmt.Errorf("sqlitestore: %s: %w", s.path, err)
}

var errClosed = errors.New("sqlitestore: the store is closed")

// fail turns an error of the database into the Store's: the context's error
// once the context is done, errClosed once the store is closed, and the rest
// naming the file.
func (s *Store) fail(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil: // whatever the driver made of it: interrupted, tx done
		return ctx.Err()
	case s.closed.Load():
		return errClosed
	}
	return fmt.Errorf("sqlitestore: %s: %w", s.path, err)
}

// start checks a call may go ahead.
func (s *Store) start(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.closed.Load() {
		return errClosed
	}
	return nil
}

// write runs fn in a transaction on the write connection. An error fn
// returns as it is (a sentinel, say) rolls back and is returned.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if err := s.start(ctx); err != nil {
		return err
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return s.fail(ctx, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return s.fail(ctx, err)
	}
	return nil
}

// nanos is t as the file keeps it.
func nanos(t time.Time) (int64, error) {
	if t.Year() < 1678 || t.Year() > 2261 {
		return 0, fmt.Errorf("the time %v is outside the years 1678 to 2261 that the store keeps", t)
	}
	return t.UnixNano(), nil
}

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

// now is the Store's clock, in UTC without a monotonic reading.
func now() time.Time { return time.Now().UTC().Round(0) }

var emptyDoc = []byte(`{"objects":[]}`)

// CreateBoard implements server.Store.
func (s *Store) CreateBoard(ctx context.Context, info server.BoardInfo, doc json.RawMessage) (server.BoardState, error) {
	if len(doc) == 0 {
		doc = emptyDoc
	} else if !json.Valid(doc) {
		return server.BoardState{}, fmt.Errorf("board %q: the document is not valid JSON", info.ID)
	}
	if info.Created.IsZero() {
		info.Created = now()
	}
	if info.Updated.IsZero() {
		info.Updated = info.Created
	}
	info.Created, info.Updated = info.Created.UTC().Round(0), info.Updated.UTC().Round(0)
	created, err := nanos(info.Created)
	if err != nil {
		return server.BoardState{}, fmt.Errorf("board %q: Created: %w", info.ID, err)
	}
	updated, err := nanos(info.Updated)
	if err != nil {
		return server.BoardState{}, fmt.Errorf("board %q: Updated: %w", info.ID, err)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		var seq int64
		switch err := tx.StmtContext(ctx, s.insertBoard).QueryRowContext(ctx, info.ID, info.Name, created, updated).Scan(&seq); {
		case errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("board %q: %w", info.ID, server.ErrExists)
		case err != nil:
			return s.fail(ctx, err)
		}
		if _, err := tx.StmtContext(ctx, s.insertStep).ExecContext(ctx, seq, 0, "", []byte(doc)); err != nil {
			return s.fail(ctx, err)
		}
		return nil
	})
	if err != nil {
		return server.BoardState{}, err
	}
	return server.BoardState{BoardInfo: info, Version: 1, Doc: append(json.RawMessage(nil), doc...)}, nil
}

// ListBoards implements server.Store.
func (s *Store) ListBoards(ctx context.Context, after string, limit int) ([]server.BoardInfo, error) {
	if limit < 1 {
		return nil, fmt.Errorf("sqlitestore: listing %d boards: the limit must be at least 1", limit)
	}
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	rows, err := s.listBoards.QueryContext(ctx, after, limit)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	defer rows.Close()
	infos := []server.BoardInfo{}
	for rows.Next() {
		var b server.BoardInfo
		var created, updated int64
		if err := rows.Scan(&b.ID, &b.Name, &created, &updated); err != nil {
			return nil, s.fail(ctx, err)
		}
		b.Created, b.Updated = fromNanos(created), fromNanos(updated)
		infos = append(infos, b)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(ctx, err)
	}
	return infos, nil
}

// CountBoards implements server.Store.
func (s *Store) CountBoards(ctx context.Context) (int, error) {
	if err := s.start(ctx); err != nil {
		return 0, err
	}
	var n int
	if err := s.countBoards.QueryRowContext(ctx).Scan(&n); err != nil {
		return 0, s.fail(ctx, err)
	}
	return n, nil
}

// row is a board as a statement returns it.
type row struct {
	seq, created, updated, version, lo, cur, hi int64
	id, name                                    string
}

func (r *row) dest() []any {
	return []any{&r.seq, &r.id, &r.name, &r.created, &r.updated, &r.version, &r.lo, &r.cur, &r.hi}
}

func (r *row) state(doc []byte) server.BoardState {
	return server.BoardState{
		BoardInfo: server.BoardInfo{ID: r.id, Name: r.name, Created: fromNanos(r.created), Updated: fromNanos(r.updated)},
		Version:   r.version,
		Doc:       doc,
		UndoSteps: int(r.cur - r.lo),
		RedoSteps: int(r.hi - r.cur),
	}
}

// LoadBoard implements server.Store.
func (s *Store) LoadBoard(ctx context.Context, id string) (server.BoardState, error) {
	if err := s.start(ctx); err != nil {
		return server.BoardState{}, err
	}
	var r row
	var doc []byte
	switch err := s.loadBoard.QueryRowContext(ctx, id).Scan(append(r.dest(), &doc)...); {
	case errors.Is(err, sql.ErrNoRows):
		return server.BoardState{}, fmt.Errorf("board %q: %w", id, server.ErrNotFound)
	case err != nil:
		return server.BoardState{}, s.fail(ctx, err)
	}
	return r.state(doc), nil
}

// DeleteBoard implements server.Store.
func (s *Store) DeleteBoard(ctx context.Context, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.StmtContext(ctx, s.deleteBoard).ExecContext(ctx, id)
		if err != nil {
			return s.fail(ctx, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return s.fail(ctx, err)
		} else if n == 0 {
			return fmt.Errorf("board %q: %w", id, server.ErrNotFound)
		}
		return nil
	})
}

// Commit implements server.Store.
func (s *Store) Commit(ctx context.Context, id string, c server.Commit) (server.BoardState, error) {
	if !json.Valid(c.Doc) {
		return server.BoardState{}, fmt.Errorf("board %q: the document is not valid JSON", id)
	}
	var r row
	err := s.write(ctx, func(tx *sql.Tx) error {
		err := tx.StmtContext(ctx, s.commitBoard).QueryRowContext(ctx, s.maxHistory, now().UnixNano(), id, c.Base).Scan(r.dest()...)
		if errors.Is(err, sql.ErrNoRows) {
			var version int64
			switch err := tx.StmtContext(ctx, s.version).QueryRowContext(ctx, id).Scan(&version); {
			case errors.Is(err, sql.ErrNoRows):
				return fmt.Errorf("board %q: %w", id, server.ErrNotFound)
			case err != nil:
				return s.fail(ctx, err)
			}
			return fmt.Errorf("board %q is at version %d, the run started from %d: %w", id, version, c.Base, server.ErrConflict)
		}
		if err != nil {
			return s.fail(ctx, err)
		}
		if _, err := tx.StmtContext(ctx, s.dropSteps).ExecContext(ctx, r.seq, r.cur, r.lo); err != nil {
			return s.fail(ctx, err)
		}
		if _, err := tx.StmtContext(ctx, s.insertStep).ExecContext(ctx, r.seq, r.cur, c.RunID, []byte(c.Doc)); err != nil {
			return s.fail(ctx, err)
		}
		return nil
	})
	if err != nil {
		return server.BoardState{}, err
	}
	return r.state(append([]byte(nil), c.Doc...)), nil
}

// Undo implements server.Store.
func (s *Store) Undo(ctx context.Context, id string) (server.BoardState, error) {
	return s.move(ctx, id, s.undo, 1, server.ErrNothingToUndo)
}

// Redo implements server.Store.
func (s *Store) Redo(ctx context.Context, id string) (server.BoardState, error) {
	return s.move(ctx, id, s.redo, 0, server.ErrNothingToRedo)
}

// move runs undo or redo: stmt moves the board to the step before or after,
// or returns no row if there is none (or no board). The step taken back or
// brought back is the current one plus taken (undo 1, redo 0).
func (s *Store) move(ctx context.Context, id string, stmt *sql.Stmt, taken int64, nothing error) (server.BoardState, error) {
	var r row
	var doc []byte
	var runID string
	err := s.write(ctx, func(tx *sql.Tx) error {
		err := tx.StmtContext(ctx, stmt).QueryRowContext(ctx, now().UnixNano(), id).Scan(r.dest()...)
		if errors.Is(err, sql.ErrNoRows) {
			var version int64
			switch err := tx.StmtContext(ctx, s.version).QueryRowContext(ctx, id).Scan(&version); {
			case errors.Is(err, sql.ErrNoRows):
				return fmt.Errorf("board %q: %w", id, server.ErrNotFound)
			case err != nil:
				return s.fail(ctx, err)
			}
			return fmt.Errorf("board %q: %w", id, nothing)
		}
		if err != nil {
			return s.fail(ctx, err)
		}
		if err := tx.StmtContext(ctx, s.stepDoc).QueryRowContext(ctx, r.seq, r.cur).Scan(&doc); err != nil {
			return s.fail(ctx, fmt.Errorf("board %q, step %d: %w", id, r.cur, err))
		}
		if err := tx.StmtContext(ctx, s.stepRun).QueryRowContext(ctx, r.seq, r.cur+taken).Scan(&runID); err != nil {
			return s.fail(ctx, fmt.Errorf("board %q, step %d: %w", id, r.cur+taken, err))
		}
		return nil
	})
	if err != nil {
		return server.BoardState{}, err
	}
	st := r.state(doc)
	st.StepRunID = runID
	return st, nil
}

// Close closes the file. Calls after Close fail; calls under way when it is
// called finish first. Closing again does nothing.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		var errs []error
		for _, st := range statements {
			if p := *st.dst(s); p != nil {
				errs = append(errs, p.Close())
			}
		}
		if s.r != nil {
			errs = append(errs, s.r.Close())
		}
		errs = append(errs, s.w.Close())
		if err := errors.Join(errs...); err != nil {
			s.closeErr = fmt.Errorf("sqlitestore: closing %s: %w", s.path, err)
		}
	})
	return s.closeErr
}

// Path is the file the Store was opened on, as given to Open.
func (s *Store) Path() string { return s.path }
