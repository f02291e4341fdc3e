// Package worker runs code-mode scripts in worker processes: a pool of
// pre-started copies of the host's own binary, each running one script at a
// time under OS limits (data segment, CPU time, stack), killed on a timeout
// or crash and replaced. It is the isolation that does not depend on finding
// every hole in the in-process sandbox: whatever a script does to its
// worker — an out-of-memory crash, a Go stack overflow, a builtin that never
// returns, a frozen garbage collector — becomes a structured error
// (memory_limit, timeout, limit_exceeded, runtime_error) for that run only.
//
// The worker runs the sandbox of sandbox/js with its lean profile (js.Lean):
// the same removals from the language as an in-process run, the deadline's
// interrupt and the call-stack cap, but goja's builtins unwrapped, since the
// process limits contain what the in-process guards stop early
// (Config.Hardened runs the hardened profile instead). Its tool calls come back to the
// host over the pipe and go to the js.Host the caller gave, so validation,
// approvals, events and the trace stay in the host. Workers get no
// environment and no descriptors but their three pipes.
//
// Workers are the host's own binary started again with the argument Arg.
// Importing this package is all a binary needs to be its own worker: the
// package's init runs Main, which serves in a process started that way
// before any of the host's code that could make a pool (its main, the init
// of the packages that import this one) runs. A worker's first output is a
// hello that the pool checks before anything else, so a Config.Command that
// is not a worker fails its start at once, naming the command; New refuses
// in a worker, so no process ever starts workers recursively.
package worker
