package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/worker"
)

// cliProcess is the built command, started with its stdin a pipe: "run -"
// waits there, before it sets anything up, for as long as the test likes.
type cliProcess struct {
	cmd            *exec.Cmd
	stdin          io.WriteCloser
	stdout, stderr bytes.Buffer
	done           chan struct{} // closed once the process was waited for
}

func startCLI(t *testing.T, args ...string) *cliProcess {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the codemode command")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to find the command's worker in")
	}
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	c := &cliProcess{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.done)
		_ = c.cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = c.cmd.Process.Kill()
		<-c.done
	})
	return c
}

// finish gives the command its script and waits for it to exit, at most
// a minute; while it runs, it collects every worker process the command
// had. It returns the exit status and those workers.
func (c *cliProcess) finish(t *testing.T, script string) (int, []int) {
	t.Helper()
	io.WriteString(c.stdin, script)
	c.stdin.Close()
	var seen []int
	timeout := time.After(time.Minute)
	for {
		for _, pid := range workersOf(c.cmd.Process.Pid) {
			if !slices.Contains(seen, pid) {
				seen = append(seen, pid)
			}
		}
		select {
		case <-c.done:
			return c.cmd.ProcessState.ExitCode(), seen
		case <-timeout:
			t.Fatalf("the command did not exit within a minute; stderr %q", c.stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// workersOf lists the live worker processes whose parent is pid.
func workersOf(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so split after ")".
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(pid) || f[0] == "Z" {
			continue
		}
		if argv, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline"); strings.HasSuffix(string(argv), "\x00"+worker.Arg+"\x00") {
			out = append(out, child)
		}
	}
	return out
}

// waitWorker waits for the command's one worker, started while it
// initialised, before it read its script.
func (c *cliProcess) waitWorker(t *testing.T) int {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		switch w := workersOf(c.cmd.Process.Pid); len(w) {
		case 0:
		case 1:
			return w[0]
		default:
			t.Fatalf("the command started %d workers before reading its script: %v", len(w), w)
		}
	}
	t.Fatalf("no worker was started while the command waited for its script")
	return 0
}

// alive reports whether pid is a process that has not ended (a zombie has).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !bytes.Contains(stat, []byte(") Z "))
}

// waitGone fails the test if pid does not end within 10 s.
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the worker %d outlived %s", pid, what)
		}
	}
}

func decodeRun(t *testing.T, out string) engine.ExecuteResult {
	t.Helper()
	var res engine.ExecuteResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stdout is not a code-mode result: %v\n%s", err, out)
	}
	return res
}

// "codemode run" starts its worker while the binary initialises, before it
// has even read its script (see internal/prestart); that worker runs the
// script, and no other is started. A command that ends without taking it,
// or is killed, leaves it behind no more than it would one the pool started.
func TestCLIRunPrestartsItsWorker(t *testing.T) {
	// It spins a while, so that a second worker the pool started would be
	// seen beside the first.
	const spin = `const t = Date.now(); while (Date.now() - t < 500) {} return 1`
	t.Run("adopted", func(t *testing.T) {
		c := startCLI(t, "run", "-")
		w := c.waitWorker(t)
		code, seen := c.finish(t, spin)
		if code != exitOK || c.stderr.Len() > 0 {
			t.Fatalf("exit %d, stderr %q", code, c.stderr.String())
		}
		if res := decodeRun(t, c.stdout.String()); string(res.Result) != "1" {
			t.Errorf("result %s, want 1", res.Result)
		}
		if !slices.Equal(seen, []int{w}) {
			t.Errorf("the command's workers: %v, want only the one started at init, %d", seen, w)
		}
		waitGone(t, w, "its command")
	})
	t.Run("usage error", func(t *testing.T) {
		c := startCLI(t, "run", "--board", t.TempDir(), "-") // a directory is no board file
		w := c.waitWorker(t)
		if code, _ := c.finish(t, "return 1"); code != exitUsage {
			t.Fatalf("exit %d, want %d; stderr %q", code, exitUsage, c.stderr.String())
		}
		waitGone(t, w, "its command's usage error")
	})
	t.Run("killed", func(t *testing.T) {
		c := startCLI(t, "run", "-")
		w := c.waitWorker(t)
		if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-c.done
		waitGone(t, w, "its command, killed")
	})
	t.Run("inprocess", func(t *testing.T) {
		c := startCLI(t, "run", "--runner", "inprocess", "-")
		time.Sleep(300 * time.Millisecond) // a worker started at init would be there by now
		code, seen := c.finish(t, "return 1")
		if code != exitOK || c.stderr.Len() > 0 {
			t.Fatalf("exit %d, stderr %q", code, c.stderr.String())
		}
		if res := decodeRun(t, c.stdout.String()); string(res.Result) != "1" {
			t.Errorf("result %s, want 1", res.Result)
		}
		if len(seen) > 0 {
			t.Errorf("--runner inprocess had workers: %v", seen)
		}
	})
}

// The package that starts the worker initialises before the sandbox and the
// engine (and what they import): it must import next to nothing, or the
// worker would start late.
func TestCLIPrestartInitialisesEarly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the codemode command")
	}
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "help")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var trace bytes.Buffer
	cmd.Stderr = &trace
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, trace.String())
	}
	var order []string // the packages, in the order they initialised
	for _, l := range strings.Split(trace.String(), "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[0] == "init" {
			order = append(order, f[1])
		}
	}
	early := slices.Index(order, "github.com/codemode-dev/codemode/cmd/codemode/internal/prestart")
	if early < 0 {
		t.Fatalf("internal/prestart does not initialise:\n%s", trace.String())
	}
	for _, later := range []string{"github.com/dop251/goja", "github.com/codemode-dev/codemode/sandbox/js", "github.com/santhosh-tekuri/jsonschema/v6", "github.com/codemode-dev/codemode/engine"} {
		if i := slices.Index(order, later); i >= 0 && i < early {
			t.Errorf("%s initialises before internal/prestart: the worker starts late", later)
		}
	}
	t.Logf("internal/prestart initialises %d of %d packages in", early+1, len(order))
}
