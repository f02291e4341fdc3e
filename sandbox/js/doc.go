// Package js runs model-written JavaScript and TypeScript in a hardened goja
// sandbox, with tools bound as async functions.
//
// Every run gets a fresh runtime, never reused, and its own small event loop:
// a tool call returns a promise and its work is handed to a Host, which
// completes it from any goroutine; Promise.all therefore runs tools
// concurrently. Results cross as plain JavaScript values made from JSON, tool
// errors as plain Errors with a code.
//
// The sandbox has no require, timers, eval, Function constructors, binary
// buffers, file system, network or environment. Its budgets — time (not
// counting approval waits), tool calls, call-stack depth, memory, output —
// end a run with an error the script cannot catch. In the Hardened profile
// (the default, for in-process runs) builtins that goja's interrupt cannot
// reach are guarded by size before they run; the Lean profile, for runs a
// worker process contains, leaves goja's builtins as they are (Profile).
//
// The memory budget is kept by one watchdog that reads the process's Go
// heap. While runs are going it sets Go's soft memory limit
// (runtime/debug.SetMemoryLimit) near the heap plus their budgets, so that
// collections, and so its readings, keep up; it never sets it above a
// limit the program had (GOMEMLIMIT or its own), keeps one the program
// sets meanwhile, and gives the program's back when the last run ends.
//
// The package is a leaf: it imports nothing of codemode's engine, which
// implements Host to send every script call down its one call path.
package js
