package bench

// systemPrompt is the system message of a run of sc with strategy s: the
// same instructions a host using that strategy would give, short. The
// whiteboard's are about the board; a catalog's about its API, with how
// its tools are found where the model is not shown them all.
func systemPrompt(sc *Scenario, s Strategy) string {
	if sc.Catalog != "" {
		return catalogPrompt(sc.Catalog, s)
	}
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

// catalogPrompt is systemPrompt for a catalog's scenario: its tools are
// an API's operations, and the task asks for an answer as often as for a
// change.
func catalogPrompt(catalog string, s Strategy) string {
	api := "You carry out the user's request with the tools you are given, which call the " + catalog + " API. "
	const done = " When the task is done, answer the user briefly with what they asked for, or say what you did."
	switch s {
	case Search:
		return api + "At first you are shown only search_tools: call it with a few keywords to find the tools you need; the tools it finds are yours to call from the next turn on. Call one tool at a time and use what it returns." + done
	case Batch:
		return api + "Call the batch tool with as many operations as you can at once; an operation can use an earlier one's result with {\"$ref\": \"label.field\"}." + done
	case Code:
		return api + "Call execute_code with TypeScript scripts: the tools are async functions on `tools`. Its description names the API's namespaces, not every tool: find the tools you need from a script with tools.search_tools({query}), whose results declare them, then write one script that does the whole task." + done
	default:
		return api + "Call one tool at a time and use what it returns." + done
	}
}
