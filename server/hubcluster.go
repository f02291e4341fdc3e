package server

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// A board's hub in a cluster: its event ids are the board's log's (epoch,
// seq), the same on every replica. The replica that holds the board's lock
// publishes (publishSeen) and appends what it publishes to the log through
// an appender; the others read the log when told of new events (Listen) and
// deliver them to their watchers with the same ids (ingest), so that a
// client resumes on any replica.

// sinceSettled returns the frames of the events after h.settled, for a
// watcher sent the committed board of a cluster's log: false when this
// replica is the one changing the board (it sends the board being changed
// instead), or the ring lost some of them. h.mu is held.
func (h *hub) sinceSettled() ([][]byte, bool) {
	if h.s.cluster == nil || h.working != nil || !h.logged || h.settled > h.seq {
		return nil, false
	}
	if h.settled < h.seq && (len(h.ring) == 0 || h.ring[0].seq > h.settled+1) {
		return nil, false
	}
	var out [][]byte
	for _, k := range h.ring {
		if k.seq > h.settled {
			out = append(out, k.frame)
		}
	}
	return out, true
}

// ingest delivers the log's events after the hub's last to its watchers,
// and notes where the log stands. It returns how many it delivered, and
// whether the board was deleted (board_deleted was among them: the streams
// ended). h.mu is held; st.Epoch is h.epoch, or the hub was never logged.
func (h *hub) ingest(st LogState, evs []LoggedEvent) (n int, deleted bool) {
	if !h.logged {
		h.epoch, h.logged, h.seq = st.Epoch, true, 0
		h.letGo()
	}
	if h.seq > st.Seq { // this replica delivered events the log lost (an append failed)
		h.dropWatchers()
		h.letGo()
		h.seq = 0
	}
	for _, e := range evs {
		if e.Seq <= h.seq {
			continue
		}
		if e.Seq != h.seq+1 { // the log no longer has the ones between
			h.letGo()
		}
		h.seq = e.Seq
		n++
		if e.Type == "board_deleted" {
			h.endAt(e.Seq, e.Type, e.Data)
			return n, true
		}
		h.deliver(e.Seq, e.Type, e.Data)
	}
	if st.Seq > h.seq {
		h.letGo()
		h.seq = st.Seq
	}
	h.settled = st.Settled
	return n, false
}

// dropWatchers ends every watcher's stream: what they were sent is not the
// board's log, and their clients, coming back, are sent the board whole.
// h.mu is held.
func (h *hub) dropWatchers() {
	for q := range h.subs {
		q.close()
	}
	clear(h.subs)
}

// take makes this replica the board's writer as it takes the board's lock:
// st is the log as the lock found it, after the hub caught up with it
// (Server.syncHub). It reports whether the log is another than the one the
// hub followed (the board was deleted meanwhile, and maybe made again), and
// whether watchers here missed events the hub could not read (they are to
// be sent the board whole).
func (h *hub) take(w *appender, st LogState) (newLog, missed bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	newLog = h.logged && h.epoch != st.Epoch
	missed = h.logged && !newLog && h.seq < st.Seq && len(h.subs) > 0
	if newLog || !h.logged || h.seq > st.Seq {
		if h.seq > st.Seq {
			h.dropWatchers()
		}
		h.epoch, h.logged, h.seq = st.Epoch, true, st.Seq
		h.letGo()
	}
	if h.seq < st.Seq { // the log no longer has what the hub missed
		h.letGo()
		h.seq = st.Seq
	}
	h.settled = st.Settled
	h.writer = w
	return newLog, missed
}

// leave ends this replica's turn as the board's writer, and returns the
// seq of the last event it published: every change up to it is in the
// committed board now.
func (h *hub) leave() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.writer = nil
	h.settled = h.seq
	return h.seq
}

// watched reports whether the hub has watchers, or may have some come back
// to resume.
func (h *hub) watched() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs) > 0 || !h.unwatched()
}

// behind reports whether a notice of the log at seq tells the hub of
// events it has not delivered. h's own events (this replica's) are not.
func (h *hub) behind(seq uint64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.writer == nil && (!h.logged || seq > h.seq)
}

// appender appends a writer's events to the board's log in the order they
// were published, in batches, off the run's path: a run does not wait for
// the database at every event, only at its end (close).
type appender struct {
	lock    BoardLock
	id      string
	log     *slog.Logger
	timeout time.Duration

	mu     sync.Mutex
	queue  []LoggedEvent
	failed bool // an append failed: later ones would leave a gap, so none is made
	last   uint64

	kick chan struct{}
	stop chan struct{}
	done chan struct{}
}

func newAppender(lock BoardLock, id string, log *slog.Logger, timeout time.Duration) *appender {
	a := &appender{lock: lock, id: id, log: log, timeout: timeout,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	a.last = lock.State().Seq
	go a.loop()
	return a
}

// add queues an event; the hub's lock is held, so events come in order.
func (a *appender) add(e LoggedEvent) {
	a.mu.Lock()
	a.queue = append(a.queue, e)
	a.mu.Unlock()
	select {
	case a.kick <- struct{}{}:
	default:
	}
}

// appendGather is how long the appender lets events gather before it
// appends them: a run's events come a few at a time over milliseconds, and
// each append is a round trip, a transaction and a notice to every
// replica. Measured (10 clients on three replicas, the load test's 10-call
// script, statements counted in PostgreSQL's log): 4.2 appends a run
// without it, 3.1 with 5 ms, 1.9 with 20 ms. It delays what watchers on
// other replicas see by as much: a person watching does not notice.
const appendGather = 20 * time.Millisecond

func (a *appender) loop() {
	defer close(a.done)
	gather := time.NewTimer(time.Hour)
	gather.Stop()
	for {
		select {
		case <-a.kick:
			gather.Reset(appendGather)
			select {
			case <-gather.C:
			case <-a.stop:
				gather.Stop()
				a.flush()
				return
			}
			a.flush()
		case <-a.stop:
			a.flush()
			return
		}
	}
}

// flush appends what is queued.
func (a *appender) flush() {
	for {
		a.mu.Lock()
		batch := a.queue
		a.queue = nil
		failed := a.failed
		a.mu.Unlock()
		if len(batch) == 0 || failed {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), a.timeout)
		err := a.lock.Append(ctx, batch)
		cancel()
		a.mu.Lock()
		if err != nil {
			a.failed = true
			a.log.Error("server: appending a board's events to the cluster's log failed; its watchers on other replicas are sent the board whole later", "board", a.id, "err", err)
		} else {
			a.last = batch[len(batch)-1].Seq
		}
		a.mu.Unlock()
	}
}

// close appends what is left and stops; it returns the seq of the last
// event in the log, and whether every event went there.
func (a *appender) close() (last uint64, ok bool) {
	close(a.stop)
	<-a.done
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last, !a.failed
}
