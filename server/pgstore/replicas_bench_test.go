package pgstore_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/codemode-dev/codemode/internal/pgtest"
	"github.com/codemode-dev/codemode/server"
	"github.com/codemode-dev/codemode/server/pgstore"
)

// BenchmarkReplicas measures the ways three replicas could share boards on
// one database (docs/design.md, "Many replicas"): three clients, one per
// replica, each running one-call batches one after another.
//
//   - hot-board/lock: all on one board, serialised by the cluster's lock
//     (what the server does);
//   - hot-board/optimistic: all on one board, no lock: a run that loses the
//     commit race (409) is run again until it commits; conflicts/run is the
//     work done again for nothing;
//   - own-boards/lock: a board per client, each client's runs spread over
//     the three replicas (a load balancer without affinity): the usual case,
//     with the notices (NOTIFY) per run.
//
// runs/s counts committed runs.
func BenchmarkReplicas(b *testing.B) {
	b.Run("hot-board/lock", func(b *testing.B) { benchReplicas(b, true, true) })
	b.Run("hot-board/optimistic", func(b *testing.B) { benchReplicas(b, false, true) })
	b.Run("own-boards/lock", func(b *testing.B) { benchReplicas(b, true, false) })
}

func benchReplicas(b *testing.B, locked, oneBoard bool) {
	url := pgtest.URL(b)
	var urls []string
	for range 3 {
		s := open(b, url, pgstore.Options{})
		opts := server.Options{Store: s, Approve: server.GateNone, Logger: slog.New(slog.DiscardHandler)}
		if locked {
			c, err := s.Join(ctx, pgstore.ClusterOptions{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { c.Close() })
			opts.Cluster = c
		}
		srv, err := server.New(opts)
		if err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(srv)
		b.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			srv.Shutdown(ctx)
			ts.Close()
		})
		urls = append(urls, ts.URL)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	send := func(method, url, body string) int {
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	boards := []string{"hot", "hot", "hot"}
	if !oneBoard {
		boards = []string{"b0", "b1", "b2"}
	}
	for _, id := range boards[:1+2*btoi(!oneBoard)] {
		if s := send("POST", urls[0]+"/v1/boards", `{"id":"`+id+`"}`); s != 201 {
			b.Fatalf("creating %s: %d", id, s)
		}
	}
	notices := countNotices(b, url)
	before := notices.Load()
	var left atomic.Int64
	left.Store(int64(b.N))
	var conflicts atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := `{"operations":[{"tool":"createStickyNote","args":{"text":"n","x":0,"y":0}}]}`
			for n := 0; left.Add(-1) >= 0; n++ {
				target := urls[i]
				if !oneBoard {
					target = urls[(i+n)%3]
				}
				for {
					s := send("POST", target+"/v1/boards/"+boards[i]+"/batch", body)
					if s == 200 {
						break
					}
					if s != 409 {
						b.Errorf("run: %d", s)
						return
					}
					conflicts.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "runs/s")
	b.ReportMetric(float64(conflicts.Load())/float64(b.N), "conflicts/run")
	time.Sleep(200 * time.Millisecond) // the last notices
	if locked {
		b.ReportMetric(float64(notices.Load()-before)/float64(b.N), "notices/run")
	}
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}

// countNotices counts the notices on the cluster's channel, from a session
// of its own.
func countNotices(b *testing.B, url string) *atomic.Int64 {
	var n atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "LISTEN codemode_boards"); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, err := conn.WaitForNotification(ctx); err != nil {
				return
			}
			n.Add(1)
		}
	}()
	b.Cleanup(func() {
		cancel()
		<-done
		conn.Close(context.Background())
	})
	return &n
}
