package main

// The trip-ups of a first hour with the command: messages that name the flag
// at fault and say what to do, every problem found before a run reported at
// once, and the commands a newcomer tries first (version, help help).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/codemode-dev/codemode/engine"
)

// brokenTools is a --wasm-dir whose one manifest has an unknown field and
// names no module.
func brokenTools(t *testing.T) string {
	t.Helper()
	return fixtureTools(t, map[string]string{"x.tool.json": `{"name": "x", "description": "d", "inputSchema": {"type": "object"}, "bogus": 1}`})
}

// WASM load problems are reported with the config's, the board's and the
// input's, in one line (they came alone, after the others were fixed).
func TestWasmProblemsWithTheRest(t *testing.T) {
	dir := t.TempDir()
	broken := brokenTools(t)
	cfg := writeFile(t, filepath.Join(dir, "two-typos.json"), `{"limits": {"maxOps": 3}, "script": {"timout": "1s"}}`)
	board := filepath.Join(dir, "nonexist", "x.json")
	manifest := filepath.Join(broken, "x.tool.json") + ": bogus: unknown field"
	for _, c := range []struct {
		stdin string
		args  []string
		want  []string
	}{
		{"", []string{"tools", "--wasm-dir", broken, "--config", cfg},
			[]string{"limits.maxOps: unknown field", `script.timout: unknown field (did you mean "timeout"?)`, manifest}},
		{"return 1", []string{"run", "--wasm-dir", broken, "--board", board},
			[]string{"--board " + board + ": directory " + filepath.Dir(board) + " does not exist", manifest}},
		{"[]", []string{"batch", "--wasm-dir", broken, "--wasm-dir", filepath.Join(dir, "nope"), "--config", cfg},
			[]string{"want an object, got an array", "limits.maxOps: unknown field", manifest, "--wasm-dir " + filepath.Join(dir, "nope") + ": no such directory"}},
	} {
		out, errs, code := cli(t, c.stdin, append(c.args, "--wasm-cache", "off")...)
		if code != exitUsage || out != "" || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, nothing and one line", c.args, code, out, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%q: stderr %q lacks %q", c.args, errs, w)
			}
		}
	}
}

// A --wasm-dir that is missing names the flag; the repository's own build
// directory, missing or empty before the tools are built, points at the
// script that builds them (it said "open tools/wasm/build: no such file or
// directory").
func TestWasmDirMissing(t *testing.T) {
	root := t.TempDir()
	script := writeFile(t, filepath.Join(mkdirAll(t, root, "scripts"), "build-wasm-tools.sh"), "#!/bin/sh\n")
	build := filepath.Join(root, "tools", "wasm", "build")
	other := filepath.Join(root, "elsewhere")
	file := writeFile(t, filepath.Join(root, "file"), "")
	hint := " (run " + script + " first: it builds the example tools there)"
	for _, c := range []struct{ dir, want string }{
		{build, "--wasm-dir " + build + ": no such directory" + hint},
		{other, "--wasm-dir " + other + ": no such directory"},
		{file, "--wasm-dir " + file + ": not a directory (give the directory of the NAME.tool.json manifests)"},
	} {
		_, errs, code := cli(t, "", "tools", "--wasm-dir", c.dir, "--wasm-cache", "off")
		if want := "codemode: tools: " + c.want + "\n"; code != exitUsage || errs != want {
			t.Errorf("--wasm-dir %s: exit %d, stderr %q; want 2 and %q", c.dir, code, errs, want)
		}
	}
	mkdirAll(t, build)
	_, errs, _ := cli(t, "", "tools", "--wasm-dir", build, "--wasm-cache", "off")
	if want := "codemode: tools: --wasm-dir " + build + ": no WASM tools (no *.tool.json files)" + hint + "\n"; errs != want {
		t.Errorf("empty build directory: stderr %q, want %q", errs, want)
	}
	// Relative, as the README has it: the script relative to where it runs.
	if got := buildHint(filepath.Join("tools", "wasm", "build")); got != "" && got != " (run scripts/build-wasm-tools.sh first: it builds the example tools there)" {
		t.Errorf("buildHint(tools/wasm/build) = %q", got)
	}
	t.Chdir(root)
	if got := buildHint("tools/wasm/build"); got != " (run scripts/build-wasm-tools.sh first: it builds the example tools there)" {
		t.Errorf("buildHint(tools/wasm/build) at the root = %q", got)
	}
}

func mkdirAll(t *testing.T, elem ...string) string {
	t.Helper()
	dir := filepath.Join(elem...)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// --config names itself when its file cannot be read, as --board does (it
// said "open nope.json: no such file or directory").
func TestConfigFileMissing(t *testing.T) {
	nope := filepath.Join(t.TempDir(), "nope.json")
	for _, cmd := range []string{"tools", "batch", "run"} {
		_, errs, code := cli(t, oneSticky[cmd], cmd, "--config", nope)
		if want := "codemode: " + cmd + ": --config " + nope + ": no such file or directory\n"; code != exitUsage || errs != want {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", cmd, code, errs, want)
		}
	}
}

// --input that is not JSON says where and why (it said only "--input is
// not valid JSON").
func TestInputNotJSON(t *testing.T) {
	file := writeFile(t, filepath.Join(t.TempDir(), "in.json"), "{\"a\": 1,\n}")
	for _, c := range []struct{ input, want string }{
		{"{bad", `--input is not valid JSON: malformed JSON at line 1, column 2: invalid character 'b' looking for beginning of object key string`},
		{`{"a":1} x`, `--input is not valid JSON: unexpected data after the JSON value, at line 1, column 9`},
		{"@" + file, `--input @` + file + ` is not valid JSON: malformed JSON at line 2, column 1: invalid character '}' looking for beginning of object key string`},
		{"@" + file + ".gone", `--input @` + file + `.gone: no such file or directory`},
	} {
		_, errs, code := cli(t, "return input", "run", "--input", c.input, "--runner", "inprocess")
		if want := "codemode: run: " + c.want + "\n"; code != exitUsage || errs != want {
			t.Errorf("--input %s: exit %d, stderr\n%q, want\n%q", c.input, code, errs, want)
		}
	}
}

// Tool overrides in a config that name no tool are the config file's
// problems, under one "config FILE:"; a dotted name whose namespace no
// loaded tool is in gets the hint at --wasm-dir (it said "config:" before
// each, without the file), or, for a built-in WASM tool left out, at
// --no-builtin-wasm.
func TestConfigUnknownTools(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, filepath.Join(dir, "cfg.json"), `{"tools": {"getBordState": {"timeout": "1s"}, "chart.draw": {"timeout": "1s"}, "graph.layout": {"timeout": "1s"}}}`)
	_, errs, code := cli(t, "", "tools", "--config", cfg)
	want := "codemode: tools: config " + cfg + `: tools["chart.draw"]: no such tool; tools.getBordState: no such tool (did you mean "getBoardState"?); ` +
		"hint: no tool chart.* is loaded; WASM tools of your own are loaded with --wasm-dir DIR (see docs/wasm.md)\n"
	if code != exitUsage || errs != want {
		t.Errorf("exit %d, stderr\n%q, want\n%q", code, errs, want)
	}
	_, errs, _ = cli(t, "", "tools", "--config", cfg, "--no-builtin-wasm")
	want = "codemode: tools: config " + cfg + `: tools["chart.draw"]: no such tool; tools.getBordState: no such tool (did you mean "getBoardState"?); tools["graph.layout"]: no such tool; ` +
		"hint: no tool chart.*, graph.* is loaded: --no-builtin-wasm leaves out the built-in WASM tools (graph.layout, text.cluster)\n"
	if errs != want {
		t.Errorf("--no-builtin-wasm: stderr\n%q, want\n%q", errs, want)
	}
	// With --wasm-dir: a namespace it has is a typo, one it lacks is named.
	tools := fixtureTools(t, echoTool)
	cfg = writeFile(t, filepath.Join(dir, "cfg2.json"), `{"tools": {"fx.ecko": {"timeout": "1s"}, "chart.draw": {"timeout": "1s"}}}`)
	_, errs, _ = cli(t, "return 1", "run", "--config", cfg, "--wasm-dir", tools, "--wasm-cache", "off", "--runner", "inprocess")
	want = "codemode: run: config " + cfg + `: tools["chart.draw"]: no such tool; tools["fx.ecko"]: no such tool (did you mean "fx.echo"?); ` +
		"hint: no tool chart.* is in --wasm-dir " + tools + "\n"
	if errs != want {
		t.Errorf("with --wasm-dir: stderr\n%q, want\n%q", errs, want)
	}
}

// A run that times out under a --timeout given as a plain number below a
// second says that the number is milliseconds; the result stays as it is.
func TestTimeoutSecondsHint(t *testing.T) {
	const hint = "codemode: hint: --timeout 5 is 5ms: a plain number is milliseconds; did you mean 5s?\n"
	out, errs, code := cli(t, "while (true) {}", "run", "--timeout", "5", "--runner", "inprocess")
	var res engine.ExecuteResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitFailed || res.Error == nil || res.Error.Code != engine.CodeTimeout {
		t.Fatalf("exit %d, result %s (%v); want 1 and a timeout", code, out, err)
	}
	if errs != hint {
		t.Errorf("stderr %q, want %q", errs, hint)
	}
	// A batch that times out: its call outlives the batch.
	tools := fixtureTools(t, echoTool)
	_, errs, code = cli(t, `{"operations": [{"tool": "fx.loop", "args": {}}]}`, "batch", "--timeout", "5", "--wasm-dir", tools, "--wasm-cache", "off", "--runner", "inprocess")
	if code != exitFailed || errs != hint {
		t.Errorf("batch: exit %d, stderr %q; want 1 and %q", code, errs, hint)
	}
	// No hint with a unit, a second or more, or no timeout.
	for _, c := range []struct {
		script, timeout string
		code            int
	}{
		{"while (true) {}", "5ms", exitFailed},
		{"while (true) {}", "1000", exitFailed},
		{"return 1", "999", exitOK}, // a run that ends in time: no hint (999 ms leaves room under -race)
	} {
		_, errs, code := cli(t, c.script, "run", "--timeout", c.timeout, "--runner", "inprocess")
		if code != c.code || errs != "" {
			t.Errorf("--timeout %s, %q: exit %d, stderr %q; want %d and nothing", c.timeout, c.script, code, errs, c.code)
		}
	}
	for raw, want := range map[string]string{
		"5":     "hint: --timeout 5 is 5ms: a plain number is milliseconds; did you mean 5s?",
		"0.5":   "hint: --timeout 0.5 is 500µs: a plain number is milliseconds; did you mean 0.5s?",
		"999":   "hint: --timeout 999 is 999ms: a plain number is milliseconds; did you mean 999s?",
		"1000":  "",
		"5ms":   "",
		"0.05s": "",
		"":      "",
	} {
		var f timeoutFlag
		if raw != "" {
			if err := f.Set(raw); err != nil {
				t.Fatal(err)
			}
		}
		if got := f.secondsHint(); got != want {
			t.Errorf("--timeout %q: hint %q, want %q", raw, got, want)
		}
	}
}

// codemode version and --version print the module's version and Go's (the
// flag was taken for a flag before the command, and there was no command).
func TestVersion(t *testing.T) {
	want := versionText(readBuildInfo())
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		out, errs, code := cli(t, "", args...)
		if code != exitOK || errs != "" || out != want {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want 0 and %q", args, code, errs, out, want)
		}
	}
	if !strings.HasPrefix(want, "codemode ") || !strings.Contains(want, "\n  go      "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH+"\n") {
		t.Errorf("version text %q", want)
	}
	if _, errs, code := cli(t, "", "version", "x"); code != exitUsage || errs != `codemode: version: unexpected argument "x"; see "codemode version --help"`+"\n" {
		t.Errorf("version x: exit %d, stderr %q", code, errs)
	}
	if out, _, code := cli(t, "", "version", "--help"); code != exitOK || !strings.HasPrefix(out, "usage: codemode version\n") || strings.Contains(out, "Flags:") {
		t.Errorf("version --help: exit %d, %q", code, out)
	}
	for _, c := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/codemode-dev/codemode", Version: "(devel)"}},
			"codemode (devel)\n  module  github.com/codemode-dev/codemode\n  go      go1.26.0 " + runtime.GOOS + "/" + runtime.GOARCH + "\n"},
		{&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/codemode-dev/codemode", Version: "v0.0.0-20261123192050-a15c4bd2ab48+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "a15c4bd2ab481a268dd7daebaa314e605c7ef356"}, {Key: "vcs.modified", Value: "true"}}},
			"codemode v0.0.0-20261123192050-a15c4bd2ab48+dirty\n  module  github.com/codemode-dev/codemode\n  go      go1.26.0 " + runtime.GOOS + "/" + runtime.GOARCH +
				"\n  commit  a15c4bd2ab481a268dd7daebaa314e605c7ef356 (with changes not committed)\n"},
		{&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/codemode-dev/codemode", Version: "v1.2.0"}},
			"codemode v1.2.0\n  module  github.com/codemode-dev/codemode\n  go      go1.26.0 " + runtime.GOOS + "/" + runtime.GOARCH + "\n"},
		{nil, "codemode (unknown)\n  module  github.com/codemode-dev/codemode\n  go      " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"},
	} {
		if got := versionText(c.info); got != c.want {
			t.Errorf("versionText:\n%s\nwant:\n%s", got, c.want)
		}
	}
}

func readBuildInfo() *debug.BuildInfo {
	info, _ := debug.ReadBuildInfo()
	return info
}

// help takes every command, help and version included, and suggests the
// one meant ("help help" was an error although the usage shows "help
// [COMMAND]", and "help tols" suggested nothing).
func TestHelpCommands(t *testing.T) {
	for _, c := range []struct {
		args       []string
		code       int
		out, errs  string
		outPrefix  bool
		wantSubstr string
	}{
		{args: []string{"help", "help"}, out: "usage: codemode help [COMMAND]\n", outPrefix: true},
		{args: []string{"help", "--help"}, out: "usage: codemode help [COMMAND]\n", outPrefix: true},
		{args: []string{"help", "version"}, out: "usage: codemode version\n", outPrefix: true},
		{args: []string{"help", "tols"}, code: exitUsage, errs: `codemode: help: unknown command "tols" (did you mean tools?)` + "\n"},
		{args: []string{"help", "deploy"}, code: exitUsage, errs: `codemode: help: unknown command "deploy" (commands: tools, batch, run, serve, mcp, bench, version, help)` + "\n"},
		{args: []string{"help", "run", "batch"}, code: exitUsage, errs: "codemode: help: want one COMMAND at most, got 2 arguments\n"},
		{args: []string{"versoin"}, code: exitUsage, errs: `codemode: unknown command "versoin" (did you mean version?)` + "\n"},
	} {
		out, errs, code := cli(t, "", c.args...)
		okOut := out == c.out || (c.outPrefix && strings.HasPrefix(out, c.out))
		if code != c.code || errs != c.errs || !okOut {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, %q", c.args, code, out, errs, c.code, c.out, c.errs)
		}
	}
	// The usage lists them all, [flags] only where there are flags.
	out, _, _ := cli(t, "", "help")
	for _, c := range commands {
		if !strings.Contains(out, "\n  "+c.synopsis()+" ") {
			t.Errorf("usage lacks %q:\n%s", c.synopsis(), out)
		}
	}
	if strings.Contains(out, "codemode help [COMMAND] [flags]") || strings.Contains(out, "codemode version [flags]") {
		t.Errorf("usage shows [flags] for a command without:\n%s", out)
	}
}

// A bare array of operations sent to batch says what a batch request is.
func TestBatchArrayHint(t *testing.T) {
	_, errs, code := cli(t, ` [{"tool": "getBoardState", "args": {}}]`, "batch", "--runner", "inprocess")
	want := `codemode: batch: want an object, got an array (a batch request is an object: {"operations": [...]})` + "\n"
	if code != exitUsage || errs != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errs, want)
	}
	// Other mistakes get no such hint.
	if _, errs, _ := cli(t, `"x"`, "batch"); strings.Contains(errs, "operations") {
		t.Errorf("hint for a string: %q", errs)
	}
}

// An empty flag value is a usage error, for every flag that takes a value
// (--board "" was silently no board, and the run's work was not kept).
func TestEmptyFlagValues(t *testing.T) {
	for _, f := range flagSpecs {
		if f.arg == "" {
			continue
		}
		for _, cmd := range f.cmds {
			for _, args := range [][]string{{"--" + f.name, ""}, {"--" + f.name + "="}} {
				out, errs, code := cli(t, "", append([]string{cmd}, args...)...)
				want := fmt.Sprintf(`codemode: %s: --%s needs a value (--%s %s), not ""; see "codemode %s --help"`+"\n", cmd, f.name, f.name, f.arg, cmd)
				if code != exitUsage || out != "" || errs != want {
					t.Errorf("%s %q: exit %d, stdout %q, stderr %q; want 2, nothing and %q", cmd, args, code, out, errs, want)
				}
			}
		}
	}
}

// The same for real, as a user who owns neither the directory nor the
// board in it: here tests run as root, who may write anywhere, so the
// command runs as nobody.
func TestBoardInADirectoryOfSomeoneElse(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the codemode command")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make a board owned by another user and run the command as nobody")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("no user nobody: %v", err)
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	gid, _ := strconv.Atoi(nobody.Gid)
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	base, err := os.MkdirTemp("", "codemode-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(base, "ro"), 0o755); os.RemoveAll(base) })
	ro := mkdirAll(t, base, "ro")
	writeFile(t, filepath.Join(ro, "b.json"), `{"objects":[]}`) // 0644, root's
	for _, p := range []struct {
		path string
		mode fs.FileMode
	}{{base, 0o755}, {ro, 0o555}, {filepath.Dir(bin), 0o755}} {
		if err := os.Chmod(p.path, p.mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range []string{"batch", "run"} {
		c := exec.Command(bin, cmd, "--board", "ro/b.json", "--runner", "inprocess", "--wasm-cache", "off")
		c.Dir = base
		c.Stdin = strings.NewReader(oneSticky[cmd])
		c.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + base}
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Skipf("cannot run the command as nobody: %v %s", err, stderr.String())
		}
		want := "codemode: " + cmd + ": --board ro/b.json: cannot create files in directory ro: permission denied\n"
		if exit.ExitCode() != exitUsage || stdout.Len() != 0 || stderr.String() != want {
			t.Errorf("%s as nobody: exit %d, stdout %q, stderr %q; want 2, nothing and %q", cmd, exit.ExitCode(), stdout.String(), stderr.String(), want)
		}
	}
}
