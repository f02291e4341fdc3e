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
	writeExecuteCodeRules(&b, opt)
	b.WriteString("Tools:\n```ts\n")
	b.WriteString(declarations)
	b.WriteString("```")
	return b.String()
}

// ExecuteCodeIndexDescription is the execute_code description for a tool
// set whose declarations are over the budget: instead of them, it names the
// tools' namespaces (with counts) and the tools outside a namespace, within
// about maxChars characters, and tells the model to look declarations up
// with search, whose own declaration it carries.
func ExecuteCodeIndexDescription(opt ExecuteCodeOptions, names []string, search, searchDeclaration string, maxChars int) string {
	var b strings.Builder
	writeExecuteCodeRules(&b, opt)
	fmt.Fprintf(&b, "Tools: %d, too many to declare here. Find the ones you need with `await tools.%s({query: \"keywords\"})`, "+
		"which returns the best matches with their TypeScript declarations, then call them. Declaration:\n```ts\n", len(names), search)
	b.WriteString(searchDeclaration)
	b.WriteString("```\n")
	spaces, top := Namespaces(names)
	budget := maxChars
	if len(spaces) > 0 {
		b.WriteString("Namespaces (tools.NAMESPACE.tool): ")
		budget = writeList(&b, spaces, func(ns Namespace) string { return fmt.Sprintf("%s (%d)", ns.Name, ns.Tools) }, budget)
		b.WriteString("\n")
	}
	if len(top) > 0 {
		b.WriteString("Other tools: ")
		writeList(&b, top, func(n string) string { return n }, budget)
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Namespace is a namespace of tools (NAME.…) and how many it holds.
type Namespace struct {
	Name  string
	Tools int
}

// Namespaces groups names by namespace, in the order each first occurs,
// and returns the names outside any namespace apart.
func Namespaces(names []string) (spaces []Namespace, other []string) {
	at := map[string]int{}
	for _, n := range names {
		ns, _, dotted := strings.Cut(n, ".")
		if !dotted {
			other = append(other, n)
			continue
		}
		i, ok := at[ns]
		if !ok {
			i = len(spaces)
			at[ns] = i
			spaces = append(spaces, Namespace{Name: ns})
		}
		spaces[i].Tools++
	}
	return spaces, other
}

// writeList writes items comma-separated while they fit budget characters,
// then "and N more"; it returns the budget left.
func writeList[T any](b *strings.Builder, items []T, show func(T) string, budget int) int {
	for i, it := range items {
		s := show(it)
		if len(s) > budget {
			fmt.Fprintf(b, "and %d more", len(items)-i)
			return 0
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
		budget -= len(s) + 2
	}
	return budget
}

// writeExecuteCodeRules writes the part of execute_code's description that
// is the same whether the tools are declared or only named.
func writeExecuteCodeRules(b *strings.Builder, opt ExecuteCodeOptions) {
	b.WriteString("Run a JavaScript or TypeScript program that calls the tools below as async functions, all in one step. Prefer it over single calls when results feed later calls, when you need loops or conditions, or to fan out with Promise.all.\n\n")
	b.WriteString("The code is the body of an async function: await every tool call and `return` the value you want back (it must be JSON-serializable). ")
	b.WriteString(`Call tools as tools.name(args) (dotted names nest: tools.board.getState(), or tools["board.getState"]). `)
	b.WriteString("The optional `input` argument is available as the global `input`. console.log/info/warn/error output is returned with the result.\n\n")
	b.WriteString("A failed call throws an Error with .code and .message; unknown_tool errors carry .suggestions (the likely intended names), invalid_args errors carry .details (each violated field with its path). Catch them to recover, or let them end the script. ")
	b.WriteString("There is no require, import, fetch, timers, eval or file system.")
	if opt.MaxToolCalls > 0 {
		fmt.Fprintf(b, " Limits: %d tool calls, %gs", opt.MaxToolCalls, opt.TimeoutSeconds)
		if opt.MaxOutputChars > 0 {
			fmt.Fprintf(b, ", %d characters of result and logs", opt.MaxOutputChars)
		}
		b.WriteString(".")
	}
	b.WriteString("\n\nReturns {success, result, logs, error}; error has code, message and the line and column in your code.\n\n")
}

// ExecuteCodeSchema is the input schema of the execute_code meta-tool.
const ExecuteCodeSchema = `{"type":"object","properties":{` +
	`"code":{"type":"string","description":"JavaScript or TypeScript: the body of an async function."},` +
	`"input":{"description":"Any JSON value, available to the code as the global input."}},` +
	`"required":["code"],"additionalProperties":false}`
