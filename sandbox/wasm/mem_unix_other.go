//go:build unix && !linux

package wasm

const mapNoReserve = 0
