// Package guest is the author-side helper for codemode WASM tools written in
// Go and built with GOOS=wasip1 GOARCH=wasm.
//
// The host writes a call's JSON arguments to stdin and closes it; the tool
// writes one JSON value to stdout and succeeds, or writes a one-line message
// to stderr and fails. One main.go serves both module shapes:
//
//	func main() { guest.Main(handler) } // command: _start, exit status
//
//	//go:wasmexport codemode_call
//	func call() int32 { return guest.Call(handler) } // pooled reactor (-buildmode=c-shared)
//
// The package is stdlib only and builds on any GOOS, so a tool also runs on
// the host as a plain stdin/stdout program and its handler is testable there.
package guest
