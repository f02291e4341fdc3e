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
