package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/codemode-dev/codemode/server"
)

// Cluster is a server.Cluster over a Store's database: the replicas of
// `codemode serve --store postgres://…` share boards through it. How, and
// why so (docs/design.md, "Many replicas"):
//
//   - A board's lock is a session-level advisory lock, held on a connection
//     of the lock pool for as long as the change lasts. PostgreSQL queues
//     waiters in order, and releases the lock when the session ends: a
//     replica killed mid-run frees its boards as soon as its connections
//     close (at once for a killed process; for a lost machine, when TCP
//     keepalives give up).
//   - A board's log is codemode_board_logs (where it stands: epoch, last
//     seq, settled seq, committed version, dirty) and codemode_board_events
//     (its last logEvents events), written by the lock's holder in one
//     round trip per batch, with a NOTIFY on codemode_boards carrying
//     "seq board" (never the event: payloads are capped at 8000 bytes).
//   - A run's owner is a row of codemode_run_owners naming the replica and
//     the process id of its listening session; a request forwarded to it is
//     a row of codemode_forwarded, announced on the owner's own channel, and
//     answered the same way back. A replica whose session is gone owns
//     nothing (pg_stat_activity), so a request about its runs is a 404, not
//     a wait.
type Cluster struct {
	s     *Store
	locks *pgxpool.Pool // sessions that hold board locks
	id    string        // this replica's, in its channel's name
	cfg   *pgx.ConnConfig

	retention time.Duration

	// ownMu orders Own's inserts with a new listening session's update of
	// this replica's runs' pid: an insert under the old pid that landed
	// after the update would leave its run owned by a dead session (its
	// approvals 404 on other replicas until it ends).
	ownMu     sync.Mutex
	pid       atomic.Uint32 // the listening session's backend process id; set under ownMu
	stop      context.CancelFunc
	done      chan struct{}  // the listener ended
	swept     chan struct{}  // the sweeper ended
	answering sync.WaitGroup // forwarded requests being answered (added to by the listener only)

	mu        sync.Mutex
	listeners map[int]func(string, uint64)
	nextL     int
	serve     func(ctx context.Context, runID string, req []byte) []byte
	waiters   map[int64]chan struct{} // forwarded requests waiting for their answer, by row id
	held      map[*lock]bool          // board locks held now
	closed    bool
}

// ClusterOptions tune a Cluster; the zero value is the defaults.
type ClusterOptions struct {
	// MaxLocks caps the connections that hold board locks at once (one per
	// board being changed by this replica: beyond it, runs on other boards
	// wait for one); 0 means 16. They are opened as needed. Each replica
	// holds up to this many besides its Store's pool and one that
	// listens, so PostgreSQL's max_connections (100 by default) must be at
	// least replicas × (MaxLocks + the Store's pool + 1) for the busiest
	// moment (docs/deploy.md).
	MaxLocks int
	// LogRetention is how long a board's events stay in its log after the
	// last was appended; 0 means 10 minutes. Events are for watchers
	// catching up and clients resuming their streams (a server alone keeps
	// a board's for a minute after its last watcher left); a log keeps up
	// to 1,088 events a board, about 0.5 MB for the load test's boards,
	// which without it would stay for every board ever changed. Past it, a
	// client resuming from an old event is sent the board whole.
	LogRetention time.Duration
}

// DefaultLogRetention is ClusterOptions.LogRetention's default.
const DefaultLogRetention = 10 * time.Minute

// sweepEvery is how often a replica deletes the events of logs idle for
// longer than LogRetention (each replica does, skipping the rows another
// is sweeping); sweepBoards is how many boards' logs one statement sweeps.
const (
	sweepEvery  = time.Minute
	sweepBoards = 100
)

// DefaultMaxLocks is ClusterOptions.MaxLocks's default.
const DefaultMaxLocks = 16

// trimEvery is how often (in events) an append deletes the events past
// logEvents.
const trimEvery = 64

// logEvents is how many events a board's log keeps, as a server's ring
// does: a client resumes from any of them.
const logEvents = 1024

// boardsChannel carries the notices of appended events.
const boardsChannel = "codemode_boards"

// Join makes this process a replica of the cluster of servers that share
// the Store's database; give the result to server.Options.Cluster, and
// Close it after the server's Shutdown, before the Store's Close.
func (s *Store) Join(ctx context.Context, opts ClusterOptions) (*Cluster, error) {
	if opts.MaxLocks < 0 {
		return nil, fmt.Errorf("pgstore: MaxLocks is %d; it must be at least 1 (0 means %d)", opts.MaxLocks, DefaultMaxLocks)
	}
	if opts.MaxLocks == 0 {
		opts.MaxLocks = DefaultMaxLocks
	}
	if opts.LogRetention < 0 {
		return nil, fmt.Errorf("pgstore: LogRetention is %v; it must be positive (0 means %v)", opts.LogRetention, DefaultLogRetention)
	}
	if opts.LogRetention == 0 {
		opts.LogRetention = DefaultLogRetention
	}
	lcfg := s.pool.Config().Copy()
	lcfg.MaxConns, lcfg.MinConns = int32(opts.MaxLocks), 0
	// A replica whose machine vanishes (no FIN, no RST) holds its locks
	// until the server's side of the connection gives up: with these, about
	// 5 + 3×5 s of silence, not the operating system's default of hours.
	// (Ignored on a Unix socket, where a dead peer is seen at once.)
	//
	// synchronous_commit off: the log's writes (the lock's row, events) do
	// not wait for the disk. They are not the boards (the Store's commits
	// are durable): a database that crashes may lose the last events of a
	// log, and replicas then send their watchers the board whole. Measured
	// with the load test (50 clients, one replica, fsync on): 80–86 runs/s
	// with every write waiting for the disk, 137 without.
	for k, v := range map[string]string{"tcp_keepalives_idle": "5", "tcp_keepalives_interval": "5", "tcp_keepalives_count": "3", "synchronous_commit": "off"} {
		if _, set := lcfg.ConnConfig.RuntimeParams[k]; !set {
			lcfg.ConnConfig.RuntimeParams[k] = v
		}
	}
	locks, err := pgxpool.NewWithConfig(ctx, lcfg)
	if err != nil {
		return nil, s.connectError(err)
	}
	var b [6]byte
	rand.Read(b[:])
	lctx, stop := context.WithCancel(context.Background())
	// The listening session has the lock sessions' keepalives: a replica
	// whose machine vanished is then seen dead (its runs owned by nobody)
	// as soon as its locks are freed.
	c := &Cluster{s: s, locks: locks, id: hex.EncodeToString(b[:]), cfg: lcfg.ConnConfig.Copy(),
		retention: opts.LogRetention, stop: stop, done: make(chan struct{}), swept: make(chan struct{}),
		listeners: make(map[int]func(string, uint64)), waiters: make(map[int64]chan struct{}), held: make(map[*lock]bool)}
	first := make(chan error, 1)
	go c.listen(lctx, first)
	go c.sweepLoop(lctx)
	select {
	case err = <-first:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

var _ server.Cluster = (*Cluster)(nil)

// channel is this replica's own channel, for requests forwarded to it and
// answers to its own.
func (c *Cluster) channel() string { return "codemode_r_" + c.id }

// listen holds the session that LISTENs, for as long as the cluster is
// open, making it again (with a pause that grows to 2 s) when it is lost;
// after a loss every listener hears "" (notices may have been missed).
// first gets the first attempt's error, or nil once it listens.
func (c *Cluster) listen(ctx context.Context, first chan<- error) {
	defer close(c.done)
	pause := 100 * time.Millisecond
	listened := false // once: after that, a lost session is made again
	for {
		began := time.Now()
		err := c.listenOnce(ctx, &listened, first)
		if time.Since(began) > 10*time.Second {
			pause = 100 * time.Millisecond // it had been up: this is a new loss, not the same one again
		}
		if !listened {
			first <- err
			return
		}
		if ctx.Err() != nil {
			return
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return
		}
		pause = min(2*pause, 2*time.Second)
	}
}

// listenOnce connects, listens, and dispatches notifications until the
// session fails or ctx ends.
func (c *Cluster) listenOnce(ctx context.Context, listened *bool, first chan<- error) error {
	conn, err := pgx.ConnectConfig(ctx, c.cfg)
	if err != nil {
		return c.s.connectError(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `LISTEN `+boardsChannel+`; LISTEN `+c.channel()); err != nil {
		return c.s.fail(ctx, err)
	}
	pid := conn.PgConn().PID()
	again := *listened
	*listened = true
	if again {
		// Runs this replica owns are its own still: under the new session.
		// Bounded: Own waits for it, holding a run's sink.
		uctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		c.ownMu.Lock()
		c.pid.Store(pid)
		c.s.pool.Exec(uctx, `UPDATE codemode_run_owners SET pid = $1 WHERE replica = $2`, int64(pid), c.id)
		c.ownMu.Unlock()
		cancel()
		c.heard("", 0)
	} else {
		c.pid.Store(pid)
		first <- nil
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		c.dispatch(ctx, n.Channel, n.Payload)
	}
}

// dispatch acts on one notification.
func (c *Cluster) dispatch(ctx context.Context, channel, payload string) {
	kind, rest, _ := strings.Cut(payload, " ")
	switch {
	case channel == boardsChannel:
		seq, err := strconv.ParseUint(kind, 10, 64)
		if err == nil && rest != "" {
			c.heard(rest, seq)
		}
	case kind == "req":
		if id, err := strconv.ParseInt(rest, 10, 64); err == nil {
			// Answered to the end even if the cluster closes meanwhile:
			// the run it decides may be what a shutdown waits for, and
			// its sender waits for the answer (Close waits for it).
			c.answering.Add(1)
			go func() {
				defer c.answering.Done()
				c.answer(context.WithoutCancel(ctx), id)
			}()
		}
	case kind == "ans":
		if id, err := strconv.ParseInt(rest, 10, 64); err == nil {
			c.mu.Lock()
			if w := c.waiters[id]; w != nil {
				close(w)
				delete(c.waiters, id)
			}
			c.mu.Unlock()
		}
	}
}

// heard calls the listeners.
func (c *Cluster) heard(board string, seq uint64) {
	c.mu.Lock()
	fs := make([]func(string, uint64), 0, len(c.listeners))
	for _, f := range c.listeners {
		fs = append(fs, f)
	}
	c.mu.Unlock()
	for _, f := range fs {
		f(board, seq)
	}
}

// Listen implements server.Cluster.
func (c *Cluster) Listen(f func(string, uint64)) (stop func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.nextL
	c.nextL++
	c.listeners[k] = f
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.listeners, k)
	}
}

// lockKey names a board's advisory lock: a 64-bit hash of its id (two ids
// with one hash only take turns needlessly).
const lockKey = `hashtextextended('codemode.board:' || $1, 0)`

// Lock implements server.Cluster.
func (c *Cluster) Lock(ctx context.Context, id string) (server.BoardLock, error) {
	return c.lock(ctx, id, true)
}

// TryLock implements server.Cluster: two round trips (it is rare: a
// replica checking on a holder that may have died).
func (c *Cluster) TryLock(ctx context.Context, id string) (server.BoardLock, error) {
	return c.lock(ctx, id, false)
}

func (c *Cluster) lock(ctx context.Context, id string, wait bool) (server.BoardLock, error) {
	if err := c.s.start(ctx); err != nil {
		return nil, err
	}
	conn, err := c.locks.Acquire(ctx)
	if err != nil {
		return nil, c.s.fail(ctx, err)
	}
	k := &lock{c: c, conn: conn, id: id}
	if !wait {
		var ok bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(`+lockKey+`)`, id).Scan(&ok); err != nil {
			k.drop()
			return nil, c.s.fail(ctx, err)
		}
		if !ok {
			conn.Release()
			return nil, server.ErrBoardLocked
		}
	}
	// One round trip: the lock (the wait), then the log's row as it is,
	// marked dirty until Unlock.
	var st server.LockState
	b := &pgx.Batch{}
	if wait {
		b.Queue(`SELECT pg_advisory_lock(`+lockKey+`)`, id)
	}
	b.Queue(`
		WITH old AS (SELECT dirty FROM codemode_board_logs WHERE board_id = $1),
		up AS (
			INSERT INTO codemode_board_logs AS l (board_id, epoch, dirty) VALUES ($1, $2, true)
			ON CONFLICT (board_id) DO UPDATE SET dirty = true
			RETURNING l.epoch, l.seq, l.settled, l.version)
		SELECT up.epoch, up.seq, up.settled, up.version, coalesce((SELECT dirty FROM old), false) FROM up`,
		id, newEpoch()).QueryRow(func(r pgx.Row) error {
		return r.Scan(&st.Epoch, &st.Seq, &st.Settled, &st.Version, &st.Dirty)
	})
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		k.drop()
		return nil, c.s.fail(ctx, err)
	}
	k.st = st
	c.mu.Lock()
	if c.closed { // closed while this waited: the lock dies with the cluster
		c.mu.Unlock()
		k.drop()
		return nil, errors.New("pgstore: left the cluster")
	}
	c.held[k] = true
	c.mu.Unlock()
	return k, nil
}

// newEpoch names a new log.
func newEpoch() string {
	var b [4]byte
	rand.Read(b[:])
	return strconv.FormatInt(time.Now().UnixMilli(), 36) + hex.EncodeToString(b[:])
}

// lock is a board's lock, held on conn.
type lock struct {
	c    *Cluster
	conn *pgxpool.Conn
	id   string
	st   server.LockState

	mu   sync.Mutex // the connection is used by one call at a time
	gone bool
}

func (k *lock) State() server.LockState { return k.st }

// drop gives the connection up without unlocking: closed, so that
// PostgreSQL ends its session and the lock with it.
func (k *lock) drop() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	k.conn.Conn().Close(ctx)
	k.release()
}

// release gives the connection back to the lock pool.
func (k *lock) release() {
	k.c.mu.Lock()
	delete(k.c.held, k)
	k.c.mu.Unlock()
	k.conn.Release()
}

var errLockGone = errors.New("the board's lock is no longer held")

// Append implements server.BoardLock: one statement, that fails unless the
// log is where this holder left it.
func (k *lock) Append(ctx context.Context, events []server.LoggedEvent) error {
	if len(events) == 0 {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.gone {
		return errLockGone
	}
	seqs := make([]int64, len(events))
	typs := make([]string, len(events))
	datas := make([][]byte, len(events))
	for i, e := range events {
		seqs[i], typs[i], datas[i] = int64(e.Seq), e.Type, e.Data
	}
	first, last := seqs[0], seqs[len(seqs)-1]
	// Events past the last logEvents are deleted when the seq crosses a
	// multiple of trimEvery, not at every append: the log keeps up to
	// logEvents+trimEvery.
	trim := int64(0)
	if (first-1)/trimEvery != last/trimEvery {
		trim = last - logEvents
	}
	// One statement: the log's row moves on (only from where this holder
	// left it: else 1/0 fails the whole, events included), the events go
	// in, old ones out, and the notice goes with the commit.
	_, err := k.conn.Exec(ctx, `
		WITH u AS (
			UPDATE codemode_board_logs SET seq = $3, appended = now() WHERE board_id = $1 AND seq = $2 RETURNING 1),
		i AS (
			INSERT INTO codemode_board_events (board_id, seq, type, data)
			SELECT $1, s, t, d FROM unnest($4::bigint[], $5::text[], $6::bytea[]) AS e(s, t, d)
			WHERE EXISTS (SELECT 1 FROM u)),
		d AS (
			DELETE FROM codemode_board_events WHERE board_id = $1 AND seq <= $7 AND EXISTS (SELECT 1 FROM u))
		SELECT 1 / count(*)::int, pg_notify('`+boardsChannel+`', $8) FROM u`,
		k.id, first-1, last, seqs, typs, datas, trim, strconv.FormatInt(last, 10)+" "+k.id)
	if err != nil {
		return k.c.s.fail(ctx, fmt.Errorf("appending events %d to %d to board %q's log: %w", first, last, k.id, err))
	}
	return nil
}

// Unlock implements server.BoardLock.
func (k *lock) Unlock(ctx context.Context, settled uint64, version int64, deleted bool) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.gone {
		return errLockGone
	}
	k.gone = true
	b := &pgx.Batch{}
	if deleted {
		b.Queue(`DELETE FROM codemode_board_logs WHERE board_id = $1`, k.id)
		b.Queue(`DELETE FROM codemode_board_events WHERE board_id = $1`, k.id)
	} else {
		b.Queue(`UPDATE codemode_board_logs SET settled = $2, version = $3, dirty = false WHERE board_id = $1`, k.id, int64(settled), version)
	}
	b.Queue(`SELECT pg_advisory_unlock(`+lockKey+`)`, k.id)
	if err := k.conn.SendBatch(ctx, b).Close(); err != nil {
		k.drop()
		return k.c.s.fail(ctx, fmt.Errorf("unlocking board %q: %w", k.id, err))
	}
	k.release()
	return nil
}

// Log implements server.Cluster: one statement, so that where the log
// stands and its events are read from one snapshot (a board deleted
// between two reads would look like a log that lost its events).
//
// A statement whose insert of a new log's row lost the race to another's
// (two replicas reading a new board's log at once) finds no row at all: the
// winner's is not in its snapshot. It is read again then, in a new
// snapshot that has it (TestLogOfNewBoardRaced).
func (c *Cluster) Log(ctx context.Context, id string, after uint64) (server.LogState, []server.LoggedEvent, error) {
	if err := c.s.start(ctx); err != nil {
		return server.LogState{}, nil, err
	}
	for range 3 {
		st, evs, err := c.logOnce(ctx, id, after)
		if err != nil || st.Epoch != "" {
			return st, evs, err
		}
	}
	return server.LogState{}, nil, fmt.Errorf("pgstore: %s: board %q's log: its row came and went three times while being read", c.s.where, id)
}

// logOnce is one attempt of Log: an empty epoch if the log's row was made
// by another statement after this one's snapshot.
func (c *Cluster) logOnce(ctx context.Context, id string, after uint64) (server.LogState, []server.LoggedEvent, error) {
	var st server.LogState
	rows, err := c.s.pool.Query(ctx, `
		WITH ins AS (
			INSERT INTO codemode_board_logs (board_id, epoch) VALUES ($1, $2)
			ON CONFLICT (board_id) DO NOTHING RETURNING epoch, seq, settled),
		st AS (
			SELECT epoch, seq, settled FROM ins
			UNION ALL SELECT epoch, seq, settled FROM codemode_board_logs WHERE board_id = $1
			LIMIT 1)
		SELECT st.epoch, st.seq, st.settled, e.seq, e.type, e.data
		FROM st LEFT JOIN codemode_board_events e ON e.board_id = $1 AND e.seq > $3
		ORDER BY e.seq`, id, newEpoch(), int64(after))
	if err != nil {
		return st, nil, c.s.fail(ctx, err)
	}
	var evs []server.LoggedEvent
	for rows.Next() {
		var seq *int64
		var typ *string
		var data []byte
		if err := rows.Scan(&st.Epoch, &st.Seq, &st.Settled, &seq, &typ, &data); err != nil {
			rows.Close()
			return st, nil, c.s.fail(ctx, err)
		}
		if seq != nil {
			evs = append(evs, server.LoggedEvent{Seq: uint64(*seq), Type: *typ, Data: data})
		}
	}
	if err := rows.Err(); err != nil {
		return st, nil, c.s.fail(ctx, err)
	}
	return st, evs, nil
}

// Own implements server.Cluster.
func (c *Cluster) Own(ctx context.Context, runID string) (func(), error) {
	if err := c.s.start(ctx); err != nil {
		return nil, err
	}
	c.ownMu.Lock()
	_, err := c.s.pool.Exec(ctx, `
		INSERT INTO codemode_run_owners (run_id, replica, pid) VALUES ($1, $2, $3)
		ON CONFLICT (run_id) DO UPDATE SET replica = $2, pid = $3`, runID, c.id, int64(c.pid.Load()))
	c.ownMu.Unlock()
	if err != nil {
		return nil, c.s.fail(ctx, err)
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c.s.pool.Exec(ctx, `DELETE FROM codemode_run_owners WHERE run_id = $1 AND replica = $2`, runID, c.id)
	}, nil
}

// Forward implements server.Cluster.
func (c *Cluster) Forward(ctx context.Context, runID string, req []byte) ([]byte, error) {
	if err := c.s.start(ctx); err != nil {
		return nil, err
	}
	var owner string
	err := c.s.pool.QueryRow(ctx, `
		SELECT o.replica FROM codemode_run_owners o
		WHERE o.run_id = $1 AND EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = o.pid)`, runID).Scan(&owner)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, server.ErrNoOwner
	}
	if err != nil {
		return nil, c.s.fail(ctx, err)
	}
	var id int64
	err = c.s.pool.QueryRow(ctx, `
		WITH r AS (INSERT INTO codemode_forwarded (to_replica, from_replica, run_id, request) VALUES ($1, $2, $3, $4) RETURNING id)
		SELECT id FROM r`, owner, c.id, runID, req).Scan(&id)
	if err != nil {
		return nil, c.s.fail(ctx, err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c.s.pool.Exec(ctx, `DELETE FROM codemode_forwarded WHERE id = $1`, id)
	}()
	answered := make(chan struct{})
	c.mu.Lock()
	c.waiters[id] = answered
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiters, id)
		c.mu.Unlock()
	}()
	if _, err := c.s.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, "codemode_r_"+owner, "req "+strconv.FormatInt(id, 10)); err != nil {
		return nil, c.s.fail(ctx, err)
	}
	for {
		var answer []byte
		// Read once registered, so that an answer that came first is not
		// missed; then again at each notice (or every second, in case one
		// was lost with a session).
		if err := c.s.pool.QueryRow(ctx, `SELECT answer FROM codemode_forwarded WHERE id = $1`, id).Scan(&answer); err != nil {
			return nil, c.s.fail(ctx, err)
		}
		if answer != nil {
			return answer, nil
		}
		select {
		case <-answered:
			answered = make(chan struct{}) // a closed one would spin: wait for the read
			c.mu.Lock()
			c.waiters[id] = answered
			c.mu.Unlock()
		case <-time.After(time.Second):
		case <-ctx.Done():
			return nil, fmt.Errorf("run %s's replica did not answer: %w", runID, ctx.Err())
		}
	}
}

// answer answers a request forwarded to this replica.
func (c *Cluster) answer(ctx context.Context, id int64) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var runID, from string
	var req []byte
	err := c.s.pool.QueryRow(ctx, `SELECT run_id, from_replica, request FROM codemode_forwarded WHERE id = $1 AND to_replica = $2 AND answer IS NULL`, id, c.id).Scan(&runID, &from, &req)
	if err != nil {
		return // answered, or given up by its sender
	}
	c.mu.Lock()
	serve := c.serve
	c.mu.Unlock()
	if serve == nil {
		return
	}
	out := serve(ctx, runID, req)
	c.s.pool.Exec(ctx, `
		WITH u AS (UPDATE codemode_forwarded SET answer = $2 WHERE id = $1 RETURNING id)
		SELECT pg_notify($3, 'ans ' || id::text) FROM u`, id, out, "codemode_r_"+from)
}

// Serve implements server.Cluster.
func (c *Cluster) Serve(f func(ctx context.Context, runID string, req []byte) []byte) {
	c.mu.Lock()
	c.serve = f
	c.mu.Unlock()
}

// Close leaves the cluster as a replica that dies would: the board locks
// held go with their sessions (the next holders are told the board may be
// half-changed), the runs it owns are owned by nobody, nothing more is
// heard. The Store stays open.
func (c *Cluster) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	held := make([]*lock, 0, len(c.held))
	for k := range c.held {
		held = append(held, k)
	}
	c.mu.Unlock()
	c.stop()
	<-c.done
	<-c.swept
	c.answering.Wait()
	// The sessions holding locks end now, not when their changes do: their
	// network connections are closed under them (the changes' next
	// appends fail), and the pool closes once they are given back.
	for _, k := range held {
		k.conn.Conn().PgConn().Conn().Close()
	}
	go c.locks.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.s.pool.Exec(ctx, `DELETE FROM codemode_run_owners WHERE replica = $1`, c.id)
	return nil
}

// sweepLoop sweeps the logs every sweepEvery (the first a random part of
// it after Join, so that replicas started together do not sweep together)
// until ctx ends.
func (c *Cluster) sweepLoop(ctx context.Context) {
	defer close(c.swept)
	wait := mrand.N(sweepEvery)
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = sweepEvery
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		c.sweep(sctx, c.retention) // a failure is tried again at the next; the database going away is the Store's to report
		cancel()
	}
}

// sweep deletes the events of the logs whose last append is older than
// retention and that no holder has locked (dirty), sweepBoards logs a
// statement until none is left; it returns how many events it deleted. A log
// keeps its row (epoch, seq, settled): a watcher catching up with it is
// sent the board whole. Rows another replica is sweeping are skipped.
func (c *Cluster) sweep(ctx context.Context, retention time.Duration) (int64, error) {
	var total int64
	for {
		tag, err := c.s.pool.Exec(ctx, `
			WITH idle AS (
				UPDATE codemode_board_logs SET appended = NULL
				WHERE board_id IN (
					SELECT board_id FROM codemode_board_logs
					WHERE appended < now() - make_interval(secs => $1) AND NOT dirty
					ORDER BY appended LIMIT $2 FOR UPDATE SKIP LOCKED)
				RETURNING board_id)
			DELETE FROM codemode_board_events e USING idle WHERE e.board_id = idle.board_id`,
			retention.Seconds(), sweepBoards)
		if err != nil {
			return total, c.s.fail(ctx, fmt.Errorf("sweeping idle boards' events: %w", err))
		}
		if tag.RowsAffected() == 0 {
			return total, nil
		}
		total += tag.RowsAffected()
	}
}
