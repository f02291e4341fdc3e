package bench

// systemPrompt is the system message of a run with strategy s: the same
// instructions a host using that strategy would give, short.
func systemPrompt(s Strategy) string {
	const board = "You edit a shared whiteboard with the tools you are given. Coordinates are absolute board coordinates. "
	switch s {
	case Batch:
		return board + "Call the batch tool with as many operations as you can at once; an operation can use an earlier one's result with {\"$ref\": \"label.field\"}. When the task is done, say so in one sentence."
	case Code:
		return board + "Call execute_code with one TypeScript script that does the whole task: the tools are async functions on `tools`. When the task is done, say so in one sentence."
	default:
		return board + "Call one tool at a time and use what it returns. When the task is done, say so in one sentence."
	}
}
