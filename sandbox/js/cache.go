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
	byKey map[cacheKey]*list.Element
}

// cacheKey is a script's code and the profile it was compiled for: a
// script's regexp literals take the match timeout of its profile (compile).
type cacheKey struct {
	code    string
	profile Profile
}

type cachedScript struct {
	key    cacheKey
	script *Script
}

// Scripts longer than this are compiled every time: caching them would
// hold a lot of memory for what is rarely sent twice.
const maxCachedCode = 16 << 10

// NewCache returns a cache of at most max compiled scripts.
func NewCache(max int) *Cache {
	return &Cache{max: max, order: list.New(), byKey: make(map[cacheKey]*list.Element)}
}

// Compile is the package's Compile through the cache. Errors are not cached.
func (c *Cache) Compile(code string, maxBytes int) (*Script, *Error) {
	return c.compile(code, maxBytes, Hardened)
}

// compile is Compile for runs of profile p (see the package's compile).
func (c *Cache) compile(code string, maxBytes int, p Profile) (*Script, *Error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxCodeBytes
	}
	if len(code) > maxBytes || len(code) > maxCachedCode {
		return compile(code, maxBytes, p)
	}
	key := cacheKey{code, p}
	c.mu.Lock()
	if el, ok := c.byKey[key]; ok {
		c.order.MoveToFront(el)
		s := el.Value.(*cachedScript).script
		c.mu.Unlock()
		return s, nil
	}
	c.mu.Unlock()
	s, err := compile(code, maxBytes, p)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; !ok {
		c.byKey[key] = c.order.PushFront(&cachedScript{key: key, script: s})
		if c.order.Len() > c.max {
			old := c.order.Remove(c.order.Back()).(*cachedScript)
			delete(c.byKey, old.key)
		}
	}
	return s, nil
}
