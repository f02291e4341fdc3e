//go:build !unix

package worker

import (
	"io"
	"os"
)

// newSpinReader returns f: reads park at once where spinReader is not
// built.
func newSpinReader(f *os.File, spin func() bool) io.Reader { return f }

func pollable(f *os.File) *os.File { return f }
