package pgtest_test

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/codemode-dev/codemode/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var ctx = context.Background()

func connect(t *testing.T, u string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn
}

// Two tests' databases are two empty databases: a table made in one is not
// in the other.
func TestURLIsAFreshDatabase(t *testing.T) {
	a, b := pgtest.URL(t), pgtest.URL(t)
	if a == b {
		t.Fatalf("two calls gave the same database %s", a)
	}
	ca, cb := connect(t, a), connect(t, b)
	if _, err := ca.Exec(ctx, `CREATE TABLE t (x int)`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := cb.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("the second database has %d tables (%v), want none", n, err)
	}
}

// A database is dropped when its test ends.
func TestURLDroppedAtCleanup(t *testing.T) {
	var name string
	t.Run("sub", func(t *testing.T) {
		u, err := url.Parse(pgtest.URL(t))
		if err != nil {
			t.Fatal(err)
		}
		name = u.Path[1:]
	})
	other := connect(t, pgtest.URL(t))
	var exists bool
	if err := other.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil || exists {
		t.Errorf("database %s exists after its test (%v)", name, err)
	}
}

// A server of a test's own stops, refusing connections, and starts again
// with its data.
func TestServerStopStart(t *testing.T) {
	srv := pgtest.Server(t)
	u := srv.URL(t)
	conn := connect(t, u)
	if _, err := conn.Exec(ctx, `CREATE TABLE t (x int); INSERT INTO t VALUES (42)`); err != nil {
		t.Fatal(err)
	}
	srv.Stop(t)
	if _, err := conn.Exec(ctx, `SELECT 1`); err == nil {
		t.Error("a query on a stopped server succeeded")
	}
	if c, err := pgx.Connect(ctx, u); err == nil {
		c.Close(ctx)
		t.Fatal("connected to a stopped server")
	}
	srv.Start(t)
	var x int
	if err := connect(t, u).QueryRow(ctx, `SELECT x FROM t`).Scan(&x); err != nil || x != 42 {
		t.Errorf("after the restart: x = %d, %v; want 42", x, err)
	}
}

// TCP connections need the password, so a test can get it wrong.
func TestWrongPassword(t *testing.T) {
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "wrong")
	_, err = pgx.Connect(ctx, u.String())
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "28P01" {
		t.Errorf("connecting with a wrong password: %v, want SQLSTATE 28P01", err)
	}
}
