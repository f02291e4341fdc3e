package engine

import (
	"container/list"
	"sync"

	"github.com/codemode-dev/codemode/sandbox/js"
)

// scriptCache keeps compiled scripts by their code, so a script sent again
// (a retry, a benchmark, a host's fixed snippets) skips parsing and any
// TypeScript transform. Compiled scripts are immutable and safe to share.
type scriptCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *cachedScript, most recent first
	byKey map[string]*list.Element
}

type cachedScript struct {
	code   string
	script *js.Script
}

// Scripts longer than this are compiled every time: caching them would
// hold a lot of memory for what is rarely sent twice.
const maxCachedCode = 16 << 10

func newScriptCache(max int) *scriptCache {
	return &scriptCache{max: max, order: list.New(), byKey: make(map[string]*list.Element)}
}

func (c *scriptCache) compile(code string, maxBytes int) (*js.Script, *js.Error) {
	if len(code) > maxBytes || len(code) > maxCachedCode {
		return js.Compile(code, maxBytes)
	}
	c.mu.Lock()
	if el, ok := c.byKey[code]; ok {
		c.order.MoveToFront(el)
		s := el.Value.(*cachedScript).script
		c.mu.Unlock()
		return s, nil
	}
	c.mu.Unlock()
	s, err := js.Compile(code, maxBytes)
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
