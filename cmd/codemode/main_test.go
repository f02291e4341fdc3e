package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
)

// cli runs the command in-process.
func cli(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func decode(t *testing.T, out string) engine.BatchResult {
	t.Helper()
	var res engine.BatchResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stdout is not a batch result: %v\n%s", err, out)
	}
	return res
}

func TestBatchRetro(t *testing.T) {
	board := filepath.Join(t.TempDir(), "board.json")
	out, errs, code := cli(t, "", "batch", "../../examples/retro.json", "--board", board)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	res := decode(t, out)
	if res.Summary.Successful != 10 || res.Summary.Total != 10 {
		t.Fatalf("summary %+v", res.Summary)
	}
	if fi, err := os.Stat(board); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("saved board mode %v (%v), want 0644", fi.Mode().Perm(), err)
	}
	saved, err := os.ReadFile(board)
	if err != nil {
		t.Fatal(err)
	}
	var state struct {
		Objects []struct{ Type, ParentID string }
	}
	json.Unmarshal(saved, &state)
	inFrame := 0
	for _, o := range state.Objects {
		if o.Type == "sticky" && o.ParentID == "frame-1" {
			inFrame++
		}
	}
	if len(state.Objects) != 10 || inFrame != 5 {
		t.Errorf("saved board: %d objects, %d stickies in the frame; want 10 and 5", len(state.Objects), inFrame)
	}
	// The board was saved; a second run adds to it without id collisions.
	out, _, code = cli(t, `{"executionMode":"sequential","operations":[{"tool":"createStickyNote","args":{"text":"later","x":0,"y":700}},{"tool":"getBoardState","args":{}}]}`, "batch", "-", "--board", board)
	if code != 0 {
		t.Fatalf("second run exit %d: %s", code, out)
	}
	res = decode(t, out)
	var all struct {
		Objects []struct{ ID string }
		Count   int
	}
	json.Unmarshal(res.Results[1].Result, &all)
	ids := map[string]bool{}
	for _, o := range all.Objects {
		if ids[o.ID] {
			t.Errorf("duplicate id %s", o.ID)
		}
		ids[o.ID] = true
	}
	if all.Count != 11 {
		t.Errorf("board has %d objects after two runs, want 11 (1 frame, 3 shapes, 5+1 stickies, 1 connector)", all.Count)
	}
}

func TestBatchTypoExitsOne(t *testing.T) {
	out, errs, code := cli(t, "", "batch", "../../examples/retro-typo.json")
	if code != 1 || errs != "" {
		t.Fatalf("exit %d, stderr %q; want 1 and nothing", code, errs)
	}
	res := decode(t, out)
	if len(res.Results) != 10 {
		t.Fatalf("%d results", len(res.Results))
	}
	for i, r := range res.Results {
		if r.Index != i {
			t.Errorf("result %d has index %d", i, r.Index)
		}
		if (i == 5) == r.Success {
			t.Errorf("result %d success=%v", i, r.Success)
		}
	}
	e := res.Results[5].Error
	if e.Code != engine.CodeUnknownTool || !cmp.Equal(e.Suggestions, []string{"createStickyNote"}) {
		t.Errorf("typo result: %+v", e)
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg.json")
	os.WriteFile(cfg, []byte(`{"limits":{"maxOperations":3}}`), 0o644)
	badCfg := filepath.Join(dir, "bad.json")
	os.WriteFile(badCfg, []byte(`{"limits":{"maxOps":3}}`), 0o644)
	negCfg := filepath.Join(dir, "neg.json")
	os.WriteFile(negCfg, []byte(`{"limits":{"maxOperations":-1,"maxConcurrency":-2}}`), 0o644)
	badBoard := filepath.Join(dir, "board.json")
	os.WriteFile(badBoard, []byte(`{"objects":[{"id":"x","type":"blob"}]}`), 0o644)
	retro, _ := os.ReadFile("../../examples/retro.json")
	cases := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"malformed JSON", `{"operations":[`, []string{"batch"}, "malformed JSON"},
		{"not a request", `[1,2]`, []string{"batch", "-"}, "want an object, got an array"},
		{"unknown field", `{"ops":[]}`, []string{"batch"}, `ops: unknown field`},
		{"cycle", `{"operations":[{"tool":"getBoardState","label":"a","args":{"parentId":{"$ref":"a.id"}}}]}`, []string{"batch"}, "itself"},
		{"too many for config", string(retro), []string{"batch", "--config", cfg}, "10 operations; the limit is 3"},
		{"bad config", `{"operations":[{"tool":"getBoardState"}]}`, []string{"batch", "--config", badCfg}, `limits.maxOps: unknown field`},
		{"config with several problems", `{"operations":[{"tool":"getBoardState"}]}`, []string{"batch", "--config", negCfg}, "limits.maxOperations: must be positive, not -1 (leave it out for the default); limits.maxConcurrency: must be positive"},
		{"bad board", `{"operations":[{"tool":"getBoardState"}]}`, []string{"batch", "--board", badBoard}, "blob"},
		{"missing file", ``, []string{"batch", filepath.Join(dir, "nope.json")}, "no such file"},
		{"two files", ``, []string{"batch", "a", "b"}, "one input file"},
		{"bad flag", ``, []string{"batch", "--bored", "x"}, "unknown flag --bored (did you mean --board?)"},
		{"timeout above config", `{"operations":[{"tool":"getBoardState"}]}`, []string{"batch", "--timeout", "2m"}, "exceeds"},
		{"unknown command", ``, []string{"bach"}, `unknown command "bach"`},
		{"tools with args", ``, []string{"tools", "x"}, "unexpected argument"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := cli(t, tc.stdin, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stdout %q)", code, out)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tc.want) {
				t.Errorf("stderr %q: want one line containing %q", errs, tc.want)
			}
		})
	}
}

func TestTools(t *testing.T) {
	out, _, code := cli(t, "", "tools")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, name := range []string{"createStickyNote", "createShape", "createFrame", "createConnector", "moveObject", "resizeObject",
		"updateText", "changeColor", "deleteObject", "getBoardState", "findObjects", "arrangeObjects", "batch", "execute_code", "search_tools",
		"graph.layout", "text.cluster"} {
		if !strings.Contains(out, "\n"+name+" ") {
			t.Errorf("tools output lacks %s:\n%s", name, out)
		}
	}
	if !regexp.MustCompile(`(?m)^graph\.layout\s+read-only\s+built-in WASM\s+Lay out`).MatchString(out) {
		t.Errorf("graph.layout is not listed as built in:\n%s", out)
	}
	out, _, code = cli(t, "", "tools", "--json")
	var list struct{ Tools []engine.MCPTool } // an MCP tools/list result
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != 0 || len(list.Tools) != 17 {
		t.Fatalf("tools --json: exit %d, %d tools, %v", code, len(list.Tools), err)
	}
	if out, _, _ := cli(t, "", "tools", "--no-builtin-wasm"); strings.Contains(out, "graph.layout") || strings.Contains(out, "text.cluster") {
		t.Errorf("tools --no-builtin-wasm lists the built-in WASM tools:\n%s", out)
	}
	out, _, code = cli(t, "", "tools", "--ts")
	if code != 0 || !strings.Contains(out, "declare const tools: {") || !strings.Contains(out, "createStickyNote(args: {") {
		t.Errorf("tools --ts: exit %d:\n%s", code, out)
	}
	if _, errs, code := cli(t, "", "tools", "--ts", "--json"); code != 2 || errs == "" {
		t.Errorf("tools --ts --json: exit %d", code)
	}
	if out, _, code := cli(t, "", "help"); code != 0 || !strings.Contains(out, "Usage:") {
		t.Errorf("help: exit %d", code)
	}
	for _, args := range [][]string{{"batch", "--help"}, {"tools", "-h"}, {"run", "--help"}} {
		if out, _, code := cli(t, "", args...); code != 0 || !strings.Contains(out, "usage: codemode "+args[0]) {
			t.Errorf("%v: exit %d, %q", args, code, out)
		}
	}
	if _, errs, code := cli(t, ""); code != 2 || errs != "codemode: no command: want tools, batch, run, serve, mcp, bench, version or help (see \"codemode help\")\n" {
		t.Errorf("no args: exit %d, stderr %q", code, errs)
	}
}
