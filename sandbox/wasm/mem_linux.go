package wasm

import "syscall"

// mapNoReserve keeps a reservation from counting against the commit limit
// until its pages are used.
const mapNoReserve = syscall.MAP_NORESERVE
