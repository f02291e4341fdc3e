package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// Report is a load run's result.
type Report struct {
	Config Config `json:"-"`
	Target string `json:"target"` // the first (or only) target's description
	// Targets are the servers loaded, round-robin when there are several;
	// SharedBoards says whether a client's board was run on by all of them
	// (they serve the same boards) or each had boards of its own.
	Targets      []TargetReport `json:"targets"`
	SharedBoards bool           `json:"sharedBoards"`
	Script       string         `json:"script"`
	SelfMeasured bool           `json:"selfMeasured"` // RSS and CPU are this process's, the clients' included
	LoadAverage  string         `json:"loadAverage"`  // /proc/loadavg before the load
	NumCPU       int            `json:"numCPU"`
	GoVersion    string         `json:"goVersion"`

	Window       time.Duration     `json:"window"` // from the window's start to the last measured answer
	Runs         int               `json:"runs"`   // measured requests, failed ones included
	RunsPerSec   float64           `json:"runsPerSec"`
	Latency      Latency           `json:"latency"`
	Errors       int               `json:"errors"`
	ErrorKinds   map[string]int    `json:"errorKinds,omitempty"`
	ErrorSample  map[string]string `json:"errorSamples,omitempty"`
	WarmupErrors int               `json:"warmupErrors"`
	Resets       int               `json:"resets"` // boards replaced (--reset)

	Events      int64          `json:"events"` // SSE events the watchers read while measuring
	WatchErrors map[string]int `json:"watchErrors,omitempty"`

	BoardsChecked int      `json:"boardsChecked"`
	BoardProblems []string `json:"boardProblems,omitempty"`

	// RSS and CPU of the server's process (with its worker processes as
	// children): after the boards were made (idle), when the window opened,
	// when it closed, and the peak of samples taken every 250 ms. With
	// several servers, each is the sum over their processes (the peak: the
	// highest sum sampled). nil when a process is not known (--url without
	// --pid) or there is no /proc.
	RSSIdle  *procSample `json:"rssIdle,omitempty"`
	RSSStart *procSample `json:"rssStart,omitempty"`
	RSSEnd   *procSample `json:"rssEnd,omitempty"`
	RSSPeak  *procSample `json:"rssPeak,omitempty"` // RSS and ChildRSS: the highest of each
	// RSSTimeline and WorkerRSSTimeline are the RSS of the process and of
	// its workers at every tenth of the window, from its start to its end.
	RSSTimeline       []int64 `json:"rssTimeline,omitempty"`
	WorkerRSSTimeline []int64 `json:"workerRSSTimeline,omitempty"`
	// CPU time used during the window: by the server's process, by its
	// workers, and by this process when it is not the server.
	// WorkersStarted is how many worker processes the server started
	// during the window, -1 where it is not known (only the in-process
	// server's pool says).
	WorkersStarted int           `json:"workersStarted"`
	ServerCPU      time.Duration `json:"serverCPU"`
	WorkerCPU      time.Duration `json:"workerCPU"`
	ClientCPU      time.Duration `json:"clientCPU"`
	// MachineCPU is the busy time of the whole machine during the window
	// (/proc/stat), StolenCPU what the hypervisor took: MachineCPU minus
	// the above is what else ran meanwhile.
	MachineCPU time.Duration `json:"machineCPU"`
	StolenCPU  time.Duration `json:"stolenCPU"`
}

// TargetReport is what one server took of the load: the measured runs sent
// to it, their latency and failures, and its process's CPU during the
// window and RSS at its end (0 where the process is not known, or is this
// one).
type TargetReport struct {
	URL        string         `json:"url"`
	Desc       string         `json:"desc"`
	PID        int            `json:"pid,omitempty"`
	Runs       int            `json:"runs"`
	Latency    Latency        `json:"latency"`
	Errors     int            `json:"errors"`
	ErrorKinds map[string]int `json:"errorKinds,omitempty"`
	ServerCPU  time.Duration  `json:"serverCPU"`
	WorkerCPU  time.Duration  `json:"workerCPU"`
	RSSEnd     int64          `json:"rssEnd"`
}

// Latency is the distribution of the measured requests' times.
type Latency struct {
	P50, P90, P99, Max, Mean time.Duration
}

// add merges the clients' numbers into the report and its Targets.
func (r *Report) add(clients []*client) {
	var all []time.Duration
	byTarget := make([][]time.Duration, len(r.Targets))
	for _, c := range clients {
		for t, lat := range c.lat {
			all = append(all, lat...)
			byTarget[t] = append(byTarget[t], lat...)
		}
		r.Resets += c.resets
		r.WarmupErrors += c.warmupErrors
		for t, kinds := range c.errors {
			for k, n := range kinds {
				if r.ErrorKinds == nil {
					r.ErrorKinds, r.ErrorSample = map[string]int{}, map[string]string{}
				}
				r.ErrorKinds[k] += n
				r.Errors += n
				if _, ok := r.ErrorSample[k]; !ok {
					r.ErrorSample[k] = c.sample[k]
				}
				tr := &r.Targets[t]
				if tr.ErrorKinds == nil {
					tr.ErrorKinds = map[string]int{}
				}
				tr.ErrorKinds[k] += n
				tr.Errors += n
			}
		}
	}
	for t, lat := range byTarget {
		r.Targets[t].Runs = len(lat)
		r.Targets[t].Latency = latencies(lat)
	}
	r.Runs = len(all)
	if r.Window > 0 {
		r.RunsPerSec = float64(r.Runs) / r.Window.Seconds()
	}
	r.Latency = latencies(all)
}

// latencies computes the percentiles (nearest rank) of ds, which it sorts.
func latencies(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	rank := func(p float64) time.Duration {
		i := int(p/100*float64(len(ds))+0.999999) - 1
		return ds[max(0, min(i, len(ds)-1))]
	}
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return Latency{P50: rank(50), P90: rank(90), P99: rank(99), Max: ds[len(ds)-1], Mean: sum / time.Duration(len(ds))}
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) {
	b, _ := json.MarshalIndent(r, "", "  ")
	fmt.Fprintf(w, "%s\n", b)
}

// WriteText writes the report for a person.
func (r *Report) WriteText(w io.Writer) {
	c := r.Config
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }
	mib := func(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
	several := len(r.Targets) > 1
	if several {
		r.writeTargets(w)
	} else {
		fmt.Fprintf(w, "target:    %s\n", r.Target)
	}
	fmt.Fprintf(w, "machine:   %d CPUs, %s, load average before: %s\n", r.NumCPU, r.GoVersion, r.LoadAverage)
	what := "POST /v1/boards/{id}/" + c.Mode
	boards := "each on its own board"
	switch {
	case several && r.SharedBoards:
		boards = "each on its own board, run on by every server in turn"
	case several:
		boards = "each with a board on every server, run on in turn"
	}
	fmt.Fprintf(w, "load:      %d clients, %s, %s (%s), %v after %v of warm-up", c.Clients, boards, what, r.Script, c.Duration, c.Warmup)
	if c.Reset > 0 {
		fmt.Fprintf(w, ", boards replaced every %d runs (%d replaced)", c.Reset, r.Resets)
	}
	if c.Watchers > 0 {
		fmt.Fprintf(w, ", %d SSE watcher(s) per board", c.Watchers)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "runs:      %d in %.2f s = %.1f runs/s\n", r.Runs, r.Window.Seconds(), r.RunsPerSec)
	l := r.Latency
	fmt.Fprintf(w, "latency:   p50 %s, p90 %s, p99 %s, max %s (mean %s)\n", ms(l.P50), ms(l.P90), ms(l.P99), ms(l.Max), ms(l.Mean))
	fmt.Fprintf(w, "errors:    %d", r.Errors)
	if r.WarmupErrors > 0 {
		fmt.Fprintf(w, " (and %d during the warm-up)", r.WarmupErrors)
	}
	fmt.Fprintln(w)
	for _, k := range slices.Sorted(maps.Keys(r.ErrorKinds)) {
		fmt.Fprintf(w, "           %6d  %s: %s\n", r.ErrorKinds[k], k, cut(r.ErrorSample[k], 200))
	}
	if c.Watchers > 0 {
		fmt.Fprintf(w, "events:    %d SSE events read while measuring (%.0f/s)", r.Events, float64(r.Events)/r.Window.Seconds())
		for _, k := range slices.Sorted(maps.Keys(r.WatchErrors)) {
			fmt.Fprintf(w, "; %d watcher errors: %s", r.WatchErrors[k], k)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "boards:    %d checked", r.BoardsChecked)
	if len(r.BoardProblems) == 0 {
		fmt.Fprintf(w, ", each holds exactly what its successful runs made\n")
	} else {
		fmt.Fprintf(w, ", %d wrong:\n", len(r.BoardProblems))
		for _, p := range r.BoardProblems {
			fmt.Fprintf(w, "           %s\n", p)
		}
	}
	if r.RSSStart == nil || r.RSSEnd == nil {
		fmt.Fprintf(w, "memory:    not measured (give --pid with --url, one for each; needs Linux /proc)\n")
		return
	}
	who := "server"
	if r.SelfMeasured {
		who = "this process (server and clients)"
	}
	if several {
		who = fmt.Sprintf("%d servers together", len(r.Targets))
	}
	s, e, p := r.RSSStart, r.RSSEnd, r.RSSPeak
	since := "peak since it started"
	if several {
		since = "each one's peak since it started, summed"
	}
	fmt.Fprintf(w, "RSS:       %s: idle %s, start %s, end %s, peak %s (%s: %s)\n",
		who, mib(cmp.Or(r.RSSIdle, s).RSS), mib(s.RSS), mib(e.RSS), mib(p.RSS), since, mib(e.HWM))
	if s.Children > 0 || e.Children > 0 {
		fmt.Fprintf(w, "           workers: %d processes at the start, %d at the end: %s, %s, peak %s in all",
			s.Children, e.Children, mib(s.ChildRSS), mib(e.ChildRSS), mib(p.ChildRSS))
		if r.WorkersStarted >= 0 {
			fmt.Fprintf(w, "; %d worker processes started while measuring", r.WorkersStarted)
		}
		fmt.Fprintln(w)
	}
	line := func(vs []int64) string {
		var b strings.Builder
		for i, v := range vs {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%.0f", float64(v)/(1<<20))
		}
		return b.String() + " MiB"
	}
	if len(r.RSSTimeline) > 0 {
		fmt.Fprintf(w, "           over the window, every tenth: %s", line(r.RSSTimeline))
		if s.Children > 0 || e.Children > 0 {
			fmt.Fprintf(w, "; workers %s", line(r.WorkerRSSTimeline))
		}
		fmt.Fprintln(w)
	}
	runs := float64(max(r.Runs, 1))
	perRun := func(d time.Duration) string { return fmt.Sprintf("%.2f ms/run", float64(d)/1e6/runs) }
	cores := func(d time.Duration) string { return fmt.Sprintf("%.2f cores", d.Seconds()/r.Window.Seconds()) }
	fmt.Fprintf(w, "CPU:       %s %s (%s)", who, perRun(r.ServerCPU), cores(r.ServerCPU))
	if r.WorkerCPU > 0 {
		fmt.Fprintf(w, ", workers %s (%s)", perRun(r.WorkerCPU), cores(r.WorkerCPU))
	}
	if !r.SelfMeasured {
		fmt.Fprintf(w, ", load generator %s (%s)", perRun(r.ClientCPU), cores(r.ClientCPU))
	}
	total := r.ServerCPU + r.WorkerCPU + r.ClientCPU
	fmt.Fprintf(w, "; total %s (%s)\n", perRun(total), cores(total))
	if r.MachineCPU > 0 {
		other := r.MachineCPU - total
		if r.SelfMeasured {
			other = r.MachineCPU - r.ServerCPU - r.WorkerCPU
		}
		fmt.Fprintf(w, "machine:   %s of %d busy during the window; anything else running: %s; stolen by the hypervisor: %s\n",
			cores(r.MachineCPU), r.NumCPU, cores(max(other, 0)), cores(r.StolenCPU))
	}
}

// writeTargets writes the servers of a load on several, with what each
// took of it.
func (r *Report) writeTargets(w io.Writer) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }
	if r.SharedBoards {
		fmt.Fprintf(w, "targets:   %d servers sharing boards, round-robin: a client's board is made on one and its runs go to each in turn\n", len(r.Targets))
	} else {
		fmt.Fprintf(w, "targets:   %d servers, each with boards of its own, round-robin: a client's runs go to each in turn, on its board there\n", len(r.Targets))
	}
	for i, t := range r.Targets {
		fmt.Fprintf(w, "           #%d %s\n", i+1, t.Desc)
		share := 0.0
		if r.Runs > 0 {
			share = 100 * float64(t.Runs) / float64(r.Runs)
		}
		fmt.Fprintf(w, "              %d runs (%.0f %%), p50 %s, p99 %s, %d errors", t.Runs, share, ms(t.Latency.P50), ms(t.Latency.P99), t.Errors)
		for _, k := range slices.Sorted(maps.Keys(t.ErrorKinds)) {
			fmt.Fprintf(w, " (%d %s)", t.ErrorKinds[k], k)
		}
		if t.RSSEnd > 0 {
			runs := float64(max(t.Runs, 1))
			fmt.Fprintf(w, "; CPU %.2f ms/run, workers %.2f ms/run; RSS at the end %.1f MiB",
				float64(t.ServerCPU)/1e6/runs, float64(t.WorkerCPU)/1e6/runs, float64(t.RSSEnd)/(1<<20))
		}
		fmt.Fprintln(w)
	}
}

// sampler reads the RSS and CPU of the servers' processes, summed, and
// samples their peak RSS.
type sampler struct {
	pids []int
}

func newSampler(pids []int) *sampler { return &sampler{pids: pids} }

// now samples the processes and sums their numbers (HWM: the sum of each
// one's peak); nil when there are none or one cannot be sampled.
func (s *sampler) now() *procSample {
	if len(s.pids) == 0 {
		return nil
	}
	var sum procSample
	for _, pid := range s.pids {
		ps, err := sampleProc(pid)
		if err != nil {
			return nil
		}
		sum.RSS += ps.RSS
		sum.HWM += ps.HWM
		sum.CPU += ps.CPU
		sum.Children += ps.Children
		sum.ChildRSS += ps.ChildRSS
		sum.ChildCPU += ps.ChildCPU
	}
	return &sum
}

// watch samples every 250 ms until the returned function is called, which
// returns the peaks (nil when nothing could be sampled) and the samples.
func (s *sampler) watch() func() (*procSample, []timedSample) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	var peak *procSample
	var series []timedSample
	record := func() {
		ps := s.now()
		if ps == nil {
			return
		}
		series = append(series, timedSample{time.Now(), *ps})
		if peak == nil {
			p := *ps
			peak = &p
			return
		}
		peak.RSS = max(peak.RSS, ps.RSS)
		peak.ChildRSS = max(peak.ChildRSS, ps.ChildRSS)
		peak.Children = max(peak.Children, ps.Children)
	}
	wg.Go(func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		record()
		for {
			select {
			case <-done:
				record()
				return
			case <-t.C:
				record()
			}
		}
	})
	return func() (*procSample, []timedSample) {
		close(done)
		wg.Wait()
		return peak, series
	}
}

type timedSample struct {
	at time.Time
	procSample
}

// timeline picks from series the samples nearest to each tenth of the
// window [from, to]: RSS of the process and of its children, in bytes.
func timeline(series []timedSample, from, to time.Time) (rss, child []int64) {
	if len(series) == 0 {
		return nil, nil
	}
	for i := 0; i <= 10; i++ {
		at := from.Add(time.Duration(i) * to.Sub(from) / 10)
		best := series[0]
		for _, s := range series {
			if s.at.Sub(at).Abs() < best.at.Sub(at).Abs() {
				best = s
			}
		}
		rss = append(rss, best.RSS)
		child = append(child, best.ChildRSS)
	}
	return rss, child
}
