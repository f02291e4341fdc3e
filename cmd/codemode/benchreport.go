package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/internal/fserr"
)

// reportFile is --report FILE: a temporary file made beside FILE before the
// runs, so that a place where the page cannot be written is found before
// the work, and renamed over FILE once the page is in it, so that FILE is
// never half a page.
type reportFile struct {
	path string
	tmp  *os.File
}

// openReport makes the temporary file of --report path.
func openReport(path string) (*reportFile, error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("--report %s: is a directory", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("--report %s: %v", path, fserr.Pathless(err))
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		if _, serr := os.Stat(dir); errors.Is(serr, fs.ErrNotExist) {
			return nil, fmt.Errorf("--report %s: directory %s does not exist", path, dir)
		}
		return nil, fmt.Errorf("--report %s: cannot create files in directory %s: %v", path, dir, fserr.Pathless(err))
	}
	return &reportFile{path: path, tmp: tmp}, nil
}

// write puts the page of rep in FILE.
func (r *reportFile) write(rep *bench.Report) error {
	err := bench.WriteHTML(r.tmp, rep)
	if err == nil {
		err = r.tmp.Chmod(0o644) // CreateTemp makes 0600
	}
	if cerr := r.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(r.tmp.Name(), r.path)
	}
	if err != nil {
		os.Remove(r.tmp.Name())
		return fmt.Errorf("--report %s: %v", r.path, fserr.Pathless(err))
	}
	return nil
}

// discard removes the temporary file of a page that will not be written.
func (r *reportFile) discard() {
	r.tmp.Close()
	os.Remove(r.tmp.Name())
}
