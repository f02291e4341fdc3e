package wasm

import (
	"io/fs"

	"github.com/tetratelabs/wazero"
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/experimental/sysfs"
)

// mountFS is how a mount's directory is seen: read-only, and holding only
// regular files and directories. Opening a named pipe or a device would
// block in the host's open (beyond the deadline's reach, which stops only
// guest code) or stream forever, so it is refused with EACCES. The open
// itself is non-blocking, which opens a pipe without waiting for a writer;
// a regular file or directory is not affected.
func mountFS(hostDir string) experimentalsys.FS {
	return regularFS{&sysfs.ReadFS{FS: sysfs.DirFS(hostDir)}}
}

type regularFS struct{ experimentalsys.FS }

func (f regularFS) OpenFile(path string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	file, errno := f.FS.OpenFile(path, flag|experimentalsys.O_NONBLOCK, perm)
	if errno != 0 {
		return nil, errno
	}
	st, errno := file.Stat()
	if errno == 0 && st.Mode.Type() != 0 && st.Mode.Type() != fs.ModeDir {
		errno = experimentalsys.EACCES
	}
	if errno != 0 {
		file.Close()
		return nil, errno
	}
	return file, 0
}

// withMount adds a read-only mount to an FS configuration.
func withMount(fsc wazero.FSConfig, hostDir, guestPath string) wazero.FSConfig {
	return fsc.(sysfs.FSConfig).WithSysFSMount(mountFS(hostDir), guestPath)
}
