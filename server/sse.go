package server

import (
	"bytes"
	"errors"
	"net/http"
	"sync"
	"time"
)

// subscriber is one SSE client's queue of frames. Producers — a run's
// events, a board's — never wait for a client: push only queues, and a
// client so far behind that its queue is full is dropped (its queue closed,
// its connection ended), so a client that stops reading costs a bounded
// amount of memory and stalls nobody. The client's handler writes the
// frames out.
type subscriber struct {
	ch chan []byte

	mu      sync.Mutex
	closed  bool
	dropped bool
}

func newSubscriber(capacity int) *subscriber {
	return &subscriber{ch: make(chan []byte, capacity)}
}

// push queues a frame without blocking; on a full queue the subscriber is
// dropped. It reports whether the frame was queued.
func (q *subscriber) push(f []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	select {
	case q.ch <- f:
		return true
	default:
		q.dropped, q.closed = true, true
		close(q.ch)
		return false
	}
}

// close ends the queue once the frames in it are written.
func (q *subscriber) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		close(q.ch)
	}
}

func (q *subscriber) wasDropped() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.dropped
}

// Why a stream ended, besides a failed write.
var (
	errDropped    = errors.New("the client fell too far behind and was dropped")
	errClientGone = errors.New("the client went away")
	errStopped    = errors.New("the server is shutting down")
)

// maxWriteBytes is how much a stream gathers from its queue into one write.
const maxWriteBytes = 64 << 10

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

// pump writes q's frames to the client until q ends (nil), the client is
// dropped or goes away, a write fails or stop closes. Each write has its
// own deadline, so that a client that stops reading holds the handler for at
// most writeTimeout; frames queued meanwhile are gathered into one write. A
// comment line every heartbeat keeps proxies and clients from taking a quiet
// stream for a dead one.
func (s *Server) pump(w http.ResponseWriter, r *http.Request, q *subscriber, first []byte, stop <-chan struct{}) error {
	rc := http.NewResponseController(w)
	write := func(b []byte) error {
		rc.SetWriteDeadline(time.Now().Add(s.writeTimeout)) // fails only where deadlines are unsupported
		if _, err := w.Write(b); err != nil {
			return err
		}
		return rc.Flush()
	}
	// A deadline left on the connection would cut its next answer short.
	defer rc.SetWriteDeadline(time.Time{})
	var buf bytes.Buffer
	buf.Write(first)
	if err := write(buf.Bytes()); err != nil {
		return err
	}
	tick := time.NewTicker(s.heartbeat)
	defer tick.Stop()
	for {
		select {
		case f, ok := <-q.ch:
			if !ok {
				if q.wasDropped() {
					return errDropped
				}
				return nil
			}
			buf.Reset()
			buf.Write(f)
		gather:
			for buf.Len() < maxWriteBytes {
				select {
				case f, ok := <-q.ch:
					if !ok {
						break gather // written first; the loop then sees the end
					}
					buf.Write(f)
				default:
					break gather
				}
			}
			if q.wasDropped() {
				return errDropped
			}
			if err := write(buf.Bytes()); err != nil {
				return err
			}
		case <-tick.C:
			if err := write([]byte(": ping\n\n")); err != nil {
				return err
			}
		case <-r.Context().Done():
			return errClientGone
		case <-stop:
			return errStopped
		}
	}
}
