// The tests read /proc and signal processes: Linux and the other Unixes.

//go:build unix

package spawn

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// tool is the path of a system program, or the test is skipped.
func tool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("no %s here: %v", name, err)
	}
	return path
}

// A worker gets nothing of the host's environment.
func TestStartGivesNoEnvironment(t *testing.T) {
	t.Setenv("SPAWN_TEST_SECRET", "x")
	p, err := Start([]string{tool(t, "env")})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Discard()
	out, err := io.ReadAll(p.Stdout)
	if err != nil || len(out) != 0 {
		t.Errorf("the worker's environment: %q (%v), want none", out, err)
	}
}

// Discard ends the process and reaps it: no zombie is left.
func TestDiscardReaps(t *testing.T) {
	p, err := Start([]string{tool(t, "sleep"), "60"})
	if err != nil {
		t.Fatal(err)
	}
	p.Discard()
	if err := syscall.Kill(p.Pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("after Discard, signalling the process: %v, want ESRCH (no such process)", err)
	}
}

// A program that cannot be started is an error, with no descriptor left
// open.
func TestStartFails(t *testing.T) {
	before := openFiles(t)
	if _, err := Start([]string{"/no/such/program"}); err == nil {
		t.Fatal("started a program that does not exist")
	}
	if after := openFiles(t); after != before {
		t.Errorf("%d descriptors open after the failed start, %d before", after, before)
	}
}

func openFiles(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot list descriptors: %v", err)
	}
	return len(fds)
}
