package engine

import (
	"context"

	"github.com/codemode-dev/codemode/sandbox/js"
)

// ScriptRunner compiles and runs code-mode scripts. The engine keeps
// everything else — validation, approvals, events, limits, the trace — and
// gives the runner a js.Host (job.Options.Host) through which every tool call
// of the script comes back to the engine's one call path.
//
// A runner must end every run within its budget and turn whatever goes wrong
// into a js.Error with a contract code: the engine trusts it with the
// isolation of the script. The default runs goja in this process
// (InProcessRunner); sandbox/worker runs scripts in worker processes with
// OS-level limits. Give one to Builder.WithScriptRunner.
type ScriptRunner interface {
	RunScript(ctx context.Context, job js.Job) *js.Result
}

// InProcessRunner returns the default runner: goja in this process, with
// compiled scripts cached (the last 256 distinct scripts under 16 KiB).
func InProcessRunner() ScriptRunner { return inProcess{js.NewCache(256)} }

type inProcess struct{ cache *js.Cache }

func (p inProcess) RunScript(ctx context.Context, job js.Job) *js.Result {
	return js.RunJob(ctx, p.cache, job)
}
