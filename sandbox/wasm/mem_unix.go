//go:build unix

package wasm

import "syscall"

// mapMemory reserves n bytes of zeroed memory outside the Go heap; pages are
// backed only once touched. It returns nil where the reservation fails (a
// 32-bit address space, a strict overcommit policy): the caller falls back
// to the Go heap.
func mapMemory(n uint64) []byte {
	if n == 0 || n > 1<<32 {
		return nil
	}
	b, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|mapNoReserve)
	if err != nil {
		return nil
	}
	return b
}

func unmapMemory(b []byte) { _ = syscall.Munmap(b) }
