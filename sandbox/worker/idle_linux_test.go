package worker

import (
	"os"
	"testing"
	"time"
)

// TestReadyWaiter: the script loop's wait returns as soon as stdin has
// something to read, spins no longer than its bound when nothing comes,
// and stops spinning once its spins stop paying.
func TestReadyWaiter(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	rw := newReadyWaiter(r)
	if rw == nil {
		t.Fatal("no readyWaiter for a pipe")
	}
	if rw.readable() {
		t.Fatal("an empty pipe is readable")
	}
	rw.policy.credit = spinCredit - 1
	if _, err := w.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	rw.wait()
	if !rw.readable() {
		t.Fatal("a pipe with a byte in it is not readable")
	}
	if rw.policy.credit != spinCredit {
		t.Errorf("a spin that saw its frame left credit %d", rw.policy.credit)
	}
	buf := make([]byte, 1)
	if _, err := r.Read(buf); err != nil {
		t.Fatal(err)
	}
	before := cpuTime(t)
	for range 100 { // nothing comes: each wait gives up after spinFor, and the credit runs out
		rw.wait()
	}
	if used := cpuTime(t) - before; used > 50*time.Millisecond*slow {
		t.Errorf("100 waits for nothing used %v of CPU", used)
	}
	if rw.policy.credit != 0 {
		t.Errorf("credit %d after waits that saw nothing", rw.policy.credit)
	}
}
