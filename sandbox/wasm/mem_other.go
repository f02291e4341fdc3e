//go:build !unix

package wasm

// mapMemory is unavailable here: memory lives in the Go heap.
func mapMemory(uint64) []byte { return nil }

func unmapMemory([]byte) {}
