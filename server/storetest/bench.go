package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/codemode-dev/codemode/server"
)

// BoardDoc is a whiteboard document of about size bytes: a frame, stickies
// and connectors as docs/whiteboard.md has them, each n a little different
// (as a run's would be).
func BoardDoc(size, n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"objects":[{"id":"frame-1","type":"frame","x":0,"y":0,"width":1200,"height":800,"title":"Retro"}`)
	for i := 2; b.Len() < size-200; i++ {
		if i%3 == 0 {
			fmt.Fprintf(&b, `,{"id":"conn-%d","type":"connector","x":%d,"y":%d,"width":195,"height":50,"fromId":"sticky-%d","toId":"sticky-%d","style":"end","label":"then"}`, i, 20*i, 10*i, i-2, i-1)
		} else {
			fmt.Fprintf(&b, `,{"id":"sticky-%d","type":"sticky","x":%d,"y":%d,"width":200,"height":200,"text":"Idea %d of run %d: ship the thing","color":"yellow","parentId":"frame-1"}`, i, 20*i, 10*i, i, n)
		}
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.String())
}

// BenchCommit is every store's BenchmarkCommit: it commits 5 KB documents,
// one after another on one board (Serial) and from many goroutines on a
// board each (Parallel, the load test's shape), with the store's history
// as open makes it (most commits also delete the oldest step once it is
// full). It reports commits/s.
func BenchCommit(b *testing.B, open func(b *testing.B) server.Store) {
	ctx := context.Background()
	docs := make([]json.RawMessage, 16)
	for i := range docs {
		docs[i] = BoardDoc(5000, i)
	}
	b.Logf("document: %d bytes", len(docs[0]))
	b.Run("Serial", func(b *testing.B) {
		s := open(b)
		if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: "a"}, docs[0]); err != nil {
			b.Fatal(err)
		}
		version := int64(1)
		b.SetBytes(int64(len(docs[0])))
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			st, err := s.Commit(ctx, "a", server.Commit{Base: version, Doc: docs[i%len(docs)], RunID: "run_bench"})
			if err != nil {
				b.Fatal(err)
			}
			version = st.Version
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
	})
	b.Run("Parallel", func(b *testing.B) {
		s := open(b)
		var boards atomic.Int64
		b.SetBytes(int64(len(docs[0])))
		b.SetParallelism(25) // 50 clients on 2 CPUs
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			id := fmt.Sprintf("b%d", boards.Add(1))
			if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: id}, docs[0]); err != nil {
				b.Error(err)
				return
			}
			version := int64(1)
			for i := 0; pb.Next(); i++ {
				st, err := s.Commit(ctx, id, server.Commit{Base: version, Doc: docs[i%len(docs)], RunID: "run_bench"})
				if err != nil {
					b.Error(err)
					return
				}
				version = st.Version
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
	})
}
