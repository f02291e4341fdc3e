package js

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"
)

// testHost runs tools on goroutines of their own.
type testHost struct {
	mu    sync.Mutex
	tools map[string]func(args json.RawMessage) (json.RawMessage, *Error)
	calls []*Call
	wg    sync.WaitGroup
}

func (h *testHost) Start(calls []*Call) {
	h.mu.Lock()
	h.calls = append(h.calls, calls...)
	h.mu.Unlock()
	for _, c := range calls {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			f, ok := h.tools[c.Tool]
			if !ok {
				c.Reject(&Error{Code: "unknown_tool", Message: "unknown tool " + c.Tool, Props: json.RawMessage(`{"suggestions":["echo"]}`)})
				return
			}
			res, err := f(c.Args)
			if err != nil {
				c.Reject(err)
				return
			}
			c.Resolve(res)
		}()
	}
}

func newTestHost() *testHost {
	return &testHost{tools: map[string]func(json.RawMessage) (json.RawMessage, *Error){
		"echo": func(a json.RawMessage) (json.RawMessage, *Error) { return a, nil },
		"sleep": func(a json.RawMessage) (json.RawMessage, *Error) {
			var in struct{ MS int }
			_ = json.Unmarshal(a, &in)
			time.Sleep(time.Duration(in.MS) * time.Millisecond)
			return json.RawMessage(`{"slept":true}`), nil
		},
		"fail": func(a json.RawMessage) (json.RawMessage, *Error) {
			return nil, &Error{Code: "tool_error", Message: "it failed"}
		},
		"board.get": func(a json.RawMessage) (json.RawMessage, *Error) { return json.RawMessage(`{"objects":[]}`), nil },
	}}
}

func (h *testHost) names() []string {
	var n []string
	for k := range h.tools {
		n = append(n, k)
	}
	return n
}

// run compiles and runs code with the test host.
func run(t testing.TB, code string, lim Limits) *Result {
	t.Helper()
	s, err := Compile(code, 0)
	if err != nil {
		return &Result{Err: err}
	}
	h := newTestHost()
	res := Run(context.Background(), s, Options{Limits: lim, Tools: h.names(), Host: h, Input: json.RawMessage(`{"n":3}`)})
	h.wg.Wait()
	return res
}
