package wasm

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tetratelabs/wazero/experimental"
)

// instanceIO is what an instance talks to: its streams, its memory and its
// clock. A pooled instance keeps one for its whole life, reset per call.
type instanceIO struct {
	stdin  bytes.Reader
	stdout capped
	stderr capped
	mem    *limitedMemory
	ctx    context.Context // the current call's, for sleep
}

func newInstanceIO(lim Limits) *instanceIO {
	io := &instanceIO{mem: &limitedMemory{limit: uint64(pagesFor(lim.MemoryBytes)) * pageSize}}
	io.stdout.max, io.stderr.max = lim.MaxStdoutBytes, lim.MaxStderrBytes
	return io
}

// reset prepares the streams for a call: args on stdin, empty outputs. A
// stream over its cap stops the call at once (stop cancels its context,
// which closes the instance): a module that ignores write errors, as Go's
// fmt does, would otherwise write on until its timeout.
func (io *instanceIO) reset(ctx context.Context, stop context.CancelFunc, args []byte) {
	io.ctx = ctx
	io.stdin.Reset(args)
	io.stdout.reset(stop)
	io.stderr.reset(stop)
	io.mem.refused = 0
}

// sleep is the module's nanosleep (and poll_oneoff's clock wait): real time,
// cut short when the call ends, so that a sleeping module cannot outlive its
// deadline. wazero's default sleep is a no-op stand-in.
func (io *instanceIO) sleep(ns int64) {
	t := time.NewTimer(time.Duration(ns))
	defer t.Stop()
	select {
	case <-t.C:
	case <-io.ctx.Done():
	}
}

// maxMessage bounds the stderr text quoted in an error message.
const maxMessage = 2000

// stderrText is the module's stderr as a one-paragraph message, clipped.
func (io *instanceIO) stderrText() string {
	return clip(strings.TrimSpace(string(io.stderr.buf)), maxMessage)
}

// stderrSuffix is the first paragraph of stderr, for appending to the
// message of a crash: a runtime's goroutine or stack dump that follows it
// (Go's "fatal error: out of memory" does) only buries the cause.
func (io *instanceIO) stderrSuffix() string {
	s, _, _ := strings.Cut(io.stderrText(), "\n\n")
	if s = strings.TrimSpace(s); s != "" {
		return "; stderr: " + s
	}
	return ""
}

// clip cuts s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// errCapped is what a write past a stream's cap returns to the module.
var errCapped = errors.New("output limit reached")

// capped is an output stream with a cap.
type capped struct {
	buf  []byte
	max  int
	over bool
	stop context.CancelFunc
}

func (c *capped) reset(stop context.CancelFunc) {
	c.buf, c.over, c.stop = c.buf[:0], false, stop
}

func (c *capped) Write(p []byte) (int, error) {
	if c.over {
		return 0, errCapped
	}
	if len(c.buf)+len(p) > c.max {
		c.buf = append(c.buf, p[:c.max-len(c.buf)]...)
		c.over = true
		c.stop()
		return 0, errCapped
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

// limitedMemory backs an instance's linear memory and enforces its limit.
// Growing past the limit is refused (memory.grow returns -1 to the module)
// and remembered, so a call that then fails is reported as memory_limit
// whatever the module's language does about it: Go exits with "out of
// memory", C returns NULL from malloc, hand-written code traps.
//
// The limit is per instance, which is why it is enforced here rather than
// with wazero's per-runtime memory limit: one runtime serves every tool.
//
// Small memories are Go slices, grown like append. Past smallMemory, where it
// can, the memory moves once into a private anonymous mapping of the whole
// limit, outside the Go heap (mem_unix.go): growing then never copies,
// untouched pages cost nothing, and a tool's megabytes neither load the
// garbage collector nor count as heap growth of the process (which code
// mode's memory watchdog measures). Small modules stay on the heap because a
// mapping costs two system calls per instance, more than such a module's
// whole call.
type limitedMemory struct {
	buf     []byte
	limit   uint64
	maxSize uint64   // the module's own declared maximum, or the limit
	mapped  *mapping // the reservation, once mapped; buf is a prefix of it
	refused uint64   // the size of the largest refused request, in this call
}

// mapping is a reservation made by mapMemory, unmapped exactly once: by the
// instance's owner once the instance is closed, or by a cleanup when the
// memory became unreachable without that (an instance closed by wazero on
// its own, which then skips our release).
type mapping struct {
	b    []byte
	once sync.Once
}

func (mp *mapping) unmap() { mp.once.Do(func() { unmapMemory(mp.b) }) }

// smallMemory is the size up to which linear memory stays in the Go heap.
const smallMemory = 1 << 20

var _ experimental.MemoryAllocator = (*limitedMemory)(nil)

// Allocate is called once, when the instance is made; the memory then lives
// as long as the instance, and Free is called when the instance is closed,
// on the goroutine that ran it.
func (m *limitedMemory) Allocate(_, maxBytes uint64) experimental.LinearMemory {
	m.maxSize = min(maxBytes, m.limit)
	return m
}

func (m *limitedMemory) Reallocate(size uint64) []byte {
	switch {
	case size > m.limit:
		m.refused = max(m.refused, size)
		return nil
	case size > m.maxSize: // over the module's own declared maximum
		return nil
	case m.mapped != nil:
		m.buf = m.mapped.b[:size]
		return m.buf
	case size <= uint64(cap(m.buf)):
		m.buf = m.buf[:size] // memory only grows: the bytes past the old length are still zero
		return m.buf
	case size > smallMemory:
		if b := mapMemory(m.maxSize); b != nil {
			copy(b, m.buf)
			m.mapped, m.buf = &mapping{b: b}, b[:size]
			runtime.AddCleanup(m, (*mapping).unmap, m.mapped)
			return m.buf
		}
	}
	// Grow geometrically, as append does, but never past the maximum.
	newCap := min(max(size, 2*uint64(cap(m.buf))), m.maxSize)
	buf := make([]byte, size, newCap)
	copy(buf, m.buf)
	m.buf = buf
	return buf
}

// Free does nothing: wazero calls it when the instance is closed, which can
// happen on another goroutine while the module still runs (Runtime.Close,
// an instance closed at its deadline), and unmapping then would crash the
// process. The owner calls release once the module has stopped.
func (m *limitedMemory) Free() {}

// release unmaps the memory; the instance must be closed and not running.
func (m *limitedMemory) release() {
	if m.mapped != nil {
		m.mapped.unmap()
	}
	m.buf = nil
}

// cryptoRand is the modules' random source: the host's, not wazero's
// deterministic stand-in.
type cryptoRand struct{}

func (cryptoRand) Read(p []byte) (int, error) { return rand.Read(p) }
