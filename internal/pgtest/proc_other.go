//go:build !linux

package pgtest

import "syscall"

func procAttr() (*syscall.SysProcAttr, error) { return nil, errUnsupported }

func chown(string) error { return errUnsupported }
