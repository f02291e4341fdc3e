package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// oneSticky is a batch request and a script that each add one sticky note,
// so that a test runs the same thing through both commands.
var oneSticky = map[string]string{
	"batch": `{"operations":[{"tool":"createStickyNote","args":{"text":"work","x":0,"y":0}}]}`,
	"run":   `await tools.createStickyNote({ text: "work", x: 0, y: 0 }); return 1`,
}

// Usage errors are one line, with at most a pointer to the help (the
// usage text was printed whole for no command); --help prints the usage
// and exits 0.
func TestUsageErrorsAreOneLine(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{nil, `codemode: no command: want tools, batch, run, serve, mcp, bench, version or help (see "codemode help")`},
		{[]string{"bach"}, `codemode: unknown command "bach" (did you mean batch?)`},
		{[]string{"deploy"}, `codemode: unknown command "deploy" (commands: tools, batch, run, serve, mcp, bench, version, help)`},
		{[]string{"--board", "b.json", "run"}, `codemode: --board before the command: flags come after it, as in "codemode run --board b.json FILE"`},
		{[]string{"run", "--inptu", "{}"}, `codemode: run: unknown flag --inptu (did you mean --input?); see "codemode run --help"`},
		{[]string{"batch", "--xyzzy"}, `codemode: batch: unknown flag --xyzzy; see "codemode batch --help"`},
		{[]string{"batch", "--input", "{}"}, `codemode: batch: --input is for run only; see "codemode batch --help"`},
		{[]string{"run", "--board"}, `codemode: run: --board needs a value (--board FILE); see "codemode run --help"`},
		{[]string{"tools", "--json=maybe"}, `codemode: tools: invalid boolean value "maybe" for --json: parse error; see "codemode tools --help"`},
		{[]string{"tools", "x"}, `codemode: tools: unexpected argument "x"; see "codemode tools --help"`},
		{[]string{"tools", "--json", "--ts"}, `codemode: tools: --json and --ts exclude each other; see "codemode tools --help"`},
		{[]string{"help", "deploy"}, `codemode: help: unknown command "deploy" (commands: tools, batch, run, serve, mcp, bench, version, help)`},
	}
	for _, c := range cases {
		out, errs, code := cli(t, "", c.args...)
		if code != exitUsage || out != "" || errs != c.want+"\n" {
			t.Errorf("codemode %q: exit %d, stdout %q, stderr %q; want 2, nothing and %q", c.args, code, out, errs, c.want)
		}
	}
}

// Every command refuses the flags it does not use (tools took and ignored
// --board, --timeout and --runner).
func TestCommandsRejectFlagsTheyDoNotUse(t *testing.T) {
	board := filepath.Join(t.TempDir(), "board.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tools", "--board", board}, "tools: --board is for batch and run only"},
		{[]string{"tools", "--timeout", "5s"}, "tools: --timeout is for batch and run only"},
		{[]string{"tools", "--runner", "inprocess"}, "tools: --runner is for batch, run, serve, mcp and bench only"},
		{[]string{"version", "--config", "c.json"}, "version: --config is for tools, batch, run, serve, mcp and bench only"},
		{[]string{"tools", "--input", "{}"}, "tools: --input is for run only"},
		{[]string{"batch", "--ts"}, "batch: --ts is for tools only"},
		{[]string{"run", "--json"}, "run: --json is for tools and bench only"},
	} {
		_, errs, code := cli(t, "", c.args...)
		if code != exitUsage || !strings.HasPrefix(errs, "codemode: "+c.want+"; ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("codemode %q: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
	if _, err := os.Stat(board); err == nil {
		t.Error("tools wrote the board")
	}
}

func TestHelp(t *testing.T) {
	out, errs, code := cli(t, "", "help")
	if code != exitOK || errs != "" {
		t.Fatalf("help: exit %d, stderr %q", code, errs)
	}
	for _, f := range flagSpecs {
		if !strings.Contains(out, "  --"+f.name+" ") && !strings.Contains(out, "  --"+f.name+"\n") {
			t.Errorf("help does not show --%s:\n%s", f.name, out)
		}
	}
	for _, cmd := range []string{"tools", "batch", "run", "bench"} {
		want := commandHelp(findCommand(cmd))
		for _, args := range [][]string{{cmd, "--help"}, {cmd, "-h"}, {"help", cmd}} {
			out, errs, code := cli(t, "", args...)
			if code != exitOK || errs != "" || out != want {
				t.Errorf("codemode %q: exit %d, stderr %q, stdout:\n%s\nwant:\n%s", args, code, errs, out, want)
			}
		}
		// A command's help shows exactly the flags it takes.
		for _, f := range flagSpecs {
			shown := strings.Contains(want, "  --"+f.name+" ") || strings.Contains(want, "  --"+f.name+"\n")
			if takes := commandFlags(cmd); shown != containsFlag(takes, f.name) {
				t.Errorf("%s --help shows --%s: %v, but the command takes it: %v", cmd, f.name, shown, !shown)
			}
		}
	}
}

func containsFlag(flags []flagSpec, name string) bool {
	for _, f := range flags {
		if f.name == name {
			return true
		}
	}
	return false
}

// With no FILE and stdin a terminal, batch and run refuse instead of
// waiting silently; with "-" they read after a hint.
func TestStdinPlan(t *testing.T) {
	for _, c := range []struct {
		pos            []string
		terminal       bool
		refuse, hinted bool
	}{
		{nil, true, true, false},
		{[]string{"-"}, true, false, true},
		{nil, false, false, false},
		{[]string{"-"}, false, false, false},
	} {
		refuse, hint := stdinPlan(c.pos, c.terminal)
		if refuse != c.refuse || hint != c.hinted {
			t.Errorf("stdinPlan(%q, terminal %v) = %v, %v; want %v, %v", c.pos, c.terminal, refuse, hint, c.refuse, c.hinted)
		}
	}
	if isTerminal(strings.NewReader("")) {
		t.Error("a strings.Reader is a terminal")
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if isTerminal(null) {
		t.Errorf("%s is a terminal", os.DevNull)
	}
	r, w, _ := os.Pipe()
	defer r.Close()
	defer w.Close()
	if isTerminal(r) {
		t.Error("a pipe is a terminal")
	}
}

// On a real terminal (a pseudo-terminal here) "run" without FILE says why
// it does not run, at once; it used to wait silently on stdin.
func TestRunOnATerminalWithoutFile(t *testing.T) {
	tty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if !isTerminal(tty) {
		t.Fatal("/dev/ptmx is not seen as a terminal")
	}
	for _, cmd := range []string{"run", "batch"} {
		type result struct {
			errs string
			code int
		}
		done := make(chan result, 1)
		go func() {
			var out, errs strings.Builder
			code := run([]string{cmd, "--runner", "inprocess"}, tty, &out, &errs)
			done <- result{errs.String(), code}
		}()
		select {
		case r := <-done:
			what := map[string]string{"run": "script", "batch": "request"}[cmd]
			want := "codemode: " + cmd + ": no FILE, and stdin is a terminal: give a FILE, pipe the " + what + " in, or use \"-\" to type it (end with Ctrl-D)\n"
			if r.code != exitUsage || r.errs != want {
				t.Errorf("%s: exit %d, stderr %q; want 2 and %q", cmd, r.code, r.errs, want)
			}
		case <-time.After(10 * time.Second):
			tty.Close() // ends the read
			t.Fatalf("%s waited on the terminal", cmd)
		}
	}
	tty.Close()
}

// The board file is checked before anything runs: a run whose work could
// not be saved does not start (it ran, then saving failed and the work was
// gone). Batch and run share the check.
func TestBoardCheckedBeforeTheRun(t *testing.T) {
	dir := t.TempDir()
	readOnly := filepath.Join(dir, "ro.json")
	writeFile(t, readOnly, `{"objects":[]}`)
	os.Chmod(readOnly, 0o444)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	cases := []struct {
		name, board, want string
	}{
		{"missing directory", filepath.Join(dir, "nope", "b.json"), "--board " + filepath.Join(dir, "nope", "b.json") + ": directory " + filepath.Join(dir, "nope") + " does not exist"},
		{"read-only file", readOnly, "--board " + readOnly + ": the file is read-only"},
		{"a directory", sub, "--board " + sub + ": is a directory, not a board file"},
	}
	if os.Geteuid() != 0 { // root writes in read-only directories
		roDir := filepath.Join(dir, "rodir")
		os.Mkdir(roDir, 0o555)
		cases = append(cases, struct{ name, board, want string }{"read-only directory", filepath.Join(roDir, "b.json"),
			"--board " + filepath.Join(roDir, "b.json") + ": cannot create files in directory " + roDir + ": permission denied"})
	}
	for _, c := range cases {
		for _, cmd := range []string{"batch", "run"} {
			t.Run(c.name+"/"+cmd, func(t *testing.T) {
				out, errs, code := cli(t, oneSticky[cmd], cmd, "--board", c.board, "--runner", "inprocess")
				if code != exitUsage || out != "" || errs != "codemode: "+cmd+": "+c.want+"\n" {
					t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, and %q", code, out, errs, c.want)
				}
			})
		}
	}
	if data, _ := os.ReadFile(readOnly); string(data) != `{"objects":[]}` {
		t.Errorf("the read-only board was changed: %s", data)
	}
}

// Every problem found before the run, in the input and in the set-up, is
// reported at once.
func TestSetupProblemsAtOnce(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, filepath.Join(dir, "cfg.json"), `{"limits":{"maxOps":3}}`)
	file := writeFile(t, filepath.Join(dir, "file"), "")
	board := filepath.Join(dir, "nope", "b.json")
	_, errs, code := cli(t, `{"operations":[{"tool":"getBoardState","args":{}}], "mode":"fast"}`, "batch", "--config", cfg, "--wasm-cache", file, "--board", board)
	for _, want := range []string{"mode: unknown field", "limits.maxOps: unknown field", "--wasm-cache " + file + ": not a directory", "--board " + board + ": directory"} {
		if code != exitUsage || !strings.Contains(errs, want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("exit %d, stderr %q; want 2 and one line with %q", code, errs, want)
		}
	}
}

// A board that is a symbolic link stays one, and its target gets the work
// (the link was replaced by a file).
func TestBoardSymlink(t *testing.T) {
	for _, cmd := range []string{"batch", "run"} {
		dir := t.TempDir()
		target := writeFile(t, filepath.Join(dir, "real.json"), `{"objects":[{"id":"sticky-1","type":"sticky","x":0,"y":0,"width":10,"height":10,"text":"before"}]}`)
		link := filepath.Join(dir, "board.json")
		if err := os.Symlink("real.json", link); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
		_, errs, code := cli(t, oneSticky[cmd], cmd, "--board", link, "--runner", "inprocess")
		if code != exitOK || errs != "" {
			t.Fatalf("%s: exit %d, stderr %q", cmd, code, errs)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s: the board is no longer a symbolic link (%v)", cmd, err)
		}
		if notes := loadBoard(t, target).ofType("sticky"); len(notes) != 2 || notes[0].Text != "before" || notes[1].Text != "work" {
			t.Errorf("%s: the link's target holds %+v", cmd, notes)
		}
	}
}

// An empty board file (touch board.json) is an empty board (it failed with
// "whiteboard: EOF").
func TestEmptyBoardFile(t *testing.T) {
	for _, cmd := range []string{"batch", "run"} {
		board := writeFile(t, filepath.Join(t.TempDir(), "board.json"), "")
		_, errs, code := cli(t, oneSticky[cmd], cmd, "--board", board, "--runner", "inprocess")
		if code != exitOK || errs != "" {
			t.Fatalf("%s: exit %d, stderr %q", cmd, code, errs)
		}
		if notes := loadBoard(t, board).ofType("sticky"); len(notes) != 1 {
			t.Errorf("%s: saved %+v", cmd, notes)
		}
	}
}

// A save that fails after the check (the disk filled, the file was made
// read-only during the run) keeps the work: beside the board, or else in
// the temporary directory, and says where.
func TestSaveFailureKeepsTheWork(t *testing.T) {
	board := whiteboard.NewBoard()
	if err := board.Restore([]whiteboard.Object{{ID: "sticky-1", Type: "sticky", Width: 10, Height: 10, Text: "work"}}); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, msg, wantDir, prefix string) {
		t.Helper()
		_, kept, ok := strings.Cut(msg, ": the board was not saved there; it is in ")
		if !ok || filepath.Dir(kept) != wantDir || !strings.HasPrefix(filepath.Base(kept), prefix) || strings.Contains(msg, "\n") {
			t.Fatalf("message %q: want one line naming a file %s* in %s", msg, prefix, wantDir)
		}
		if notes := loadBoard(t, kept).ofType("sticky"); len(notes) != 1 || notes[0].Text != "work" {
			t.Errorf("kept board: %+v", notes)
		}
	}
	t.Run("beside", func(t *testing.T) {
		dir := t.TempDir()
		path := writeFile(t, filepath.Join(dir, "board.json"), `{"objects":[]}`)
		os.Chmod(path, 0o444) // made read-only during the run
		s := &session{o: &options{board: path}, board: board}
		msg := s.saveBoard()
		if !strings.HasPrefix(msg, "--board "+path+": the file is read-only: ") {
			t.Errorf("message %q does not say why", msg)
		}
		check(t, msg, dir, "board.json.unsaved-")
		if data, _ := os.ReadFile(path); string(data) != `{"objects":[]}` {
			t.Errorf("the read-only board was changed: %s", data)
		}
	})
	t.Run("temporary directory", func(t *testing.T) {
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp)
		path := filepath.Join(t.TempDir(), "gone", "board.json") // its directory went during the run
		s := &session{o: &options{board: path}, board: board}
		check(t, s.saveBoard(), tmp, "codemode-board-")
	})
	t.Run("stderr", func(t *testing.T) {
		t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "gone"))
		path := filepath.Join(t.TempDir(), "gone", "board.json")
		s := &session{o: &options{board: path}, board: board}
		msg := s.saveBoard()
		_, doc, ok := strings.Cut(msg, "; here it is:\n")
		var got struct{ Objects []whiteboard.Object }
		if !ok || json.Unmarshal([]byte(doc), &got) != nil || len(got.Objects) != 1 {
			t.Errorf("message %q: want the board's JSON", msg)
		}
	})
}

// --wasm-cache naming a file says so (it said "is not dir").
func TestWasmCacheNotADirectory(t *testing.T) {
	file := writeFile(t, filepath.Join(t.TempDir(), "cache"), "")
	dir := fixtureTools(t, echoTool)
	want := `codemode: tools: --wasm-cache ` + file + `: not a directory (give a directory, made if missing, or "off")` + "\n"
	if _, errs, code := cli(t, "", "tools", "--wasm-dir", dir, "--wasm-cache", file); code != exitUsage || errs != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errs, want)
	}
}

// A call to a namespaced tool that no loaded tool shares the namespace of
// gets a hint at --wasm-dir on stderr (graph.layout is built in now: the
// namespace is one no tool has); the result the model reads is the plain
// unknown_tool error.
func TestUnknownNamespaceHintsAtWasmDir(t *testing.T) {
	const hint = "codemode: hint: no tool chart.* is loaded; WASM tools of your own are loaded with --wasm-dir DIR (see docs/wasm.md)\n"
	out, errs, code := cli(t, `return await tools.chart.layout({ nodes: [] })`, "run", "--runner", "inprocess")
	var res engine.ExecuteResult
	json.Unmarshal([]byte(out), &res)
	if code != exitFailed || errs != hint {
		t.Errorf("run: exit %d, stderr %q; want 1 and %q", code, errs, hint)
	}
	if res.Error == nil || res.Error.Code != engine.CodeUnknownTool || res.Error.Message != `unknown tool "chart.layout"` {
		t.Errorf("run: error %+v; want the plain unknown_tool error", res.Error)
	}
	out, errs, code = cli(t, `{"operations":[{"tool":"chart.layout","args":{}},{"tool":"createStikyNote","args":{}}]}`, "batch", "--runner", "inprocess")
	if code != exitFailed || errs != hint {
		t.Errorf("batch: exit %d, stderr %q; want 1 and %q", code, errs, hint)
	}
	if r := decode(t, out).Results[0]; r.Error == nil || r.Error.Code != engine.CodeUnknownTool || r.Error.Message != `unknown tool "chart.layout"` {
		t.Errorf("batch: %+v; want the plain unknown_tool error", r)
	}
	// A built-in WASM tool left out names the flag that left it out.
	_, errs, code = cli(t, `return await tools.graph.layout({ nodes: [] })`, "run", "--runner", "inprocess", "--no-builtin-wasm")
	if want := "codemode: hint: no tool graph.* is loaded: --no-builtin-wasm leaves out the built-in WASM tools (graph.layout, text.cluster)\n"; code != exitFailed || errs != want {
		t.Errorf("run --no-builtin-wasm: exit %d, stderr %q; want 1 and %q", code, errs, want)
	}
	// A misspelt built-in is no WASM tool: no hint.
	if _, errs, _ := cli(t, `{"operations":[{"tool":"createStikyNote","args":{}}]}`, "batch", "--runner", "inprocess"); errs != "" {
		t.Errorf("hint for a misspelt built-in: %q", errs)
	}
}

func TestUnknownToolHint(t *testing.T) {
	loaded := []string{"createFrame", "fx.echo"}
	for _, c := range []struct {
		called, dirs []string
		noBuiltin    bool
		want         string
	}{
		{[]string{"createFram"}, nil, false, ""},
		{[]string{"fx.ecco"}, []string{"d"}, false, ""}, // its namespace is loaded: a typo
		{[]string{"chart.draw", "chart.other", "img.crop"}, nil, false, "hint: no tool chart.*, img.* is loaded; WASM tools of your own are loaded with --wasm-dir DIR (see docs/wasm.md)"},
		{[]string{"chart.draw"}, []string{"a", "b"}, false, "hint: no tool chart.* is in --wasm-dir a, b"},
		{[]string{"chart.draw", "text.cluster"}, []string{"a"}, true, "hint: no tool chart.*, text.* is loaded: --no-builtin-wasm leaves out the built-in WASM tools (graph.layout, text.cluster)"},
		{[]string{"chart.draw"}, nil, true, "hint: no tool chart.* is loaded; WASM tools of your own are loaded with --wasm-dir DIR (see docs/wasm.md)"},
		{[]string{".x"}, nil, false, ""},
	} {
		if got := unknownToolHint(c.called, loaded, c.dirs, c.noBuiltin); got != c.want {
			t.Errorf("unknownToolHint(%q, %q) = %q, want %q", c.called, c.dirs, got, c.want)
		}
	}
}

// --timeout reads durations the one way requests and config files do: a
// plain number is milliseconds, anything else a Go duration, and 0 or less
// is an error (0 silently meant the default, and "5" was a parse error).
func TestTimeoutFlag(t *testing.T) {
	for _, tc := range []struct {
		timeout string
		want    string
	}{
		{"0", `codemode: run: invalid value "0" for --timeout: must be positive, not 0 (leave it out for the default); see "codemode run --help"`},
		{"-1s", `codemode: run: invalid value "-1s" for --timeout: must be positive, not -1s (leave it out for the default); see "codemode run --help"`},
		{"soon", `codemode: run: invalid value "soon" for --timeout: "soon" is not a duration`},
		{"1h", `codemode: run: --timeout 1h0m0s exceeds the configured script timeout 30s`},
	} {
		_, errs, code := cli(t, "return 1", "run", "--timeout", tc.timeout, "--runner", "inprocess")
		if code != exitUsage || !strings.HasPrefix(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("--timeout %s: exit %d, stderr %q; want 2 and %q...", tc.timeout, code, errs, tc.want)
		}
	}
	for _, timeout := range []string{"50", "50ms", "0.05s"} {
		start := time.Now()
		out, errs, code := cli(t, "while (true) {}", "run", "--timeout", timeout, "--runner", "inprocess")
		var res engine.ExecuteResult
		json.Unmarshal([]byte(out), &res)
		if code != exitFailed || res.Error == nil || res.Error.Code != engine.CodeTimeout || time.Since(start) > 5*time.Second {
			t.Errorf("--timeout %s: exit %d, error %+v after %v; want 1 and a timeout at once", timeout, code, res.Error, time.Since(start))
		}
		// A plain number is milliseconds, which a hint recalls (see
		// TestTimeoutSecondsHint).
		if hinted := strings.Contains(errs, "a plain number is milliseconds"); hinted != (timeout == "50") {
			t.Errorf("--timeout %s: stderr %q", timeout, errs)
		}
	}
	if res := runScript(t, "return 1", exitOK, "--timeout", "30000", "--runner", "inprocess"); string(res.Result) != "1" {
		t.Errorf("--timeout 30000 (the default, in milliseconds): %s", res.Result)
	}
}
