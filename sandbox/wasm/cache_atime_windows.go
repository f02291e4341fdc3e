//go:build windows

package wasm

import (
	"os"
	"syscall"
	"time"
)

// accessTime is a file's last access time, as the system records it.
func accessTime(fi os.FileInfo) (time.Time, bool) {
	d, ok := fi.Sys().(*syscall.Win32FileAttributeData)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(0, d.LastAccessTime.Nanoseconds()), true
}
