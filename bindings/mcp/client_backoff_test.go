package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeClock is a clock the test moves, for the restart backoff.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// countingDialer counts the servers started (or reached) through it, and
// can be switched between a healthy server and one that crashes at start.
type countingDialer struct {
	starts  atomic.Int32
	crash   atomic.Bool
	healthy Dialer
	broken  Dialer
}

func (d *countingDialer) dial(ctx context.Context) (sdk.Transport, error) {
	d.starts.Add(1)
	if d.crash.Load() {
		return d.broken(ctx)
	}
	return d.healthy(ctx)
}

func TestHostileUpstreamCrashingAtEveryRestartIsNotStartedByEveryCall(t *testing.T) {
	up, eng := stdioUpstream(t, engine.MCPServer{}, Options{})
	clock := &fakeClock{t: time.Unix(1_000_000_000, 0)}
	d := &countingDialer{healthy: up.dial,
		broken: dialerFor(engine.MCPServer{Command: up.cfg.Command, Args: []string{"-crash"}}, Options{}, up.tail)}
	up.lock <- struct{}{}
	up.now, up.dial = clock.now, d.dial
	<-up.lock
	ctx := context.Background()
	echo := func() error {
		_, err := eng.Call(ctx, "up.echo", json.RawMessage(`{"text":"x"}`))
		return err
	}
	killServer := func() {
		t.Helper()
		_, err := eng.Call(ctx, "up.die", json.RawMessage(`{}`))
		wantToolError(t, err, engine.CodeToolError, "connection lost")
	}

	killServer()
	d.crash.Store(true)
	steps := []struct {
		advance time.Duration
		starts  int32
		says    string
	}{
		{0, 1, `cannot connect: `},
		{0, 1, `down since a failed start (cannot connect: `},
		{0, 1, `UPSTREAM_TOKEN is not set`}, // the reason is kept for the calls not tried
		{999 * time.Millisecond, 1, `it will be tried again in 100ms`},
		{time.Millisecond, 2, `it will be tried again in 2s`},
		{2 * time.Second, 3, `it will be tried again in 4s`},
		{3 * time.Second, 3, `it will be tried again in 1s`},
		{time.Second, 4, `it will be tried again in 8s`},
		{8 * time.Second, 5, `it will be tried again in 16s`},
		{16 * time.Second, 6, `it will be tried again in 30s`},
		{30 * time.Second, 7, `it will be tried again in 30s`}, // the cap
		{29 * time.Second, 7, `down since a failed start`},
	}
	for i, s := range steps {
		clock.advance(s.advance)
		err := echo()
		if got := d.starts.Load(); got != s.starts {
			t.Fatalf("step %d: %d starts, want %d (error: %v)", i, got, s.starts, err)
		}
		wantToolError(t, err, engine.CodeToolError, s.says)
	}

	// The server comes back: the first call after the interval starts it,
	// and the next failure backs off from 1 s again.
	d.crash.Store(false)
	clock.advance(time.Second)
	if err := echo(); err != nil {
		t.Fatalf("after the server was fixed: %v", err)
	}
	killServer()
	d.crash.Store(true)
	wantToolError(t, echo(), engine.CodeToolError, `it will be tried again in 1s`)
	if got := d.starts.Load(); got != 9 {
		t.Errorf("%d starts in all, want 9", got)
	}
}

// A server that starts but dies on every call (before answering any) is
// not started by every call either: the first such loss reconnects at once,
// the second in a row counts as a failed start. A call it answers resets it.
func TestHostileUpstreamDyingOnEveryFirstCallIsNotStartedByEveryCall(t *testing.T) {
	up, eng := stdioUpstream(t, engine.MCPServer{}, Options{})
	clock := &fakeClock{t: time.Unix(1_000_000_000, 0)}
	d := &countingDialer{healthy: up.dial}
	up.lock <- struct{}{}
	up.now, up.dial = clock.now, d.dial
	<-up.lock
	ctx := context.Background()
	call := func(tool string) error {
		_, err := eng.Call(ctx, "up."+tool, json.RawMessage(`{"text":"x"}`))
		return err
	}
	steps := []struct {
		advance time.Duration
		tool    string
		starts  int32
		says    string // "" for success
	}{
		{0, "die", 0, "connection lost"}, // the first loss: the next call reconnects
		{0, "die", 1, "connection lost"}, // the second in a row: a failed start
		{0, "die", 1, "down since a failed start (connection lost before its first answer"},
		{0, "echo", 1, "it will be tried again in 1s"},
		{time.Second, "die", 2, "connection lost"},
		{0, "echo", 2, "it will be tried again in 2s"},
		{2 * time.Second, "echo", 3, ""}, // answered: the backoff is forgotten
		{0, "die", 3, "connection lost"}, // a proven session's loss reconnects at once
		{0, "echo", 4, ""},
	}
	for i, s := range steps {
		clock.advance(s.advance)
		err := call(s.tool)
		if got := d.starts.Load(); got != s.starts {
			t.Fatalf("step %d (%s): %d starts, want %d (error: %v)", i, s.tool, got, s.starts, err)
		}
		switch {
		case s.says == "" && err != nil:
			t.Fatalf("step %d (%s): %v", i, s.tool, err)
		case s.says != "" && (err == nil || !strings.Contains(err.Error(), s.says)):
			t.Fatalf("step %d (%s): error %v, want one saying %q", i, s.tool, err, s.says)
		}
	}
}
