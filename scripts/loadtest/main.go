// Command loadtest puts codemode serve under load: N clients, each on a board
// of its own, run a whiteboard script of ten tool calls (a frame, six sticky
// notes in it, three connectors between them) through
// POST /v1/boards/{id}/execute, one request after another, for a while; it
// reports runs per second, the latency distribution, errors by kind, and the
// server's memory (RSS) and CPU time.
//
// It measures one of three servers, or several of the last two:
//
//	go run ./scripts/loadtest                      a server in this process (server.New), boards in SQLite in a temporary directory
//	go run ./scripts/loadtest --serve ./codemode   ./codemode serve started here on 127.0.0.1:0 with a temporary --data
//	go run ./scripts/loadtest --url URL --pid PID  a server already running at URL (loopback only); PID for its RSS and CPU
//
// In the first mode the RSS and CPU reported are those of this process, the
// clients' included; the second separates the server (and its worker
// processes) from the clients, and is what docs/benchmarks.md reports.
//
// Several servers — replicas behind what would be a load balancer — are
// loaded round-robin: --url and --pid may be given once per server (the
// n-th --pid is the n-th --url's process), or --serve starts --replicas N
// processes, each with its own temporary --data, or all with one
// --store postgres://… (then they share boards), each given its share of
// this machine's CPUs (GOMAXPROCS, --serve-procs). Each client sends its runs
// to each server in turn. When the servers share boards (--shared, implied
// by a store URL) a client has one board, made on one server and run on by
// all of them, its watchers on the others: what replicas sharing boards
// must do. When they do not, each client has a board on each server and
// its runs go to each of them in turn: the load is spread the same way, but
// no board is shared. --by-board keeps each shared board's runs on the
// server it was made on (boards spread over the servers), as a load
// balancer that routes by the board id would. The report adds each server's runs, errors and CPU,
// and sums RSS and CPU over all the processes it knows.
//
// It only talks to loopback addresses and stops on its own: the run lasts
// --warmup plus --duration, and a hard limit ends everything (a server it
// started included) shortly after even if the server stops answering.
//
// Usage: go run ./scripts/loadtest [flags]; --help lists them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(cli(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// cli parses the flags, runs the load and prints the report; it returns the
// exit status: 0 the load ran (with or without errors: the report says), 1 it
// could not run or ended early, 2 bad flags.
func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadtest: %v\n", err)
		return 2
	}
	rep, err := Run(ctx, cfg, stderr)
	if rep != nil {
		if cfg.JSON {
			rep.WriteJSON(stdout)
		} else {
			rep.WriteText(stdout)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadtest: %v\n", err)
		return 1
	}
	return 0
}

// parseFlags reads the command line into a Config, checking every flag;
// all problems are reported at once.
func parseFlags(args []string, stderr io.Writer) (Config, error) {
	cfg := DefaultConfig()
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: go run ./scripts/loadtest [flags]

Puts codemode serve under load: --clients clients, each on its own board, run
a 10-call whiteboard script (or --mode batch: the same ten calls as a batch)
one request after another for --warmup + --duration, then print runs/s,
latency percentiles, errors by kind, and the server's RSS and CPU time.

Server (one of):
  (default)      a server in this process, on 127.0.0.1:0 (--store, --runner)
  --serve BIN    start "BIN serve --addr 127.0.0.1:0 --data TMPDIR --runner R";
                 --replicas N starts N of them, --store postgres://... gives
                 them "--store URL" instead of --data (they share boards),
                 --serve-arg ARG adds ARG to every one (repeatable); each
                 of N gets GOMAXPROCS=CPUs/N (--serve-procs to change it)
  --url URL      a running server at a loopback URL (--pid PID for its RSS/CPU);
                 repeat both for several servers, loaded round-robin (--shared
                 when they serve the same boards)

Flags:
`)
		fs.PrintDefaults()
	}
	fs.IntVar(&cfg.Clients, "clients", cfg.Clients, "concurrent clients, each with its own board and connection")
	fs.DurationVar(&cfg.Duration, "duration", cfg.Duration, "how long to measure")
	fs.DurationVar(&cfg.Warmup, "warmup", cfg.Warmup, "load before measuring (not counted)")
	fs.StringVar(&cfg.Mode, "mode", cfg.Mode, "execute (the script) or batch (the same ten calls as one batch)")
	fs.StringVar(&cfg.ScriptFile, "script", "", "run the code of FILE instead of the built-in script (its global input is {\"run\": N})")
	fs.IntVar(&cfg.Reset, "reset", cfg.Reset, "replace a client's board with a new empty one every N runs (0: never), so that boards stay small")
	fs.IntVar(&cfg.Watchers, "watchers", cfg.Watchers, "SSE subscribers (GET .../events) per board, reading every event")
	fs.DurationVar(&cfg.RequestTimeout, "request-timeout", cfg.RequestTimeout, "the longest a request may take before it counts as an error")
	fs.Func("url", "load a running server at this loopback URL instead of starting one; repeatable: the servers are loaded round-robin", func(v string) error {
		cfg.URLs = append(cfg.URLs, v)
		return nil
	})
	fs.Func("pid", "with --url: the server's process id, for its RSS and CPU time; repeatable: the n-th is the n-th --url's", func(v string) error {
		pid, err := strconv.Atoi(v)
		if err != nil {
			return errors.New("want a process id")
		}
		cfg.PIDs = append(cfg.PIDs, pid)
		return nil
	})
	fs.BoolVar(&cfg.ByBoard, "by-board", false, "servers sharing boards: send a client's runs to its board's server only (as a load balancer routing by board id), not to each in turn")
	fs.BoolVar(&cfg.Shared, "shared", false, "the --url servers serve the same boards (one store): each client's board is run on by all of them")
	fs.StringVar(&cfg.ServeBinary, "serve", "", "start this codemode binary's serve command and load it")
	fs.IntVar(&cfg.Replicas, "replicas", cfg.Replicas, "with --serve: how many serve processes to start, loaded round-robin")
	fs.IntVar(&cfg.ServeProcs, "serve-procs", cfg.ServeProcs, "with --serve: GOMAXPROCS of every serve process; 0: its own; default: with --replicas N, each process's share of this machine's CPUs (CPUs/N, at least 1), as a container with a CPU limit would get")
	fs.Func("serve-arg", "with --serve: an argument added to every serve command (repeatable, in order)", func(v string) error {
		cfg.ServeArgs = append(cfg.ServeArgs, v)
		return nil
	})
	fs.StringVar(&cfg.Runner, "runner", cfg.Runner, "in-process server and --serve: worker or inprocess")
	fs.StringVar(&cfg.Store, "store", cfg.Store, "in-process server: sqlite (in a temporary directory) or memory; --serve: sqlite (a --data each) or a postgres:// URL for every process's --store")
	fs.IntVar(&cfg.MaxWorkers, "max-workers", 0, "in-process server: worker processes running scripts at once (default: the pool's, 8 per CPU)")
	fs.IntVar(&cfg.WarmWorkers, "warm-workers", 0, "in-process server: idle worker processes the pool keeps (default: the pool's, 1 per CPU); a worker back from a run while that many are idle is stopped")
	fs.StringVar(&cfg.CPUProfile, "cpuprofile", "", "write a CPU profile of this process over the measured time to FILE (the in-process server's time is in it)")
	fs.BoolVar(&cfg.JSON, "json", false, "print the report as JSON")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q (flags only; see --help)", fs.Arg(0))
	}
	if cfg.ScriptFile != "" {
		code, err := os.ReadFile(cfg.ScriptFile)
		if err != nil {
			return cfg, fmt.Errorf("--script: %v", err)
		}
		cfg.Script = string(code)
	}
	return cfg, cfg.Check()
}
