package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/bindings"
	"github.com/codemode-dev/codemode/engine"
	"go.uber.org/goleak"
)

// TestMain checks for leaked goroutines; the binary is also its own worker
// process for the tests and benchmarks of the worker runner.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

type addIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}
type sumOut struct {
	Sum float64 `json:"sum"`
}
type makeIn struct {
	Name   string `json:"name"`
	Parent string `json:"parent,omitempty"`
}
type made struct {
	ID    string   `json:"id"`
	Name  string   `json:"name"`
	Items []string `json:"items"`
}
type sleepIn struct {
	MS int `json:"ms"`
}
type point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}
type shapeIn struct {
	Title  string  `json:"title" jsonschema:"minLength=1"`
	Kind   string  `json:"kind" jsonschema:"enum=box,enum=circle"`
	Points []point `json:"points"`
}
type sizeIn struct {
	N int `json:"n"`
}

// fixture is a small tool set with knobs the tests read.
type fixture struct {
	made      atomic.Int64
	running   atomic.Int64
	peak      atomic.Int64
	release   chan struct{} // unblocks "stuck"
	calls     sync.Map      // tool name → *atomic.Int64
	releaseMu sync.Once
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{release: make(chan struct{})}
	t.Cleanup(f.unstick)
	return f
}

func (f *fixture) unstick() { f.releaseMu.Do(func() { close(f.release) }) }

func (f *fixture) count(name string) int64 {
	v, _ := f.calls.LoadOrStore(name, new(atomic.Int64))
	return v.(*atomic.Int64).Load()
}

func (f *fixture) hit(name string) {
	v, _ := f.calls.LoadOrStore(name, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

func (f *fixture) tools() []engine.Tool {
	return []engine.Tool{
		bindings.MustFunc("add", "Add two numbers.", func(ctx context.Context, in addIn) (sumOut, error) {
			f.hit("add")
			return sumOut{in.A + in.B}, nil
		}, bindings.ReadOnly()),
		bindings.MustFunc("makeThing", "Make a thing.", func(ctx context.Context, in makeIn) (made, error) {
			f.hit("makeThing")
			n := f.made.Add(1)
			return made{ID: fmt.Sprintf("t%d", n), Name: in.Name, Items: []string{in.Name + "-a", in.Name + "-b"}}, nil
		}),
		bindings.MustFunc("fail", "Always fails.", func(ctx context.Context, in struct{}) (any, error) {
			f.hit("fail")
			return nil, errors.New("it broke")
		}, bindings.ReadOnly()),
		bindings.MustFunc("sleep", "Sleep for ms milliseconds, honouring cancelation.", func(ctx context.Context, in sleepIn) (sumOut, error) {
			f.hit("sleep")
			cur := f.running.Add(1)
			defer f.running.Add(-1)
			for {
				p := f.peak.Load()
				if cur <= p || f.peak.CompareAndSwap(p, cur) {
					break
				}
			}
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return sumOut{float64(in.MS)}, nil
			case <-ctx.Done():
				return sumOut{}, ctx.Err()
			}
		}, bindings.ReadOnly()),
		bindings.MustFunc("stuck", "Ignores its context until the test ends.", func(ctx context.Context, in struct{}) (any, error) {
			f.hit("stuck")
			<-f.release
			return "late", nil
		}, bindings.ReadOnly()),
		bindings.MustFunc("boom", "Panics.", func(ctx context.Context, in struct{}) (any, error) {
			panic("kaboom")
		}, bindings.ReadOnly()),
		bindings.MustFunc("shape", "Validate a shape.", func(ctx context.Context, in shapeIn) (int, error) {
			return len(in.Points), nil
		}, bindings.ReadOnly()),
		bindings.MustFunc("text", "Return n characters.", func(ctx context.Context, in sizeIn) (string, error) {
			return strings.Repeat("é", in.N), nil
		}, bindings.ReadOnly()),
		{
			Name: "board.getState", Description: "Raw tool in a namespace.",
			InputSchema: json.RawMessage(`{"type":"object"}`),
			Annotations: engine.Annotations{ReadOnlyHint: true},
			Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(`{"objects":[],"count":0}`), nil
			},
		},
		{
			Name: "badJSON", InputSchema: json.RawMessage(`{"type":"object"}`),
			Annotations: engine.Annotations{ReadOnlyHint: true},
			Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(`{not json`), nil
			},
		},
	}
}

// testRunner, when set, runs the scripts of engines made by build: the
// tests of code mode run once in process and once in worker processes
// (TestExecuteInWorkers).
var testRunner engine.ScriptRunner

// build makes an engine over the fixture's tools.
func build(t testing.TB, f *fixture, opts ...func(*engine.Builder)) *engine.Engine {
	t.Helper()
	b := engine.NewBuilder().Add(f.tools()...)
	if testRunner != nil {
		b.WithScriptRunner(testRunner)
	}
	for _, o := range opts {
		o(b)
	}
	e, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// recorder keeps every event.
type recorder struct {
	mu     sync.Mutex
	events []engine.Event
}

func (r *recorder) Observe(_ context.Context, e engine.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) ofType(t engine.EventType) []engine.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []engine.Event
	for _, e := range r.events {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

func mustBatch(t *testing.T, e *engine.Engine, js string) *engine.BatchResult {
	t.Helper()
	req, err := engine.ParseBatchRequest([]byte(js))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	res, err := e.Batch(context.Background(), req)
	if err != nil {
		t.Fatalf("batch: %v", err)
	}
	return res
}

func batchErr(t *testing.T, e *engine.Engine, js string) *engine.Error {
	t.Helper()
	req, err := engine.ParseBatchRequest([]byte(js))
	if err == nil {
		_, err = e.Batch(context.Background(), req)
	}
	if err == nil {
		t.Fatalf("batch %s: want an error", js)
	}
	var ee *engine.Error
	if !errors.As(err, &ee) {
		t.Fatalf("error %v is not *engine.Error", err)
	}
	return ee
}

func codes(res *engine.BatchResult) []string {
	out := make([]string, len(res.Results))
	for i, r := range res.Results {
		if r.Success {
			out[i] = "ok"
		} else {
			out[i] = string(r.Error.Code)
		}
	}
	return out
}
