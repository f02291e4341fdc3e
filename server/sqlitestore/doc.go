// Package sqlitestore keeps the boards of `codemode serve` in an SQLite file,
// through the pure-Go driver modernc.org/sqlite: nothing to install or set up.
// It implements server.Store; the serve command opens DIR/boards.db of its
// --data directory.
//
// # What is kept
//
// A board's current document and its undo history: every commit, undo and redo
// is one transaction, so a run is on disk as a whole or not at all. Each board
// keeps its last Options.MaxHistory undo steps (100 by default); a commit
// beyond them deletes the oldest step in the same transaction, so a board's
// size is bounded by MaxHistory+1 documents however long it lives, plus the
// steps that can be redone. (Opened with a smaller MaxHistory than before, a
// board sheds its extra steps at its next commit.) Deleting a board deletes
// its history. Run ids are
// kept with each step, for whoever reads the file.
//
// # Durability
//
// The database runs in WAL mode with synchronous=NORMAL: a commit is written
// to the write-ahead log before Commit returns, but the log is flushed to the
// disk only at checkpoints, not at every commit. So every committed run
// survives a crash of the process (including kill -9); a power cut or an
// operating-system crash may lose the last runs committed before it, never
// leaving a board half-written or the file corrupt. That trade buys commits
// in tens of microseconds instead of an fsync each.
//
// # The file
//
// Open creates the file, and its directory (mode 0700) when missing. The file
// is marked as codemode's (PRAGMA application_id) and carries a schema version
// (PRAGMA user_version): a file that is not an SQLite database, another
// program's database, or one written by a newer codemode is refused with an
// error naming it, and left as it was. An empty file becomes a new database.
// Beside it SQLite keeps boards.db-wal and boards.db-shm while it is open;
// copy all three, or copy boards.db after Close.
//
// Several Stores may have one file open, in one process or several: SQLite
// serialises their writes (a writer waits up to Options.BusyTimeout for
// another's transaction to end) and each board's version makes a commit from
// a stale run fail with server.ErrConflict rather than overwrite another's.
// Within one Store, writes take turns on one connection and reads use a pool
// of their own, so reads never wait for writes.
package sqlitestore
