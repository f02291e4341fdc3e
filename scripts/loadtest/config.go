package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// Config is one load run.
type Config struct {
	Clients        int           // concurrent clients, each with its own board
	Duration       time.Duration // measured time
	Warmup         time.Duration // load before measuring, not counted
	Mode           string        // "execute" or "batch"
	Script         string        // code to run instead of the built-in script ("" = built-in)
	ScriptFile     string        // where Script came from, for the report
	Reset          int           // replace a client's board every Reset runs; 0 never
	Watchers       int           // SSE subscribers per board
	RequestTimeout time.Duration // a request taking longer is an error

	// URLs are running servers (loopback only), loaded round-robin; none
	// = start one. PIDs are their processes, for RSS and CPU: none, or one
	// per URL in the same order.
	URLs        []string
	PIDs        []int
	ServeBinary string   // start this binary's serve command ("" = in-process server)
	Replicas    int      // with ServeBinary: how many serve processes to start
	ServeArgs   []string // with ServeBinary: more arguments for every serve process
	// ServeProcs is GOMAXPROCS for every serve process: -1 (the default)
	// gives each of Replicas processes its share of this machine's CPUs,
	// max(1, CPUs/Replicas), as a container with a CPU limit would have
	// (Go sizes GOMAXPROCS from it, and the worker pool from GOMAXPROCS);
	// 0 leaves it to each process (every one then sizes itself for the
	// whole machine).
	ServeProcs int
	// Shared says the targets serve the same boards (one store): a client's
	// board is then run on by every target in turn. Without it each client
	// has a board on every target. Store URLs imply it.
	Shared bool
	// ByBoard sends each client's runs to its board's server only, as a
	// load balancer that routes by the board id in the path would (boards
	// spread over the servers round-robin), instead of to each server in
	// turn. For servers that share boards.
	ByBoard bool
	Runner  string // "worker" or "inprocess" (in-process server and ServeBinary)
	// Store is "sqlite" or "memory" for the in-process server; with
	// ServeBinary "sqlite" (each process its own --data) or a postgres://
	// URL given to every process as --store.
	Store       string
	MaxWorkers  int    // worker processes running scripts at once (in-process server; 0 = the pool's default)
	WarmWorkers int    // idle worker processes the pool keeps (in-process server; 0 = the pool's default)
	CPUProfile  string // write this process's CPU profile over the measured time here
	JSON        bool   // report as JSON
}

// DefaultConfig is the load of docs/benchmarks.md: 50 clients for 60 s on
// an in-process server with the SQLite store and worker processes.
func DefaultConfig() Config {
	return Config{
		Clients:        50,
		Duration:       60 * time.Second,
		Warmup:         2 * time.Second,
		Mode:           "execute",
		Reset:          50,
		RequestTimeout: 10 * time.Second,
		Replicas:       1,
		ServeProcs:     -1,
		Runner:         "worker",
		Store:          "sqlite",
	}
}

// Bounds of the flags: a load run is bounded in time and size.
const (
	maxClients  = 1000
	maxDuration = 10 * time.Minute
	maxWarmup   = time.Minute
	maxWatchers = 10
	maxTimeout  = time.Minute
	maxTargets  = 16
	// setupBound bounds starting the server and creating the boards, and
	// again stopping it.
	setupBound = time.Minute
)

// HardLimit is the longest a run with this configuration may take, server
// start and stop included; when it is reached everything is stopped.
func (c Config) HardLimit() time.Duration {
	return 2*setupBound + c.Warmup + c.Duration + 2*c.RequestTimeout
}

// Check reports every problem with the configuration at once.
func (c Config) Check() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Clients < 1 || c.Clients > maxClients {
		bad("--clients %d: want 1 to %d", c.Clients, maxClients)
	}
	if c.Duration < 100*time.Millisecond || c.Duration > maxDuration {
		bad("--duration %v: want 100ms to %v", c.Duration, maxDuration)
	}
	if c.Warmup < 0 || c.Warmup > maxWarmup {
		bad("--warmup %v: want 0 to %v", c.Warmup, maxWarmup)
	}
	if c.Mode != "execute" && c.Mode != "batch" {
		bad("--mode %q: want execute or batch", c.Mode)
	}
	if c.Mode == "batch" && c.Script != "" {
		bad("--script is for --mode execute")
	}
	if c.Script != "" && strings.TrimSpace(c.Script) == "" {
		bad("--script %s: the file is empty", c.ScriptFile)
	}
	if c.Reset < 0 {
		bad("--reset %d: want 0 (never) or more", c.Reset)
	}
	if c.Watchers < 0 || c.Watchers > maxWatchers {
		bad("--watchers %d: want 0 to %d", c.Watchers, maxWatchers)
	}
	if c.RequestTimeout < 100*time.Millisecond || c.RequestTimeout > maxTimeout {
		bad("--request-timeout %v: want 100ms to %v", c.RequestTimeout, maxTimeout)
	}
	for _, u := range c.URLs {
		if err := checkLoopbackURL(u); err != nil {
			bad("--url %s: %v", u, err)
		}
	}
	if len(c.URLs) > maxTargets {
		bad("--url given %d times: want at most %d servers", len(c.URLs), maxTargets)
	}
	if len(c.URLs) > 0 && c.ServeBinary != "" {
		bad("--url and --serve exclude each other: load running servers or start them")
	}
	for _, pid := range c.PIDs {
		if pid <= 0 {
			bad("--pid %d: want the id of a server's process", pid)
		}
	}
	if len(c.PIDs) > 0 && len(c.PIDs) != len(c.URLs) {
		if len(c.URLs) == 0 {
			bad("--pid is for --url: the id of the process serving it")
		} else {
			bad("--pid given %d times for %d --url: give none, or one per --url in the same order", len(c.PIDs), len(c.URLs))
		}
	}
	if c.Replicas < 1 || c.Replicas > maxTargets {
		bad("--replicas %d: want 1 to %d", c.Replicas, maxTargets)
	}
	if c.Replicas > 1 && c.ServeBinary == "" {
		bad("--replicas is for --serve: how many serve processes to start")
	}
	if c.ServeProcs < -1 || c.ServeProcs > 1024 {
		bad("--serve-procs %d: want 0 (each process's own GOMAXPROCS) or 1 to 1024", c.ServeProcs)
	}
	if len(c.ServeArgs) > 0 && c.ServeBinary == "" {
		bad("--serve-arg is for --serve: an argument for every serve process")
	}
	if c.Shared && c.Targets() < 2 {
		bad("--shared is for several servers (--url more than once, or --serve with --replicas)")
	}
	if c.ByBoard && !c.SharedBoards() {
		bad("--by-board is for servers that share boards (--shared, or --serve with --store postgres://…)")
	}
	if c.Shared && c.ServeBinary != "" && !isStoreURL(c.Store) {
		bad("--shared: the processes --serve starts keep their boards each in its own --data; to share boards, give them --store postgres://…")
	}
	if c.Runner != "worker" && c.Runner != "inprocess" {
		bad("--runner %q: want worker or inprocess", c.Runner)
	}
	switch {
	case isStoreURL(c.Store):
		if c.ServeBinary == "" {
			bad("--store %s is for --serve: the URL every serve process is given as --store", redactURL(c.Store))
		}
	case c.Store != "sqlite" && c.Store != "memory":
		bad("--store %q: want sqlite or memory (in-process server), or a postgres:// URL (with --serve)", c.Store)
	case c.Store != "sqlite" && (len(c.URLs) > 0 || c.ServeBinary != ""):
		bad("--store %s is for the in-process server (codemode serve keeps boards in SQLite, or in the store of a postgres:// URL)", c.Store)
	}
	if c.MaxWorkers < 0 || c.MaxWorkers > 256 {
		bad("--max-workers %d: want 1 to 256, or 0 for the pool's default", c.MaxWorkers)
	}
	if c.WarmWorkers < 0 || c.WarmWorkers > 256 {
		bad("--warm-workers %d: want 1 to 256, or 0 for the pool's default", c.WarmWorkers)
	}
	if (c.MaxWorkers != 0 || c.WarmWorkers != 0) && (len(c.URLs) > 0 || c.ServeBinary != "" || c.Runner != "worker") {
		bad("--max-workers and --warm-workers are for the in-process server with --runner worker")
	}
	return errors.Join(errs...)
}

// Targets is how many servers the load goes to.
func (c Config) Targets() int {
	switch {
	case len(c.URLs) > 0:
		return len(c.URLs)
	case c.ServeBinary != "":
		return max(c.Replicas, 1)
	}
	return 1
}

// SharedBoards reports whether the targets serve the same boards: said
// with --shared, or implied by a store URL that every started process is
// given.
func (c Config) SharedBoards() bool {
	return c.Targets() > 1 && (c.Shared || c.ServeBinary != "" && isStoreURL(c.Store))
}

// isStoreURL reports whether --store names a database rather than a kind.
func isStoreURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// redactURL is a store URL with its password replaced, for messages and
// the report.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(a store URL that does not parse)"
	}
	return u.Redacted()
}

// checkLoopbackURL accepts an http(s) URL of this machine only: a loopback IP
// or "localhost", with no path beyond "/".
func checkLoopbackURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return errors.New("want http://127.0.0.1:PORT")
	}
	host := u.Hostname()
	if !strings.EqualFold(host, "localhost") {
		ip := net.ParseIP(host)
		if ip == nil || !ip.IsLoopback() {
			return fmt.Errorf("%q is not a loopback address: the load generator only loads this machine (127.0.0.1, ::1, localhost)", host)
		}
	}
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return errors.New("want the server's base URL only, e.g. http://127.0.0.1:8080")
	}
	return nil
}

// ServeGOMAXPROCS is the GOMAXPROCS a serve process is started with, or 0
// for none (ServeProcs).
func (c Config) ServeGOMAXPROCS(cpus int) int {
	if c.ServeProcs >= 0 {
		return c.ServeProcs
	}
	if c.Replicas <= 1 {
		return 0
	}
	return max(1, cpus/c.Replicas)
}
