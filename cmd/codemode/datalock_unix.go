//go:build unix

package main

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// lockData takes the data directory's lock file, path, for as long as this
// process serves: flock(2), exclusive, without waiting, so that a second
// codemode serve on the same --data is refused at once instead of sharing
// the store (each would take the other's commits for its own state). The
// lock goes with the process, however it ends. The file holds the holder's
// process id, for the message of the one refused.
func lockData(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &dataInUseError{pid: strings.TrimSpace(string(pid))}
		}
		return nil, err
	}
	// The holder's id, for whoever is refused; the lock is what counts.
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}
