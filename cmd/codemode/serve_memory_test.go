//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// memoryBombs are ordinary memory bombs: each keeps its memory in a way no
// size guard sees (no single builtin call is large), so only the heap
// watchdog ends it. Alone, with a 128 MiB budget, each ends with
// memory_limit at 0.2–1 GB of resident memory (the doubling at most).
var memoryBombs = []struct{ name, code string }{
	{"template doubling", "let s = 'x'; for (;;) s = `${s}${s}`;"},
	{"a huge regexp input", "const s = 'ab'.repeat(4e5); const keep = []; for (;;) keep.push(s.replace(/b/, 'c'));"},
	{"class fields", "class A { a = [1, 2, 3, 4]; b = 'x' + Math.random(); c = { d: this.a }; }\nconst keep = []; for (;;) keep.push(new A());"},
	{"indexed properties", "const o = {}; for (let i = 0; ; i++) o[i] = { i };"},
	{"a map", "const m = new Map(); for (let i = 0; ; i++) m.set(i, { i, s: 'm' + i });"},
	{"closures", "const keep = []; for (let i = 0; ; i++) { const j = 'c' + i; keep.push(() => j); }"},
	{"parsed JSON", "const t = JSON.stringify(Array(1e4).fill({ a: 1, b: 'two' })); const keep = []; for (;;) keep.push(JSON.parse(t));"},
	{"templates kept", "const s = 'x'.repeat(1 << 20); const keep = []; for (let i = 0; ; i++) keep.push(`${s}${i}`);"},
}

// Eight memory bombs sent one after another to codemode serve --runner
// inprocess, under a 2.5 GiB data-segment limit (RLIMIT_DATA, which Go's
// heap counts against), each end with memory_limit, and the server then
// answers a normal run.
//
// Before the watchdog set a soft memory limit, the live heap it reads went
// stale after each bomb (the collector's next goal was twice the last live
// heap away), the next bomb hid what it allocated meanwhile in its base,
// and the heap grew from bomb to bomb: 1.1, 1.7, 2.4, 3.6 GB resident
// without a limit; under this one the server died at the third bomb
// (measured). With it the peak stays near the doubling's: 0.3–1 GB
// resident, 0.4–1.2 GB of data segment.
func TestServeInProcessMemoryBombs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs memory bombs for a minute")
	}
	bin, err := cliBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "limits.json")
	// A long timeout: on a busy machine a bomb has taken 20 s to reach its
	// budget, and the code it ends with is what is tested.
	if err := os.WriteFile(cfg, []byte(`{"script": {"timeout": "2m", "maxMemoryBytes": 134217728}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	const dataLimitKiB = 2560 << 10
	s := startServeCmd(t, exec.Command("/bin/sh", "-c", `ulimit -d `+strconv.Itoa(dataLimitKiB)+` && exec "$0" "$@"`,
		bin, "serve", "--addr", "127.0.0.1:0", "--data", filepath.Join(dir, "data"), "--runner", "inprocess", "--config", cfg))
	pid := s.cmd.Process.Pid
	for _, b := range memoryBombs {
		start := time.Now()
		res := executeOn(t, s, b.code)
		t.Logf("%s: %s in %v; server %s", b.name, res.Error.Code, time.Since(start).Round(time.Millisecond), procMemory(pid))
		// The watchdog's memory_limit, not a size guard's: no single
		// builtin call of these is large.
		if res.Success || res.Error.Code != "memory_limit" || !strings.Contains(res.Error.Message, "more memory than its limit") {
			t.Errorf("%s: success %v, error %+v; want the watchdog's memory_limit", b.name, res.Success, res.Error)
		}
	}
	if res := executeOn(t, s, "return 6 * 7"); !res.Success || string(res.Result) != "42" {
		t.Errorf("the normal run after the bombs: success %v, result %s, error %+v", res.Success, res.Result, res.Error)
	}
}

type executeAnswer struct {
	Success bool            `json:"success"`
	Result  json.RawMessage `json:"result"`
	Error   struct {
		Code, Message string
	} `json:"error"`
}

// executeOn runs code with POST /v1/execute; a server that died fails the
// test with its exit status and the start of what it wrote.
func executeOn(t *testing.T, s *servedCmd, code string) executeAnswer {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"code": code})
	resp, err := http.Post(s.base+"/v1/execute", "application/json", bytes.NewReader(body))
	if err != nil {
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
		}
		out := s.stderr.String()
		if lines := strings.SplitAfter(out, "\n"); len(lines) > 12 {
			out = strings.Join(lines[:12], "") + "…"
		}
		t.Fatalf("POST /v1/execute: %v; the server: %v\n%s", err, s.err, out)
	}
	defer resp.Body.Close()
	var a executeAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/execute: status %d, %v", resp.StatusCode, err)
	}
	return a
}

// procMemory is the peak resident memory and the data segment of process
// pid, from /proc.
func procMemory(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") || strings.HasPrefix(line, "VmData:") {
			out = append(out, strings.Join(strings.Fields(line), " "))
		}
	}
	return strings.Join(out, ", ")
}
