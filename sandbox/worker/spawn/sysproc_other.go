//go:build !linux

package spawn

import "syscall"

// sysProcAttr: without Linux's parent-death signal, a worker ends when its
// stdin closes, which happens when the host exits.
func sysProcAttr() *syscall.SysProcAttr { return nil }
