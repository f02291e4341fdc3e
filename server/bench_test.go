package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// tenCalls is a script of ten whiteboard calls, the load test's kind of run.
const tenCalls = `{"code":"for (let i = 0; i < 10; i++) await tools.createStickyNote({text: 'n' + i, x: i * 220, y: 0})"}`

// BenchmarkBoardRun is one run of ten calls on a board of its own, through
// the handler (no network), with the memory store. Each goroutine moves to a
// new board every 50 runs, so that the cost per run does not grow with b.N
// (a run clones and commits its whole board). watched=true adds a watcher
// to each board, which makes every event (and its SVG).
func BenchmarkBoardRun(b *testing.B) {
	for _, watched := range []bool{false, true} {
		b.Run(fmt.Sprintf("watched=%v", watched), func(b *testing.B) {
			s, err := New(Options{Store: NewMemoryStore(), MaxRuns: 1024})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Shutdown(b.Context())
			var boards atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				var id string
				stop := func() {}
				defer func() { stop() }()
				for i := 0; pb.Next(); i++ {
					if i%50 == 0 {
						stop()
						id, stop = benchBoard(b, s, fmt.Sprintf("b%d", boards.Add(1)), watched)
					}
					req := httptest.NewRequest("POST", "/v1/boards/"+id+"/execute", strings.NewReader(tenCalls))
					req.Header.Set("Content-Type", "application/json")
					req.Host = "localhost"
					rec := httptest.NewRecorder()
					s.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						b.Fatalf("%d %s", rec.Code, rec.Body)
					}
				}
			})
		})
	}
}

// benchBoard creates a board and, if watched, a watcher reading its events;
// stop ends the watcher.
func benchBoard(b *testing.B, s *Server, id string, watched bool) (string, func()) {
	req := httptest.NewRequest("POST", "/v1/boards", strings.NewReader(`{"id":"`+id+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Host = "localhost"
	s.ServeHTTP(httptest.NewRecorder(), req)
	if !watched {
		return id, func() {}
	}
	lb, herr := s.boards.acquire(b.Context(), id)
	if herr != nil {
		b.Fatal(herr)
	}
	q, herr := lb.hub.subscribe("", lb.committed)
	if herr != nil {
		b.Fatal(herr)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range q.wake {
			if _, closed, _ := q.take(); closed {
				return
			}
		}
	}()
	return id, func() {
		lb.hub.unsubscribe(q)
		<-done
		s.boards.release(lb)
	}
}

// BenchmarkEngineOnly is the engine's part of BenchmarkBoardRun: the same
// script on a fresh board, called directly.
func BenchmarkEngineOnly(b *testing.B) {
	s, err := New(Options{Store: NewMemoryStore()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Shutdown(b.Context())
	req, _ := engine.ParseExecuteRequest([]byte(tenCalls))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			ctx := whiteboard.NewContext(b.Context(), whiteboard.NewBoard())
			if res, err := s.Engine().Execute(ctx, req); err != nil || !res.Success {
				b.Fatal(err, res.Error)
			}
		}
	})
}

// BenchmarkStatelessRun is BenchmarkEngineOnly through the handler: the
// server's own cost of a run, without a board's.
func BenchmarkStatelessRun(b *testing.B) {
	s, err := New(Options{Store: NewMemoryStore(), MaxRuns: 1024})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Shutdown(b.Context())
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("POST", "/v1/execute", strings.NewReader(tenCalls))
			req.Header.Set("Content-Type", "application/json")
			req.Host = "localhost"
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("%d %s", rec.Code, rec.Body)
			}
		}
	})
}
