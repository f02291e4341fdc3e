package wasm

import (
	"time"
)

// Code is a machine-readable error code. The values are those of codemode's
// contract; the sandbox defines them itself because it imports nothing of the
// engine.
type Code string

// The codes a call can fail with.
const (
	CodeToolError   Code = "tool_error"   // the module exited non-zero, trapped, or wrote no valid JSON
	CodeTimeout     Code = "timeout"      // the call ran past its time limit
	CodeCanceled    Code = "canceled"     // the caller's context ended
	CodeMemoryLimit Code = "memory_limit" // the module asked for more memory than its limit
	CodeOutputLimit Code = "output_limit" // the module wrote more to stdout or stderr than its cap
)

// Error is why a call failed.
type Error struct {
	Code    Code
	Message string
	// ExitCode is the module's exit status when it exited non-zero.
	ExitCode uint32
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Limits bound one call of a module. Zero fields take the defaults below.
type Limits struct {
	// MemoryBytes is the most linear memory an instance may have; a module
	// that asks for more (memory.grow) is refused, and a call that then fails
	// fails with memory_limit. Rounded up to 64 KiB pages.
	MemoryBytes int64
	// Timeout is the wall time of one call. The module is stopped when it
	// passes, also inside a sleep.
	Timeout time.Duration
	// MaxStdoutBytes and MaxStderrBytes cap what a call may write; a call that
	// writes more is stopped and fails with output_limit.
	MaxStdoutBytes int
	MaxStderrBytes int
}

// Defaults for zero Limits fields.
const (
	DefaultMemoryBytes    = 64 << 20
	DefaultTimeout        = 10 * time.Second
	DefaultMaxStdoutBytes = 1 << 20
	DefaultMaxStderrBytes = 64 << 10
	// MaxMemoryBytes is WebAssembly's own ceiling (65536 pages of 64 KiB).
	MaxMemoryBytes = 4 << 30
)

func (l Limits) withDefaults() Limits {
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = DefaultMemoryBytes
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxStdoutBytes <= 0 {
		l.MaxStdoutBytes = DefaultMaxStdoutBytes
	}
	if l.MaxStderrBytes <= 0 {
		l.MaxStderrBytes = DefaultMaxStderrBytes
	}
	return l
}

// Mount grants a module read-only access to one host directory. Without
// mounts a module sees no file system at all.
type Mount struct {
	HostDir   string // a directory on the host
	GuestPath string // where the module sees it, an absolute path ("/data")
}

// ModuleOptions configure a compiled module.
type ModuleOptions struct {
	// Name is the tool's name: the module's argv[0] and the subject of error
	// messages.
	Name   string
	Limits Limits
	Mounts []Mount
	// Pooled reuses instances across calls instead of making a fresh one per
	// call. Only for pure tools (no state kept between calls): the module
	// must be a WASI reactor exporting CallExport. An instance is discarded
	// after any failed call.
	Pooled bool
}

// CallExport is the function a pooled (reactor) module exports: called once
// per tool call with the arguments on stdin, it writes the result to stdout
// and returns 0, or writes a message to stderr and returns non-zero.
const CallExport = "codemode_call"

// Config configures a Runtime.
type Config struct {
	// CacheDir, if set, keeps compiled machine code on disk so that a new
	// process compiles a module it has seen before in a fraction of the time.
	// Created if missing.
	CacheDir string
	// CacheMaxBytes bounds CacheDir: when the runtime starts and after each
	// compile, the least recently used entries past it are removed (see
	// TrimCache). 0 means DefaultCacheMaxBytes; a negative value leaves the
	// directory unbounded (for a process that only reads entries another
	// one, which trims, has written).
	CacheMaxBytes int64
}
