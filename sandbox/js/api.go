package js

import (
	"encoding/json"
	"time"
)

// Code is a machine-readable error code. The values are those of codemode's
// contract; the sandbox defines them itself because it imports nothing of the
// engine.
type Code string

// The codes a run can end with on its own. Tool errors carry whatever code
// the host gave them.
const (
	CodeSyntaxError   Code = "syntax_error"   // the code does not parse
	CodeRuntimeError  Code = "runtime_error"  // the script threw, or can never finish
	CodeTimeout       Code = "timeout"        // the run's time budget ran out
	CodeCanceled      Code = "canceled"       // the caller's context ended
	CodeLimitExceeded Code = "limit_exceeded" // tool calls, call-stack depth or code size
	CodeMemoryLimit   Code = "memory_limit"   // the memory budget ran out
	CodeOutputLimit   Code = "output_limit"   // the script kept writing past its output budget
)

// Error is why a run or a tool call failed.
type Error struct {
	Code    Code
	Message string
	// Line and Column locate the error in the code as sent (1-based), when
	// known: a syntax error, where a runtime error was thrown, or where the
	// failed tool call was made.
	Line, Column int
	// Props are copied onto the JavaScript Error a rejected tool call throws
	// (for example {"suggestions": [...]}); a JSON object or nil.
	Props json.RawMessage
	// Cause is the host's own value for a tool error, handed back unchanged
	// when that error ends the run uncaught.
	Cause any
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Limits bound one run. Zero fields take the defaults below.
type Limits struct {
	Timeout        time.Duration // wall time, not counting approval waits
	MaxToolCalls   int           // tool calls per run
	MaxCallDepth   int           // JavaScript call-stack frames
	MaxMemoryBytes int64         // Go heap growth the run may cause
	MaxOutputChars int           // characters of logs kept (the result is the host's to cap)
}

// Defaults for zero Limits fields.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultMaxToolCalls   = 200
	DefaultMaxCallDepth   = 1000
	DefaultMaxMemoryBytes = 256 << 20
	DefaultMaxOutputChars = 50_000
	DefaultMaxCodeBytes   = 64 << 10
)

func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxToolCalls <= 0 {
		l.MaxToolCalls = DefaultMaxToolCalls
	}
	if l.MaxCallDepth <= 0 {
		l.MaxCallDepth = DefaultMaxCallDepth
	}
	if l.MaxMemoryBytes <= 0 {
		l.MaxMemoryBytes = DefaultMaxMemoryBytes
	}
	if l.MaxOutputChars <= 0 {
		l.MaxOutputChars = DefaultMaxOutputChars
	}
	return l
}

// Host runs the tool calls a script makes.
type Host interface {
	// Start receives the calls the script made during one turn of its event
	// loop (several when it fans out with Promise.all). It must complete
	// every call exactly once, from any goroutine, with Call.Resolve,
	// Call.Reject or Call.Abort. It may run calls before it returns (the
	// script waits meanwhile: worth it when no other call is running), but
	// must not wait for anything else, such as a person's approval.
	Start(calls []*Call)
}

// Call is one tool call made by a script.
type Call struct {
	Index        int             // 0-based, in the order the script made its calls
	Tool         string          // the name the script used
	Args         json.RawMessage // JSON.stringify of the argument ({} when none)
	Line, Column int             // where the script made the call, in the code as sent

	run     *runner // nil for a call made with NewCall
	remote  Settler
	resolve func(any) error
	reject  func(any) error
}

// Settler completes the calls of a script that runs somewhere else (in a
// worker process): NewCall's calls hand their outcome to it.
type Settler interface {
	// Settle is the call's outcome: a result, or an error that the script
	// may catch (abort false) or that ends the run (abort true).
	Settle(c *Call, result json.RawMessage, err *Error, abort bool)
	// Hold is Call.Hold for the run the call belongs to.
	Hold(c *Call) (release func())
}

// NewCall makes a call whose outcome goes to s instead of to a run of this
// package: a runner that runs scripts elsewhere hands such calls to the same
// Host as an in-process run.
func NewCall(index int, tool string, args json.RawMessage, line, column int, s Settler) *Call {
	return &Call{Index: index, Tool: tool, Args: args, Line: line, Column: column, remote: s}
}

// Resolve fulfils the call's promise with a JSON result.
func (c *Call) Resolve(result json.RawMessage) {
	if c.remote != nil {
		c.remote.Settle(c, result, nil, false)
		return
	}
	c.run.post(func() error { return c.run.settle(c, result, nil) })
}

// Reject rejects the call's promise with a catchable JavaScript Error made
// from err: its code, message and Props.
func (c *Call) Reject(err *Error) {
	if c.remote != nil {
		c.remote.Settle(c, nil, err, false)
		return
	}
	c.run.post(func() error { return c.run.settle(c, nil, err) })
}

// Abort ends the whole run with err; the script cannot catch it. Hosts use it
// for budget errors (a run-wide deadline, cancelation).
func (c *Call) Abort(err *Error) {
	if c.remote != nil {
		c.remote.Settle(c, nil, err, true)
		return
	}
	c.run.kill(err)
}

// Hold stops billing the run's timeout while the script has nothing to do
// but wait for this call — for a call waiting for a person's approval — until
// the returned function is called.
func (c *Call) Hold() (release func()) {
	if c.remote != nil {
		return c.remote.Hold(c)
	}
	return c.run.clock.hold()
}

// Log is one console line.
type Log struct {
	Level   string `json:"level"` // log, info, warn, error, debug
	Message string `json:"message"`
}

// Profile is how much of the sandbox a run builds into its fresh runtime.
// Both profiles make the same deliberate removals from the language (see
// removedGlobals and removals.js: docs/code-mode.md lists them with their
// reasons), stop the script at its deadline, cap the call stack, watch the
// heap, and bind tools, input and console identically: a script gives a
// host the same tool arguments under either.
type Profile uint8

const (
	// Hardened is for runs nothing but the sandbox contains: in process.
	// Every builtin runs behind a Go wrapper with size, depth and callback
	// guards, and prelude.js rebuilds join, toLocaleString, Array.from and JSON,
	// because goja's interrupt does not reach inside builtins and one of
	// them can take the whole process down. About half of a short run's
	// cost, and it changes some of JavaScript's meaning (docs/code-mode.md).
	Hardened Profile = iota
	// Lean is for runs a process contains: a worker (sandbox/worker) whose
	// memory, CPU time and wall time the OS and its pool bound, and which is
	// replaced when a script kills or freezes it. The builtins are goja's
	// own, unwrapped. Never use it where a runaway builtin would take down
	// a process that matters.
	Lean
)

func (p Profile) String() string {
	if p == Lean {
		return "lean"
	}
	return "hardened"
}

// Options configure one run.
type Options struct {
	Limits Limits
	// Profile is how the run's runtime is built; the zero value is
	// Hardened, which an in-process run needs.
	Profile Profile
	// Input is the value of the global `input` (JSON; null when empty).
	Input json.RawMessage
	// Tools are the names bound under the global `tools`: "a.b" is reachable
	// as tools.a.b and as tools["a.b"].
	Tools []string
	Host  Host
	// OnLog, if set, sees each console line the run keeps (Result.Logs), as
	// it is written: a line cut to fit the output budget as cut, none past
	// it.
	OnLog func(Log)
	// Prepared, if set, is the run's fresh runtime built ahead by Prepare
	// for Profile: the run takes it instead of building one, which is then
	// off its path. A Prepared serves one run only; a run given one already
	// taken, or made for another profile, builds its own.
	Prepared *Prepared
}

// Result is what a run produced.
type Result struct {
	// Value is the script's return value as JSON ("null" when it returned
	// nothing); nil when the run failed.
	Value json.RawMessage
	Logs  []Log
	// LogsTruncated reports that logs were cut to fit MaxOutputChars.
	LogsTruncated bool
	Err           *Error
	ToolCalls     int // calls made (started or refused)
	// LateCalls counts tool calls made after the script had returned; they
	// were not run.
	LateCalls int
	// TypeScript reports that the code went through the TypeScript
	// transform (set by runners that compile as well as run).
	TypeScript bool
}

// Job is a script for a runner that compiles as well as runs: the code as
// sent, its size limit, and the options of the run.
type Job struct {
	Code         string
	MaxCodeBytes int // 0: DefaultMaxCodeBytes
	Options      Options
}
