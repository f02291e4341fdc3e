// Package server is codemode's HTTP front end: the engine, the whiteboard's
// tools and many boards kept in a Store, served as an http.Handler that a Go
// program mounts under its own mux, or that `codemode serve` listens with.
//
// The API (docs/http.md) runs batch and code-mode requests, stateless or on
// a board, and streams their events as server-sent events; every open view
// of a board follows it live through GET /v1/boards/{id}/events. Runs on a
// board are serialised, each committed as one undo step, and rolled back
// when they fail. Calls that need a person's approval wait, parked under
// their run's id, until a client answers POST /v1/runs/{runId}/approvals.
package server

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/server/web"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// Options configure a Server. Only Store is required.
type Options struct {
	// Store keeps the boards (NewMemoryStore, server/sqlitestore). The
	// server does not close it: its owner does, after Shutdown.
	Store Store
	// Tools are added to the whiteboard's twelve (e.g. WASM tools).
	Tools []engine.Tool
	// Config is the engine's configuration; zero fields take the defaults.
	Config engine.Config
	// Runner runs code-mode scripts; nil is engine.InProcessRunner(). A
	// long-lived server passes a worker pool (sandbox/worker), so that no
	// script can take the process down.
	Runner engine.ScriptRunner
	// Approve chooses which calls wait for a person's decision: nil is
	// GateDestructive; engine.GateWrites gates all but read-only tools;
	// GateNone gates nothing. A preview run asks nobody, whatever the
	// policy: its whiteboard calls change only its copy, and its other
	// tools run only if read-only (denied otherwise); applying it commits
	// what it showed, a decision its client makes with the whole effect in
	// view (docs/http.md, "Previews").
	Approve engine.ApprovalPolicy
	// Token, if set, must come with every /v1 request as
	// "Authorization: Bearer TOKEN".
	Token string
	// AllowedHosts are the host names (no port) that requests may name in
	// their Host header; others get 400, on every path. An entry is a name
	// or an IP (app.example.com, 127.0.0.1, ::1), *.example.com for the
	// names under a domain, or * for any. None means: without a Token,
	// only this machine's names — localhost, names under .localhost and
	// loopback IPs — so that a web page cannot reach a loopback server by
	// rebinding its own name to 127.0.0.1 (DNS rebinding); with a Token,
	// any name, the token being the guard.
	AllowedHosts []string
	// AllowOrigins are the exact origins (scheme://host[:port]) whose
	// browser pages may call the API from elsewhere (CORS); none means no
	// CORS headers at all.
	AllowOrigins []string
	// MaxBodyBytes caps a request body (413 beyond it); 0 means 4 MiB.
	MaxBodyBytes int64
	// MaxBoardBytes caps a board's JSON document, what the store keeps per
	// undo step and what every watcher is sent whole: a run that would make
	// its board larger is not committed, and a board created larger is
	// refused (413 both); 0 means 16 MiB. The whiteboard's own limits
	// (whiteboard.MaxObjects, MaxTextLength) allow larger boards than that.
	MaxBoardBytes int64
	// MaxRuns caps the runs under way at once over all boards, the ones
	// waiting for their board included (503 with Retry-After beyond it);
	// 0 means 64. A run waiting for a client's approval gives its place up
	// while it waits, up to MaxRuns such runs at once (beyond that it keeps
	// its place), and takes it back when the wait ends, even over MaxRuns.
	MaxRuns int
	// MaxBoards caps how many boards the store may hold: past it, creating
	// one gets 409 (limit_exceeded) until boards are deleted; 0 means
	// 10000. Servers sharing a store each hold to it, and may together pass
	// it by the creations they make at one moment.
	MaxBoards int
	// MaxWatchers caps the board event streams (GET
	// /v1/boards/{id}/events) open at once over all boards, and
	// MaxWatchersPerBoard those of one board; beyond them, 503 with
	// Retry-After. Each stream holds a connection, a goroutine and up to
	// 8 MiB of queued events. 0 means 1024 and 64.
	MaxWatchers         int
	MaxWatchersPerBoard int
	// Logger gets the server's own log lines (a recovered panic, a store
	// failure); nil is slog.Default().
	Logger *slog.Logger
	// Observer, if set, gets every event of every run too (e.g. an
	// OpenTelemetry observer).
	Observer engine.Observer
	// PreviewTTL is how long a preview run's preview is kept for apply
	// (docs/http.md, "Previews"); 0 means 10 minutes. MaxPreviews caps the
	// previews kept per board (0 means 16), and MaxPreviewBytes what the
	// previews of all boards weigh together, counted by their boards'
	// documents (0 means 256 MiB); a board's previews weigh at most four
	// times MaxBoardBytes. Past a bound the oldest are let go.
	PreviewTTL      time.Duration
	MaxPreviews     int
	MaxPreviewBytes int64
	// Cluster makes the server one replica of several sharing Store's
	// boards (NewMemoryCluster, server/pgstore): runs on a board are
	// serialised across them, watchers on every replica see every run,
	// and a run's approvals are decided on any. nil: the server is the
	// store's only user. The server does not close it: its owner does,
	// after Shutdown.
	Cluster Cluster
}

// Defaults of Options.
const (
	DefaultMaxBodyBytes  = 4 << 20
	DefaultMaxBoardBytes = 16 << 20
	DefaultMaxRuns       = 64
	DefaultMaxBoards     = 10000

	DefaultMaxWatchers         = 1024
	DefaultMaxWatchersPerBoard = 64
)

// Server is the HTTP front end. It is an http.Handler, safe for concurrent
// use; Shutdown ends it.
type Server struct {
	store   Store
	eng     *engine.Engine
	log     *slog.Logger
	web     http.Handler
	token   string
	hosts   *hostCheck // nil: any Host
	origins map[string]bool
	maxBody int64
	// maxBoard caps a board's document (Options.MaxBoardBytes).
	maxBoard int64

	// epoch names this server's lifetime in SSE event ids, so that an id
	// from before a restart is never taken for one of this run's.
	epoch       string
	boardEpochs atomic.Uint64 // boards brought into memory, for their hubs' epochs

	boards    *registry
	approvals *approvals
	previews  *previews

	// cluster is Options.Cluster (nil: alone); stopListen ends its
	// notices, and syncs counts the catch-ups with its logs under way
	// (syncLater), for Shutdown; none is added once syncsOver is set
	// (guarded by mu).
	cluster    Cluster
	stopListen func()
	syncs      sync.WaitGroup

	maxBoardCount int // Options.MaxBoards
	// creating is held by the board creation under way: counting the
	// boards and adding one take turns, so that MaxBoards holds against
	// creations at once.
	creating chan struct{}

	// The bounds of waiting and writing, fields so that tests can shorten
	// them.
	heartbeat    time.Duration // between ": ping" comments on an idle stream
	writeTimeout time.Duration // one write to a client, before it is dropped
	storeTimeout time.Duration // one store call
	queueBytes   int           // how far a stream may fall behind before it is dropped
	ringBytes    int           // how much of a board's latest events is kept for resuming
	resumeGrace  time.Duration // how long after its last watcher left

	// drawBoard makes a `board` event's data (boardEventJSON), a field so
	// that tests can count and hold the drawing of boards.
	drawBoard func(id string, st BoardState, b *whiteboard.Board) []byte

	// mu guards closing, the start of runs and the WaitGroup runs, so that
	// Shutdown's Wait never races a run's Add (and syncsOver, for syncs).
	// A hub's mu, when both are held, comes first (syncLater).
	mu         sync.Mutex
	closing    bool
	syncsOver  bool
	running    int // runs under way, queued ones included, parked ones not
	parked     int // runs waiting for approval, out of running (park)
	maxRuns    int
	runs       sync.WaitGroup          // runs and changes under way, for Shutdown
	underWay   int                     // their number, under mu
	base       context.Context         // the parent of every run's context
	cancelBase context.CancelCauseFunc // cancels them, saying why (cancelRuns)
	active     map[string]*runSink     // runs under way by id, from their run_start (cancel.go)
	done       chan struct{}           // closed by Shutdown once runs are over: streams end

	// The board event streams open (guarded by mu) and their caps.
	watchers         int
	maxWatchers      int
	maxBoardWatchers int
}

// New builds the engine over the whiteboard's tools and opts.Tools and
// returns the server. It fails only for what Options cannot be (no store,
// tools the engine refuses, an invalid configuration), every problem at once.
func New(opts Options) (*Server, error) {
	var problems []error
	if opts.Store == nil {
		problems = append(problems, errors.New("server: Options.Store is required (NewMemoryStore keeps boards in memory)"))
	}
	hosts, err := newHostCheck(opts.AllowedHosts, opts.Token)
	if err != nil {
		problems = append(problems, err)
	}
	s := &Server{
		store:            opts.Store,
		cluster:          opts.Cluster,
		log:              opts.Logger,
		web:              web.Handler(),
		token:            opts.Token,
		hosts:            hosts,
		maxBody:          opts.MaxBodyBytes,
		maxBoard:         opts.MaxBoardBytes,
		maxRuns:          opts.MaxRuns,
		maxBoardCount:    opts.MaxBoards,
		maxWatchers:      opts.MaxWatchers,
		maxBoardWatchers: opts.MaxWatchersPerBoard,
		creating:         make(chan struct{}, 1),
		epoch:            newEpoch(),
		approvals:        newApprovals(),
		active:           make(map[string]*runSink),
		heartbeat:        15 * time.Second,
		writeTimeout:     10 * time.Second,
		storeTimeout:     10 * time.Second,
		queueBytes:       8 << 20,
		ringBytes:        4 << 20,
		resumeGrace:      time.Minute,
		drawBoard:        boardEventJSON,
		done:             make(chan struct{}),
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBodyBytes
	}
	if s.maxBoard <= 0 {
		s.maxBoard = DefaultMaxBoardBytes
	}
	if s.maxRuns <= 0 {
		s.maxRuns = DefaultMaxRuns
	}
	if s.maxBoardCount <= 0 {
		s.maxBoardCount = DefaultMaxBoards
	}
	if s.maxWatchers <= 0 {
		s.maxWatchers = DefaultMaxWatchers
	}
	if s.maxBoardWatchers <= 0 {
		s.maxBoardWatchers = DefaultMaxWatchersPerBoard
	}
	if len(opts.AllowOrigins) > 0 {
		s.origins = make(map[string]bool, len(opts.AllowOrigins))
		for _, o := range opts.AllowOrigins {
			s.origins[o] = true
		}
	}
	policy := opts.Approve
	if policy == nil {
		policy = GateDestructive
	}
	guarded := make([]engine.Tool, len(opts.Tools))
	for i, t := range opts.Tools {
		guarded[i] = guardForPreview(t)
	}
	b := engine.NewBuilder().
		Add(whiteboard.Tools(nil)...).
		Add(guarded...).
		WithConfig(opts.Config).
		WithObserver(engine.ObserverFunc(s.observe)).
		WithApprover(engine.ApproverFunc(s.approve)).
		WithApprovalPolicy(policy).
		WithScriptRunner(opts.Runner)
	if opts.Observer != nil {
		b.WithObserver(opts.Observer)
	}
	eng, err := b.Build()
	if err != nil {
		problems = append(problems, err)
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	s.eng = eng
	s.boards = newRegistry(s)
	s.previews = newPreviewsFor(opts, s.maxBoard)
	s.base, s.cancelBase = context.WithCancelCause(context.Background())
	if s.cluster != nil {
		s.cluster.Serve(s.serveForwarded)
		s.stopListen = s.cluster.Listen(s.noticed)
	}
	return s, nil
}

// errShutdownCause is why runs canceled by Shutdown end: the engine makes
// it the message of their canceled calls and scripts, so that a client
// reads that the server stopped, not that someone ended its run.
var errShutdownCause = errors.New("the server is shutting down")

// cancelRuns cancels every run under way, because the server shuts down.
func (s *Server) cancelRuns() { s.cancelBase(errShutdownCause) }

// newEpoch is the server's start in base 36 and two random digits (two
// servers may start in one millisecond), fixed width so that a board's
// generation can follow it unambiguously.
func newEpoch() string {
	r := strconv.FormatUint(rand.Uint64N(36*36), 36)
	return strconv.FormatInt(time.Now().UnixMilli(), 36) + strings.Repeat("0", 2-len(r)) + r
}

// Engine returns the server's engine: its tools, definitions and
// configuration. Runs started on it directly have no HTTP client to ask, so
// their gated calls are denied.
func (s *Server) Engine() *engine.Engine { return s.eng }

// GateDestructive is the server's default approval policy: a call waits for
// a person only if its tool may destroy data — not read-only, and
// destructiveHint set or left out (MCP's default is true). Of the
// whiteboard's tools that is deleteObject.
func GateDestructive(t *engine.Tool) bool {
	a := t.Annotations
	return !a.ReadOnlyHint && (a.DestructiveHint == nil || *a.DestructiveHint)
}

// GateNone is the approval policy under which no call waits.
func GateNone(*engine.Tool) bool { return false }

// startRun counts a run in, or refuses it: shutting down, or MaxRuns runs
// already under way. The caller calls endRun when the run is over.
func (s *Server) startRun() *httpError {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closing:
		return errShuttingDown()
	case s.running >= s.maxRuns:
		if s.maxRuns == 1 {
			return unavailable("1 run is under way, the most this server runs at once: try again shortly")
		}
		return unavailable("%d runs are under way, the most this server runs at once: try again shortly", s.maxRuns)
	}
	s.running++
	s.runs.Add(1)
	s.underWay++
	return nil
}

// startChange counts in a change to boards that is not a run (create,
// undo, redo, delete), or refuses it when shutting down; Shutdown waits for
// it as for a run, so that what it commits is in the store before Shutdown
// returns. It is not counted against MaxRuns. ctx is the request's, ended
// by Shutdown's cancel too, so that a change waiting for a busy board stops
// waiting. The caller calls done when the change is over.
func (s *Server) startChange(r *http.Request) (ctx context.Context, done func(), herr *httpError) {
	return s.startChangeCtx(r.Context())
}

// startChangeCtx is startChange for a change whose request is ctx's.
func (s *Server) startChangeCtx(rctx context.Context) (ctx context.Context, done func(), herr *httpError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, nil, errShuttingDown()
	}
	s.runs.Add(1)
	s.underWay++
	ctx, cancel := context.WithCancelCause(rctx)
	stop := context.AfterFunc(s.base, func() { cancel(context.Cause(s.base)) })
	return ctx, func() {
		stop()
		cancel(nil)
		s.mu.Lock()
		s.underWay--
		s.mu.Unlock()
		s.runs.Done()
	}, nil
}

func (s *Server) endRun() {
	s.mu.Lock()
	s.running--
	s.underWay--
	s.mu.Unlock()
	s.runs.Done()
}

// watch counts a board event stream in, or refuses it: MaxWatchers are
// open. The caller calls unwatch when the stream ends.
func (s *Server) watch() *httpError {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watchers >= s.maxWatchers {
		return unavailable("%d event streams are open, the most this server serves at once: try again shortly", s.maxWatchers)
	}
	s.watchers++
	return nil
}

func (s *Server) unwatch() {
	s.mu.Lock()
	s.watchers--
	s.mu.Unlock()
}

// shuttingDown reports whether Shutdown has begun: no new runs, and no
// changes to boards from then on.
func (s *Server) shuttingDown() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// Shutdown stops the server gracefully: from its call on, /healthz answers
// 503 and new runs and board changes are refused (503); runs and changes
// (undo, redo, create, delete) under way may finish until ctx ends, when
// they are canceled (runs rolled back, unless they asked for "atomic":
// false; a change still waiting for its board refused). Every run's commit is in the store before
// Shutdown returns; then board streams end. It returns ctx's error if the
// runs had to be canceled. Call it before http.Server.Shutdown, which waits
// for streams that only this ends.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	first := !s.closing
	s.closing = true
	s.mu.Unlock()
	finished := make(chan struct{})
	go func() {
		s.runs.Wait()
		close(finished)
	}()
	var err error
	select {
	case <-finished:
	case <-ctx.Done():
		s.mu.Lock()
		n := s.underWay
		s.mu.Unlock()
		if n > 0 {
			err = ctx.Err()
			s.cancelRuns()
		}
		<-finished
	}
	s.cancelRuns()
	s.previews.close()
	if first {
		close(s.done)
		if s.stopListen != nil {
			s.stopListen()
		}
	}
	s.mu.Lock()
	s.syncsOver = true
	s.mu.Unlock()
	s.syncs.Wait()
	return err
}
