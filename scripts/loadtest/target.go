package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/worker"
	"github.com/codemode-dev/codemode/server"
	"github.com/codemode-dev/codemode/server/sqlitestore"
)

// target is the server under load.
type target struct {
	base string // http://127.0.0.1:PORT, no final slash
	desc string // for the report
	// pid is the server's process, whose RSS and CPU are reported (0: not
	// known); self says it is this process, the clients included.
	pid  int
	self bool
	stop func(ctx context.Context) error
	// started counts the worker processes the server has started, where
	// it is known (the in-process server's pool); nil elsewhere.
	started func() int
}

// startTargets starts or finds the servers the configuration names; on an
// error nothing it started is left running.
func startTargets(ctx context.Context, cfg Config, logw io.Writer) ([]*target, error) {
	switch {
	case len(cfg.URLs) > 0:
		var ts []*target
		for i, u := range cfg.URLs {
			t := &target{base: strings.TrimSuffix(u, "/"), desc: "the server at " + u,
				stop: func(context.Context) error { return nil }}
			if i < len(cfg.PIDs) {
				t.pid = cfg.PIDs[i]
				t.desc += fmt.Sprintf(" (process %d)", t.pid)
			}
			ts = append(ts, t)
		}
		return ts, nil
	case cfg.ServeBinary != "":
		return startReplicas(ctx, cfg, logw)
	}
	t, err := startInProcess(cfg, logw)
	if err != nil {
		return nil, err
	}
	return []*target{t}, nil
}

// stopTargets stops the targets at once and waits for them all.
func stopTargets(ctx context.Context, ts []*target) error {
	errs := make([]error, len(ts))
	var wg sync.WaitGroup
	for i, t := range ts {
		wg.Go(func() { errs[i] = t.stop(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// startReplicas starts cfg.Replicas serve processes one after the other,
// all within setupBound.
func startReplicas(ctx context.Context, cfg Config, logw io.Writer) ([]*target, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, setupBound, fmt.Errorf("--serve: the servers were not all ready within %v", setupBound))
	defer cancel()
	var ts []*target
	for i := range cfg.Replicas {
		prefix := "serve"
		if cfg.Replicas > 1 {
			prefix = fmt.Sprintf("serve #%d", i+1)
		}
		t, err := startServe(ctx, cfg, prefix, logw)
		if err != nil {
			sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), setupBound)
			defer scancel()
			stopTargets(sctx, ts)
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// serveArgs are the arguments of one serve process: a free port of
// loopback, its own data directory dir or the store URL, the runner, and
// the --serve-arg arguments last (so that they can add any flag of serve).
func serveArgs(cfg Config, dir string) []string {
	args := []string{"serve", "--addr", "127.0.0.1:0"}
	if isStoreURL(cfg.Store) {
		args = append(args, "--store", cfg.Store)
	} else {
		args = append(args, "--data", dir)
	}
	args = append(args, "--runner", cfg.Runner)
	return append(args, cfg.ServeArgs...)
}

// startInProcess serves server.New on 127.0.0.1:0 in this process, with the
// SQLite store in a temporary directory (or the memory store) and the
// worker pool (or the in-process runner).
func startInProcess(cfg Config, logw io.Writer) (_ *target, err error) {
	var cleanup []func() error
	defer func() {
		if err != nil {
			for i := len(cleanup) - 1; i >= 0; i-- {
				cleanup[i]()
			}
		}
	}()
	var store server.Store
	storeDesc := "memory store"
	if cfg.Store == "sqlite" {
		dir, err := os.MkdirTemp("", "codemode-loadtest-")
		if err != nil {
			return nil, err
		}
		cleanup = append(cleanup, func() error { return os.RemoveAll(dir) })
		st, err := sqlitestore.Open(filepath.Join(dir, "boards.db"), sqlitestore.Options{})
		if err != nil {
			return nil, err
		}
		cleanup = append(cleanup, st.Close)
		store, storeDesc = st, "SQLite store in "+dir
	} else {
		store = server.NewMemoryStore()
		cleanup = append(cleanup, store.Close)
	}
	var runner engine.ScriptRunner
	var started func() int
	if cfg.Runner == "worker" {
		pool, err := worker.New(worker.Config{Max: cfg.MaxWorkers, Warm: cfg.WarmWorkers})
		if err != nil {
			return nil, err
		}
		cleanup = append(cleanup, pool.Close)
		runner = pool
		started = func() int { return pool.Stats().Started }
	}
	srv, err := server.New(server.Options{
		Store:  store,
		Runner: runner,
		Logger: slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return nil, err
	}
	maxDesc := ""
	if cfg.MaxWorkers > 0 {
		maxDesc += fmt.Sprintf(", at most %d workers", cfg.MaxWorkers)
	}
	if cfg.WarmWorkers > 0 {
		maxDesc += fmt.Sprintf(", %d kept warm", cfg.WarmWorkers)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	stop := func(ctx context.Context) error {
		errs := []error{srv.Shutdown(ctx), hs.Shutdown(ctx)}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
		for i := len(cleanup) - 1; i >= 0; i-- {
			errs = append(errs, cleanup[i]())
		}
		return errors.Join(errs...)
	}
	return &target{
		base:    "http://" + ln.Addr().String(),
		desc:    fmt.Sprintf("server.New in this process (runner %s%s, %s)", cfg.Runner, maxDesc, storeDesc),
		pid:     os.Getpid(),
		self:    true,
		stop:    stop,
		started: started,
	}, nil
}

// readyLine is what codemode serve prints on stderr once it listens.
var readyLine = regexp.MustCompile(`serving on (http://[^\s/]+)/`)

// startServe starts "BIN serve --addr 127.0.0.1:0 --data TMPDIR --runner R"
// (serveArgs) and waits for its ready line, which names the port, until ctx
// ends. Its stderr after that goes to logw (the first lines; the rest are
// counted), each line after prefix.
func startServe(ctx context.Context, cfg Config, prefix string, logw io.Writer) (_ *target, err error) {
	bin := cfg.ServeBinary
	if !strings.Contains(bin, string(filepath.Separator)) {
		bin = "." + string(filepath.Separator) + bin // a file here, not one on $PATH
	}
	dir := "" // the data directory, when it is not a store URL
	if !isStoreURL(cfg.Store) {
		if dir, err = os.MkdirTemp("", "codemode-loadtest-"); err != nil {
			return nil, err
		}
	}
	removeDir := func() {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	cmd := exec.Command(bin, serveArgs(cfg, dir)...)
	procs := cfg.ServeGOMAXPROCS(runtime.NumCPU())
	if procs > 0 {
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs))
	}
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		removeDir()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		removeDir()
		return nil, fmt.Errorf("--serve: %v", err)
	}
	exited := make(chan error, 1)
	ready := make(chan string, 1)
	var early strings.Builder // stderr before the ready line, for the error
	var logged sync.WaitGroup
	logged.Go(func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		found, shown, hidden := false, 0, 0
		for sc.Scan() {
			line := sc.Text()
			if !found {
				if m := readyLine.FindStringSubmatch(line); m != nil {
					found = true
					ready <- m[1]
					continue
				}
				early.WriteString(line + "\n")
				continue
			}
			if shown < 20 {
				fmt.Fprintf(logw, "%s: %s\n", prefix, line)
				shown++
			} else {
				hidden++
			}
		}
		if hidden > 0 {
			fmt.Fprintf(logw, "%s: (%d more lines on stderr not shown)\n", prefix, hidden)
		}
	})
	go func() { logged.Wait(); exited <- cmd.Wait() }()
	kill := func() {
		cmd.Process.Kill()
		<-exited
		removeDir()
	}
	var base string
	select {
	case base = <-ready:
	case err := <-exited:
		removeDir()
		return nil, fmt.Errorf("--serve: %s serve ended before it was ready (%v): %s", bin, err, strings.TrimSpace(early.String()))
	case <-ctx.Done():
		kill()
		return nil, context.Cause(ctx)
	}
	if err := checkLoopbackURL(base); err != nil {
		kill()
		return nil, fmt.Errorf("--serve: the server listens at %s: %v", base, err)
	}
	stop := func(ctx context.Context) error {
		defer removeDir()
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				return fmt.Errorf("codemode serve ended with %v after SIGTERM", err)
			}
			return nil
		case <-ctx.Done():
			cmd.Process.Kill()
			<-exited
			return errors.New("codemode serve did not stop on SIGTERM in time: killed")
		}
	}
	where := "boards in SQLite in " + dir
	if dir == "" {
		where = "boards in " + redactURL(cfg.Store)
	}
	if len(cfg.ServeArgs) > 0 {
		where += ", also " + strings.Join(cfg.ServeArgs, " ")
	}
	if procs > 0 {
		where += ", GOMAXPROCS=" + strconv.Itoa(procs)
	}
	return &target{
		base: base,
		desc: fmt.Sprintf("%s serve --runner %s (process %d, %s)", cfg.ServeBinary, cfg.Runner, cmd.Process.Pid, where),
		pid:  cmd.Process.Pid,
		stop: stop,
	}, nil
}
