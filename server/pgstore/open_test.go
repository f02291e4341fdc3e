package pgstore_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/codemode-dev/codemode/internal/pgtest"
	"github.com/codemode-dev/codemode/server"
	"github.com/codemode-dev/codemode/server/pgstore"
)

// Replicas starting together on a new database: every Open succeeds, the
// schema is made once, and each store sees the others' boards.
func TestConcurrentOpen(t *testing.T) {
	u := pgtest.URL(t)
	const n = 6
	stores := make([]*pgstore.Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { stores[i], errs[i] = pgstore.Open(ctx, u, pgstore.Options{}) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open %d: %v", i, err)
		}
		t.Cleanup(func() { stores[i].Close() })
	}
	var rows, max int
	if err := stores[0].Pool().QueryRow(ctx, `SELECT count(*), max(version) FROM codemode_schema_migrations`).Scan(&rows, &max); err != nil {
		t.Fatal(err)
	}
	if rows != max || rows < 1 {
		t.Errorf("codemode_schema_migrations has %d rows up to version %d; want one per version", rows, max)
	}
	for i, s := range stores {
		if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: "b" + strconv.Itoa(i)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if c, err := stores[n-1].CountBoards(ctx); err != nil || c != n {
		t.Errorf("CountBoards = %d, %v; want %d", c, err, n)
	}
}

// A database a newer codemode migrated is refused, and left as it was.
func TestNewerSchemaRefused(t *testing.T) {
	u := pgtest.URL(t)
	s := open(t, u, pgstore.Options{})
	if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: "a"}, doc("kept")); err != nil {
		t.Fatal(err)
	}
	var v int
	if err := s.Pool().QueryRow(ctx, `INSERT INTO codemode_schema_migrations (version, what) SELECT max(version) + 1, 'from the future' FROM codemode_schema_migrations RETURNING version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	_, err := pgstore.Open(ctx, u, pgstore.Options{})
	if err == nil || !strings.Contains(err.Error(), "migrated by a newer codemode (schema version "+strconv.Itoa(v)+"; this one knows up to "+strconv.Itoa(v-1)+")") {
		t.Errorf("Open of a newer database: %v", err)
	}
	if st, err := s.LoadBoard(ctx, "a"); err != nil || string(st.Doc) != string(doc("kept")) {
		t.Errorf("the board after the refused Open: %s, %v", st.Doc, err)
	}
}

// Open says why it cannot connect, naming the server and the user, never
// the password.
func TestOpenErrors(t *testing.T) {
	good, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	password, _ := good.User.Password()
	trusting := password == "" // a server that lets anyone in: no wrong password, no password to leak
	if trusting {
		password = "\x00no password"
	}
	with := func(f func(u *url.URL)) string {
		u := *good
		f(&u)
		return u.String()
	}
	closedPort := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().String()
	}()
	// A server that takes the connection and never answers, as one that
	// hangs does: its kernel accepts, nothing reads.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	for _, tc := range []struct {
		name, url, want string
		is              func(error) bool
	}{
		{"wrong password", with(func(u *url.URL) { u.User = url.UserPassword("postgres", "secret-wrong") }),
			"pgstore: connecting to PostgreSQL at " + good.Host + " as postgres: password authentication failed for user \"postgres\"",
			func(err error) bool { var pe *pgconn.PgError; return errors.As(err, &pe) && pe.Code == "28P01" }},
		{"no such database", with(func(u *url.URL) { u.Path = "/nope" }),
			"pgstore: connecting to PostgreSQL at " + good.Host + " as postgres: database \"nope\" does not exist", nil},
		{"nothing listening", with(func(u *url.URL) { u.Host = closedPort }),
			"pgstore: connecting to PostgreSQL at " + closedPort + " as postgres: connection refused (is PostgreSQL running there, on that port?)", nil},
		{"no answer", with(func(u *url.URL) {
			u.Host = silent.Addr().String()
			q := u.Query()
			q.Set("connect_timeout", "1")
			u.RawQuery = q.Encode()
		}),
			"pgstore: connecting to PostgreSQL at " + silent.Addr().String() + " as postgres: no answer (timed out)", nil},
		{"no such host", with(func(u *url.URL) {
			u.Host = "db.invalid:5432"
			q := u.Query()
			q.Set("connect_timeout", "5")
			u.RawQuery = q.Encode()
		}),
			"pgstore: connecting to PostgreSQL at db.invalid:5432 as postgres: ", nil},
		{"not a URL", "postgres://postgres:" + password + "@" + good.Host + ":x/db",
			"pgstore: the store URL is not a PostgreSQL connection URL: ", nil},
		{"bad parameter", with(func(u *url.URL) { u.RawQuery = "sslmode=sometimes" }),
			"pgstore: the store URL is not a PostgreSQL connection URL: ", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if trusting && tc.name == "wrong password" {
				t.Skipf("%s has no password: its server lets anyone in, wrong passwords too", pgtest.EnvURL)
			}
			ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			s, err := pgstore.Open(ctx, tc.url, pgstore.Options{})
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			t.Logf("Open: %v", err)
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("Open: %v\nwant it to start with %s", err, tc.want)
			}
			if strings.Contains(err.Error(), password) || strings.Contains(err.Error(), "secret-wrong") {
				t.Errorf("the error shows the password: %v", err)
			}
			if tc.is != nil && !tc.is(err) {
				t.Errorf("errors.As/Is cannot find the driver's error in %v", err)
			}
		})
	}
	if _, err := pgstore.Open(ctx, good.String(), pgstore.Options{MaxHistory: -1}); err == nil {
		t.Error("Open with MaxHistory -1: no error")
	}
}

// Location and Pool: where the boards are, without the password, and the
// pool itself.
func TestLocationAndPool(t *testing.T) {
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	s := open(t, u.String(), pgstore.Options{})
	if want := u.Host + u.Path; s.Location() != want {
		t.Errorf("Location() = %q, want %q", s.Location(), want)
	}
	var n int
	if err := s.Pool().QueryRow(ctx, `SELECT 41 + 1`).Scan(&n); err != nil || n != 42 {
		t.Errorf("a query on Pool() = %d, %v", n, err)
	}
}

// The database going away and coming back: calls fail while it is away,
// with an error that is none of the sentinels, and work again once it is
// back, with the same Store.
func TestDatabaseRestarts(t *testing.T) {
	srv := pgtest.Server(t)
	s := open(t, srv.URL(t), pgstore.Options{})
	if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: "a"}, doc("0")); err != nil {
		t.Fatal(err)
	}
	srv.Stop(t)
	for name, call := range map[string]func() error{
		"LoadBoard": func() error { _, err := s.LoadBoard(ctx, "a"); return err },
		"Commit":    func() error { _, err := s.Commit(ctx, "a", server.Commit{Base: 1, Doc: doc("lost")}); return err },
		"Undo":      func() error { _, err := s.Undo(ctx, "a"); return err },
	} {
		err := call()
		if err == nil {
			t.Fatalf("%s with the database away: no error", name)
		}
		for _, sentinel := range []error{server.ErrNotFound, server.ErrConflict, server.ErrNothingToUndo} {
			if errors.Is(err, sentinel) {
				t.Errorf("%s with the database away: %v, which says %q", name, err, sentinel)
			}
		}
	}
	srv.Start(t)
	st, err := s.Commit(ctx, "a", server.Commit{Base: 1, Doc: doc("1")})
	if err != nil {
		t.Fatalf("Commit after the database came back: %v", err)
	}
	if st.Version != 2 || string(st.Doc) != string(doc("1")) {
		t.Errorf("after the restart: version %d %s, want 2 and the commit", st.Version, st.Doc)
	}
	// What was committed before the database went away is still there.
	if st, err := s.Undo(ctx, "a"); err != nil || string(st.Doc) != string(doc("0")) {
		t.Errorf("Undo: %s, %v", st.Doc, err)
	}
}
