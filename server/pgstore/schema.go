package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// A migration takes the schema from one version to the next.
type migration struct {
	what string // recorded with it in codemode_schema_migrations
	sql  string
}

// migrations[i] takes a database at schema version i to i+1; migrations[0]
// makes a new one. The list is only ever appended to: a released migration
// is never changed, since databases out there have run it. A later version
// of codemode adds its tables (events, board leases) as new entries.
var migrations = []migration{
	0: {"boards and their undo history", `
	CREATE TABLE codemode_boards (
		seq     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- steps refer to it: a re-created id is a new board
		id      text COLLATE "C" NOT NULL UNIQUE,  -- "C": ListBoards' byte order, walked on the index
		name    bytea NOT NULL,                     -- UTF-8, as given
		created timestamptz NOT NULL,
		updated timestamptz NOT NULL,               -- the last commit, undo or redo
		version bigint NOT NULL,
		lo      bigint NOT NULL,                    -- the oldest step kept: undo goes down to it
		cur     bigint NOT NULL,                    -- the current step
		hi      bigint NOT NULL                     -- the newest step: redo goes up to it
	);
	CREATE TABLE codemode_steps (
		board  bigint NOT NULL REFERENCES codemode_boards (seq) ON DELETE CASCADE,
		step   bigint NOT NULL,
		run_id text NOT NULL,                       -- the run that made it; empty for a new board
		doc    bytea NOT NULL,                      -- the board document, JSON as given
		PRIMARY KEY (board, step)
	);`},
	1: {"the cluster: board logs and locks, run owners, forwarded requests", `
	CREATE TABLE codemode_board_logs (
		board_id text COLLATE "C" PRIMARY KEY,
		epoch    text NOT NULL,                   -- a new one when the board is deleted and made again
		seq      bigint NOT NULL DEFAULT 0,       -- the last event's
		settled  bigint NOT NULL DEFAULT 0,       -- the committed board has every change up to it
		version  bigint NOT NULL DEFAULT 0,       -- the committed version as the last lock's holder left it
		dirty    boolean NOT NULL DEFAULT false   -- locked, or its holder died holding it
	);
	CREATE TABLE codemode_board_events (
		board_id text COLLATE "C" NOT NULL,
		seq      bigint NOT NULL,
		type     text NOT NULL,
		data     bytea NOT NULL,                  -- the event's JSON
		PRIMARY KEY (board_id, seq)
	);
	CREATE TABLE codemode_run_owners (
		run_id  text PRIMARY KEY,
		replica text NOT NULL,
		pid     bigint NOT NULL                   -- the replica's listening session: gone, the replica is
	);
	CREATE TABLE codemode_forwarded (
		id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		to_replica   text NOT NULL,
		from_replica text NOT NULL,
		run_id       text NOT NULL,
		request      bytea NOT NULL,
		answer       bytea
	);`},
	2: {"the time of a board log's last append, for sweeping the events of idle boards", `
	ALTER TABLE codemode_board_logs ADD COLUMN appended timestamptz; -- NULL: no events kept
	UPDATE codemode_board_logs SET appended = now() WHERE seq > 0;
	CREATE INDEX codemode_board_logs_appended ON codemode_board_logs (appended) WHERE appended IS NOT NULL;`},
}

// schemaVersion is the schema version this package writes and reads.
func schemaVersion() int { return len(migrations) }

// migrateLock is the key of the advisory lock held while migrating: "cmdb"
// "schm" in ASCII, codemode's and unlikely to be another program's.
const migrateLock int64 = 0x636d6462_7363686d

// migrate brings the schema up to schemaVersion, or refuses a database at a
// later version. It runs in one transaction under migrateLock, so Stores
// opening together take turns and the later ones find the work done.
func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return s.connectError(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLock); err != nil {
		return s.schemaError("waiting for the lock on migrations", err)
	}
	// Created only if missing: creating needs the CREATE privilege, which a
	// role that only uses an existing schema may lack.
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT to_regclass('codemode_schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return s.schemaError("looking for codemode_schema_migrations", err)
	}
	if !exists {
		if _, err := tx.Exec(ctx, `
			CREATE TABLE codemode_schema_migrations (
				version integer PRIMARY KEY,
				applied timestamptz NOT NULL DEFAULT now(),
				what    text NOT NULL
			)`); err != nil {
			return s.schemaError("creating codemode_schema_migrations", err)
		}
	}
	var version int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM codemode_schema_migrations`).Scan(&version); err != nil {
		return s.schemaError("reading the schema version", err)
	}
	if version > schemaVersion() {
		return fmt.Errorf("pgstore: %s was migrated by a newer codemode (schema version %d; this one knows up to %d): upgrade codemode", s.where, version, schemaVersion())
	}
	if version == schemaVersion() {
		return nil // the deferred rollback ends the transaction and frees the lock
	}
	for v := version; v < schemaVersion(); v++ {
		if err := apply(ctx, tx, v); err != nil {
			return s.schemaError(fmt.Sprintf("migrating from schema version %d to %d (%s)", v, v+1, migrations[v].what), err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return s.schemaError("committing the migrations", err)
	}
	return nil
}

// apply runs migrations[v] and records it.
func apply(ctx context.Context, tx pgx.Tx, v int) error {
	if _, err := tx.Exec(ctx, migrations[v].sql); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `INSERT INTO codemode_schema_migrations (version, what) VALUES ($1, $2)`, v+1, migrations[v].what)
	return err
}

func (s *Store) schemaError(doing string, err error) error {
	return fmt.Errorf("pgstore: %s: %s: %w", s.where, doing, err)
}
