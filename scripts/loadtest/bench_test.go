package main

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/worker"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// BenchmarkEngine runs the load's script (and its batch) through the engine
// alone — no HTTP, no store, no events to watchers — on a fresh board each
// time: the floor under what the server can do per run. The -parallel
// variants run from 50 goroutines, as the load's 50 clients do, so their
// ns/op is the engine's best throughput on this machine (1e9/ns = runs/s).
// cpu-ms/op is the CPU time this process and its worker processes used per
// run, both cores together.
//
//	go test -run '^$' -bench Engine -count 6 ./scripts/loadtest/
func BenchmarkEngine(b *testing.B) {
	pool, err := worker.New(worker.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	for _, r := range []struct {
		name   string
		runner engine.ScriptRunner
	}{{"inprocess", nil}, {"worker", pool}} {
		eb := engine.NewBuilder().Add(whiteboard.Tools(nil)...)
		if r.runner != nil {
			eb.WithScriptRunner(r.runner)
		}
		eng, err := eb.Build()
		if err != nil {
			b.Fatal(err)
		}
		one := func(b *testing.B, mode string, n int) {
			ctx := whiteboard.NewContext(context.Background(), whiteboard.NewBoard())
			if mode == "batch" {
				req, err := engine.ParseBatchRequest(batchBody(n))
				if err != nil {
					b.Fatal(err)
				}
				res, err := eng.Batch(ctx, req)
				if err != nil || res.Summary.Successful != objectsPerRun {
					b.Fatal(err, res.Summary)
				}
				return
			}
			res, err := eng.Execute(ctx, engine.ExecuteRequest{Code: builtinScript, Input: json.RawMessage(`{"run":` + strconv.Itoa(n) + `}`)})
			if err != nil || !res.Success || len(res.Calls) != objectsPerRun {
				b.Fatal(err, res.Error)
			}
		}
		for _, mode := range []string{"execute", "batch"} {
			if mode == "batch" && r.runner != nil {
				continue // batches never run scripts: the runner does not matter
			}
			name := r.name + "/" + mode
			if mode == "batch" {
				name = mode
			}
			b.Run(name, func(b *testing.B) {
				one(b, mode, 0) // compiled and cached, a worker started
				cpu := startCPU()
				n := 0
				for b.Loop() {
					one(b, mode, n)
					n++
				}
				cpu.report(b)
			})
			b.Run(name+"-parallel", func(b *testing.B) {
				one(b, mode, 0)
				b.SetParallelism(25) // 50 goroutines on 2 cores
				cpu := startCPU()
				b.RunParallel(func(pb *testing.PB) {
					n := 0
					for pb.Next() {
						one(b, mode, n)
						n++
					}
				})
				cpu.report(b)
			})
		}
	}
}

// cpuMeter measures the CPU time of this process and its children.
type cpuMeter struct {
	start procSample
	ok    bool
	wall  time.Time
}

func startCPU() cpuMeter {
	s, err := sampleProc(os.Getpid())
	return cpuMeter{start: s, ok: err == nil, wall: time.Now()}
}

// report adds cpu-ms/op (this process and its workers) and workers-ms/op.
func (m cpuMeter) report(b *testing.B) {
	if !m.ok || b.N == 0 {
		return
	}
	s, err := sampleProc(os.Getpid())
	if err != nil {
		return
	}
	self := s.CPU - m.start.CPU
	workers := s.ChildCPU - m.start.ChildCPU
	b.ReportMetric(float64(self+workers)/1e6/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(workers)/1e6/float64(b.N), "workers-ms/op")
}

// BenchmarkBoard measures what a board run costs the server for every
// object already on its board: the run works on a clone of the board, and
// its commit encodes the whole board, which the SQLite store checks with
// json.Valid before writing it. Boards of 50, 250 and 500 objects, made by
// the load's batch; ns/object is the time per object on the board.
//
//	go test -run '^$' -bench Board -count 6 ./scripts/loadtest/
func BenchmarkBoard(b *testing.B) {
	eng, err := engine.NewBuilder().Add(whiteboard.Tools(nil)...).Build()
	if err != nil {
		b.Fatal(err)
	}
	for _, objects := range []int{50, 250, 500} {
		board := whiteboard.NewBoard()
		ctx := whiteboard.NewContext(context.Background(), board)
		for n := range objects / objectsPerRun {
			req, err := engine.ParseBatchRequest(batchBody(n))
			if err != nil {
				b.Fatal(err)
			}
			if res, err := eng.Batch(ctx, req); err != nil || res.Summary.Successful != objectsPerRun {
				b.Fatal(err, res.Summary)
			}
		}
		doc, err := board.MarshalJSON()
		if err != nil {
			b.Fatal(err)
		}
		perObject := func(b *testing.B) {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(objects), "ns/object")
		}
		name := "objects=" + strconv.Itoa(objects)
		b.Run(name+"/Clone", func(b *testing.B) {
			for b.Loop() {
				board.Clone()
			}
			perObject(b)
		})
		b.Run(name+"/MarshalJSON", func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if _, err := board.MarshalJSON(); err != nil {
					b.Fatal(err)
				}
			}
			perObject(b)
		})
		b.Run(name+"/Valid", func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if !json.Valid(doc) {
					b.Fatal("not valid")
				}
			}
			perObject(b)
		})
	}
}
