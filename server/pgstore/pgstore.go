package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/codemode-dev/codemode/server"
)

// Options tune a Store; the zero value is the defaults.
type Options struct {
	// MaxHistory is how many undo steps each board keeps; older ones are
	// deleted by the commit that pushes them out. 0 means 100.
	MaxHistory int
}

// DefaultMaxHistory is the number of undo steps kept when
// Options.MaxHistory is 0.
const DefaultMaxHistory = 100

// defaultConnectTimeout bounds opening a connection when the URL does not
// (connect_timeout): without it, a host that drops packets holds Open for
// the operating system's TCP timeout, minutes.
const defaultConnectTimeout = 10 * time.Second

// Store is a server.Store in a PostgreSQL database. It is safe for
// concurrent use, and several Stores may share one database.
type Store struct {
	pool       *pgxpool.Pool
	maxHistory int
	where      string // host:port/database, for messages
	addr, user string // host:port and role, for connection errors
	closed     atomic.Bool
	closeOnce  sync.Once
}

var _ server.Store = (*Store)(nil)

// Open connects to the database at url (postgres://user:password@host:port/db
// or any form pgx takes), creates or migrates the schema, and returns the
// Store. It fails, saying why, when the URL is not one, the server cannot be
// reached, the password is wrong or the database was migrated by a newer
// codemode. ctx bounds the connecting and migrating, not the Store's life.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	if opts.MaxHistory < 0 {
		return nil, fmt.Errorf("pgstore: MaxHistory is %d; it must be at least 1 (0 means %d)", opts.MaxHistory, DefaultMaxHistory)
	}
	if opts.MaxHistory == 0 {
		opts.MaxHistory = DefaultMaxHistory
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx masks the password in what it quotes of the URL.
		return nil, fmt.Errorf("pgstore: the store URL is not a PostgreSQL connection URL: %w", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	s := &Store{maxHistory: opts.MaxHistory, user: cfg.ConnConfig.User}
	s.addr = hostPort(cfg.ConnConfig.Host, cfg.ConnConfig.Port)
	s.where = s.addr + "/" + cfg.ConnConfig.Database
	if s.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, s.connectError(err)
	}
	// The first connection is made here: a bad address or password fails
	// Open, not the first request.
	if err := s.migrate(ctx); err != nil {
		s.pool.Close()
		return nil, err
	}
	return s, nil
}

// hostPort is how messages name a server: host:port, or the socket
// directory for a Unix socket.
func hostPort(host string, port uint16) string {
	if strings.HasPrefix(host, "/") {
		return fmt.Sprintf("%s/.s.PGSQL.%d", host, port)
	}
	return net.JoinHostPort(host, strconv.Itoa(int(port)))
}

// Location is where the boards are: host:port/database, without the user or
// password, for a server to say at start.
func (s *Store) Location() string { return s.where }

// Pool is the Store's connection pool, for code that keeps more than boards
// in the same database. It is closed by Close.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// connectError explains a failure to connect: which server, as whom, and
// the reason in a few words, never the password.
func (s *Store) connectError(err error) error {
	reason := err.Error()
	var pgErr *pgconn.PgError
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &pgErr):
		reason = pgErr.Message // password authentication failed for user "x"; database "y" does not exist
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		reason = "no such host"
	case errors.As(err, &dnsErr):
		reason = "cannot look the host up: " + dnsErr.Err
	case errors.Is(err, syscall.ECONNREFUSED):
		reason = "connection refused (is PostgreSQL running there, on that port?)"
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		reason = "no answer (timed out)"
	default:
		var ce *pgconn.ConnectError
		if errors.As(err, &ce) && ce.Unwrap() != nil {
			reason = ce.Unwrap().Error()
		}
	}
	return &openError{msg: fmt.Sprintf("pgstore: connecting to PostgreSQL at %s as %s: %s", s.addr, s.user, reason), err: err}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// openError is an error of Open with a message of its own and the
// driver's error under it, for errors.Is and errors.As.
type openError struct {
	msg string
	err error
}

func (e *openError) Error() string { return e.msg }
func (e *openError) Unwrap() error { return e.err }

var errClosed = errors.New("pgstore: the store is closed")

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

// fail turns an error of the database into the Store's: the context's error
// once the context is done, errClosed once the store is closed, and the rest
// naming the database.
func (s *Store) fail(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case s.closed.Load():
		return errClosed
	case lostConnection(err):
		return fmt.Errorf("pgstore: %s: %w: %w", s.where, server.ErrUnavailable, err)
	}
	return fmt.Errorf("pgstore: %s: %w", s.where, err)
}

// lostConnection reports whether err says the database cannot be reached
// now (it is down, restarting, or refuses connections), rather than that
// it refused the statement: the server answers such failures 503, to be
// tried again.
func lostConnection(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// 08: connection exceptions; 57P01-57P03: shut down or starting;
		// 53300: too many connections.
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03" || pgErr.Code == "53300"
	}
	var ce *pgconn.ConnectError
	return errors.As(err, &ce) || pgconn.SafeToRetry(err) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || isTimeout(err)
}

// onConn runs fn on a connection of the pool, for work of more than one
// statement: a batch of them is one round trip. A connection that fn
// leaves in a transaction (after an error) is closed by the pool, not
// reused, and the server rolls the transaction back.
func (s *Store) onConn(ctx context.Context, fn func(conn *pgxpool.Conn) error) error {
	if err := s.start(ctx); err != nil {
		return err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return s.fail(ctx, err)
	}
	defer conn.Release()
	return fn(conn)
}

// keepTime is t as the database keeps it: UTC, to the microsecond.
func keepTime(t time.Time) (time.Time, error) {
	if t.Year() < 1 || t.Year() > 9999 {
		return time.Time{}, fmt.Errorf("the time %v is outside the years 1 to 9999 that the store keeps", t)
	}
	return t.UTC().Truncate(time.Microsecond).Round(0), nil
}

// now is the Store's clock, as the database keeps times. The clock is the
// server process's, not the database's, as with SQLite: Updated is at least
// the previous one (greatest), so a replica whose clock is behind never
// moves it back.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond).Round(0) }

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
	var err error
	if info.Created, err = keepTime(info.Created); err != nil {
		return server.BoardState{}, fmt.Errorf("board %q: Created: %w", info.ID, err)
	}
	if info.Updated, err = keepTime(info.Updated); err != nil {
		return server.BoardState{}, fmt.Errorf("board %q: Updated: %w", info.ID, err)
	}
	if err := s.start(ctx); err != nil {
		return server.BoardState{}, err
	}
	// One statement, so one transaction: the board and its first step.
	var seq int64
	switch err := s.pool.QueryRow(ctx, `
		WITH b AS (
			INSERT INTO codemode_boards (id, name, created, updated, version, lo, cur, hi)
			VALUES ($1, $2, $3, $4, 1, 0, 0, 0)
			ON CONFLICT (id) DO NOTHING
			RETURNING seq)
		INSERT INTO codemode_steps (board, step, run_id, doc) SELECT seq, 0, '', $5 FROM b
		RETURNING board`, info.ID, []byte(info.Name), info.Created, info.Updated, []byte(doc)).Scan(&seq); {
	case errors.Is(err, pgx.ErrNoRows):
		return server.BoardState{}, fmt.Errorf("board %q: %w", info.ID, server.ErrExists)
	case err != nil:
		return server.BoardState{}, s.fail(ctx, err)
	}
	return server.BoardState{BoardInfo: info, Version: 1, Doc: append(json.RawMessage(nil), doc...)}, nil
}

// ListBoards implements server.Store.
func (s *Store) ListBoards(ctx context.Context, after string, limit int) ([]server.BoardInfo, error) {
	if limit < 1 {
		return nil, fmt.Errorf("pgstore: listing %d boards: the limit must be at least 1", limit)
	}
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT id, name, created, updated FROM codemode_boards WHERE id > $1 ORDER BY id LIMIT $2`, after, limit)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	defer rows.Close()
	infos := []server.BoardInfo{}
	for rows.Next() {
		var b server.BoardInfo
		var name []byte
		if err := rows.Scan(&b.ID, &name, &b.Created, &b.Updated); err != nil {
			return nil, s.fail(ctx, err)
		}
		b.Name, b.Created, b.Updated = string(name), b.Created.UTC(), b.Updated.UTC()
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
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM codemode_boards`).Scan(&n); err != nil {
		return 0, s.fail(ctx, err)
	}
	return n, nil
}

// boardColumns are the columns a row is read from.
const boardColumns = `seq, id, name, created, updated, version, lo, cur, hi`

// row is a board as a statement returns it.
type row struct {
	seq, version, lo, cur, hi int64
	id                        string
	name                      []byte
	created, updated          time.Time
}

func (r *row) dest() []any {
	return []any{&r.seq, &r.id, &r.name, &r.created, &r.updated, &r.version, &r.lo, &r.cur, &r.hi}
}

func (r *row) state(doc []byte) server.BoardState {
	return server.BoardState{
		BoardInfo: server.BoardInfo{ID: r.id, Name: string(r.name), Created: r.created.UTC(), Updated: r.updated.UTC()},
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
	switch err := s.pool.QueryRow(ctx, `
		SELECT b.seq, b.id, b.name, b.created, b.updated, b.version, b.lo, b.cur, b.hi, s.doc
		FROM codemode_boards b JOIN codemode_steps s ON s.board = b.seq AND s.step = b.cur
		WHERE b.id = $1`, id).Scan(append(r.dest(), &doc)...); {
	case errors.Is(err, pgx.ErrNoRows):
		return server.BoardState{}, fmt.Errorf("board %q: %w", id, server.ErrNotFound)
	case err != nil:
		return server.BoardState{}, s.fail(ctx, err)
	}
	return r.state(doc), nil
}

// DeleteBoard implements server.Store. Its steps go with it (ON DELETE
// CASCADE), in the same statement.
func (s *Store) DeleteBoard(ctx context.Context, id string) error {
	if err := s.start(ctx); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM codemode_boards WHERE id = $1`, id)
	if err != nil {
		return s.fail(ctx, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("board %q: %w", id, server.ErrNotFound)
	}
	return nil
}

// Commit implements server.Store.
//
// It is one transaction of two round trips: BEGIN and the board's UPDATE,
// which checks the version and locks the row; then the steps' changes and
// COMMIT. The UPDATE comes first so that the statements after it see every
// step as the board's last writer left it: under READ COMMITTED each
// statement sees what was committed before it began, and no other writer
// can touch this board's steps until this transaction ends. (In one
// statement, the steps would be read as they were before the UPDATE waited
// for the lock.)
func (s *Store) Commit(ctx context.Context, id string, c server.Commit) (server.BoardState, error) {
	if !json.Valid(c.Doc) {
		return server.BoardState{}, fmt.Errorf("board %q: the document is not valid JSON", id)
	}
	var r row
	err := s.onConn(ctx, func(conn *pgxpool.Conn) error {
		// A commit moves to a new step after the current one and drops the
		// oldest steps beyond the bound; the values on the right are the
		// row's before the update.
		b := &pgx.Batch{}
		b.Queue(`BEGIN`)
		b.Queue(`
			UPDATE codemode_boards SET version = version + 1, cur = cur + 1, hi = cur + 1,
				lo = greatest(lo, cur + 1 - $1), updated = greatest(updated, $2)
			WHERE id = $3 AND version = $4
			RETURNING `+boardColumns, s.maxHistory, now(), id, c.Base).QueryRow(func(row pgx.Row) error { return row.Scan(r.dest()...) })
		switch err := conn.SendBatch(ctx, b).Close(); {
		case errors.Is(err, pgx.ErrNoRows):
			// No such board, or not at c.Base.
			var version int64
			b := &pgx.Batch{}
			b.Queue(`ROLLBACK`)
			b.Queue(`SELECT version FROM codemode_boards WHERE id = $1`, id).QueryRow(func(row pgx.Row) error { return row.Scan(&version) })
			switch err := conn.SendBatch(ctx, b).Close(); {
			case errors.Is(err, pgx.ErrNoRows):
				return fmt.Errorf("board %q: %w", id, server.ErrNotFound)
			case err != nil:
				return s.fail(ctx, err)
			}
			return fmt.Errorf("board %q is at version %d, the run started from %d: %w", id, version, c.Base, server.ErrConflict)
		case err != nil:
			return s.fail(ctx, err)
		}
		// What could have been redone and what fell off go; the new step
		// comes. (A failure here skips the rest of the batch, COMMIT
		// included, and leaves the transaction for the pool to discard.)
		b = &pgx.Batch{}
		b.Queue(`DELETE FROM codemode_steps WHERE board = $1 AND (step >= $2 OR step < $3)`, r.seq, r.cur, r.lo)
		b.Queue(`INSERT INTO codemode_steps (board, step, run_id, doc) VALUES ($1, $2, $3, $4)`, r.seq, r.cur, c.RunID, []byte(c.Doc))
		b.Queue(`COMMIT`)
		if err := conn.SendBatch(ctx, b).Close(); err != nil {
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
	return s.move(ctx, id, `
		UPDATE codemode_boards SET version = version + 1, cur = cur - 1, updated = greatest(updated, $1)
		WHERE id = $2 AND cur > lo
		RETURNING `+boardColumns, 1, server.ErrNothingToUndo)
}

// Redo implements server.Store.
func (s *Store) Redo(ctx context.Context, id string) (server.BoardState, error) {
	return s.move(ctx, id, `
		UPDATE codemode_boards SET version = version + 1, cur = cur + 1, updated = greatest(updated, $1)
		WHERE id = $2 AND cur < hi
		RETURNING `+boardColumns, 0, server.ErrNothingToRedo)
}

// move runs undo or redo: update moves the board to the step before or
// after, or returns no row if there is none (or no board). It is one batch,
// so one round trip and one (implicit) transaction: the UPDATE, then a
// SELECT of the board's current document, which begins after the UPDATE
// locked the board, so it reads the step the UPDATE moved to (see Commit).
// Had the UPDATE moved nothing, the SELECT tells whether the board exists.
// The step taken back or brought back is the current one plus taken (undo
// 1, redo 0): its run is read in the same SELECT.
func (s *Store) move(ctx context.Context, id, update string, taken int64, nothing error) (server.BoardState, error) {
	if err := s.start(ctx); err != nil {
		return server.BoardState{}, err
	}
	var r row
	var doc []byte
	var runID string
	moved, exists := true, true
	b := &pgx.Batch{}
	b.Queue(update, now(), id).QueryRow(func(row pgx.Row) error {
		if err := row.Scan(r.dest()...); errors.Is(err, pgx.ErrNoRows) {
			moved = false
		} else if err != nil {
			return err
		}
		return nil
	})
	b.Queue(`
		SELECT s.doc, coalesce((SELECT t.run_id FROM codemode_steps t WHERE t.board = b.seq AND t.step = b.cur + $2), '')
		FROM codemode_boards b JOIN codemode_steps s ON s.board = b.seq AND s.step = b.cur
		WHERE b.id = $1`, id, taken).QueryRow(func(row pgx.Row) error {
		if err := row.Scan(&doc, &runID); errors.Is(err, pgx.ErrNoRows) {
			exists = false
		} else if err != nil {
			return err
		}
		return nil
	})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return server.BoardState{}, s.fail(ctx, err)
	}
	switch {
	case !moved && !exists:
		return server.BoardState{}, fmt.Errorf("board %q: %w", id, server.ErrNotFound)
	case !moved:
		return server.BoardState{}, fmt.Errorf("board %q: %w", id, nothing)
	case !exists: // cannot be: the UPDATE locked the board
		return server.BoardState{}, s.fail(ctx, fmt.Errorf("board %q, step %d: no document", id, r.cur))
	}
	st := r.state(doc)
	st.StepRunID = runID
	return st, nil
}

// Close closes the connection pool. Calls after Close fail; calls under way
// when it is called finish first. Closing again does nothing.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		s.pool.Close()
	})
	return nil
}
