//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A second codemode serve on a data directory in use is refused, exit
// status 2, with one line naming the directory and the server that uses
// it; once that one stops, the directory is free again.
func TestServeDataInUse(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	data := t.TempDir()
	first := startServe(t, "--addr", "127.0.0.1:0", "--data", data)
	// The second as a process too, so that one that starts after all
	// fails the test instead of serving for ever.
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "serve", "--addr", "127.0.0.1:0", "--data", data, "--runner", "inprocess")
	cmd.Env = append(os.Environ(), tokenEnv+"=")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := cmd.ProcessState.ExitCode()
	want := "codemode: serve: --data " + data + ": another codemode serve (process " + strconv.Itoa(first.cmd.Process.Pid) + ") uses this data directory (it holds " +
		filepath.Join(data, "boards.db.lock") + "): stop it, or give this one another --data\n"
	if ctx.Err() != nil || code != exitUsage || stdout.String() != "" || stderr.String() != want {
		t.Errorf("second server: %v, exit %d, stdout %q, stderr %q; want exit 2 and %q", err, code, stdout.String(), stderr.String(), want)
	}
	if code := first.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("the first server: exit status %d\n%s", code, first.stderr.String())
	}
	second := startServe(t, "--addr", "127.0.0.1:0", "--data", data)
	if code := second.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("the second server, after the first stopped: exit status %d", code)
	}
}

// lockData holds against another open of the lock file (flock locks are
// per open file, so this holds within one process too), and its release
// frees it.
func TestLockData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "boards.db.lock")
	unlock, err := lockData(path)
	if err != nil {
		t.Fatal(err)
	}
	if pid, _ := os.ReadFile(path); strings.TrimSpace(string(pid)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock file holds %q, want this process's id", pid)
	}
	if _, err := lockData(path); err == nil {
		t.Fatal("a second lock succeeded")
	} else if e, ok := err.(*dataInUseError); !ok || e.process() != " (process "+strconv.Itoa(os.Getpid())+")" {
		t.Errorf("second lock: %v", err)
	}
	unlock()
	again, err := lockData(path)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	again()
}
