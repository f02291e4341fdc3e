package worker

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain makes the test binary a few broken workers the tests start on
// purpose, each this binary with one argument (the package's init makes it
// its own real worker).
func TestMain(m *testing.M) {
	if len(os.Args) == 2 {
		if f, ok := brokenWorkers[os.Args[1]]; ok {
			f()
			os.Exit(0)
		}
	}
	goleak.VerifyTestMain(m)
}

// brokenWorkers misbehave after a correct start (config read, ready sent).
var brokenWorkers = map[string]func(){
	"hang": func() { // takes the run and never answers
		handshake()
		select {}
	},
	"exit": func() { // dies as soon as a run arrives
		handshake()
		in := bufio.NewReader(os.Stdin)
		_, _, _ = readFrame(in, 1<<30)
		fmt.Fprintln(os.Stderr, "panic: something broke in the worker")
		os.Exit(2)
	},
	"huge": func() { // announces a frame over the protocol's limit
		handshake()
		in := bufio.NewReader(os.Stdin)
		_, _, _ = readFrame(in, 1<<30)
		os.Stdout.Write([]byte{0x7f, 0xff, 0xff, 0xff, kindDone})
		select {}
	},
	"garbage": func() { // answers with a result that is not JSON
		handshake()
		in := bufio.NewReader(os.Stdin)
		_, _, _ = readFrame(in, 1<<30)
		w := bufio.NewWriter(os.Stdout)
		w.Write([]byte{0, 0, 0, 2, kindDone, '{'})
		w.Flush()
		select {}
	},
	"spin": func() { // takes the run, sets its CPU limit as a run would, and spins past it
		handshake()
		_ = applyLimits(configMsg{})
		in := bufio.NewReader(os.Stdin)
		_, _, _ = readFrame(in, 1<<30)
		setCPULimit(time.Millisecond)
		for {
		}
	},
	"badindex": func() { // a call whose index would make the host size its trace to 2^31 entries
		handshake()
		in := bufio.NewReader(os.Stdin)
		_, _, _ = readFrame(in, 1<<30)
		w := bufio.NewWriter(os.Stdout)
		_ = writeFrame(w, kindCalls, appendCalls(nil, []callMsg{{Index: 1 << 31, Tool: "add", Args: []byte(`{}`)}}))
		select {}
	},
	"echo": func() { // the floor: one byte back for each byte (BenchmarkPipeRoundTrip)
		b := make([]byte, 1)
		for {
			if _, err := os.Stdin.Read(b); err != nil {
				return
			}
			os.Stdout.Write(b)
		}
	},
	"probe": func() { // reports its environment and descriptors, then fails to start
		closeInherited()
		var fds []string
		entries, _ := os.ReadDir("/proc/self/fd")
		for _, e := range entries {
			l, _ := os.Readlink("/proc/self/fd/" + e.Name())
			fds = append(fds, e.Name()+"="+l)
		}
		fmt.Fprintf(os.Stderr, "env=%d fds=%s\n", len(os.Environ()), strings.Join(fds, ","))
		os.Exit(1)
	},
}

// handshake is a worker's start: its hello, then the configuration read
// and ready sent.
func handshake() {
	os.Stdout.Write(helloFrame())
	in := bufio.NewReader(os.Stdin)
	if _, _, err := readFrame(in, 1<<20); err != nil {
		os.Exit(1)
	}
	w := bufio.NewWriter(os.Stdout)
	_ = writeFrame(w, kindReady, nil)
}

// self is the test binary started with arg.
func self(arg string) []string { return []string{os.Args[0], arg} }

// raceSlowdown scales time bounds under the race detector.
var slow = time.Duration(1)

// heavy skips a test that needs the worker's memory limit or allocates
// hundreds of MiB: the race detector rules the limit out (RaceDetector) and
// makes such scripts crawl.
func heavy(t *testing.T) {
	t.Helper()
	if RaceDetector {
		t.Skip("needs the worker memory limit, which the race detector rules out")
	}
}

// waitWarm waits until the pool has n idle workers (its warm-up done), so
// that a test counting started workers counts only its own.
func waitWarm(t *testing.T, p *Pool, n int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		p.mu.Lock()
		idle, warming := len(p.idle), p.warming
		p.mu.Unlock()
		if idle >= n && warming == 0 {
			return
		}
	}
	t.Fatalf("the pool did not warm %d workers", n)
}
