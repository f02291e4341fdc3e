package pgstore

import (
	"context"
	"testing"

	"github.com/codemode-dev/codemode/internal/pgtest"
	"github.com/codemode-dev/codemode/server"
)

// A migration appended to the list is applied to a database at the
// version before it, by the next Open, keeping the boards; Opens after it
// apply nothing.
func TestAppendedMigration(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	s, err := Open(ctx, u, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: "a"}, []byte(`{"objects":[]}`)); err != nil {
		t.Fatal(err)
	}
	before := schemaVersion()
	saved := migrations
	t.Cleanup(func() { migrations = saved })
	migrations = append(migrations[:len(migrations):len(migrations)], migration{"a test's table", `
		CREATE TABLE codemode_test_extra (board bigint REFERENCES codemode_boards (seq) ON DELETE CASCADE);
		INSERT INTO codemode_test_extra SELECT seq FROM codemode_boards;`})

	for range 2 { // the second Open finds the work done
		s2, err := Open(ctx, u, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var version, applied, extra int
		var what string
		if err := s2.Pool().QueryRow(ctx, `SELECT max(version), count(*) FROM codemode_schema_migrations`).Scan(&version, &applied); err != nil {
			t.Fatal(err)
		}
		if err := s2.Pool().QueryRow(ctx, `SELECT what FROM codemode_schema_migrations WHERE version = $1`, before+1).Scan(&what); err != nil {
			t.Fatal(err)
		}
		if err := s2.Pool().QueryRow(ctx, `SELECT count(*) FROM codemode_test_extra`).Scan(&extra); err != nil {
			t.Fatal(err)
		}
		if version != before+1 || applied != before+1 || what != "a test's table" || extra != 1 {
			t.Errorf("after the Open: version %d, %d migrations applied, the last %q, %d rows in the new table; want %d, %d, a test's table, 1",
				version, applied, what, extra, before+1, before+1)
		}
		if _, err := s2.LoadBoard(ctx, "a"); err != nil {
			t.Errorf("the board after the migration: %v", err)
		}
		s2.Close()
	}
	// The schema of a new database is the list's, version by version.
	fresh, err := Open(ctx, pgtest.URL(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	var n int
	if err := fresh.Pool().QueryRow(ctx, `SELECT count(*) FROM codemode_schema_migrations`).Scan(&n); err != nil || n != before+1 {
		t.Errorf("a new database has %d migrations applied (%v), want %d", n, err, before+1)
	}
}
