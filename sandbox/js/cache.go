package js

import (
	"container/list"
	"sync"
)

// Cache keeps compiled scripts by their code, so a script sent again (a
// retry, a benchmark, a host's fixed snippets) skips parsing and any
// TypeScript transform. Compiled scripts are immutable and safe to share;
// a Cache is safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *cachedScript, most recent first
	byKey map[string]*list.Element
}

type cachedScript struct {
	code   string
	script *Script
}

// Scripts longer than this are compiled every time: caching them would
// hold a lot of memory for what is rarely sent twice.
const maxCachedCode = 16 << 10

// NewCache returns a cache of at most max compiled scripts.
func NewCache(max int) *Cache {
	return &Cache{max: max, order: list.New(), byKey: make(map[string]*list.Element)}
}

// Compile is the package's Compile through the cache. Errors are not cached.
func (c *Cache) Compile(code string, maxBytes int) (*Script, *Error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxCodeBytes
	}
	if len(code) > maxBytes || len(code) > maxCachedCode {
		return Compile(code, maxBytes)
	}
	c.mu.Lock()
	if el, ok := c.byKey[code]; ok {
		c.order.MoveToFront(el)
		s := el.Value.(*cachedScript).script
		c.mu.Unlock()
		return s, nil
	}
	c.mu.Unlock()
	s, err := Compile(code, maxBytes)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[code]; !ok {
		c.byKey[code] = c.order.PushFront(&cachedScript{code: code, script: s})
		if c.order.Len() > c.max {
			old := c.order.Remove(c.order.Back()).(*cachedScript)
			delete(c.byKey, old.code)
		}
	}
	return s, nil
}
