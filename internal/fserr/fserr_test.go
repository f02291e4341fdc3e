package fserr

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestPathless(t *testing.T) {
	dir := t.TempDir()
	_, err := os.Open(filepath.Join(dir, "missing"))
	if got := Pathless(err); got != syscall.ENOENT || !errors.Is(got, fs.ErrNotExist) {
		t.Errorf("open: %v", got)
	}
	err = os.Rename(filepath.Join(dir, "missing"), filepath.Join(dir, "b"))
	if got := Pathless(err); got != syscall.ENOENT {
		t.Errorf("rename: %v", got)
	}
	other := errors.New("other")
	if Pathless(other) != other || Pathless(nil) != nil {
		t.Error("an error that names no path changed")
	}
}
