//go:build linux

package wasm

import (
	"os"
	"syscall"
	"time"
)

// accessTime is a file's last access time, as the system records it.
func accessTime(fi os.FileInfo) (time.Time, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(int64(st.Atim.Sec), int64(st.Atim.Nsec)), true
}
