package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
)

// denyNamed approves everything but calls whose args contain "deny", and
// records each set it was asked to decide.
type denyNamed struct {
	mu   sync.Mutex
	sets [][]engine.ApprovalRequest
}

func (d *denyNamed) Approve(_ context.Context, reqs []engine.ApprovalRequest) ([]engine.Decision, error) {
	d.mu.Lock()
	d.sets = append(d.sets, reqs)
	d.mu.Unlock()
	out := make([]engine.Decision, len(reqs))
	for i, r := range reqs {
		out[i].Approved = !strings.Contains(string(r.Args), "deny")
		if !out[i].Approved {
			out[i].Reason = "the user said no"
		}
	}
	return out, nil
}

func (d *denyNamed) tools() [][]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out [][]string
	for _, set := range d.sets {
		var names []string
		for _, r := range set {
			names = append(names, r.Tool+" "+string(r.Args))
		}
		out = append(out, names)
	}
	return out
}

func TestApprovalInBatch(t *testing.T) {
	f := newFixture(t)
	ap := &denyNamed{}
	rec := &recorder{}
	e := build(t, f, func(b *engine.Builder) { b.WithApprover(ap).WithObserver(rec) })
	res := mustBatch(t, e, `{"operations":[
		{"tool":"makeThing","args":{"name":"ok1"},"label":"a"},
		{"tool":"makeThing","args":{"name":"deny-me"},"label":"d"},
		{"tool":"add","args":{"a":1,"b":2}},
		{"tool":"makeThing","args":{"name":{"$ref":"a.id"}}},
		{"tool":"makeThing","args":{"name":{"$ref":"d.id"}}},
		{"tool":"makeThing","args":{"nam":"invalid, never asked"}}]}`)
	if diff := cmp.Diff([]string{"ok", "denied", "ok", "ok", "dependency_failed", "invalid_args"}, codes(res)); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	want := [][]string{{
		`makeThing {"name":"ok1"}`, `makeThing {"name":"deny-me"}`,
		`makeThing {"name":{"$ref":"a.id"}}`, `makeThing {"name":{"$ref":"d.id"}}`,
	}}
	if diff := cmp.Diff(want, ap.tools()); diff != "" {
		t.Errorf("one approval set of the gated, valid calls (-want +got):\n%s", diff)
	}
	if msg := res.Results[1].Error.Message; !strings.Contains(msg, "the user said no") {
		t.Errorf("denied message %q lacks the reason", msg)
	}
	if n := len(rec.ofType(engine.EventApprovalRequired)); n != 1 {
		t.Errorf("%d approval_required events, want 1", n)
	}
	if f.made.Load() != 2 {
		t.Errorf("made %d things, want 2 (denied ones must not run)", f.made.Load())
	}
}

func TestApprovalInUnwrappedNativeBatch(t *testing.T) {
	f := newFixture(t)
	ap := &denyNamed{}
	e := build(t, f, func(b *engine.Builder) { b.WithApprover(ap) })
	batchArgs, _ := json.Marshal(`{"operations":[{"tool":"makeThing","args":{"name":"x"}},{"tool":"makeThing","args":{"name":"deny-y"}},{"tool":"add","args":{"a":1,"b":1}}]}`)
	res := e.HandleToolCalls(context.Background(), []engine.ToolCall{
		{ID: "call_1", Name: "batch", Arguments: batchArgs},
		{ID: "call_2", Name: "makeThing", Arguments: json.RawMessage(`{"name":"deny-direct"}`)},
		{ID: "call_3", Name: "makeThing", Arguments: json.RawMessage(`{"name":"direct"}`)},
	})
	var br engine.BatchResult
	if err := json.Unmarshal(res[0].Content, &br); err != nil {
		t.Fatalf("batch content: %v\n%s", err, res[0].Content)
	}
	if diff := cmp.Diff([]string{"ok", "denied", "ok"}, codes(&br)); diff != "" {
		t.Errorf("batch codes (-want +got):\n%s", diff)
	}
	if !res[1].IsError || res[1].Error.Code != engine.CodeDenied || res[2].IsError {
		t.Errorf("direct results: %+v %+v", res[1], res[2])
	}
	if sets := ap.tools(); len(sets) != 1 || len(sets[0]) != 4 {
		t.Errorf("want one set of 4 gated calls, got %v", sets)
	}
	if f.made.Load() != 2 {
		t.Errorf("made %d, want 2", f.made.Load())
	}
}

func TestApprovalDirectCallAndFailures(t *testing.T) {
	f := newFixture(t)
	broken := engine.ApproverFunc(func(context.Context, []engine.ApprovalRequest) ([]engine.Decision, error) {
		return nil, errors.New("approval service down")
	})
	e := build(t, f, func(b *engine.Builder) { b.WithApprover(broken) })
	_, err := e.Call(context.Background(), "makeThing", json.RawMessage(`{"name":"x"}`))
	if !errors.Is(err, engine.ErrDenied) || !strings.Contains(err.Error(), "approval service down") {
		t.Errorf("got %v", err)
	}
	// Read-only tools never reach the Approver under the default policy.
	if _, err := e.Call(context.Background(), "add", json.RawMessage(`{"a":1,"b":1}`)); err != nil {
		t.Errorf("read-only call: %v", err)
	}
	short := engine.ApproverFunc(func(context.Context, []engine.ApprovalRequest) ([]engine.Decision, error) {
		return []engine.Decision{}, nil
	})
	e = build(t, f, func(b *engine.Builder) { b.WithApprover(short) })
	if _, err := e.Call(context.Background(), "makeThing", json.RawMessage(`{"name":"x"}`)); !errors.Is(err, engine.ErrDenied) {
		t.Errorf("wrong decision count: got %v", err)
	}
	slow := engine.ApproverFunc(func(ctx context.Context, _ []engine.ApprovalRequest) ([]engine.Decision, error) {
		<-ctx.Done()
		return []engine.Decision{{Approved: true}}, nil
	})
	e = build(t, f, func(b *engine.Builder) {
		b.WithApprover(slow).WithConfig(engine.Config{ApprovalTimeout: engine.Duration(30 * time.Millisecond)})
	})
	if _, err := e.Call(context.Background(), "makeThing", json.RawMessage(`{"name":"x"}`)); !errors.Is(err, engine.ErrDenied) || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("approval timeout: got %v", err)
	}
	gateAll := func(*engine.Tool) bool { return true }
	ap := &denyNamed{}
	e = build(t, f, func(b *engine.Builder) { b.WithApprover(ap).WithApprovalPolicy(gateAll) })
	e.Call(context.Background(), "add", json.RawMessage(`{"a":1,"b":1}`))
	if len(ap.tools()) != 1 {
		t.Errorf("a custom policy was not applied")
	}
}

func TestApprovalCanceledWhileWaiting(t *testing.T) {
	waiting := make(chan struct{})
	ap := engine.ApproverFunc(func(ctx context.Context, _ []engine.ApprovalRequest) ([]engine.Decision, error) {
		close(waiting)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	e := build(t, newFixture(t), func(b *engine.Builder) { b.WithApprover(ap) })
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-waiting; cancel() }()
	_, err := e.Call(ctx, "makeThing", json.RawMessage(`{"name":"x"}`))
	if !errors.Is(err, engine.ErrCanceled) {
		t.Errorf("got %v", err)
	}
}

// The approval timeout holds even for an Approver that ignores its context.
func TestApproverIgnoringItsContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	ap := engine.ApproverFunc(func(context.Context, []engine.ApprovalRequest) ([]engine.Decision, error) {
		<-release
		return nil, nil
	})
	e := build(t, newFixture(t), func(b *engine.Builder) {
		b.WithApprover(ap).WithConfig(engine.Config{ApprovalTimeout: engine.Duration(20 * time.Millisecond)})
	})
	start := time.Now()
	res := mustBatch(t, e, `{"operations":[{"tool":"makeThing","args":{"name":"x"}}]}`)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v with a 20ms approval timeout", d)
	}
	if err := res.Results[0].Error; err == nil || err.Code != engine.CodeDenied || !strings.Contains(err.Message, "timed out") {
		t.Errorf("got %+v", res.Results[0])
	}
}

// setRecorder approves everything but args containing "deny", and records
// each set it is asked, with how many things had been made by then.
type setRecorder struct {
	f    *fixture
	mu   sync.Mutex
	sets [][]string // "callId parentId tool args"
	made []int64
}

func (s *setRecorder) Approve(_ context.Context, reqs []engine.ApprovalRequest) ([]engine.Decision, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var set []string
	out := make([]engine.Decision, len(reqs))
	for i, r := range reqs {
		set = append(set, r.CallID+" "+r.ParentID+" "+r.Tool+" "+string(r.Args))
		out[i].Approved = !strings.Contains(string(r.Args), "deny")
	}
	s.sets = append(s.sets, set)
	s.made = append(s.made, s.f.made.Load())
	return out, nil
}

// TestApprovalSetsOfAMixedStep pins which calls of a model step form one
// set: the direct calls and batch operations together, before anything
// runs; then the script's gated calls, one set per turn of its event loop.
// Read-only and invalid calls are never asked about.
func TestApprovalSetsOfAMixedStep(t *testing.T) {
	f := newFixture(t)
	ap := &setRecorder{f: f}
	rec := &recorder{}
	e := build(t, f, func(b *engine.Builder) { b.WithApprover(ap).WithObserver(rec) })
	code, _ := json.Marshal(map[string]string{"code": `
const a = await tools.makeThing({name: "s1"});
const [b, c, sum] = await Promise.all([tools.makeThing({name: "s2"}), tools.makeThing({name: "s3"}), tools.add({a: 1, b: 2})]);
return [a.id, b.id, c.id, sum.sum].length;`})
	res := e.HandleToolCalls(context.Background(), []engine.ToolCall{
		{ID: "d1", Name: "makeThing", Arguments: json.RawMessage(`{"name":"direct"}`)},
		{ID: "d2", Name: "add", Arguments: json.RawMessage(`{"a":1,"b":1}`)},
		{ID: "d3", Name: "makeThing", Arguments: json.RawMessage(`{"nam":"invalid"}`)},
		{ID: "b", Name: "batch", Arguments: json.RawMessage(`{"operations":[
			{"tool":"makeThing","args":{"name":"op0"},"label":"o"},
			{"tool":"add","args":{"a":1,"b":2}},
			{"tool":"makeThing","args":{"name":{"$ref":"o.id"}}}]}`)},
		{ID: "x", Name: "execute_code", Arguments: code},
	})
	for i, r := range res {
		if r.IsError != (i == 2) {
			t.Errorf("result %s: %s", r.ID, r.Content)
		}
	}
	run := rec.ofType(engine.EventRunStart)[0].RunID
	want := [][]string{
		{
			"d1 " + run + ` makeThing {"name":"direct"}`,
			`b/0 b makeThing {"name":"op0"}`,
			`b/2 b makeThing {"name":{"$ref":"o.id"}}`,
		},
		{`x/0 x makeThing {"name":"s1"}`},
		{`x/1 x makeThing {"name":"s2"}`, `x/2 x makeThing {"name":"s3"}`},
	}
	if diff := cmp.Diff(want, ap.sets); diff != "" {
		t.Errorf("approval sets (-want +got):\n%s", diff)
	}
	if len(ap.made) > 0 && ap.made[0] != 0 {
		t.Errorf("%d things were made before the step's set was decided", ap.made[0])
	}
	if n := len(rec.ofType(engine.EventApprovalRequired)); n != len(want) {
		t.Errorf("%d approval_required events, want %d", n, len(want))
	}
}

// TestApprovalPreCheckIsOneRule: a batch, a model step and a turn of a
// script put the same calls to the Approver for the same list of calls —
// gated and valid, not read-only, unknown or invalid — and the calls end
// the same way.
func TestApprovalPreCheckIsOneRule(t *testing.T) {
	calls := []struct{ tool, args string }{
		{"makeThing", `{"name":"ok"}`},
		{"makeThing", `{"nam":"invalid"}`},
		{"add", `{"a":1,"b":2}`},
		{"nope", `{}`},
		{"makeThing", `{"name":"deny"}`},
	}
	wantCodes := []string{"ok", "invalid_args", "ok", "unknown_tool", "denied"}
	wantSet := []string{`makeThing {"name":"ok"}`, `makeThing {"name":"deny"}`}
	sets := func(ap *setRecorder) [][]string {
		var out [][]string
		for _, s := range ap.sets {
			var set []string
			for _, r := range s {
				parts := strings.SplitN(r, " ", 3)
				set = append(set, parts[2])
			}
			out = append(out, set)
		}
		return out
	}
	newEngine := func() (*engine.Engine, *setRecorder) {
		f := newFixture(t)
		ap := &setRecorder{f: f}
		return build(t, f, func(b *engine.Builder) { b.WithApprover(ap) }), ap
	}

	e, ap := newEngine()
	var ops []string
	for _, c := range calls {
		ops = append(ops, `{"tool":"`+c.tool+`","args":`+c.args+`}`)
	}
	if diff := cmp.Diff(wantCodes, codes(mustBatch(t, e, `{"operations":[`+strings.Join(ops, ",")+`]}`))); diff != "" {
		t.Errorf("batch codes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{wantSet}, sets(ap)); diff != "" {
		t.Errorf("batch sets (-want +got):\n%s", diff)
	}

	e, ap = newEngine()
	var tcs []engine.ToolCall
	for i, c := range calls {
		tcs = append(tcs, engine.ToolCall{ID: fmt.Sprint("c", i), Name: c.tool, Arguments: json.RawMessage(c.args)})
	}
	var got []string
	for _, r := range e.HandleToolCalls(context.Background(), tcs) {
		code := "ok"
		if r.IsError {
			code = string(r.Error.Code)
		}
		got = append(got, code)
	}
	if diff := cmp.Diff(wantCodes, got); diff != "" {
		t.Errorf("step codes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{wantSet}, sets(ap)); diff != "" {
		t.Errorf("step sets (-want +got):\n%s", diff)
	}

	e, ap = newEngine()
	var js []string
	for _, c := range calls {
		js = append(js, `tools.`+c.tool+`(`+c.args+`)`)
	}
	res, err := e.Execute(context.Background(), engine.ExecuteRequest{Code: `
const out = await Promise.allSettled([` + strings.Join(js, ", ") + `]);
return out.map(r => r.status === "fulfilled" ? "ok" : r.reason.code);`})
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	if err := json.Unmarshal(res.Result, &got); err != nil {
		t.Fatalf("%v: %s", err, res.ModelText())
	}
	if diff := cmp.Diff(wantCodes, got); diff != "" {
		t.Errorf("script codes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{wantSet}, sets(ap)); diff != "" {
		t.Errorf("script sets (-want +got):\n%s", diff)
	}
}
