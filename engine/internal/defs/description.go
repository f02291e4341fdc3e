package defs

import (
	"fmt"
	"strings"
)

// BatchDescription is the batch meta-tool's description: when to use it,
// how to chain operations, and what comes back. It is kept short (under
// ~1,200 characters) because a model pays for it on every request.
func BatchDescription(opt BatchOptions) string {
	var b strings.Builder
	b.WriteString("Run several tool calls in one step. Use it whenever you need 2 or more calls, independent or chained: one batch saves a round trip per call.\n\n")
	b.WriteString("Each operation is {tool, args, label?}; args follow that tool's own input schema.")
	if opt.MaxOperations > 0 {
		fmt.Fprintf(&b, " At most %d operations.", opt.MaxOperations)
	}
	b.WriteString(` To use an earlier result, label that operation and put {"$ref":"label"} or {"$ref":"label.path.0.field"} where the value goes in args, e.g. "parentId":{"$ref":"frame.id"}.` + "\n\n")
	b.WriteString(`executionMode "parallel" (default) runs independent operations concurrently; an operation waits for those it references. "sequential" runs them in order. stopOnError: after the first failure, operations not yet started are skipped.` + "\n\n")
	b.WriteString("Returns {summary, results}: summary counts successful, failed and skipped operations; results are in request order, each with success and result, or success false and error {code, message}. ")
	b.WriteString("An operation whose $ref target failed fails with dependency_failed. Results over the size limits are cut and marked truncated:true. batch and execute_code cannot run inside a batch.")
	return b.String()
}

// ExecuteCodeOptions are the limits the execute_code description states.
type ExecuteCodeOptions struct {
	MaxToolCalls   int
	TimeoutSeconds float64
	MaxOutputChars int
}

// ExecuteCodeDescription is the execute_code meta-tool's description: when
// to write a script, the rules of the sandbox, and the tools' TypeScript
// declarations, which are most of its length.
func ExecuteCodeDescription(opt ExecuteCodeOptions, declarations string) string {
	var b strings.Builder
	b.WriteString("Run a JavaScript or TypeScript program that calls the tools below as async functions, all in one step. Prefer it over single calls when results feed later calls, when you need loops or conditions, or to fan out with Promise.all.\n\n")
	b.WriteString("The code is the body of an async function: await every tool call and `return` the value you want back (it must be JSON-serializable). ")
	b.WriteString(`Call tools as tools.name(args) (dotted names nest: tools.board.getState(), or tools["board.getState"]). `)
	b.WriteString("The optional `input` argument is available as the global `input`. console.log/info/warn/error output is returned with the result.\n\n")
	b.WriteString("A failed call throws an Error with .code and .message; unknown_tool errors carry .suggestions (the likely intended names), invalid_args errors carry .details (each violated field with its path). Catch them to recover, or let them end the script. ")
	b.WriteString("There is no require, import, fetch, timers, eval or file system.")
	if opt.MaxToolCalls > 0 {
		fmt.Fprintf(&b, " Limits: %d tool calls, %gs", opt.MaxToolCalls, opt.TimeoutSeconds)
		if opt.MaxOutputChars > 0 {
			fmt.Fprintf(&b, ", %d characters of result and logs", opt.MaxOutputChars)
		}
		b.WriteString(".")
	}
	b.WriteString("\n\nReturns {success, result, logs, error}; error has code, message and the line and column in your code.\n\n")
	b.WriteString("Tools:\n```ts\n")
	b.WriteString(declarations)
	b.WriteString("```")
	return b.String()
}

// ExecuteCodeSchema is the input schema of the execute_code meta-tool.
const ExecuteCodeSchema = `{"type":"object","properties":{` +
	`"code":{"type":"string","description":"JavaScript or TypeScript: the body of an async function."},` +
	`"input":{"description":"Any JSON value, available to the code as the global input."}},` +
	`"required":["code"],"additionalProperties":false}`
