package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// builtinScript is the load's script: what a model drawing a retrospective
// would send. Ten tool calls: a frame, six sticky notes in it (at once,
// Promise.all), three connectors between them (at once). input.run places
// each run's frame elsewhere on the board.
const builtinScript = `const n = input.run;
const x = (n % 8) * 1000, y = Math.floor(n / 8) * 700;
const frame = await tools.createFrame({ title: "Retro " + n, x, y, width: 920, height: 620, color: "gray" });
const texts = ["Went well", "Shipped on time", "To improve", "Flaky tests", "Ideas", "Pair more"];
const colors = ["green", "green", "pink", "pink", "blue", "blue"];
const notes = await Promise.all(texts.map((text, i) => tools.createStickyNote({
  text, color: colors[i], parentId: frame.id,
  x: x + 20 + (i % 3) * 300, y: y + 60 + Math.floor(i / 3) * 280, width: 260, height: 220,
})));
const links = await Promise.all([[0, 1], [2, 3], [4, 5]].map(([a, b]) =>
  tools.createConnector({ fromId: notes[a].id, toId: notes[b].id, style: "arrow", label: "then" })));
return { frame: frame.id, notes: notes.map((s) => s.id), links: links.map((c) => c.id) };
`

// objectsPerRun is how many objects a run of the built-in script or batch
// adds to its board.
const objectsPerRun = 10

// executeBody is the execute request for run n.
func executeBody(codeJSON []byte, n int) []byte {
	b := make([]byte, 0, len(codeJSON)+32)
	b = append(b, `{"code":`...)
	b = append(b, codeJSON...)
	b = append(b, `,"input":{"run":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, `}}`...)
}

// batchBody is the batch request for run n: the built-in script's ten calls,
// connected by $ref instead of variables.
func batchBody(n int) []byte {
	x, y := (n%8)*1000, (n/8)*700
	texts := []string{"Went well", "Shipped on time", "To improve", "Flaky tests", "Ideas", "Pair more"}
	colors := []string{"green", "green", "pink", "pink", "blue", "blue"}
	type op struct {
		Tool  string         `json:"tool"`
		Args  map[string]any `json:"args"`
		Label string         `json:"label,omitempty"`
	}
	ref := func(path string) map[string]string { return map[string]string{"$ref": path} }
	ops := []op{{Tool: "createFrame", Label: "f", Args: map[string]any{
		"title": "Retro " + strconv.Itoa(n), "x": x, "y": y, "width": 920, "height": 620, "color": "gray"}}}
	for i, text := range texts {
		ops = append(ops, op{Tool: "createStickyNote", Label: "s" + strconv.Itoa(i), Args: map[string]any{
			"text": text, "color": colors[i], "parentId": ref("f.id"),
			"x": x + 20 + (i%3)*300, "y": y + 60 + (i/3)*280, "width": 260, "height": 220}})
	}
	for _, p := range [][2]int{{0, 1}, {2, 3}, {4, 5}} {
		ops = append(ops, op{Tool: "createConnector", Args: map[string]any{
			"fromId": ref(fmt.Sprintf("s%d.id", p[0])), "toId": ref(fmt.Sprintf("s%d.id", p[1])),
			"style": "arrow", "label": "then"}})
	}
	b, _ := json.Marshal(map[string]any{"operations": ops})
	return b
}

// answer is what the load reads of a run's JSON answer or an error answer.
type answer struct {
	Success *bool      `json:"success"` // execute
	Error   *errorBody `json:"error"`   // execute's failure, or the error contract
	Summary *struct {  // batch
		Total      int `json:"total"`
		Successful int `json:"successful"`
	} `json:"summary"`
	Results []struct {
		Success bool       `json:"success"`
		Error   *errorBody `json:"error"`
	} `json:"results"`
}

type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// outcome is one request's: ok, or the kind of error and an example message.
type outcome struct {
	ok      bool
	kind    string // e.g. "HTTP 503 limit_exceeded", "run failed: timeout", "transport"
	message string
}

// classify reads a run's answer: only a 200 whose run succeeded is ok.
func classify(mode string, status int, body []byte) outcome {
	var a answer
	jerr := json.Unmarshal(body, &a)
	if status != http.StatusOK {
		o := outcome{kind: fmt.Sprintf("HTTP %d", status), message: cut(string(body), 300)}
		if jerr == nil && a.Error != nil {
			o.kind += " " + a.Error.Code
			o.message = a.Error.Message
		}
		return o
	}
	if jerr != nil {
		return outcome{kind: "bad answer", message: fmt.Sprintf("%v: %s", jerr, cut(string(body), 300))}
	}
	if mode == "batch" {
		if a.Summary == nil {
			return outcome{kind: "bad answer", message: "no summary: " + cut(string(body), 300)}
		}
		if a.Summary.Total == objectsPerRun && a.Summary.Successful == a.Summary.Total {
			return outcome{ok: true}
		}
		for _, r := range a.Results {
			if !r.Success && r.Error != nil {
				return outcome{kind: "batch failed: " + r.Error.Code, message: r.Error.Message}
			}
		}
		return outcome{kind: "batch failed", message: fmt.Sprintf("%d of %d operations succeeded", a.Summary.Successful, a.Summary.Total)}
	}
	if a.Success == nil {
		return outcome{kind: "bad answer", message: "no success field: " + cut(string(body), 300)}
	}
	if !*a.Success {
		o := outcome{kind: "run failed"}
		if a.Error != nil {
			o.kind += ": " + a.Error.Code
			o.message = a.Error.Message
		}
		return o
	}
	return outcome{ok: true}
}

func cut(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// client is one simulated user: its boards, its requests, its numbers.
type client struct {
	l *load
	i int
	// boards is the client's board, or, when the targets do not share
	// boards, its board on each target (boards[t] on target t).
	boards []*board
	turn   int // runs sent: the next goes to target (i+turn) mod the number of targets
	n      int // runs started, over all boards (the script's input.run)

	lat    [][]time.Duration // measured requests, by the target they went to
	errors []map[string]int  // failed measured requests by kind, by target
	sample map[string]string
	resets int
	// warmupErrors counts failed requests before the measured window.
	warmupErrors int
}

// board is one of a client's boards.
type board struct {
	home    int // the target it is made, deleted and (unshared) run on
	id      string
	onBoard int           // successful runs on it
	unknown bool          // a request on it ended without an answer: its count is unknown
	stopW   func()        // stops its watchers
	wdone   chan struct{} // closed when its watchers have all ended
}

// load is one run of the generator.
type load struct {
	cfg      Config
	bases    []string // the targets' base URLs
	shared   bool     // the targets serve the same boards
	hc       *http.Client
	codeJSON []byte
	events   atomic.Int64 // SSE events the watchers read while measuring
	counting atomic.Bool  // the measured window is open
	watchers sync.WaitGroup
	werrMu   sync.Mutex
	werrs    map[string]int // watcher errors
}

func (l *load) request(ctx context.Context, target int, method, path string, body []byte) (int, []byte, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, l.bases[target]+path, r)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := l.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	return resp.StatusCode, b, err
}

// newClient makes client i with its boards, not yet created.
func (l *load) newClient(i int) *client {
	c := &client{l: l, i: i, lat: make([][]time.Duration, len(l.bases)), errors: make([]map[string]int, len(l.bases))}
	if l.shared {
		c.boards = []*board{{home: i % len(l.bases)}}
	} else {
		for t := range l.bases {
			c.boards = append(c.boards, &board{home: t})
		}
	}
	return c
}

// watcherTarget is where the w-th watcher of board b subscribes: on its
// own target, or, when boards are shared, on the targets after it, so that
// the events it reads come from runs on every target.
func (l *load) watcherTarget(b *board, w int) int {
	if !l.shared {
		return b.home
	}
	return (b.home + 1 + w) % len(l.bases)
}

// newBoard creates board b on its target (and starts its watchers).
func (c *client) newBoard(ctx context.Context, b *board) error {
	rctx, cancel := context.WithTimeout(ctx, c.l.cfg.RequestTimeout)
	defer cancel()
	status, body, err := c.l.request(rctx, b.home, http.MethodPost, "/v1/boards", []byte(`{"name":"load `+strconv.Itoa(c.i)+`"}`))
	if err != nil {
		return fmt.Errorf("creating a board: %v", err)
	}
	var made struct {
		ID string `json:"id"`
	}
	if status != http.StatusCreated || json.Unmarshal(body, &made) != nil || made.ID == "" {
		return fmt.Errorf("creating a board: HTTP %d: %s", status, cut(string(body), 300))
	}
	b.id, b.onBoard, b.unknown = made.ID, 0, false
	if c.l.cfg.Watchers > 0 {
		wctx, stop := context.WithCancel(ctx)
		b.stopW = stop
		ready := make(chan struct{}, c.l.cfg.Watchers)
		var these sync.WaitGroup
		for w := range c.l.cfg.Watchers {
			these.Add(1)
			c.l.watchers.Go(func() {
				defer these.Done()
				c.l.watch(wctx, c.l.watcherTarget(b, w), made.ID, ready)
			})
		}
		done := make(chan struct{})
		b.wdone = done
		go func() { these.Wait(); close(done) }()
		// The runs start once every watcher has its first event (the
		// board), so that watchers see every run from the first.
		timeout := time.NewTimer(c.l.cfg.RequestTimeout)
		defer timeout.Stop()
		for range c.l.cfg.Watchers {
			select {
			case <-ready:
			case <-timeout.C:
				return fmt.Errorf("board %s: its watchers had no event within %v", made.ID, c.l.cfg.RequestTimeout)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return nil
}

// deleteBoard deletes board b on its target; its watchers see board_deleted.
func (c *client) deleteBoard(ctx context.Context, b *board) error {
	rctx, cancel := context.WithTimeout(ctx, c.l.cfg.RequestTimeout)
	defer cancel()
	status, body, err := c.l.request(rctx, b.home, http.MethodDelete, "/v1/boards/"+b.id, nil)
	if b.stopW != nil {
		// The watchers read on to board_deleted, so that the last runs'
		// events are counted (a watcher behind by a run or two would
		// otherwise be cut off before it read them); not past the timeout.
		if err == nil && status == http.StatusNoContent {
			select {
			case <-b.wdone:
			case <-rctx.Done():
			}
		}
		b.stopW()
		b.stopW = nil
	}
	if err != nil {
		return fmt.Errorf("deleting a board: %v", err)
	}
	if status != http.StatusNoContent {
		return fmt.Errorf("deleting a board: HTTP %d: %s", status, cut(string(body), 300))
	}
	return nil
}

// watch subscribes to a board's events on a target and reads them until
// the board is deleted or ctx ends. It signals ready once, at the first
// event (or when it gives up).
func (l *load) watch(ctx context.Context, target int, board string, ready chan<- struct{}) {
	signalled := false
	signal := func() {
		if !signalled {
			signalled = true
			ready <- struct{}{}
		}
	}
	defer signal()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.bases[target]+"/v1/boards/"+board+"/events", nil)
	if err != nil {
		l.watchError("request", err)
		return
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := l.hc.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			l.watchError("transport", err)
		}
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		l.watchError("HTTP "+strconv.Itoa(resp.StatusCode), nil)
		return
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.HasPrefix(line, []byte("event:")) {
			signal()
			if l.counting.Load() {
				l.events.Add(1)
			}
			if bytes.Equal(bytes.TrimSpace(line[6:]), []byte("board_deleted")) {
				return
			}
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		l.watchError("reading the stream", err)
	}
}

func (l *load) watchError(kind string, err error) {
	l.werrMu.Lock()
	defer l.werrMu.Unlock()
	if l.werrs == nil {
		l.werrs = map[string]int{}
	}
	l.werrs[kind]++
}

// run makes the client's requests until end, each run to the next target
// in turn; those that start at or after from are measured.
func (c *client) run(ctx context.Context, from, end time.Time) {
	for ctx.Err() == nil && time.Now().Before(end) {
		target := (c.i + c.turn) % len(c.l.bases)
		c.turn++
		b := c.boards[0]
		if !c.l.shared {
			b = c.boards[target]
		}
		if c.l.cfg.Reset > 0 && b.onBoard >= c.l.cfg.Reset {
			err := c.deleteBoard(ctx, b)
			if err == nil {
				err = c.newBoard(ctx, b)
			}
			if err != nil {
				c.fail(outcome{kind: "board reset", message: err.Error()}, b.home)
				return
			}
			c.resets++
		}
		var body []byte
		path := "/v1/boards/" + b.id + "/" + c.l.cfg.Mode
		if c.l.cfg.Mode == "batch" {
			body = batchBody(c.n)
		} else {
			body = executeBody(c.l.codeJSON, c.n)
		}
		c.n++
		rctx, cancel := context.WithTimeout(ctx, c.l.cfg.RequestTimeout)
		start := time.Now()
		status, answer, err := c.l.request(rctx, target, http.MethodPost, path, body)
		took := time.Since(start)
		cancel()
		measured := !start.Before(from)
		var o outcome
		if err != nil {
			if ctx.Err() != nil { // stopped from outside: not the server's error
				return
			}
			o = outcome{kind: "transport", message: err.Error()}
			if errors.Is(err, context.DeadlineExceeded) {
				o.kind = "request timeout"
			}
			b.unknown = true
		} else {
			o = classify(c.l.cfg.Mode, status, answer)
			if o.ok {
				b.onBoard++
			}
		}
		if !measured {
			if !o.ok {
				c.warmupErrors++
			}
			continue
		}
		c.lat[target] = append(c.lat[target], took)
		if !o.ok {
			c.fail(o, target)
		}
	}
}

// fail counts a measured failure on a target.
func (c *client) fail(o outcome, target int) {
	if c.errors[target] == nil {
		c.errors[target] = map[string]int{}
	}
	if c.sample == nil {
		c.sample = map[string]string{}
	}
	c.errors[target][o.kind]++
	if _, ok := c.sample[o.kind]; !ok {
		c.sample[o.kind] = o.message
	}
}

// checkBoard compares board b with the runs it committed: each successful
// run of the built-in script or batch adds ten objects, a failed one none.
// A shared board is read through another target than the one it was made
// on. It returns "" when they agree or the count is unknown.
func (c *client) checkBoard(ctx context.Context, b *board) (checked bool, problem string) {
	if b.unknown || c.l.cfg.Script != "" || b.id == "" {
		return false, ""
	}
	target := b.home
	if c.l.shared {
		target = (b.home + 1) % len(c.l.bases)
	}
	rctx, cancel := context.WithTimeout(ctx, c.l.cfg.RequestTimeout)
	defer cancel()
	status, body, err := c.l.request(rctx, target, http.MethodGet, "/v1/boards/"+b.id, nil)
	if err != nil {
		return true, fmt.Sprintf("board %s: %v", b.id, err)
	}
	var got struct {
		Objects []json.RawMessage `json:"objects"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &got) != nil {
		return true, fmt.Sprintf("board %s: HTTP %d: %s", b.id, status, cut(string(body), 200))
	}
	if want := b.onBoard * objectsPerRun; len(got.Objects) != want {
		return true, fmt.Sprintf("board %s has %d objects; its %d successful runs made %d", b.id, len(got.Objects), b.onBoard, want)
	}
	return true, ""
}

// Run starts or finds the servers, creates the boards, runs the load and
// stops what it started. The report is returned with an error too when the
// load ran; an error without a report means it could not run.
func Run(ctx context.Context, cfg Config, logw io.Writer) (*Report, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, cfg.HardLimit(), fmt.Errorf("the hard limit of %v was reached", cfg.HardLimit()))
	defer cancel()
	rep := &Report{
		Config:         cfg,
		WorkersStarted: -1,
		LoadAverage:    loadAverage(),
		NumCPU:         runtime.NumCPU(),
		GoVersion:      runtime.Version(),
		SharedBoards:   cfg.SharedBoards(),
	}
	rep.Script = "built-in (10 calls: a frame, 6 stickies, 3 connectors)"
	if cfg.ScriptFile != "" {
		rep.Script = cfg.ScriptFile
	}
	ts, err := startTargets(ctx, cfg, logw)
	if err != nil {
		return nil, err
	}
	rep.Target = ts[0].desc
	rep.SelfMeasured = ts[0].self
	var pids []int
	for _, t := range ts {
		rep.Targets = append(rep.Targets, TargetReport{Desc: t.desc, URL: t.base, PID: t.pid})
		if t.pid > 0 {
			pids = append(pids, t.pid)
		}
	}
	defer func() {
		sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), setupBound)
		defer scancel()
		if serr := stopTargets(sctx, ts); serr != nil {
			fmt.Fprintf(logw, "loadtest: stopping the servers: %v\n", serr)
		}
	}()
	started := ts[0].started // the in-process server's, the only one

	code := cfg.Script
	if code == "" {
		code = builtinScript
	}
	codeJSON, _ := json.Marshal(code)
	l := &load{
		cfg:      cfg,
		shared:   cfg.SharedBoards(),
		codeJSON: codeJSON,
		hc: &http.Client{Transport: &http.Transport{
			MaxIdleConnsPerHost: cfg.Clients*(1+cfg.Watchers) + 8,
			IdleConnTimeout:     time.Minute,
		}},
	}
	for _, t := range ts {
		l.bases = append(l.bases, t.base)
	}
	defer l.hc.CloseIdleConnections()

	clients := make([]*client, cfg.Clients)
	for i := range clients {
		clients[i] = l.newClient(i)
		for _, b := range clients[i].boards {
			if err := clients[i].newBoard(ctx, b); err != nil {
				stopWatchers(clients, l)
				return nil, fmt.Errorf("before the load: %s: %v", ts[b.home].base, err)
			}
		}
	}
	defer stopWatchers(clients, l)

	// Every process known is sampled: the sums are the report's, when
	// all of them are known; each one's CPU is its target's.
	sampler := newSampler(pids)
	if len(pids) != len(ts) {
		sampler = newSampler(nil)
	}
	rep.RSSIdle = sampler.now()

	t0 := time.Now()
	from := t0.Add(cfg.Warmup)
	end := from.Add(cfg.Duration)
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() { c.run(ctx, from, end) })
	}
	// The window opens: first samples, the profile.
	select {
	case <-time.After(time.Until(from)):
	case <-ctx.Done():
	}
	l.counting.Store(true)
	startSample := sampler.now()
	startEach := sampleEach(ts)
	startedBefore := 0
	if started != nil {
		startedBefore = started()
	}
	selfStart, _ := sampleProc(os.Getpid())
	busyStart, stealStart, machineOK := machineCPU()
	if cfg.CPUProfile != "" {
		f, err := os.Create(cfg.CPUProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
			defer f.Close()
		}
		if err != nil {
			fmt.Fprintf(logw, "loadtest: --cpuprofile: %v\n", err)
			cfg.CPUProfile = ""
		}
	}
	stopSampling := sampler.watch()
	wg.Wait()
	window := time.Since(from)
	l.counting.Store(false)
	if cfg.CPUProfile != "" {
		pprof.StopCPUProfile()
	}
	endSample := sampler.now()
	endEach := sampleEach(ts)
	selfEnd, _ := sampleProc(os.Getpid())
	busyEnd, stealEnd, _ := machineCPU()
	peak, series := stopSampling()
	rep.RSSTimeline, rep.WorkerRSSTimeline = timeline(series, from, time.Now())
	if started != nil {
		rep.WorkersStarted = started() - startedBefore
	}

	rep.Window = window
	// The window's peak counts its ends too: the sampler ticks every tenth
	// of the window and can miss a high at the start or the end.
	peak = highest(highest(peak, startSample), endSample)
	rep.RSSStart, rep.RSSEnd, rep.RSSPeak = startSample, endSample, peak
	if startSample != nil && endSample != nil {
		rep.ServerCPU = endSample.CPU - startSample.CPU
		rep.WorkerCPU = endSample.ChildCPU - startSample.ChildCPU
	}
	for i := range rep.Targets {
		if s, e := startEach[i], endEach[i]; s != nil && e != nil {
			rep.Targets[i].ServerCPU = e.CPU - s.CPU
			rep.Targets[i].WorkerCPU = e.ChildCPU - s.ChildCPU
			rep.Targets[i].RSSEnd = e.RSS
		}
	}
	if !rep.SelfMeasured && selfStart.CPU > 0 {
		rep.ClientCPU = selfEnd.CPU - selfStart.CPU
	}
	if machineOK {
		rep.MachineCPU = busyEnd - busyStart
		rep.StolenCPU = stealEnd - stealStart
	}
	rep.Events = l.events.Load()
	rep.add(clients)

	// Every board holds what its successful runs made, no more, no less.
	for _, c := range clients {
		for _, b := range c.boards {
			checked, problem := c.checkBoard(ctx, b)
			if checked {
				rep.BoardsChecked++
			}
			if problem != "" {
				rep.BoardProblems = append(rep.BoardProblems, problem)
			}
		}
	}
	l.werrMu.Lock()
	rep.WatchErrors = l.werrs
	l.werrMu.Unlock()
	if ctx.Err() != nil {
		return rep, context.Cause(ctx)
	}
	return rep, nil
}

// sampleEach samples each target's process (nil where it is not known, or
// is this one: the in-process server's numbers are the report's own).
func sampleEach(ts []*target) []*procSample {
	out := make([]*procSample, len(ts))
	for i, t := range ts {
		if t.pid > 0 && !t.self {
			if s, err := sampleProc(t.pid); err == nil {
				out[i] = &s
			}
		}
	}
	return out
}

// stopWatchers ends the watchers of every board and waits for them.
func stopWatchers(clients []*client, l *load) {
	for _, c := range clients {
		if c == nil {
			continue
		}
		for _, b := range c.boards {
			if b.stopW != nil {
				b.stopW()
				b.stopW = nil
			}
		}
	}
	l.watchers.Wait()
}

// highest returns a sample whose RSS and ChildRSS are the higher of a's and
// b's (either may be nil).
func highest(a, b *procSample) *procSample {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	h := *a
	h.RSS = max(a.RSS, b.RSS)
	h.ChildRSS = max(a.ChildRSS, b.ChildRSS)
	return &h
}
