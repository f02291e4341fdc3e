package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/codemode-dev/codemode/internal/pgtest"
	"github.com/codemode-dev/codemode/tools/wasm/wasmbuild"
)

// exampleTools builds the Go WASM tools of tools/wasm once per test binary
// (go's build cache makes this cheap after the first time on a machine), as
// scripts/build-wasm-tools.sh does for a user.
var exampleTools = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "codemode-wasm-tools-")
	if err != nil {
		return "", err
	}
	exampleToolsDir.Store(&dir)
	_, err = wasmbuild.Build(context.Background(), dir)
	return dir, err
})

// exampleToolsDir is the directory exampleTools made, if it ran.
var exampleToolsDir atomic.Pointer[string]

func TestMain(m *testing.M) {
	code := pgtest.Run(m) // stops the PostgreSQL server of the --store tests, if they started it
	// What the tests built, if they built it (asking exampleTools here
	// would build the tools after the tests that did not need them).
	for _, dir := range []*string{exampleToolsDir.Load(), cliBinaryDir.Load()} {
		if dir != nil {
			os.RemoveAll(*dir)
		}
	}
	os.Exit(code)
}

// slowCompiles is a --config for runs whose first WASM call compiles a Go
// tool cold: that takes seconds, and over a minute under the race
// detector, all of it inside the call (a module is compiled at its first
// call), past the default call and script timeouts.
func slowCompiles(t *testing.T) string {
	t.Helper()
	return writeFile(t, filepath.Join(t.TempDir(), "slow.json"),
		`{"limits": {"callTimeout": "10m", "batchTimeout": "10m"}, "script": {"timeout": "10m"}}`)
}

func builtTools(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the Go WASM tools")
	}
	dir, err := exampleTools()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// The flowchart of examples/graph.ts is laid out by the graph.layout tool,
// built in: with no flag but a cache of its own, every box inside the frame,
// none overlapping, edges flowing down except the one that closes the loop.
func TestExampleGraph(t *testing.T) {
	checkExampleGraph(t, "--wasm-cache", t.TempDir(), "--config", slowCompiles(t))
}

// A --wasm-dir tool of a built-in tool's name replaces it: tools lists the
// manifest as its origin, and graph.ts runs with it.
func TestWasmDirReplacesBuiltin(t *testing.T) {
	tools := builtTools(t)
	out, errs, code := cli(t, "", "tools", "--wasm-dir", tools)
	manifest := filepath.Join(tools, "layout.tool.json")
	if code != exitOK || !regexp.MustCompile(`(?m)^graph\.layout\s+read-only\s+`+regexp.QuoteMeta(manifest)+`\s`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^text\.cluster\s+read-only\s+`+regexp.QuoteMeta(filepath.Join(tools, "cluster.tool.json"))+`\s`).MatchString(out) {
		t.Errorf("tools --wasm-dir: exit %d, stderr %q; want graph.layout from %s:\n%s", code, errs, manifest, out)
	}
	checkExampleGraph(t, "--wasm-dir", tools, "--wasm-cache", t.TempDir(), "--config", slowCompiles(t))
}

// Without the built-in tools, graph.ts fails at its first call, and
// stderr says which flag left the tool out.
func TestExampleGraphWithoutBuiltins(t *testing.T) {
	out, errs, code := cli(t, "", "run", "../../examples/graph.ts", "--no-builtin-wasm")
	want := "codemode: hint: no tool graph.* is loaded: --no-builtin-wasm leaves out the built-in WASM tools (graph.layout, text.cluster)\n"
	if code != exitFailed || errs != want || !strings.Contains(out, `unknown tool \"graph.layout\"`) {
		t.Errorf("exit %d, stderr %q; want 1 and %q\n%s", code, errs, want, out)
	}
}

func checkExampleGraph(t *testing.T, flags ...string) {
	t.Helper()
	board := filepath.Join(t.TempDir(), "board.json")
	var got struct {
		Frame  string
		Shapes map[string]string
	}
	res := runExample(t, "graph.ts", board, &got, flags...)
	if res.Calls[0].Tool != "graph.layout" || !res.Calls[0].Success {
		t.Fatalf("first call: %+v", res.Calls[0])
	}
	b := loadBoard(t, board)
	frame, ok := b.get(got.Frame)
	shapes, conns := b.ofType("shape"), b.ofType("connector")
	if !ok || len(shapes) != 10 || len(conns) != 11 {
		t.Fatalf("board: frame %v, %d shapes, %d connectors; want a frame, 10 and 11", ok, len(shapes), len(conns))
	}
	for i, s := range shapes {
		if s.ParentID != frame.ID || !inside(s, frame) {
			t.Errorf("shape %q at (%v,%v) is not inside its frame %+v", s.Text, s.X, s.Y, frame)
		}
		for _, o := range shapes[i+1:] {
			if s.X < o.X+o.Width && o.X < s.X+s.Width && s.Y < o.Y+o.Height && o.Y < s.Y+s.Height {
				t.Errorf("shapes %q and %q overlap", s.Text, o.Text)
			}
		}
	}
	byID := map[string]boardObject{}
	for _, s := range shapes {
		byID[s.ID] = s
	}
	up := 0
	for _, c := range conns {
		if byID[c.FromID].Y >= byID[c.ToID].Y {
			up++
		}
	}
	if up != 1 {
		t.Errorf("%d connectors point up or sideways, want 1 (fix -> build)", up)
	}
	if len(res.Logs) != 1 || !strings.Contains(res.Logs[0].Message, "1 pointing back") {
		t.Errorf("logs %+v", res.Logs)
	}
}

// examples/affinity.ts groups a retro's notes into themed frames with the
// text.cluster tool, built in.
func TestExampleAffinity(t *testing.T) {
	board := filepath.Join(t.TempDir(), "board.json")
	var seed struct{ Groups []struct{} }
	runExample(t, "retro.ts", board, &seed) // a retro board with notes to group
	before := loadBoard(t, board)
	var got struct {
		Groups []struct {
			Frame, Title string
			Notes        int
		}
	}
	res := runExample(t, "affinity.ts", board, &got, "--wasm-cache", t.TempDir(), "--config", slowCompiles(t))
	if len(got.Groups) == 0 {
		t.Fatalf("no groups: %s", res.Result)
	}
	b := loadBoard(t, board)
	notes, total := b.ofType("sticky"), 0
	for _, g := range got.Groups {
		frame, ok := b.get(g.Frame)
		if !ok || !strings.HasPrefix(frame.Title, g.Title+" (") {
			t.Errorf("group %+v: frame %+v", g, frame)
			continue
		}
		in := 0
		for _, n := range notes {
			if inside(n, frame) {
				in++
			}
		}
		if in != g.Notes {
			t.Errorf("frame %q holds %d notes, the result says %d", frame.Title, in, g.Notes)
		}
		total += g.Notes
	}
	if total != len(before.ofType("sticky")) || len(notes) != total {
		t.Errorf("%d notes grouped, %d on the board before, %d after", total, len(before.ofType("sticky")), len(notes))
	}
}
