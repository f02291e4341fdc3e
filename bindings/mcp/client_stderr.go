package mcp

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// stderrTailBytes is how much of a stdio server's last words errors quote.
const stderrTailBytes = 512

// stderrTail keeps the end of a stdio server's standard error, so that
// "cannot connect" and "connection lost" can say why the server gave up
// ("GITHUB_TOKEN not set") instead of only that it did.
type stderrTail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*stderrTailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-stderrTailBytes:]...)
	}
	return len(p), nil
}

// reset forgets a previous process's output.
func (t *stderrTail) reset() {
	t.mu.Lock()
	t.buf = t.buf[:0]
	t.mu.Unlock()
}

// note is ` (stderr: "...")` with the last lines the server wrote, or "".
func (t *stderrTail) note() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	b := t.buf
	if len(b) > stderrTailBytes {
		b = b[len(b)-stderrTailBytes:]
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
	}
	s := strings.TrimSpace(string(b))
	t.mu.Unlock()
	if s == "" {
		return ""
	}
	return fmt.Sprintf(" (its stderr ends: %q)", s)
}
