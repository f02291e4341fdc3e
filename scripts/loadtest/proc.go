package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of the CPU times in /proc/PID/stat (USER_HZ), 100
// per second on every Linux the project runs on.
const clockTick = 10 * time.Millisecond

// procSample is what /proc says about a process and its children (the
// worker processes of a server) at one moment.
type procSample struct {
	RSS      int64         // bytes, the process
	HWM      int64         // bytes, the process's peak RSS since it started
	CPU      time.Duration // user + system time of the process
	Children int           // child processes alive
	ChildRSS int64         // bytes, summed over the live children
	// ChildCPU is the CPU time of its children: of those it has reaped
	// (cutime, cstime) plus those alive now, so that the difference of two
	// samples is what the children used in between.
	ChildCPU time.Duration
}

// sampleProc reads /proc for pid and its children. It fails where there is
// no /proc (not Linux) or no such process.
func sampleProc(pid int) (procSample, error) {
	var s procSample
	st, err := readStat(pid)
	if err != nil {
		return s, err
	}
	s.CPU = st.cpu
	s.ChildCPU = st.childCPU
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, err
	}
	s.RSS = statusKB(status, "VmRSS:")
	s.HWM = statusKB(status, "VmHWM:")
	for _, child := range children(pid) {
		cs, err := readStat(child)
		if err != nil {
			continue // ended between the listing and the read
		}
		s.Children++
		s.ChildCPU += cs.cpu + cs.childCPU
		s.ChildRSS += cs.rss
	}
	return s, nil
}

type stat struct {
	ppid          int
	cpu, childCPU time.Duration
	rss           int64
}

var pageSize = int64(os.Getpagesize())

// readStat parses /proc/PID/stat (proc(5)): the fields after the command
// name, which is in parentheses and may itself hold spaces and parentheses.
func readStat(pid int) (stat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return stat{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state) of proc(5), so field n is f[n-3].
	if len(f) < 22 {
		return stat{}, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	num := func(n int) int64 { v, _ := strconv.ParseInt(f[n-3], 10, 64); return v }
	return stat{
		ppid:     int(num(4)),
		cpu:      time.Duration(num(14)+num(15)) * clockTick,
		childCPU: time.Duration(num(16)+num(17)) * clockTick,
		rss:      num(24) * pageSize,
	}, nil
}

// statusKB reads a "Name:   123 kB" line of /proc/PID/status, in bytes.
func statusKB(status []byte, name string) int64 {
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, name); ok {
			v, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v << 10
		}
	}
	return 0
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil || !e.IsDir() {
			continue
		}
		if st, err := readStat(n); err == nil && st.ppid == pid {
			out = append(out, n)
		}
	}
	return out
}

// loadAverage is /proc/loadavg's first three numbers, "" where it is missing.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// machineCPU is the CPU time of the whole machine from /proc/stat's "cpu"
// line: busy (neither idle nor waiting for I/O), and stolen by the
// hypervisor. ok is false where there is no /proc.
func machineCPU() (busy, steal time.Duration, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0, false
	}
	var v [8]int64
	for i := range v {
		v[i], _ = strconv.ParseInt(f[i+1], 10, 64)
	}
	// user nice system idle iowait irq softirq steal
	busy = time.Duration(v[0]+v[1]+v[2]+v[5]+v[6]) * clockTick
	return busy, time.Duration(v[7]) * clockTick, true
}
