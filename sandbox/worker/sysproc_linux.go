package worker

import (
	"os"
	"syscall"
)

// peakRSS is an ended worker's largest resident set in bytes.
func peakRSS(st *os.ProcessState) int64 {
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss << 10 // kilobytes on Linux
	}
	return 0
}
