package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// MemoryCluster is a Cluster of servers in one process, over one store
// (NewMemoryStore, or any Store they share): what server/pgstore's cluster
// does across processes, in memory. Each server joins with Join.
type MemoryCluster struct {
	mu      sync.Mutex
	logs    map[string]*memLog
	members map[*memMember]bool
	owners  map[string]*memMember // by run id
}

// memLog is one board's log and lock.
type memLog struct {
	lock    chan struct{} // holds a token while the board is locked
	holder  *memMember
	state   LockState // Dirty while locked: set back by Unlock
	events  []LoggedEvent
	deleted bool // dropped by Unlock: a new log is made for the id
}

// memLogKeep is how many events a board's log keeps, as a server's ring does.
const memLogKeep = ringSize

// NewMemoryCluster makes an empty cluster.
func NewMemoryCluster() *MemoryCluster {
	return &MemoryCluster{logs: make(map[string]*memLog), members: make(map[*memMember]bool), owners: make(map[string]*memMember)}
}

// Join adds a member: give it to one server as Options.Cluster. Closing it
// is the member's death: its locks are released without Unlock (the next
// holder's lock is Dirty), as when a replica is killed.
func (c *MemoryCluster) Join() Cluster {
	m := &memMember{c: c, listeners: make(map[int]func(string, uint64))}
	c.mu.Lock()
	c.members[m] = true
	c.mu.Unlock()
	return m
}

// logOf returns id's log, made if need be. c.mu is held.
func (c *MemoryCluster) logOf(id string) *memLog {
	l := c.logs[id]
	if l == nil || l.deleted {
		l = &memLog{lock: make(chan struct{}, 1)}
		l.state.Epoch = newEpoch()
		c.logs[id] = l
	}
	return l
}

type memMember struct {
	c *MemoryCluster

	// Guarded by c.mu:
	closed    bool
	listeners map[int]func(string, uint64)
	nextL     int
	serve     func(ctx context.Context, runID string, req []byte) []byte
}

var errClusterClosed = errors.New("left the cluster")

func (m *memMember) Lock(ctx context.Context, id string) (BoardLock, error) {
	return m.lock(ctx, id, true)
}

func (m *memMember) TryLock(ctx context.Context, id string) (BoardLock, error) {
	return m.lock(ctx, id, false)
}

func (m *memMember) lock(ctx context.Context, id string, wait bool) (BoardLock, error) {
	c := m.c
	for {
		c.mu.Lock()
		if m.closed {
			c.mu.Unlock()
			return nil, errClusterClosed
		}
		l := c.logOf(id)
		c.mu.Unlock()
		if wait {
			select {
			case l.lock <- struct{}{}:
			case <-ctx.Done():
				return nil, fmt.Errorf("waiting for board %s's lock: %w", quoteID(id), context.Cause(ctx))
			}
		} else {
			select {
			case l.lock <- struct{}{}:
			default:
				return nil, ErrBoardLocked
			}
		}
		c.mu.Lock()
		if m.closed || l.deleted { // left, or the board went while this waited
			<-l.lock
			c.mu.Unlock()
			continue
		}
		st := l.state
		l.state.Dirty = true // until Unlock says otherwise
		l.holder = m
		c.mu.Unlock()
		return &memLock{m: m, l: l, id: id, st: st}, nil
	}
}

func (m *memMember) Log(ctx context.Context, id string, after uint64) (LogState, []LoggedEvent, error) {
	c := m.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if m.closed {
		return LogState{}, nil, errClusterClosed
	}
	l := c.logOf(id)
	var out []LoggedEvent
	for _, e := range l.events {
		if e.Seq > after {
			out = append(out, e)
		}
	}
	return l.state.LogState, out, nil
}

func (m *memMember) Listen(f func(string, uint64)) (stop func()) {
	c := m.c
	c.mu.Lock()
	defer c.mu.Unlock()
	k := m.nextL
	m.nextL++
	m.listeners[k] = f
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(m.listeners, k)
	}
}

// announce calls every member's listeners with id. c.mu is not held: a
// listener may call the cluster.
func (c *MemoryCluster) announce(id string, seq uint64) {
	c.mu.Lock()
	var fs []func(string, uint64)
	for m := range c.members {
		for _, f := range m.listeners {
			fs = append(fs, f)
		}
	}
	c.mu.Unlock()
	for _, f := range fs {
		f(id, seq)
	}
}

func (m *memMember) Own(ctx context.Context, runID string) (func(), error) {
	c := m.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if m.closed {
		return nil, errClusterClosed
	}
	c.owners[runID] = m
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.owners[runID] == m {
			delete(c.owners, runID)
		}
	}, nil
}

func (m *memMember) Forward(ctx context.Context, runID string, req []byte) ([]byte, error) {
	c := m.c
	c.mu.Lock()
	owner := c.owners[runID]
	var serve func(context.Context, string, []byte) []byte
	if owner != nil {
		serve = owner.serve
	}
	c.mu.Unlock()
	if serve == nil {
		return nil, ErrNoOwner
	}
	return serve(ctx, runID, req), nil
}

func (m *memMember) Serve(f func(ctx context.Context, runID string, req []byte) []byte) {
	m.c.mu.Lock()
	m.serve = f
	m.c.mu.Unlock()
}

// Close is the member's end: its locks go without Unlock (Dirty for the next
// holder), its runs are owned by nobody, its listeners hear no more.
func (m *memMember) Close() error {
	c := m.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	delete(c.members, m)
	clear(m.listeners)
	for id, o := range c.owners {
		if o == m {
			delete(c.owners, id)
		}
	}
	for _, l := range c.logs {
		if l.holder == m {
			l.holder = nil
			<-l.lock
		}
	}
	return nil
}

type memLock struct {
	m    *memMember
	l    *memLog
	id   string
	st   LockState
	done bool // guarded by c.mu
}

func (k *memLock) State() LockState { return k.st }

// held reports whether the lock is still k's. c.mu is held.
func (k *memLock) held() error {
	if k.done || k.l.holder != k.m || k.m.closed {
		return fmt.Errorf("board %s: the lock is no longer held", quoteID(k.id))
	}
	return nil
}

func (k *memLock) Append(ctx context.Context, events []LoggedEvent) error {
	c := k.m.c
	c.mu.Lock()
	if err := k.held(); err != nil {
		c.mu.Unlock()
		return err
	}
	l := k.l
	for _, e := range events {
		if e.Seq != l.state.Seq+1 {
			c.mu.Unlock()
			return fmt.Errorf("board %s: event %d appended after %d", quoteID(k.id), e.Seq, l.state.Seq)
		}
		l.state.Seq = e.Seq
		l.events = append(l.events, LoggedEvent{Seq: e.Seq, Type: e.Type, Data: append([]byte(nil), e.Data...)})
	}
	if n := len(l.events) - memLogKeep; n > 0 {
		l.events = append(l.events[:0:0], l.events[n:]...)
	}
	seq := l.state.Seq
	c.mu.Unlock()
	if len(events) > 0 {
		c.announce(k.id, seq)
	}
	return nil
}

func (k *memLock) Unlock(ctx context.Context, settled uint64, version int64, deleted bool) error {
	c := k.m.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := k.held(); err != nil {
		return err
	}
	k.done = true
	l := k.l
	l.state.Settled, l.state.Version, l.state.Dirty = settled, version, false
	l.holder = nil
	if deleted {
		l.deleted = true
		delete(c.logs, k.id)
	}
	<-l.lock
	return nil
}
