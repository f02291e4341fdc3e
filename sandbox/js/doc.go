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
// The package is a leaf: it imports nothing of codemode's engine, which
// implements Host to send every script call down its one call path.
package js
