//go:build unix

package main

// TestDocs runs the shell blocks of the documentation — README.md, docs/*.md,
// examples/README.md: every Markdown file outside testdata — and compares what they print with what the
// documents show, so that every command a reader copies works as written.
//
// The conventions, for whoever writes the docs (docs/design.md, "Tested
// documentation", says the same in short):
//
//   - A fenced block in sh, bash or shell is a script. It runs with
//     bash -e -o pipefail, so every command in it must succeed. Show a
//     command that fails as `cmd || echo "exit status $?"`, which prints its
//     status.
//   - A fenced block (any language, or none) right after the line
//     <!-- output --> is the output of the nearest script block above it:
//     stdout and stderr together, as a terminal shows them. A script block
//     without one must still succeed; what it prints is not compared.
//   - A fenced block in console is a transcript: a line starting with "$ "
//     is a command ("> " lines continue it), the lines up to the next "$ "
//     are its output. Its commands run one after another in one shell.
//     Every command must exit 0 unless the next command is `echo $?`, which
//     shows its status.
//   - <!-- skip: REASON --> right before a sh, bash, shell or console block
//     leaves it out: `go test ./...` (which would run this test again), or
//     a command that needs what a test cannot have. The reason is required.
//   - <!-- serve --> right before a console block of one command makes
//     that command a server for the rest of the document, as a reader
//     would start it in a second terminal: it runs in the background,
//     listening on a free port of 127.0.0.1 (the test adds --addr
//     127.0.0.1:0, or makes the port of the command's --addr 0), and once
//     it prints "serving on http://ADDRESS/" the blocks after it run. In
//     their commands 127.0.0.1:8080 means ADDRESS, and ADDRESS in any
//     output is shown as 127.0.0.1:8080. After the document's last block
//     the server gets Ctrl-C (SIGINT) and must exit 0; all it printed, from
//     start to exit, is compared with the block's output. One per document.
//   - In expected output, a line "..." stands for any number of lines, none
//     included, and values that differ from run to run match any value of
//     their kind: the number of a JSON member whose name ends in "_ms" (a
//     timing), an RFC 3339 time, a run id (run_ and 13 base-36 digits), a
//     preview id (pv_ and 26 base-32 digits), and the server's epoch in an
//     SSE event's "id: EPOCH-SEQ".
//
// Each document runs in a fresh copy of the working tree (its tracked and
// untracked files, not the ignored ones: no built command, no
// tools/wasm/build), the copy's root as the working directory and its
// blocks in order, as a reader follows it: what one block writes is there
// for the next blocks of that document, and for no other document. The copy
// has ./codemode built from the current source at its root, as README's
// Set-up leaves it, and codemode is on PATH. HOME and TMPDIR are the
// document's own ("/tmp" in a command means that TMPDIR, and its path in
// the output is shown as /tmp again; HOME's is shown as /home/you, a home
// directory as a reader's looks); XDG_CACHE_HOME, where codemode keeps
// compiled WASM tools, is shared by the documents, as a reader's is. Standard input is empty. go commands
// run as written, `go run ./cmd/codemode` included (so its ways with exit
// statuses are what the docs must show), with -trimpath added to GOFLAGS
// so that builds in the copy come from the build cache.
//
// After a document's blocks, every board file its commands named with
// --board must make a sensible board: no two objects (connectors aside)
// partly overlap, and no two lie exactly on top of each other. Sequences of
// commands on one board must place their drawings apart.
//
// The documents' commands build the WASM tools and run go, so the test
// needs a go command and a few tens of seconds (more on a cold build
// cache); it is skipped under -short.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/internal/syncbuf"
	"github.com/google/go-cmp/cmp"
)

// docFiles are the documents whose blocks are run, relative to the
// repository's root: every Markdown file of the working tree (README.md,
// docs/*.md, examples/README.md, and any added later) but the fixtures of
// testdata directories.
func docFiles(root string) ([]string, error) {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "*.md").Output()
	if err != nil {
		return nil, fmt.Errorf("listing the documents (git ls-files): %v", err)
	}
	var files []string
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if f == "" || slices.Contains(strings.Split(f, "/"), "testdata") {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, f)); err == nil { // not deleted in the working tree
			files = append(files, f)
		}
	}
	slices.Sort(files)
	files = slices.Compact(files)
	for _, must := range []string{"README.md", "docs/cli.md", "examples/README.md"} {
		if !slices.Contains(files, must) {
			return nil, fmt.Errorf("git ls-files did not list %s", must)
		}
	}
	return files, nil
}

func TestDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command of the docs, builds included")
	}
	if os.Getenv(inDocsEnv) != "" {
		t.Skip("a documented command runs these tests; the docs are being tested already")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skipf("copies the working tree with git, and %s is not a git work tree (%v)", root, err)
	}
	files, err := docFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	env, err := newDocEnv(t, root)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		t.Run(strings.ReplaceAll(file, "/", "_"), func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join(root, file))
			if err != nil {
				t.Fatal(err)
			}
			blocks, errs := parseDoc(file, string(text))
			for _, err := range errs {
				t.Error(err)
			}
			if len(errs) > 0 || !slices.ContainsFunc(blocks, func(b *docBlock) bool { return b.skip == "" }) {
				return
			}
			for _, p := range env.runDoc(t, file, blocks) {
				t.Error(p)
			}
		})
	}
}

// inDocsEnv is set for the documents' commands, so that a go test among
// them that is not skipped cannot run the docs again, and again.
const inDocsEnv = "CODEMODE_DOCS_TEST"

// docBlock is one shell block of a document, with what it should print.
type docBlock struct {
	file    string
	line    int    // of the opening fence
	lang    string // sh, bash, shell or console
	code    string
	skip    string // the reason it is not run, if it is not
	serve   bool   // a console block of one command, a server (<!-- serve -->)
	want    *docOutput
	console []consoleCmd // a console block's commands
}

type docOutput struct {
	line int // of the opening fence
	text string
}

type consoleCmd struct {
	line int // of the "$ " line
	cmd  string
	want string
}

func (b *docBlock) where() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

var (
	fenceRe     = regexp.MustCompile("^( *)(```+|~~~+)[ \t]*([A-Za-z0-9_+-]*)")
	directiveRe = regexp.MustCompile(`^<!--\s*(output|skip|serve)\b(.*?)-->\s*$`)
)

var shellLangs = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true}

// parseDoc finds a document's shell blocks, their output blocks and skips,
// and reports every misuse of the conventions at once.
func parseDoc(file, text string) ([]*docBlock, []error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var (
		blocks   []*docBlock
		errs     []error
		pending  string // a directive waiting for its block
		pendAt   int
		pendArg  string
		servedAt int // the line of the first <!-- serve -->
	)
	errorf := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, args...)))
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := directiveRe.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			if pending != "" {
				errorf(pendAt, "<!-- %s --> is not followed by a fenced block", pending)
			}
			pending, pendAt, pendArg = m[1], i+1, strings.TrimSpace(m[2])
			continue
		}
		m := fenceRe.FindStringSubmatch(line)
		if m == nil {
			if strings.TrimSpace(line) != "" && pending != "" {
				errorf(pendAt, "<!-- %s --> is not followed by a fenced block", pending)
				pending = ""
			}
			continue
		}
		// A fenced block: find its end.
		indent, fence, lang := m[1], m[2], strings.ToLower(m[3])
		start := i + 1
		var body []string
		i++
		for ; i < len(lines); i++ {
			l := strings.TrimPrefix(lines[i], indent)
			if strings.HasPrefix(l, fence) && strings.TrimSpace(strings.TrimLeft(l, fence[:1])) == "" {
				break
			}
			body = append(body, l)
		}
		if i == len(lines) {
			errorf(start, "the fenced block is not closed")
		}
		code := strings.Join(body, "\n")
		dir, dirAt, arg := pending, pendAt, pendArg
		pending = ""
		switch {
		case dir == "output":
			if arg != "" {
				errorf(dirAt, "<!-- output --> takes nothing, got %q", arg)
			}
			var last *docBlock
			if len(blocks) > 0 {
				last = blocks[len(blocks)-1]
			}
			switch {
			case last == nil:
				errorf(dirAt, "<!-- output --> with no sh, bash or shell block above it")
			case last.lang == "console":
				errorf(dirAt, "<!-- output --> after a console block (%s), which shows its output itself", last.where())
			case last.want != nil:
				errorf(dirAt, "a second <!-- output --> for the block at %s (the first at line %d)", last.where(), last.want.line)
			case last.skip != "":
				errorf(dirAt, "<!-- output --> for the skipped block at %s", last.where())
			default:
				last.want = &docOutput{line: start, text: code}
			}
			continue
		case !shellLangs[lang]:
			if dir == "skip" || dir == "serve" {
				errorf(dirAt, "<!-- %s --> before a %q block, which is not run anyway", dir, lang)
			}
			continue
		}
		b := &docBlock{file: file, line: start, lang: lang, code: code}
		if dir == "skip" {
			b.skip = strings.TrimSpace(strings.TrimPrefix(arg, ":"))
			if !strings.HasPrefix(arg, ":") || b.skip == "" {
				errorf(dirAt, "<!-- skip: REASON --> needs a reason")
				b.skip = "no reason given"
			}
		}
		if lang == "console" {
			cmds, err := parseConsole(start, body)
			if err != nil {
				errorf(start, "%v", err)
			}
			b.console = cmds
		}
		if dir == "serve" {
			b.serve = true
			switch {
			case arg != "":
				errorf(dirAt, "<!-- serve --> takes nothing, got %q", arg)
			case servedAt != 0:
				errorf(dirAt, "a second <!-- serve --> (the first at line %d): one server per document", servedAt)
			case lang != "console" || len(b.console) != 1:
				errorf(dirAt, "<!-- serve --> wants a console block of one command, the server's, and what it prints")
			}
			if servedAt == 0 {
				servedAt = dirAt
			}
		}
		blocks = append(blocks, b)
	}
	if pending != "" {
		errorf(pendAt, "<!-- %s --> is not followed by a fenced block", pending)
	}
	return blocks, errs
}

// parseConsole splits a transcript into its commands and their outputs.
// fence is the line of the opening fence.
func parseConsole(fence int, body []string) ([]consoleCmd, error) {
	var cmds []consoleCmd
	inCmd := false
	for i, l := range body {
		switch {
		case l == "$" || strings.HasPrefix(l, "$ "):
			cmds = append(cmds, consoleCmd{line: fence + 1 + i, cmd: strings.TrimPrefix(strings.TrimPrefix(l, "$"), " ")})
			inCmd = true
		case len(cmds) == 0:
			return nil, fmt.Errorf("console block: line %d is not a command (\"$ \") and no command comes before it", fence+1+i)
		case inCmd && (l == ">" || strings.HasPrefix(l, "> ")):
			c := &cmds[len(cmds)-1]
			c.cmd += "\n" + strings.TrimPrefix(strings.TrimPrefix(l, ">"), " ")
		default:
			inCmd = false
			cmds[len(cmds)-1].want += l + "\n"
		}
	}
	return cmds, nil
}

// docEnv is what every document runs with.
type docEnv struct {
	repo  string   // the working tree copied for each document; "" for an empty one
	bin   string   // the codemode command built from it; "" for none
	goEnv []string // the go command's settings, kept while HOME changes
	path  string   // PATH, the directory of bin and go's first
	cache string   // XDG_CACHE_HOME, shared by the documents as a reader's is
}

func newDocEnv(t *testing.T, repo string) (*docEnv, error) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goBin, "env", "-json").Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %v", err)
	}
	var ge map[string]string
	if err := json.Unmarshal(out, &ge); err != nil {
		return nil, fmt.Errorf("go env: %v", err)
	}
	env := &docEnv{repo: repo, cache: t.TempDir()}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GOSUMDB", "GOPRIVATE", "GONOPROXY", "GONOSUMDB", "GOINSECURE", "GOTOOLCHAIN"} {
		if ge[k] != "" {
			env.goEnv = append(env.goEnv, k+"="+ge[k])
		}
	}
	env.goEnv = append(env.goEnv, "GOFLAGS="+strings.TrimSpace(ge["GOFLAGS"]+" -trimpath"))

	binDir := t.TempDir()
	env.bin = filepath.Join(binDir, "codemode")
	build := exec.Command(goBin, "build", "-trimpath", "-o", env.bin, "./cmd/codemode")
	build.Dir = repo
	build.Env = append(os.Environ(), env.goEnv...)
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build ./cmd/codemode: %v\n%s", err, out)
	}
	env.path = binDir + ":" + filepath.Dir(goBin) + ":" + os.Getenv("PATH")
	return env, nil
}

// docProblem is one way a document is not true, with where.
type docProblem struct {
	where string
	msg   string
}

func (p docProblem) String() string { return p.where + ": " + p.msg }

// docDir is one document's run: its copy of the tree, HOME and TMPDIR.
type docDir struct {
	tree, home, tmp string
	addr            string // where the document's server listens (<!-- serve -->)
}

// runDoc runs a document's blocks in order and returns every problem found.
func (env *docEnv) runDoc(t *testing.T, file string, blocks []*docBlock) []docProblem {
	t.Helper()
	base := t.TempDir()
	d := docDir{tree: filepath.Join(base, "repo"), home: filepath.Join(base, "home"), tmp: filepath.Join(base, "tmp")}
	for _, dir := range []string{d.tree, d.home, d.tmp} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if env.repo != "" {
		if err := copyTree(env.repo, d.tree); err != nil {
			t.Fatal(err)
		}
	}
	if env.bin != "" {
		if err := copyFile(env.bin, filepath.Join(d.tree, "codemode"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var problems []docProblem
	boards := map[string]bool{}
	var srv *docServer
	for _, b := range blocks {
		if b.skip != "" {
			t.Logf("%s: skipped: %s", b.where(), b.skip)
			continue
		}
		for _, f := range boardFiles(b) {
			boards[f] = true
		}
		start := time.Now()
		switch {
		case b.serve:
			var p []docProblem
			srv, p = env.startServer(t, &d, b)
			if len(p) > 0 {
				return append(problems, p...) // the blocks after it need the server
			}
		case b.lang == "console":
			problems = append(problems, env.runConsole(d, b)...)
		default:
			problems = append(problems, env.runScript(d, b)...)
		}
		t.Logf("%s: ran in %v", b.where(), time.Since(start).Round(time.Millisecond))
	}
	if srv != nil {
		problems = append(problems, srv.stop(d)...)
	}
	for _, f := range slices.Sorted(maps.Keys(boards)) {
		path := filepath.Join(d.tree, f)
		if filepath.IsAbs(f) {
			path = d.rewrite(f) // /tmp is the document's own TMPDIR
		}
		for _, msg := range checkBoard(path) {
			problems = append(problems, docProblem{file, fmt.Sprintf("board %s: %s", f, msg)})
		}
	}
	return problems
}

// shownAddr is the address the documents show for their server (the
// default of --addr). The test's server listens on a free port instead; the
// commands get its address in place of this one, and their output shows
// this one in place of it.
const shownAddr = "127.0.0.1:8080"

var (
	// serveAddrRe finds the port of the server command's --addr, made 0
	// (a free port) for the test.
	serveAddrRe = regexp.MustCompile(`(--addr[= ]+\S*):8080\b`)
	// readyRe finds the line a server prints when it is ready, with its
	// address.
	readyRe = regexp.MustCompile(`serving on http://([^/\s#]+)/`)
)

// serverStopTimeout is how long a server may take to stop after Ctrl-C.
const serverStopTimeout = 30 * time.Second

// docServer is a document's server (<!-- serve -->), running while the
// blocks after it run.
type docServer struct {
	b      *docBlock
	cmd    *exec.Cmd
	out    *lockedBuffer
	done   chan struct{} // closed when the command has exited
	status int           // its exit status, once done; -1 for a signal
}

// startServer starts the command of a <!-- serve --> block in the
// background, with --addr made a free port of 127.0.0.1, and waits until
// it prints that it is serving; d.addr is then its address.
func (env *docEnv) startServer(t *testing.T, d *docDir, b *docBlock) (*docServer, []docProblem) {
	t.Helper()
	c := b.console[0].cmd
	if serveAddrRe.MatchString(c) {
		c = serveAddrRe.ReplaceAllString(c, "${1}:0")
	} else {
		c += " --addr 127.0.0.1:0"
	}
	f, err := os.CreateTemp(filepath.Dir(d.tree), "serve-*.sh")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(d.rewrite(c) + "\n")
	f.Close()
	t.Cleanup(func() { os.Remove(f.Name()) })
	s := &docServer{b: b, out: &lockedBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command("bash", f.Name())
	s.cmd.Dir = d.tree
	s.cmd.Env = env.environ(*d)
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s.cmd.WaitDelay = 5 * time.Second
	if err := s.cmd.Start(); err != nil {
		return nil, []docProblem{{b.where(), fmt.Sprintf("starting the server: %v", err)}}
	}
	go func() {
		err := s.cmd.Wait()
		s.status = 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			s.status = exit.ExitCode()
		} else if err != nil {
			s.status = -1
		}
		close(s.done)
	}()
	t.Cleanup(func() { s.kill() })
	deadline := time.NewTimer(blockTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if m := readyRe.FindStringSubmatch(s.out.String()); m != nil {
			d.addr = m[1]
			return s, nil
		}
		select {
		case <-s.done:
			return nil, []docProblem{{b.where(), fmt.Sprintf("the server exited (status %d) before it printed \"serving on http://…/\"; output:\n%s", s.status, indent(d.shown(s.out.String())))}}
		case <-deadline.C:
			s.kill()
			return nil, []docProblem{{b.where(), fmt.Sprintf("the server did not print \"serving on http://…/\" within %v (killed); output:\n%s", blockTimeout, indent(d.shown(s.out.String())))}}
		case <-tick.C:
		}
	}
}

// stop stops the server as a reader does, with Ctrl-C (SIGINT to its
// process group), and compares all it printed with what the block shows.
// It must exit 0.
func (s *docServer) stop(d docDir) []docProblem {
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGINT)
	where := fmt.Sprintf("%s:%d", s.b.file, s.b.console[0].line)
	select {
	case <-s.done:
	case <-time.After(serverStopTimeout):
		s.kill()
		return []docProblem{{where, fmt.Sprintf("the server did not stop within %v of Ctrl-C (killed); output:\n%s", serverStopTimeout, indent(d.shown(s.out.String())))}}
	}
	out := d.shown(s.out.String())
	var problems []docProblem
	if s.status != 0 {
		problems = append(problems, docProblem{where, fmt.Sprintf("the server exited with status %d after Ctrl-C, want 0; output:\n%s", s.status, indent(out))})
	}
	if msg := compareOutput(s.b.console[0].want, out); msg != "" {
		problems = append(problems, docProblem{where, fmt.Sprintf("%q (the server, from start to Ctrl-C): %s", s.b.console[0].cmd, msg)})
	}
	return problems
}

// kill ends the server's process group at once, if it still runs.
func (s *docServer) kill() {
	select {
	case <-s.done:
	default:
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
}

// lockedBuffer collects what many goroutines write.
type lockedBuffer = syncbuf.Buffer

// blockTimeout bounds one block; the WASM tools' first build on a cold
// build cache is the slowest thing the docs do.
const blockTimeout = 5 * time.Minute

// shell runs script with bash in the document's tree and returns what it
// printed (stdout and stderr together), its exit status, and what it wrote
// to file descriptor 3.
func (env *docEnv) shell(d docDir, script string, bashFlags ...string) (out string, status int, fd3 string, err error) {
	f, err := os.CreateTemp(filepath.Dir(d.tree), "block-*.sh")
	if err != nil {
		return "", 0, "", err
	}
	defer os.Remove(f.Name())
	f.WriteString(script)
	f.Close()
	r3, w3, err := os.Pipe()
	if err != nil {
		return "", 0, "", err
	}
	defer r3.Close()
	ctx, cancel := context.WithTimeout(context.Background(), blockTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append(bashFlags, f.Name())...)
	cmd.Dir = d.tree
	cmd.Env = env.environ(d)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.ExtraFiles = []*os.File{w3}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var side bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); io.Copy(&side, r3) }()
	err = cmd.Run()
	w3.Close()
	wg.Wait()
	if ctx.Err() != nil {
		return buf.String(), -1, side.String(), fmt.Errorf("still running after %v (killed)", blockTimeout)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return buf.String(), exit.ExitCode(), side.String(), nil
	}
	return buf.String(), 0, side.String(), err
}

// environ is the environment of a document's commands.
func (env *docEnv) environ(d docDir) []string {
	return append([]string{
		"PATH=" + env.path,
		"HOME=" + d.home,
		"TMPDIR=" + d.tmp,
		"XDG_CACHE_HOME=" + env.cache,
		inDocsEnv + "=1",
		"LANG=C.UTF-8",
		"TERM=dumb",
	}, env.goEnv...)
}

// shownHome is how a document shows the home directory in output: as a
// reader's would be printed, not as ~, which codemode never prints.
const shownHome = "/home/you"

// tmpRe finds /tmp as a directory in a command.
var tmpRe = regexp.MustCompile(`(^|[^\w./~-])/tmp\b`)

func (d docDir) rewrite(cmd string) string {
	cmd = tmpRe.ReplaceAllString(cmd, "${1}"+d.tmp)
	if d.addr != "" {
		cmd = strings.ReplaceAll(cmd, shownAddr, d.addr)
	}
	return cmd
}

// shown turns paths of the test's own directories in output back into
// what a reader sees.
func (d docDir) shown(out string) string {
	out = strings.ReplaceAll(out, d.tmp, "/tmp")
	out = strings.ReplaceAll(out, d.home, shownHome)
	if d.addr != "" {
		out = strings.ReplaceAll(out, d.addr, shownAddr)
	}
	return out
}

// errTrap reports the command that made a script block fail, on fd 3.
const errTrap = `trap 'printf "line %d: %s: exit status %d\n" "$LINENO" "$BASH_COMMAND" "$?" >&3' ERR` + "\n"

func (env *docEnv) runScript(d docDir, b *docBlock) []docProblem {
	out, status, failed, err := env.shell(d, errTrap+d.rewrite(b.code)+"\n", "-e", "-o", "pipefail")
	out = d.shown(out)
	var problems []docProblem
	if err != nil {
		return []docProblem{{b.where(), fmt.Sprintf("%v; output:\n%s", err, indent(out))}}
	}
	if status != 0 {
		what := fmt.Sprintf("exit status %d", status)
		if failed != "" {
			// Line numbers count from the block's first line.
			what = strings.TrimSpace(d.shown(fixTrapLine(failed, b.line)))
		}
		problems = append(problems, docProblem{b.where(), fmt.Sprintf("a command failed (%s); show a failure as `cmd || echo \"exit status $?\"`; output:\n%s", what, indent(out))})
	}
	if b.want != nil {
		if msg := compareOutput(b.want.text, out); msg != "" {
			problems = append(problems, docProblem{fmt.Sprintf("%s:%d", b.file, b.want.line), "output differs from what was printed by the block at line " + strconv.Itoa(b.line) + ": " + msg})
		}
	}
	return problems
}

var trapLineRe = regexp.MustCompile(`^line (\d+): `)

// fixTrapLine turns the script's line number (the trap is line 1) into the
// document's.
func fixTrapLine(msg string, fence int) string {
	first := strings.SplitN(msg, "\n", 2)[0]
	m := trapLineRe.FindStringSubmatch(first)
	if m == nil {
		return first
	}
	n, _ := strconv.Atoi(m[1])
	return fmt.Sprintf("line %d: %s", fence+n-1, first[len(m[0]):])
}

func (env *docEnv) runConsole(d docDir, b *docBlock) []docProblem {
	var nonce [8]byte
	rand.Read(nonce[:])
	mark := "docs-test-" + hex.EncodeToString(nonce[:])
	var script strings.Builder
	for _, c := range b.console {
		fmt.Fprintf(&script, "%s\n__docs_status=$?; printf '\\n%s %%d\\n' \"$__docs_status\"; (exit $__docs_status)\n", d.rewrite(c.cmd), mark)
	}
	out, _, _, err := env.shell(d, script.String(), "-o", "pipefail")
	out = d.shown(out)
	if err != nil {
		return []docProblem{{b.where(), fmt.Sprintf("%v; output:\n%s", err, indent(out))}}
	}
	markRe := regexp.MustCompile(`\n` + mark + ` (\d+)\n`)
	locs := markRe.FindAllStringSubmatchIndex(out, -1)
	var problems []docProblem
	if len(locs) != len(b.console) {
		return []docProblem{{b.where(), fmt.Sprintf("%d of its %d commands ran; output:\n%s", len(locs), len(b.console), indent(out))}}
	}
	prev := 0
	for i, c := range b.console {
		got := out[prev:locs[i][0]]
		status, _ := strconv.Atoi(out[locs[i][2]:locs[i][3]])
		prev = locs[i][1]
		where := fmt.Sprintf("%s:%d", b.file, c.line)
		if status != 0 && (i+1 == len(b.console) || strings.TrimSpace(b.console[i+1].cmd) != "echo $?") {
			problems = append(problems, docProblem{where, fmt.Sprintf("%q: exit status %d, and no `echo $?` after it shows that; output:\n%s", c.cmd, status, indent(got))})
		}
		if msg := compareOutput(c.want, got); msg != "" {
			problems = append(problems, docProblem{where, fmt.Sprintf("%q: %s", c.cmd, msg)})
		}
	}
	return problems
}

// compareOutput matches what a command printed against what a document
// shows, and says how they differ ("" when they match).
func compareOutput(want, got string) string {
	w, g := outputLines(want), outputLines(got)
	// reach[i][j]: the first i lines shown match the first j printed.
	reach := make([][]bool, len(w)+1)
	for i := range reach {
		reach[i] = make([]bool, len(g)+1)
	}
	reach[0][0] = true
	furthest, at := 0, 0
	for i := 0; i <= len(w); i++ {
		for j := 0; j <= len(g); j++ {
			if !reach[i][j] {
				continue
			}
			if i > furthest || (i == furthest && j > at) {
				furthest, at = i, j
			}
			if i == len(w) {
				continue
			}
			if isElision(w[i]) {
				reach[i+1][j] = true
				if j < len(g) {
					reach[i][j+1] = true
				}
			} else if j < len(g) && lineMatches(w[i], g[j]) {
				reach[i+1][j+1] = true
			}
		}
	}
	if reach[len(w)][len(g)] {
		return ""
	}
	var b strings.Builder
	if furthest < len(w) {
		fmt.Fprintf(&b, "shown line %d %q does not match printed line %d", furthest+1, w[furthest], at+1)
		if at < len(g) {
			fmt.Fprintf(&b, " %q", g[at])
		} else {
			b.WriteString(" (the output ended)")
		}
	} else {
		fmt.Fprintf(&b, "the output goes on after the last line shown: %q", g[at])
	}
	fmt.Fprintf(&b, "\nshown:\n%s\nprinted:\n%s", indent(strings.Join(w, "\n")), indent(strings.Join(g, "\n")))
	return b.String()
}

// outputLines splits output into lines without trailing blanks, and
// without blank lines at the end.
func outputLines(s string) []string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		lines = append(lines, strings.TrimRight(sc.Text(), " \t\r"))
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func isElision(line string) bool { return strings.TrimSpace(line) == "..." }

// varying are the values that differ from one run to the next, each with
// the text before it (group 1) and the value (group 2): in a line shown, such
// a value matches any value of its kind. They are the number of a JSON
// member named *_ms (a timing), an RFC 3339 time (a board's "created", an
// event's "time"), a run id, a preview id (pv_ and 26 base-32 digits), and
// the server's epoch in an SSE event's id ("id: EPOCH-SEQ", the sequence
// number compared).
var varying = []*regexp.Regexp{
	regexp.MustCompile(`("[A-Za-z0-9_]*_ms"\s*:\s*)(-?[0-9][0-9.eE+-]*)`),
	regexp.MustCompile(`()(\b[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2}))`),
	regexp.MustCompile(`()(\brun_[0-9a-z]{13}\b)`),
	regexp.MustCompile(`()(\bpv_[A-Z2-7]{26}\b)`),
	regexp.MustCompile(`(^id: )([0-9a-z]+)-[0-9]+$`),
}

// anyOf is what a value of each kind of varying matches, in order.
var anyOf = []string{
	`-?[0-9][0-9.eE+-]*`,
	`[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2})`,
	`run_[0-9a-z]{13}`,
	`pv_[A-Z2-7]{26}`,
	`[0-9a-z]+`,
}

var lineRes sync.Map // shown line → *regexp.Regexp, or nil for none

func lineMatches(want, got string) bool {
	if want == got {
		return true
	}
	re, ok := lineRes.Load(want)
	if !ok {
		re, _ = lineRes.LoadOrStore(want, varyingPattern(want))
	}
	return re.(*regexp.Regexp) != nil && re.(*regexp.Regexp).MatchString(got)
}

// varyingPattern is a regexp matching what a line shown stands for, its
// varying values as any of their kind; nil when it has none.
func varyingPattern(want string) *regexp.Regexp {
	type span struct{ from, to, kind int }
	var spans []span
	for k, re := range varying {
		for _, m := range re.FindAllStringSubmatchIndex(want, -1) {
			spans = append(spans, span{m[4], m[5], k})
		}
	}
	if len(spans) == 0 {
		return nil
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	var pat strings.Builder
	pat.WriteString("^")
	last := 0
	for _, sp := range spans {
		if sp.from < last {
			continue // inside one already taken
		}
		pat.WriteString(regexp.QuoteMeta(want[last:sp.from]))
		pat.WriteString(anyOf[sp.kind])
		last = sp.to
	}
	pat.WriteString(regexp.QuoteMeta(want[last:]) + "$")
	return regexp.MustCompile(pat.String())
}

func indent(s string) string {
	const max = 120
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > max {
		lines = append(lines[:max], fmt.Sprintf("... (%d more lines)", len(lines)-max))
	}
	return "\t" + strings.Join(lines, "\n\t")
}

// boardRe finds the board files a command names.
var boardRe = regexp.MustCompile(`--board[= ]+([^\s;|&>]+)`)

func boardFiles(b *docBlock) []string {
	var files []string
	for _, m := range boardRe.FindAllStringSubmatch(b.code, -1) {
		if f := strings.Trim(m[1], `'"`); f != "" { // --board "" names no board
			files = append(files, f)
		}
	}
	return files
}

// checkBoard says what makes a saved board look wrong: objects that partly
// overlap or lie exactly on top of each other. An object wholly inside
// another (a note in a frame) is fine; connectors are left out.
func checkBoard(path string) []string {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // the command that should have made it failed, and says so
	} else if err != nil {
		return []string{err.Error()}
	}
	var board struct {
		Objects []struct {
			ID, Type, Text, Title string
			X, Y, Width, Height   float64
		}
	}
	if err := json.Unmarshal(data, &board); err != nil {
		return []string{fmt.Sprintf("not a board: %v", err)}
	}
	type rect struct{ x0, y0, x1, y1 float64 }
	within := func(a, b rect) bool { return a.x0 >= b.x0 && a.y0 >= b.y0 && a.x1 <= b.x1 && a.y1 <= b.y1 }
	var msgs []string
	objs := board.Objects
	name := func(i int) string {
		o := objs[i]
		label := o.Title + o.Text
		if len(label) > 30 {
			label = label[:30] + "…"
		}
		return fmt.Sprintf("%s %q at (%g,%g) %gx%g", o.ID, label, o.X, o.Y, o.Width, o.Height)
	}
	for i, a := range objs {
		if a.Type == "connector" {
			continue
		}
		ra := rect{a.X, a.Y, a.X + a.Width, a.Y + a.Height}
		for j := i + 1; j < len(objs); j++ {
			b := objs[j]
			if b.Type == "connector" {
				continue
			}
			rb := rect{b.X, b.Y, b.X + b.Width, b.Y + b.Height}
			overlap := ra.x0 < rb.x1 && rb.x0 < ra.x1 && ra.y0 < rb.y1 && rb.y0 < ra.y1
			switch {
			case !overlap:
			case ra == rb:
				msgs = append(msgs, fmt.Sprintf("%s and %s lie on top of each other", name(i), name(j)))
			case within(ra, rb) || within(rb, ra):
			default:
				msgs = append(msgs, fmt.Sprintf("%s and %s overlap", name(i), name(j)))
			}
		}
	}
	return msgs
}

// copyTree copies the working tree of the git repository at src into dst:
// tracked and untracked files, not ignored ones.
func copyTree(src, dst string) error {
	out, err := exec.Command("git", "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return fmt.Errorf("listing the working tree's files (git ls-files): %v", err)
	}
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if rel == "" {
			continue
		}
		from, to := filepath.Join(src, rel), filepath.Join(dst, rel)
		fi, err := os.Lstat(from)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree
		} else if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(from)
			if err != nil {
				return err
			}
			if err := os.Symlink(target, to); err != nil {
				return err
			}
		case fi.Mode().IsRegular():
			if err := copyFile(from, to, fi.Mode().Perm()); err != nil {
				return err
			}
		}
	}
	return nil
}

func copyFile(from, to string, perm fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// The harness itself: a document that holds passes, and one that does not
// yields every problem, each where it is.
func TestDocsHarness(t *testing.T) {
	env := &docEnv{path: os.Getenv("PATH"), cache: t.TempDir()}
	run := func(file string) []string {
		text, err := os.ReadFile(filepath.Join("testdata", "docs", file))
		if err != nil {
			t.Fatal(err)
		}
		blocks, errs := parseDoc(file, string(text))
		if len(errs) > 0 {
			t.Fatalf("%s: %v", file, errs)
		}
		var got []string
		for _, p := range env.runDoc(t, file, blocks) {
			got = append(got, p.String())
		}
		return got
	}
	if got := run("good.md"); len(got) > 0 {
		t.Errorf("good.md: %d problems:\n%s", len(got), strings.Join(got, "\n"))
	}
	if _, err := os.Stat("/tmp/codemode-docs-fixture"); err == nil {
		t.Errorf("good.md wrote /tmp/codemode-docs-fixture: /tmp in a command is the document's own TMPDIR")
	}
	bad := map[string][]string{"bad.md": {
		`bad.md:5: a command failed (line 7: false: exit status 1)`,
		`bad.md:17: output differs from what was printed by the block at line 11: shown line 1 "shown" does not match printed line 1 "printed"`,
		`bad.md:23: "sh -c 'exit 4'": exit status 4, and no ` + "`echo $?`" + ` after it shows that`,
		`bad.md:24: "echo shown": shown line 1 "not what is printed" does not match printed line 1 "shown"`,
		`bad.md:26: "printf 'a\\nb\\n'": the output goes on after the last line shown: "b"`,
		`bad.md: board /tmp/boards/b.json: sticky-1 "" at (0,0) 200x200 and sticky-2 "" at (100,100) 200x200 overlap`,
		`bad.md: board /tmp/boards/b.json: sticky-1 "" at (0,0) 200x200 and sticky-3 "" at (100,100) 200x200 overlap`,
		`bad.md: board /tmp/boards/b.json: sticky-2 "" at (100,100) 200x200 and sticky-3 "" at (100,100) 200x200 lie on top of each other`,
		`bad.md: board board.json: sticky-1 "" at (0,0) 200x200 and sticky-2 "" at (100,100) 200x200 overlap`,
		`bad.md: board board.json: sticky-1 "" at (0,0) 200x200 and sticky-3 "" at (100,100) 200x200 overlap`,
		`bad.md: board board.json: sticky-2 "" at (100,100) 200x200 and sticky-3 "" at (100,100) 200x200 lie on top of each other`,
	}, "bad-serve.md": {
		// The blocks after a server that did not start are not run.
		`bad-serve.md:4: the server exited (status 2) before it printed "serving on http://…/"; output:` + "\n\tcannot listen",
	}}
	// After the blocks, the server's problems, then the boards'.
	bad["bad.md"] = slices.Insert(bad["bad.md"], 5,
		`bad.md:57: the server exited with status 3 after Ctrl-C, want 0`,
		`bad.md:57: "./fake-server" (the server, from start to Ctrl-C): shown line 2 "stopped" does not match printed line 2 (the output ended)`)
	for _, file := range slices.Sorted(maps.Keys(bad)) {
		got, want := run(file), bad[file]
		for i := 0; i < max(len(got), len(want)); i++ {
			switch {
			case i >= len(got):
				t.Errorf("%s: missing problem %q", file, want[i])
			case i >= len(want):
				t.Errorf("%s: unexpected problem %q", file, got[i])
			case !strings.HasPrefix(got[i], want[i]):
				t.Errorf("%s: problem %d:\n got %q\nwant %q…", file, i, got[i], want[i])
			}
		}
	}
}

// Misused conventions are reported, all of them, with their lines.
func TestParseDocErrors(t *testing.T) {
	doc := strings.Join([]string{
		/* 1 */ "<!-- output -->",
		/* 2 */ "```",
		/* 3 */ "no block above",
		/* 4 */ "```",
		/* 5 */ "<!-- skip -->",
		/* 6 */ "```sh",
		/* 7 */ "echo no reason",
		/* 8 */ "```",
		/* 9 */ "<!-- skip: not run anyway -->",
		/* 10 */ "```json",
		/* 11 */ "{}",
		/* 12 */ "```",
		/* 13 */ "```console",
		/* 14 */ "no command before this",
		/* 15 */ "$ echo hi",
		/* 16 */ "```",
		/* 17 */ "<!-- output -->",
		/* 18 */ "```",
		/* 19 */ "hi",
		/* 20 */ "```",
		/* 21 */ "```sh",
		/* 22 */ "echo x",
		/* 23 */ "```",
		/* 24 */ "<!-- output -->",
		/* 25 */ "```",
		/* 26 */ "x",
		/* 27 */ "```",
		/* 28 */ "<!-- output -->",
		/* 29 */ "```",
		/* 30 */ "x again",
		/* 31 */ "```",
		/* 32 */ "<!-- output -->",
		/* 33 */ "prose, not a block",
		/* 34 */ "<!-- skip: a reason -->",
		/* 35 */ "```sh",
		/* 36 */ "echo skipped",
		/* 37 */ "```",
		/* 38 */ "<!-- output -->",
		/* 39 */ "```",
		/* 40 */ "skipped",
		/* 41 */ "```",
		/* 42 */ "```sh",
		/* 43 */ "echo never closed",
	}, "\n")
	blocks, errs := parseDoc("x.md", doc)
	var got []string
	for _, err := range errs {
		got = append(got, err.Error())
	}
	want := []string{
		`x.md:1: <!-- output --> with no sh, bash or shell block above it`,
		`x.md:5: <!-- skip: REASON --> needs a reason`,
		`x.md:9: <!-- skip --> before a "json" block, which is not run anyway`,
		`x.md:13: console block: line 14 is not a command ("$ ") and no command comes before it`,
		`x.md:17: <!-- output --> after a console block (x.md:13), which shows its output itself`,
		`x.md:28: a second <!-- output --> for the block at x.md:21 (the first at line 25)`,
		`x.md:32: <!-- output --> is not followed by a fenced block`,
		`x.md:38: <!-- output --> for the skipped block at x.md:35`,
		`x.md:42: the fenced block is not closed`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
	if len(blocks) != 5 || blocks[2].want == nil || blocks[2].want.text != "x" || blocks[3].skip != "a reason" {
		t.Errorf("blocks: %d, want 5: sh, console, sh with output x, skipped sh, sh", len(blocks))
	}
}

// Misused <!-- serve --> directives are reported, with their lines.
func TestParseServeErrors(t *testing.T) {
	doc := strings.Join([]string{
		/* 1 */ "<!-- serve -->",
		/* 2 */ "```console",
		/* 3 */ "$ ./codemode serve",
		/* 4 */ "codemode: serving on http://127.0.0.1:8080/",
		/* 5 */ "```",
		/* 6 */ "<!-- serve -->",
		/* 7 */ "```console",
		/* 8 */ "$ ./codemode serve --data /tmp/b",
		/* 9 */ "```",
		/* 10 */ "<!-- serve: --token x -->",
		/* 11 */ "```console",
		/* 12 */ "$ ./codemode serve",
		/* 13 */ "```",
		/* 14 */ "<!-- serve -->",
		/* 15 */ "```sh",
		/* 16 */ "./codemode serve",
		/* 17 */ "```",
		/* 18 */ "<!-- serve -->",
		/* 19 */ "```console",
		/* 20 */ "$ ./codemode serve",
		/* 21 */ "$ curl http://127.0.0.1:8080/healthz",
		/* 22 */ "```",
		/* 23 */ "<!-- serve -->",
		/* 24 */ "```text",
		/* 25 */ "serving",
		/* 26 */ "```",
	}, "\n")
	blocks, errs := parseDoc("x.md", doc)
	var got []string
	for _, err := range errs {
		got = append(got, err.Error())
	}
	want := []string{
		`x.md:6: a second <!-- serve --> (the first at line 1): one server per document`,
		`x.md:10: <!-- serve --> takes nothing, got ": --token x"`,
		`x.md:14: a second <!-- serve --> (the first at line 1): one server per document`,
		`x.md:18: a second <!-- serve --> (the first at line 1): one server per document`,
		`x.md:23: <!-- serve --> before a "text" block, which is not run anyway`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
	if len(blocks) == 0 || !blocks[0].serve || blocks[0].console[0].want != "codemode: serving on http://127.0.0.1:8080/\n" {
		t.Errorf("the first block is not the server with its output: %+v", blocks)
	}
	// Alone, each misuse is named for what it is.
	for _, tc := range []struct{ doc, want string }{
		{"<!-- serve -->\n```sh\n./codemode serve\n```", `x.md:1: <!-- serve --> wants a console block of one command, the server's, and what it prints`},
		{"<!-- serve -->\n```console\n$ a\n$ b\n```", `x.md:1: <!-- serve --> wants a console block of one command, the server's, and what it prints`},
	} {
		_, errs := parseDoc("x.md", tc.doc)
		if len(errs) != 1 || errs[0].Error() != tc.want {
			t.Errorf("%q: errors %v, want %q", tc.doc, errs, tc.want)
		}
	}
}

func TestCompareOutput(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		ok        bool
	}{
		{"a\nb\n", "a\nb", true},
		{"a  \n\n\n", "a\n", true},
		{"...\n", "", true},
		{"a\n...\nz", "a\nz", true},
		{"a\n...\nz", "a\nb\nc\nz", true},
		{"a\n...\nz", "a\nb\nc", false},
		{"...\nb\n...\nb", "b\nb\nb", true},
		{`  "elapsed_ms": 1.5,`, `  "elapsed_ms": 0.031,`, true},
		{`  "elapsed_ms": 1.5,`, `  "elapsed_ms": "slow",`, false},
		{`"x": 1.5`, `"x": 2`, false},
		{`{"created":"2026-01-02T03:04:05Z","n":1}`, `{"created":"2027-11-12T13:14:15.123456789+02:00","n":1}`, true},
		{`{"created":"2026-01-02T03:04:05Z","n":1}`, `{"created":"yesterday","n":1}`, false},
		{`{"created":"2026-01-02T03:04:05Z","n":1}`, `{"created":"2026-01-02T03:04:05Z","n":2}`, false},
		{`{"runId":"run_0123456789abc","elapsed_ms":1}`, `{"runId":"run_zzzzzzzzzzzzz","elapsed_ms":0.5}`, true},
		{`{"runId":"run_0123456789abc"}`, `{"runId":"run_0123"}`, false},
		{"id: lz9k2a-17", "id: m0abcd-17", true},
		{"id: lz9k2a-17", "id: m0abcd-18", false},
		{"data: id: lz9k2a-17", "data: id: m0abcd-17", false},
		{"a", "a\nb", false},
		{"a\nb", "a", false},
		{" a", "a", false},
	} {
		if got := compareOutput(tc.want, tc.got) == ""; got != tc.ok {
			t.Errorf("compareOutput(%q, %q) matched %v, want %v", tc.want, tc.got, got, tc.ok)
		}
	}
}
