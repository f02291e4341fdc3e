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
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, kind(fi.Mode()))
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, over the limit of %d", path, fi.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max { // grew while read
		return nil, fmt.Errorf("%s is over the limit of %d bytes", path, max)
	}
	return data, nil
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
