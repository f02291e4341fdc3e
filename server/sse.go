package server

import (
	"bytes"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"
)

// subscriber is one SSE client's queue of frames. Producers — a run's
// events, a board's — never wait for a client: push only queues, and a
// client so far behind that its queue holds more than its limit of bytes
// is dropped (its queue closed, its connection ended), so a client that
// stops reading costs a bounded amount of memory and stalls nobody. The
// limit is in bytes, not events, because runs emit in bursts (a batch's
// operations start together): a client keeping up on average must not be
// dropped for one burst. The client's handler writes the frames out.
type subscriber struct {
	wake chan struct{} // a token when there is something to take

	mu      sync.Mutex
	frames  [][]byte
	bytes   int
	limit   int
	closed  bool
	dropped bool
}

func newSubscriber(limit int) *subscriber {
	return &subscriber{wake: make(chan struct{}, 1), limit: limit}
}

func (q *subscriber) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// push queues a frame without blocking; past the limit the subscriber is
// dropped (one frame larger than the limit still goes to an empty queue).
// It reports whether the frame was queued.
func (q *subscriber) push(f []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	if q.bytes+len(f) > q.limit && len(q.frames) > 0 {
		q.dropped, q.closed = true, true
		q.frames, q.bytes = nil, 0
		q.signal()
		return false
	}
	q.frames = append(q.frames, f)
	q.bytes += len(f)
	q.signal()
	return true
}

// pushFirst queues frames ahead of those queued already, whatever the
// limit: a new watcher's first frames, made after the events that follow
// them began to come (hub.subscribe). A dropped queue stays empty.
func (q *subscriber) pushFirst(frames ...[]byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.dropped {
		return
	}
	for _, f := range frames {
		q.bytes += len(f)
	}
	q.frames = slices.Concat(frames, q.frames)
	q.signal()
}

// close ends the queue once the frames in it are written.
func (q *subscriber) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		q.signal()
	}
}

// drop ends the queue and lets its frames go: nobody will write them (its
// client was dropped or went away) while producers may still push, which
// now costs nothing.
func (q *subscriber) drop() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.dropped, q.closed = true, true
	q.frames, q.bytes = nil, 0
}

// take returns the queued frames, and whether the queue is closed (these
// are its last frames) and why.
func (q *subscriber) take() (frames [][]byte, closed, dropped bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	frames, q.frames, q.bytes = q.frames, nil, 0
	return frames, q.closed, q.dropped
}

// Why a stream ended, besides a failed write.
var (
	errDropped    = errors.New("the client fell too far behind and was dropped")
	errClientGone = errors.New("the client went away")
	errStopped    = errors.New("the server is shutting down")
)

// startStream sends the headers of an SSE answer.
func startStream(w http.ResponseWriter, header http.Header) {
	h := w.Header()
	for k, v := range header {
		h[k] = v
	}
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // a proxy in front must not hold events back
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
}

// pump writes first, then q's frames, to the client until q ends (nil),
// the client is dropped or goes away, a write fails or stop closes. Each
// write has its own deadline, so that a client that stops reading holds the
// handler for at most writeTimeout; frames queued meanwhile go out together
// in the next write. A comment line every heartbeat keeps proxies and
// clients from taking a quiet stream for a dead one.
func (s *Server) pump(w http.ResponseWriter, r *http.Request, q *subscriber, first [][]byte, stop <-chan struct{}) error {
	rc := http.NewResponseController(w)
	// A deadline left on the connection would cut its next answer short.
	defer rc.SetWriteDeadline(time.Time{})
	var buf bytes.Buffer
	write := func(frames [][]byte) error {
		buf.Reset()
		for _, f := range frames {
			buf.Write(f)
		}
		rc.SetWriteDeadline(time.Now().Add(s.writeTimeout)) // fails only where deadlines are unsupported
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
		return rc.Flush()
	}
	if err := write(first); err != nil {
		return err
	}
	tick := time.NewTicker(s.heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-q.wake:
			frames, closed, dropped := q.take()
			if dropped {
				return errDropped
			}
			if len(frames) > 0 {
				if err := write(frames); err != nil {
					return err
				}
			}
			if closed {
				return nil
			}
		case <-tick.C:
			if err := write([][]byte{[]byte(": ping\n\n")}); err != nil {
				return err
			}
		case <-r.Context().Done():
			return errClientGone
		case <-stop:
			// What was sent before the end still goes out (a run's
			// run_end, when the server shuts down after it).
			if frames, _, dropped := q.take(); !dropped && len(frames) > 0 {
				write(frames)
			}
			return errStopped
		}
	}
}
