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

	URL         string // a running server (loopback only); "" = start one
	PID         int    // with URL: the server's process, for RSS and CPU
	ServeBinary string // start this binary's serve command ("" = in-process server)
	Runner      string // "worker" or "inprocess" (in-process server and ServeBinary)
	Store       string // "sqlite" or "memory" (in-process server)
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
	if c.URL != "" {
		if err := checkLoopbackURL(c.URL); err != nil {
			bad("--url %s: %v", c.URL, err)
		}
		if c.ServeBinary != "" {
			bad("--url and --serve exclude each other: load a running server or start one")
		}
	}
	if c.PID < 0 || (c.PID > 0 && c.URL == "") {
		bad("--pid %d: give it with --url, the id of the server's process", c.PID)
	}
	if c.Runner != "worker" && c.Runner != "inprocess" {
		bad("--runner %q: want worker or inprocess", c.Runner)
	}
	if c.Store != "sqlite" && c.Store != "memory" {
		bad("--store %q: want sqlite or memory", c.Store)
	}
	if c.Store != "sqlite" && (c.URL != "" || c.ServeBinary != "") {
		bad("--store %s is for the in-process server (codemode serve keeps boards in SQLite)", c.Store)
	}
	if c.MaxWorkers < 0 || c.MaxWorkers > 256 {
		bad("--max-workers %d: want 1 to 256, or 0 for the pool's default", c.MaxWorkers)
	}
	if c.WarmWorkers < 0 || c.WarmWorkers > 256 {
		bad("--warm-workers %d: want 1 to 256, or 0 for the pool's default", c.WarmWorkers)
	}
	if (c.MaxWorkers != 0 || c.WarmWorkers != 0) && (c.URL != "" || c.ServeBinary != "" || c.Runner != "worker") {
		bad("--max-workers and --warm-workers are for the in-process server with --runner worker")
	}
	return errors.Join(errs...)
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
