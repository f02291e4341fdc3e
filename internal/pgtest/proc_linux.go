package pgtest

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// postgresUser is the uid and gid the server runs as when the tests run as
// root, which PostgreSQL refuses to run as.
func postgresUser() (uid, gid uint32, err error) {
	u, err := user.Lookup("postgres")
	if err != nil {
		return 0, 0, fmt.Errorf("the tests run as root, and PostgreSQL must run as another user, but there is no user postgres (%v): install Debian's postgresql package, which makes one", err)
	}
	id, err1 := strconv.ParseUint(u.Uid, 10, 32)
	g, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("user postgres has uid %q and gid %q", u.Uid, u.Gid)
	}
	return uint32(id), uint32(g), nil
}

// procAttr is how initdb and postgres are started: as postgres when the
// tests run as root, and taken down with the test binary should it die
// without stopping them (SIGQUIT: PostgreSQL's immediate shutdown).
func procAttr() (*syscall.SysProcAttr, error) {
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGQUIT}
	if os.Geteuid() == 0 {
		uid, gid, err := postgresUser()
		if err != nil {
			return nil, err
		}
		attr.Credential = &syscall.Credential{Uid: uid, Gid: gid}
	}
	return attr, nil
}

// chown gives dir to the user the server runs as.
func chown(dir string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	uid, gid, err := postgresUser()
	if err != nil {
		return err
	}
	return os.Chown(dir, int(uid), int(gid))
}
