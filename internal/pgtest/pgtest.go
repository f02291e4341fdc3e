// Package pgtest gives tests a PostgreSQL database of their own.
//
// URL returns the address of a fresh, empty database, dropped when the test
// ends. The databases live on one of two kinds of server:
//
//   - $CODEMODE_TEST_PG, when set: a postgres:// URL of a server the tests may
//     create databases on (a superuser, or a role with CREATEDB);
//   - otherwise a throwaway server this package starts once per test binary,
//     from Debian's PostgreSQL binaries (initdb and postgres on PATH or under
//     /usr/lib/postgresql/*/bin): a temporary data directory owned by the
//     postgres user when the tests run as root, a free port on 127.0.0.1, its
//     Unix socket in the temporary directory, and fsync off (nothing here
//     needs to survive a power cut). The package's TestMain must call Main
//     (or Run), which stops it after the tests.
//
// Without either, a test that asks for a database is skipped, unless
// CODEMODE_PG_TESTS=1 (.ci/run sets it, after installing PostgreSQL): then
// a missing PostgreSQL is an error, as a missing browser is for the browser
// tests.
//
// Server starts a server of a test's own, which the test may stop and start
// again (the database going away and coming back). It needs PostgreSQL's
// binaries, $CODEMODE_TEST_PG or not.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"
)

// EnvURL names the variable that points the tests at an existing server.
const EnvURL = "CODEMODE_TEST_PG"

// EnvMandatory names the variable that makes a missing PostgreSQL an error.
const EnvMandatory = "CODEMODE_PG_TESTS"

// mainCalled is set by Run: a self-started server is stopped only by it, so
// URL refuses to start one in a binary whose TestMain does not call it.
var mainCalled atomic.Bool

// shared is the server of the test binary, started by the first URL.
var shared struct {
	once sync.Once
	srv  *Srv
	err  error
}

// Main runs the tests, stops the server they shared, checks that no
// goroutine was left behind (as goleak.VerifyTestMain does) and exits.
func Main(m *testing.M) {
	code := Run(m)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// Run runs the tests and stops the server they shared, returning m.Run's
// exit code: for a TestMain that does more than Main.
func Run(m *testing.M) int {
	mainCalled.Store(true)
	code := m.Run()
	if shared.srv != nil {
		if err := shared.srv.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: stopping the test server: %v\n", err)
		}
		shared.srv.remove()
	}
	return code
}

// URL returns the URL of a new, empty database for t, dropped when t ends.
func URL(t testing.TB) string {
	t.Helper()
	if env := os.Getenv(EnvURL); env != "" {
		return createDB(t, env, nil)
	}
	if !mainCalled.Load() {
		t.Fatal("pgtest: the test binary's TestMain must call pgtest.Main or pgtest.Run, which stop the PostgreSQL server the tests share")
	}
	shared.once.Do(func() {
		shared.srv, shared.err = newServer()
		if shared.err == nil {
			if shared.err = shared.srv.start(); shared.err != nil {
				shared.srv.remove()
				shared.srv = nil
			}
		}
	})
	if shared.err != nil {
		unavailable(t, shared.err)
	}
	return createDB(t, shared.srv.adminURL(), shared.srv)
}

// errNoBinaries says PostgreSQL is not installed.
var errNoBinaries = errors.New("PostgreSQL's initdb and postgres are not on PATH nor under /usr/lib/postgresql/*/bin: the PostgreSQL tests need Debian's postgresql package (sudo apt-get install postgresql), or $" + EnvURL + " set to a server's postgres:// URL")

// errUnsupported says this system cannot start a server here.
var errUnsupported = errors.New("this package starts a PostgreSQL server on Linux only; elsewhere set $" + EnvURL + " to a server's postgres:// URL")

// unavailable skips t, or fails it when the PostgreSQL tests are mandatory.
func unavailable(t testing.TB, err error) {
	t.Helper()
	msg := "pgtest: " + err.Error()
	if os.Getenv(EnvMandatory) == "1" {
		t.Fatal(msg + "; " + EnvMandatory + "=1 makes this an error")
	}
	if errors.Is(err, errNoBinaries) || errors.Is(err, errUnsupported) {
		t.Skip(msg + "; skipped (" + EnvMandatory + "=1 makes this an error)")
	}
	// PostgreSQL is there but would not start: that is a failure to see.
	t.Fatal(msg)
}

// Srv is a PostgreSQL server of one test's own.
type Srv struct {
	dir      string // data/, the socket and the log
	bin      string // the directory of initdb and postgres
	port     int
	password string // the superuser's, postgres

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
}

// Server starts a PostgreSQL server for t alone, stopped and removed when t
// ends, from PostgreSQL's binaries even under $CODEMODE_TEST_PG (whose
// server a test must not stop).
func Server(t testing.TB) *Srv {
	t.Helper()
	s, err := newServer()
	if err != nil {
		unavailable(t, err)
	}
	t.Cleanup(s.remove)
	if err := s.start(); err != nil {
		unavailable(t, err)
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("pgtest: stopping the server: %v", err)
		}
	})
	return s
}

// URL returns the URL of a new, empty database on the server, dropped when
// t ends if the server is running then.
func (s *Srv) URL(t testing.TB) string {
	t.Helper()
	return createDB(t, s.adminURL(), s)
}

// Addr is the server's host:port.
func (s *Srv) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Stop shuts the server down (a fast shutdown: open connections are
// closed, as when a database server restarts). Stopping a stopped server
// does nothing.
func (s *Srv) Stop(t testing.TB) {
	t.Helper()
	if err := s.stop(); err != nil {
		t.Fatalf("pgtest: stopping the server: %v", err)
	}
}

// Start starts the server again, on the same port with the same data.
// Starting a running server does nothing.
func (s *Srv) Start(t testing.TB) {
	t.Helper()
	if err := s.start(); err != nil {
		t.Fatalf("pgtest: starting the server again: %v", err)
	}
}

// binDir finds the directory of initdb and postgres.
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// The newest version first: 15 before 9.6.
	version := func(dir string) float64 {
		v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(dir)), 64)
		return v
	}
	slices.SortFunc(dirs, func(a, b string) int { return int(version(b)*100 - version(a)*100) })
	for _, dir := range dirs {
		_, err1 := os.Stat(filepath.Join(dir, "initdb"))
		_, err2 := os.Stat(filepath.Join(dir, "postgres"))
		if err1 == nil && err2 == nil {
			return dir, nil
		}
	}
	return "", errNoBinaries
}

// newServer makes a server's directory and data, not yet started.
func newServer() (*Srv, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	attr, err := procAttr()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "codemode-pgtest-")
	if err != nil {
		return nil, err
	}
	s := &Srv{dir: dir, bin: bin, password: randomHex(12)}
	if err := chown(dir); err != nil {
		s.remove()
		return nil, err
	}
	if s.port, err = freePort(); err != nil {
		s.remove()
		return nil, err
	}
	pwfile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwfile, []byte(s.password+"\n"), 0o644); err != nil {
		s.remove()
		return nil, err
	}
	// Trust on the socket (nothing here uses it but an operator poking at a
	// failed run); a password over TCP, so that tests can get one wrong.
	cmd := exec.Command(filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"), "-U", "postgres",
		"--pwfile", pwfile, "--auth-local=trust", "--auth-host=scram-sha-256",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	cmd.SysProcAttr = attr
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		s.remove()
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	os.Remove(pwfile)
	return s, nil
}

// start starts postgres and waits until it takes connections.
func (s *Srv) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return nil
	}
	attr, err := procAttr()
	if err != nil {
		return err
	}
	logPath := filepath.Join(s.dir, "log")
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close() // the child has its own copy
	cmd := exec.Command(filepath.Join(s.bin, "postgres"), "-D", filepath.Join(s.dir, "data"),
		"-p", strconv.Itoa(s.port), "-h", "127.0.0.1", "-k", s.dir,
		// Speed over durability: a test's data need not survive a crash.
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=300", "-c", "shared_buffers=32MB",
		"-c", "log_min_messages=warning", "-c", "log_connections=off")
	cmd.Stdout, cmd.Stderr = log, log // files: no goroutine copies them
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting postgres: %w", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	s.cmd, s.done = cmd, done

	// Ready when it answers; postgres has no other signal than its pid
	// file, which pg_ctl polls the same way.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var last error
	for {
		conn, err := pgx.Connect(ctx, s.adminURL())
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		last = err
		select {
		case <-done:
			s.cmd, s.done = nil, nil
			out, _ := os.ReadFile(logPath)
			return fmt.Errorf("postgres exited at start (%v); its log:\n%s", cmd.ProcessState, tail(out, 30))
		case <-ctx.Done():
			s.stopLocked()
			return fmt.Errorf("postgres did not take connections within 60 s: %v", last)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop shuts postgres down and waits for it.
func (s *Srv) stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopLocked()
}

func (s *Srv) stopLocked() error {
	if s.cmd == nil {
		return nil
	}
	cmd, done := s.cmd, s.done
	s.cmd, s.done = nil, nil
	cmd.Process.Signal(syscall.SIGINT) // fast shutdown
	select {
	case <-done:
		return nil
	case <-time.After(30 * time.Second):
	}
	cmd.Process.Kill()
	<-done
	return errors.New("postgres did not shut down within 30 s; killed it")
}

// remove deletes the server's directory.
func (s *Srv) remove() { os.RemoveAll(s.dir) }

// adminURL is the superuser's URL, on the database postgres.
func (s *Srv) adminURL() string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword("postgres", s.password), Host: s.Addr(), Path: "/postgres", RawQuery: "sslmode=disable"}
	return u.String()
}

// running reports whether the server is up (for cleanups after a test
// stopped it).
func (s *Srv) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd != nil
}

// createDB creates a database through admin and returns its URL, and drops
// it when t ends (on srv, only if it is running then).
func createDB(t testing.TB, admin string, srv *Srv) string {
	t.Helper()
	u, err := url.Parse(admin)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("pgtest: $%s is not a postgres:// URL", EnvURL) // never print it: it may hold a password
	}
	name := "codemode_test_" + randomHex(8)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("pgtest: connecting to %s: %v", u.Host, err)
	}
	defer conn.Close(ctx)
	// With fsync off, copying template1's files is faster than PostgreSQL
	// 15's default of writing them to the WAL.
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name+" STRATEGY FILE_COPY"); err != nil {
		t.Fatalf("pgtest: creating a database: %v", err)
	}
	t.Cleanup(func() {
		if srv != nil && !srv.running() {
			return // it goes with the server's directory
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Errorf("pgtest: connecting to drop database %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: dropping database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail is the last n lines of b.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
