package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/codemode-dev/codemode/bindings/wasmtool"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/fserr"
	"github.com/codemode-dev/codemode/internal/strictjson"
	"github.com/codemode-dev/codemode/server"
	"github.com/codemode-dev/codemode/server/pgstore"
	"github.com/codemode-dev/codemode/server/sqlitestore"
)

// Serving defaults and bounds (see "codemode serve --help" and docs/http.md).
const (
	defaultAddr = "127.0.0.1:8080"
	// tokenEnv is the environment variable that gives the token when
	// --token does not.
	tokenEnv = "CODEMODE_TOKEN"
	// storeEnv is the environment variable that gives the store's URL
	// when --store does not (and --data is not given).
	storeEnv = "CODEMODE_STORE"
	// storeOpenTimeout bounds connecting to PostgreSQL and migrating its
	// schema at start (another replica may be migrating it).
	storeOpenTimeout = time.Minute
	// minTokenLen is the shortest token accepted: a token guards a server
	// that runs scripts, so it must not be guessable.
	minTokenLen = 16
	// storeFile is the boards' database, in the data directory; lockFile,
	// beside it, is held by the server using the directory.
	storeFile = "boards.db"
	lockFile  = "boards.db.lock"
	// runsGrace is how long runs under way may go on after SIGINT or
	// SIGTERM before they are canceled; connectionsGrace is how long the
	// HTTP server then waits for responses to be written.
	runsGrace        = 10 * time.Second
	connectionsGrace = 5 * time.Second
	// canceledGrace is how long the answers of runs canceled by a second
	// signal have to go out.
	canceledGrace = time.Second
)

// cmdServe is "codemode serve": it serves until SIGINT or SIGTERM.
func cmdServe(args []string, stdout, stderr io.Writer) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	return serve(sigs, func() { signal.Stop(sigs) }, args, os.Getenv, stdout, stderr)
}

// serve sets up and runs the server until a signal comes on sigs, then
// shuts it down gracefully: runs under way have runsGrace to finish. A
// second signal stops it at once: the runs under way are canceled (and
// rolled back) and connections closed; stop is then called (it restores
// the default handling of signals, so a third one ends the process
// however it is). getenv reads the environment (CODEMODE_TOKEN, the data
// directory's variables).
func serve(sigs <-chan os.Signal, stop func(), args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	var o options
	err := parseFlagsOnly("serve", &o, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, commandHelp(findCommand("serve")))
		return exitOK
	}
	if err != nil {
		return usageError(stderr, "serve", err)
	}
	addr, token, err := o.listenPlan(getenv)
	if err == nil {
		err = checkOrigins(o.allowOrigins)
	}
	var plan storePlan
	if err == nil {
		plan, err = o.storePlan(getenv)
	}
	if err != nil {
		return usageError(stderr, "serve", err)
	}

	// Every problem found before serving, at once: the address, the data
	// directory and its store or the PostgreSQL store (not made or
	// connected to when the address is taken), the configuration, the WASM
	// tools.
	var (
		earlier []error
		where   string // where the boards are, for messages
		store   server.Store
		cluster server.Cluster // the replicas sharing a PostgreSQL store; nil on SQLite
		unlock  = func() {}
	)
	ln, err := listen(addr)
	earlier = append(earlier, err)
	if err == nil {
		where, store, cluster, unlock, err = o.openStore(getenv, plan)
		earlier = append(earlier, err)
	}
	defer unlock() // after the store is closed (deferred below)
	s, err := openSession(&o, "serve", earlier...)
	defer s.close()
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		if cluster != nil {
			cluster.Close()
		}
		if store != nil {
			store.Close()
		}
		return fail(stderr, exitUsage, "serve: %v", err)
	}
	defer store.Close()
	if cluster != nil {
		defer cluster.Close() // before the store's (defers run last first)
	}

	logger := slog.New(slog.NewTextHandler(stderr, nil))
	opts := server.Options{
		Store:        store,
		Tools:        s.tools(),
		Config:       s.cfg,
		Approve:      o.approve.policy(),
		Token:        token,
		AllowOrigins: o.allowOrigins,
		MaxBodyBytes: int64(o.maxBody),
		MaxRuns:      int(o.maxRuns),
		Logger:       logger,
		Cluster:      cluster,
	}
	if s.pool != nil { // not a nil *worker.Pool in the interface
		opts.Runner = s.pool
	}
	srv, err := server.New(opts)
	if err != nil {
		ln.Close()
		return fail(stderr, exitUsage, "serve: %v", message(err))
	}
	hs := &http.Server{
		Handler:           srv, // without a token, it answers only this machine's Host names
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	fmt.Fprintf(stderr, "codemode: serving on %s (boards in %s)\n", openURL(ln.Addr(), token), where)

	code := exitOK
	select {
	case err := <-served:
		// Serve returns only on a failure of the listener. The runs under
		// way still get their grace, and what they commit is kept.
		code = fail(stderr, exitFailed, "serve: %v", err)
	case <-sigs:
	}
	fmt.Fprintf(stderr, "codemode: shutting down: runs under way have %v to finish\n", runsGrace)
	// A second signal cancels what the graceful stop still waits for.
	now, stopNow := context.WithCancel(context.Background())
	defer stopNow()
	go func() {
		select {
		case <-sigs:
			stop()
			stopNow()
		case <-now.Done():
		}
	}()
	runsCtx, cancel := context.WithTimeout(now, runsGrace)
	defer cancel()
	switch err := srv.Shutdown(runsCtx); {
	case errors.Is(err, context.DeadlineExceeded):
		// Their boards are as they were before them, or, for runs with
		// "atomic": false, as far as they got.
		fmt.Fprintf(stderr, "codemode: runs still under way after %v were canceled\n", runsGrace)
	case now.Err() != nil:
		fmt.Fprintf(stderr, "codemode: stopped at once by a second signal: runs under way were canceled\n")
	case err != nil:
		fmt.Fprintf(stderr, "codemode: serve: shutting down: %v\n", err)
		code = exitFailed
	}
	// The answers of the runs still go out (those a second signal canceled
	// too, for a moment: their clients learn why); a second signal during
	// this wait closes the connections at once.
	connParent, connGrace := now, connectionsGrace
	if now.Err() != nil {
		connParent, connGrace = context.Background(), canceledGrace
	}
	connCtx, cancel := context.WithTimeout(connParent, connGrace)
	defer cancel()
	if err := hs.Shutdown(connCtx); err != nil {
		hs.Close()
	}
	if cluster != nil {
		// After the runs: the boards they held were unlocked as they ended,
		// so the other replicas are handed nothing half-done.
		cluster.Close()
	}
	if err := store.Close(); err != nil {
		fmt.Fprintf(stderr, "codemode: serve: closing the boards in %s: %v\n", where, err)
		code = exitFailed
	}
	return code
}

// listenPlan checks --addr and the token: an address that is not loopback
// needs a token, so that no one else who can reach it runs scripts on the
// boards.
func (o *options) listenPlan(getenv func(string) string) (addr, token string, err error) {
	addr = o.addr
	if addr == "" {
		addr = defaultAddr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return "", "", fmt.Errorf("--addr %s: want HOST:PORT, as in %s (port 0 picks a free one)", addr, defaultAddr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		if _, err := net.LookupPort("tcp", port); err != nil {
			return "", "", fmt.Errorf("--addr %s: no such port %q", addr, port)
		}
	}
	token, from := o.token, "--token"
	if token == "" {
		token, from = getenv(tokenEnv), tokenEnv
	}
	if token != "" {
		if err := checkToken(token); err != nil {
			return "", "", fmt.Errorf("%s: %v", from, err)
		}
	} else if !isLoopback(host) {
		return "", "", fmt.Errorf("--addr %s is not a loopback address, so others could reach the server: give it a token with --token TOKEN or the %s environment variable (clients send \"Authorization: Bearer TOKEN\")", addr, tokenEnv)
	}
	return addr, token, nil
}

// checkOrigins accepts origins as browsers send them in Origin: a scheme,
// a host and maybe a port, nothing more. The server compares them exactly,
// so a path, a trailing slash or a wildcard would never match and only
// look as if it allowed something.
func checkOrigins(origins []string) error {
	var bad []string
	for _, o := range origins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(o, "?") || strings.HasSuffix(o, "#") {
			bad = append(bad, strictjson.Quote(o))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("--allow-origin %s: want an origin, scheme://host[:port] with nothing after it, as in https://app.example.com (each one named, no wildcard)", strings.Join(bad, ", "))
	}
	return nil
}

var tokenRe = regexp.MustCompile(`^[A-Za-z0-9._~+/=-]+$`)

// checkToken accepts a token a browser can carry in a URL's fragment and a
// client in a header, long enough not to be guessed.
func checkToken(token string) error {
	switch {
	case !tokenRe.MatchString(token):
		return errors.New("a token is letters, digits and ._~+/=- only (try: openssl rand -hex 16)")
	case len(token) < minTokenLen:
		return fmt.Errorf("the token is %d characters, want at least %d (try: openssl rand -hex 16)", len(token), minTokenLen)
	}
	return nil
}

// isLoopback reports whether host names this machine only: localhost, or
// a loopback IP. An empty host (":8080") is every interface.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	host, _, _ = strings.Cut(host, "%") // an IPv6 zone
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// listen binds the address, and says what to do when it is taken.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("--addr %s: the address is in use (another codemode serve?): stop what listens there, or choose another address with --addr (port 0 picks a free one)", addr)
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		err = oe.Err
	}
	return nil, fmt.Errorf("--addr %s: %v", addr, err)
}

// openURL is the URL to open for a listener's address: a wildcard address
// is opened as localhost; a token goes in the fragment, where the web app
// reads it and which browsers do not send to the server.
func openURL(a net.Addr, token string) string {
	host, port := "127.0.0.1", ""
	if ta, ok := a.(*net.TCPAddr); ok {
		port = strconv.Itoa(ta.Port)
		if !ta.IP.IsUnspecified() {
			host = ta.IP.String()
		}
	}
	u := "http://" + net.JoinHostPort(host, port) + "/"
	if token != "" {
		u += "#token=" + token
	}
	return u
}

// defaultDataDir is where boards are kept without --data: codemode in
// $XDG_DATA_HOME, else in ~/.local/share on Unix, and in the user's
// application data (os.UserConfigDir: ~/Library/Application Support,
// %AppData%) on macOS and Windows.
func defaultDataDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "codemode"), nil
	}
	switch runtime.GOOS {
	case "darwin", "ios", "windows", "plan9":
		d, err := os.UserConfigDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(d, "codemode"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("$HOME is not set")
	}
	return filepath.Join(home, ".local", "share", "codemode"), nil
}

// storePlan is where serve keeps the boards: in PostgreSQL at url, named
// by from (--store or $CODEMODE_STORE), or, with no url, in SQLite in the
// data directory.
type storePlan struct {
	url, from string
}

// storePlan checks --store, $CODEMODE_STORE and --data: a URL of PostgreSQL
// or nothing, and not with --data. --data overrides $CODEMODE_STORE, as a
// flag overrides the environment; with --store it is a usage error, since
// one of them would be ignored. No message shows the URL, which may hold a
// password.
func (o *options) storePlan(getenv func(string) string) (storePlan, error) {
	p := storePlan{url: o.store, from: "--store"}
	switch {
	case o.store != "" && o.data != "":
		return storePlan{}, errors.New("--store and --data: give one, --store URL to keep the boards in PostgreSQL or --data DIR to keep them in SQLite")
	case o.store == "" && o.data == "":
		p = storePlan{url: getenv(storeEnv), from: "$" + storeEnv}
	}
	if p.url == "" {
		return storePlan{}, nil
	}
	const want = "want postgres://USER:PASSWORD@HOST:PORT/DATABASE (or postgresql://); for boards in SQLite, --data DIR"
	u, err := url.Parse(p.url)
	switch {
	case err != nil || u.Scheme == "" || u.Opaque != "":
		return storePlan{}, fmt.Errorf("%s is not a URL: %s", p.from, want)
	case !strings.EqualFold(u.Scheme, "postgres") && !strings.EqualFold(u.Scheme, "postgresql"):
		return storePlan{}, fmt.Errorf("%s: codemode keeps no boards in %s: %s", p.from, strictjson.Quote(u.Scheme+"://"), want)
	}
	return p, nil
}

// openStore opens the store of the plan: PostgreSQL, joining the cluster
// of the replicas that share it, or the data directory's SQLite file
// (cluster nil). where says where the boards are, for the ready line (never
// the password); unlock releases what the store holds, after the store is
// closed.
func (o *options) openStore(getenv func(string) string, plan storePlan) (where string, store server.Store, cluster server.Cluster, unlock func(), err error) {
	if plan.url == "" {
		dir, s, unlock, err := o.openData(getenv)
		if err != nil {
			return "", nil, nil, unlock, err
		}
		return filepath.Join(dir, storeFile), s, nil, unlock, nil
	}
	// No lock: replicas share the database on purpose; each write checks
	// its board's version there.
	ctx, cancel := context.WithTimeout(context.Background(), storeOpenTimeout)
	defer cancel()
	s, err := pgstore.Open(ctx, plan.url, pgstore.Options{})
	if err != nil {
		return "", nil, nil, func() {}, fmt.Errorf("%s: %s", plan.from, strings.TrimPrefix(err.Error(), "pgstore: "))
	}
	c, err := s.Join(ctx, pgstore.ClusterOptions{})
	if err != nil {
		s.Close()
		return "", nil, nil, func() {}, fmt.Errorf("%s: %s", plan.from, strings.TrimPrefix(err.Error(), "pgstore: "))
	}
	return "PostgreSQL at " + s.Location(), s, c, func() {}, nil
}

// openData makes the data directory if missing, takes its lock (one
// server per data directory) and opens its store; unlock releases the lock,
// after the store is closed.
func (o *options) openData(getenv func(string) string) (dir string, store *sqlitestore.Store, unlock func(), err error) {
	unlock = func() {}
	dir, what := o.data, "--data "+o.data
	if dir == "" {
		if dir, err = defaultDataDir(getenv); err != nil {
			return "", nil, unlock, fmt.Errorf("no user data directory (%v): give one with --data DIR", err)
		}
		what = "data directory " + dir
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		if file := fileInTheWay(dir); file != "" {
			if file == filepath.Clean(dir) {
				return dir, nil, unlock, fmt.Errorf("%s: it is a file, not a directory", what)
			}
			return dir, nil, unlock, fmt.Errorf("%s: %s is a file, not a directory, so nothing can be made under it", what, file)
		}
		return dir, nil, unlock, fmt.Errorf("%s: %v", what, fserr.Pathless(err))
	}
	lock := filepath.Join(dir, lockFile)
	release, err := lockData(lock)
	var inUse *dataInUseError
	switch {
	case errors.As(err, &inUse):
		return dir, nil, unlock, fmt.Errorf("%s: another codemode serve%s uses this data directory (it holds %s): stop it, or give this one another --data", what, inUse.process(), lock)
	case err != nil:
		return dir, nil, unlock, fmt.Errorf("%s: locking %s: %v", what, lock, fserr.Pathless(err))
	}
	store, err = sqlitestore.Open(filepath.Join(dir, storeFile), sqlitestore.Options{})
	if err != nil {
		release()
		// Its errors name the file.
		return dir, nil, unlock, fmt.Errorf("%s: %s", what, strings.TrimPrefix(err.Error(), "sqlitestore: "))
	}
	return dir, store, release, nil
}

// fileInTheWay is the nearest of dir and its parents that exists, if it is
// not a directory: what keeps dir from being made ("" if none does).
func fileInTheWay(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil {
			if fi.IsDir() {
				return ""
			}
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// dataInUseError: another process holds the data directory's lock.
type dataInUseError struct{ pid string }

func (e *dataInUseError) Error() string { return "the data directory is in use" }

// process names the holder, " (process 1234)", if its lock file says.
func (e *dataInUseError) process() string {
	if _, err := strconv.Atoi(e.pid); err != nil {
		return ""
	}
	return " (process " + e.pid + ")"
}

// approveFlag is --approve: which calls wait for a person's decision.
type approveFlag string

func (a *approveFlag) String() string { return string(*a) }
func (a *approveFlag) Set(v string) error {
	switch v {
	case "destructive", "writes", "none":
		*a = approveFlag(v)
		return nil
	}
	return errors.New(`want "destructive", "writes" or "none"`)
}

// policy is the server's approval policy for the flag.
func (a approveFlag) policy() engine.ApprovalPolicy {
	switch a {
	case "writes":
		return engine.GateWrites
	case "none":
		return server.GateNone
	}
	return server.GateDestructive
}

// positiveInt is a flag that takes a whole number above zero.
type positiveInt int

func (p *positiveInt) String() string { return strconv.Itoa(int(*p)) }
func (p *positiveInt) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return errors.New("want a whole number above 0")
	}
	*p = positiveInt(n)
	return nil
}

// sizeFlag is a number of bytes, as in WASM manifests: 4194304, "4MiB",
// "512KiB".
type sizeFlag wasmtool.Size

func (f *sizeFlag) String() string {
	if *f == 0 {
		return ""
	}
	return wasmtool.Size(*f).String()
}
func (f *sizeFlag) Set(v string) error {
	if v == "" {
		return errEmpty
	}
	q, _ := json.Marshal(v)
	var n wasmtool.Size
	if err := n.UnmarshalJSON(q); err != nil {
		if strings.Contains(err.Error(), "is not a size") {
			return fmt.Errorf("%s is not a size: want a number of bytes, or one with a unit, KiB, MiB or GiB (512KiB, 4MiB, 1GiB)", strictjson.Quote(v))
		}
		return err
	}
	*f = sizeFlag(n)
	return nil
}
