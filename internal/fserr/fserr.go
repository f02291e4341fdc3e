// Package fserr words the errors of the os package for a message that
// names the file already.
package fserr

import (
	"errors"
	"io/fs"
	"os"
)

// Pathless returns what went wrong in an *fs.PathError or *os.LinkError
// (e.g. "permission denied"), without the operation and the path, for a
// message that names the file itself; any other error is returned as is.
func Pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
