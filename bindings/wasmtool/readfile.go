package wasmtool

import (
	"fmt"
	"io"
	"os"
)

// Size caps for what the loader reads. A manifest is a few KiB; a Go tool's
// module is a few MiB, and compiling one costs memory in proportion.
const (
	MaxManifestBytes = 1 << 20
	MaxModuleBytes   = 256 << 20
)

// readRegular reads a regular file of at most max bytes. A path that is (or
// links to) a named pipe, a device, a socket or a directory is refused: a
// FIFO would block the open until a writer came, and /dev/zero would be
// read forever. The open does not block (non-blocking where the system
// has it), and the read stops one byte past max.
func readRegular(path string, max int64) ([]byte, error) {
	f, err := openRegular(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max { // grew while read
		return nil, fmt.Errorf("%s is over the limit of %d bytes", path, max)
	}
	return data, nil
}

// checkRegular checks, without reading it, that path is a regular file of
// at most max bytes, as readRegular will read it.
func checkRegular(path string, max int64) error {
	f, err := openRegular(path, max)
	if err == nil {
		f.Close()
	}
	return err
}

// openRegular opens path without blocking and checks that it is a regular
// file of at most max bytes.
func openRegular(path string, max int64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = fmt.Errorf("%s is not a regular file (%s)", path, kind(fi.Mode()))
	case fi.Size() > max:
		err = fmt.Errorf("%s is %d bytes, over the limit of %d", path, fi.Size(), max)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}
