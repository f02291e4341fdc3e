// Package pgstore keeps the boards of `codemode serve` in PostgreSQL, through
// the pgx driver, so that several server processes — replicas on several
// machines — share them. It implements server.Store; the serve command opens
// it for --store postgres://….
//
// # What is kept
//
// The same as package sqlitestore keeps, with the same semantics: a board's
// current document and its undo history, each board keeping its last
// Options.MaxHistory undo steps (100 by default), a commit beyond them
// deleting the oldest step in the same transaction. Every create, commit,
// undo, redo and delete is one transaction, so a run is in the database as
// a whole or not at all. Documents are kept as the bytes given (bytea, not
// jsonb, which would reorder members and respell numbers), and so are board
// names (a JSON string may hold a NUL, which PostgreSQL's text cannot). Times
// are kept to the microsecond, as timestamptz holds them; the times the Store
// returns are the ones it kept.
//
// # Several processes, one database
//
// Any number of Stores, in one process or many, may use one database at
// once. Each write locks its board's row (an UPDATE of it, first thing in its
// transaction) and checks the board's version there, so writes to one board
// take turns and a commit from a stale run fails with server.ErrConflict
// rather than overwrite another's; writes to different boards do not wait
// for each other. Reads take no locks. A commit costs two round trips to the
// database, an undo, a redo, a create or a delete one.
//
// As with any database over a network, a connection lost while COMMIT's
// answer is on its way leaves a call's outcome unknown: the call fails, and
// the change may or may not be there. The version says which: a caller that
// loads the board sees whether it moved.
//
// # The schema
//
// Open creates the tables, named codemode_* so that the database may hold
// other programs' tables too, in the first schema of the connection's
// search_path. The schema carries a version, one row per migration applied
// in codemode_schema_migrations; migrations is the ordered list of them, and
// Open applies the ones a database lacks, in one transaction holding an
// advisory lock, so that replicas starting together do not race to migrate
// (one does it, the others wait and find it done). A database migrated by a
// newer codemode is refused, and left as it was.
//
// # Connecting
//
// Open connects before it returns, so that a wrong URL, an unreachable
// server or a wrong password is an error of Open, saying which (and never
// echoing the password); a connection gets 10 s to open unless the URL sets
// connect_timeout. The URL is pgx's: the pool_* parameters size the
// connection pool (pool_max_conns, by default the larger of 4 and the number
// of CPUs), and Pool gives it to code that needs the database for more than
// boards.
package pgstore
