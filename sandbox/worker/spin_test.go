//go:build unix

package worker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/sandbox/js"
)

// TestSpinReaderReadsAsTheFile reads a pipe through a spinning reader
// while the writer pauses less and more than spinFor between pieces: every
// byte arrives in order, then io.EOF.
func TestSpinReaderReadsAsTheFile(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run("GOMAXPROCS="+strconv.Itoa(procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			sr := newSpinReader(r, func() bool { return true })
			if _, ok := sr.(*spinReader); !ok {
				t.Fatalf("newSpinReader gave %T for a pipe, not a spinReader", sr)
			}
			var want bytes.Buffer
			pauses := []time.Duration{0, time.Microsecond, 20 * time.Microsecond, spinFor * 3, 5 * time.Millisecond}
			go func() {
				defer w.Close()
				for i := range 200 {
					piece := bytes.Repeat([]byte{byte('a' + i%26)}, 1+i*37%5000)
					time.Sleep(pauses[i%len(pauses)])
					if _, err := w.Write(piece); err != nil {
						return
					}
				}
			}()
			for i := range 200 {
				want.Write(bytes.Repeat([]byte{byte('a' + i%26)}, 1+i*37%5000))
			}
			got, err := io.ReadAll(bufio.NewReaderSize(sr, 1024))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("read %d bytes, want %d, or not the same", len(got), want.Len())
			}
		})
	}
}

// TestSpinReaderOnlyForPolledFiles: a file the runtime does not poll (a
// regular file here, as a worker's inherited blocking stdin would be) is
// read as it is.
func TestSpinReaderOnlyForPolledFiles(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "plain")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if r := newSpinReader(f, func() bool { return true }); r != io.Reader(f) {
		t.Errorf("newSpinReader wrapped a regular file: %T", r)
	}
}

// TestPollableStdin: a worker inherits its stdin in blocking mode, which
// the runtime does not poll; pollable makes it a file the spinning reader
// takes, and which reads the same.
// sharedDescriptors keeps files whose descriptor another file closed: see
// TestPollableStdin.
var sharedDescriptors []*os.File

func TestPollableStdin(t *testing.T) {
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	in, w := os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "w")
	defer w.Close()
	if r := newSpinReader(in, nil); r != io.Reader(in) {
		t.Fatalf("a blocking pipe was taken as polled: %T", r)
	}
	polled := pollable(in)
	// in and polled share a descriptor, and each *os.File closes it when it
	// is collected: once polled has closed it, in's finalizer would close
	// the number again, whichever file has it by then (it was the pipe
	// testing reads an Example's output from: the package's tests hung
	// there). in is kept for the life of the process, as os.Stdin is in a
	// worker.
	sharedDescriptors = append(sharedDescriptors, in)
	defer polled.Close()
	r := newSpinReader(polled, func() bool { return true })
	if _, ok := r.(*spinReader); !ok {
		t.Fatalf("pollable(stdin) is not polled: %T", r)
	}
	go func() {
		time.Sleep(10 * time.Millisecond)
		w.Write([]byte("frame"))
	}()
	buf := make([]byte, 16)
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "frame" {
		t.Errorf("Read = %q, %v", buf[:n], err)
	}
}

// TestSpinReaderWaitsWithoutCPU: a reader waiting for a frame that does not
// come spins at most spinFor, then parks; with nothing to read for 300 ms
// the process uses next to no CPU.
func TestSpinReaderWaitsWithoutCPU(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sr := newSpinReader(r, func() bool { return true })
	sr.(*spinReader).policy.credit = spinCredit // spins have paid off so far
	go func() {
		time.Sleep(300 * time.Millisecond)
		w.Write([]byte("x"))
		w.Close()
	}()
	before := cpuTime(t)
	buf := make([]byte, 1)
	if n, err := sr.Read(buf); n != 1 || err != nil {
		t.Fatalf("Read = %d, %v", n, err)
	}
	if used := cpuTime(t) - before; used > 30*time.Millisecond*slow {
		t.Errorf("waiting 300 ms for a frame used %v of CPU", used)
	}
}

// TestSpinPolicy: a reader whose spins end parked stops spinning but for a
// probe now and then; spins that end with a frame bring it back.
func TestSpinPolicy(t *testing.T) {
	var p spinPolicy
	allowed := func(n int) (k int) {
		for range n {
			if p.allow() {
				k++
			}
		}
		return k
	}
	if got := allowed(spinProbe * 4); got != 4 {
		t.Errorf("without credit, %d waits spin, want one in %d (4)", got, spinProbe)
	}
	for range 3 {
		p.hit()
	}
	if got := allowed(3); got != 3 {
		t.Errorf("after 3 hits, %d of 3 waits spin", got)
	}
	for range 3 {
		p.miss()
	}
	if p.allow() {
		t.Error("after as many misses as hits, the reader still spins")
	}
	for range 100 {
		p.hit()
	}
	if p.credit != spinCredit {
		t.Errorf("credit %d after 100 hits, want the cap %d", p.credit, spinCredit)
	}
}

// TestWaitingWorkerBurnsNoCPU: while a run waits 300 ms for a slow tool,
// and then while it is idle, neither the worker nor the host spins beyond
// its bound.
func TestWaitingWorkerBurnsNoCPU(t *testing.T) {
	p := newPool(t, Config{Warm: 1, Max: 1})
	opt := js.Options{Tools: []string{"t", "slow"}, Host: slowHost{}}
	res := p.RunScript(context.Background(), js.Job{Code: `for (let i = 0; i < 20; i++) await tools.t({}); return 1`, Options: opt})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	p.mu.Lock()
	pid := p.idle[0].process.Pid
	p.mu.Unlock()
	cpu := func() time.Duration { return cpuTime(t) + processCPU(t, pid) }

	before := cpu()
	res = p.RunScript(context.Background(), js.Job{Code: `await tools.slow({}); return 1`, Options: opt})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if used := cpu() - before; used > 100*time.Millisecond*slow {
		t.Errorf("a run waiting 300 ms for its call used %v of CPU in the host and worker", used)
	}
	before = cpu()
	time.Sleep(300 * time.Millisecond)
	if used := cpu() - before; used > 30*time.Millisecond*slow {
		t.Errorf("an idle worker and its host used %v of CPU in 300 ms", used)
	}
}

// slowHost resolves "slow" after 300 ms, anything else at once.
type slowHost struct{}

func (slowHost) Start(calls []*js.Call) {
	for _, c := range calls {
		if c.Tool == "slow" {
			go func() {
				time.Sleep(300 * time.Millisecond)
				c.Resolve(json.RawMessage(`1`))
			}()
			continue
		}
		c.Resolve(json.RawMessage(`1`))
	}
}

// cpuTime is the CPU time this process has used.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// processCPU is the CPU time process pid has used, from /proc.
func processCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Skip("no /proc here:", err)
	}
	// The fields after the command's closing parenthesis; utime and stime
	// are the 14th and 15th of the line, in clock ticks (100 a second).
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
