package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/codemode-dev/codemode/bindings"
	"github.com/codemode-dev/codemode/engine"
)

type NoteArgs struct {
	Text     string `json:"text" jsonschema_description:"What the note says."`
	ParentID string `json:"parentId,omitempty" jsonschema_description:"Id of a folder to put the note in."`
}

type Created struct {
	ID string `json:"id"`
}

// notes is a tiny tool set: folders and notes, ids handed out in order.
func notes() []engine.Tool {
	n := 0
	next := func(kind string) Created { n++; return Created{ID: fmt.Sprintf("%s-%d", kind, n)} }
	return []engine.Tool{
		bindings.MustFunc("createFolder", "Create a folder.", func(ctx context.Context, in struct {
			Name string `json:"name"`
		}) (Created, error) {
			return next("folder"), nil
		}),
		bindings.MustFunc("createNote", "Create a note, optionally in a folder.", func(ctx context.Context, in NoteArgs) (Created, error) {
			return next("note"), nil
		}),
	}
}

// A batch whose second operation uses the first one's result, and whose
// third misspells a tool.
func ExampleEngine_Batch() {
	eng, err := engine.NewBuilder().Add(notes()...).Build()
	if err != nil {
		panic(err)
	}
	req, err := engine.ParseBatchRequest([]byte(`{
	  "executionMode": "sequential",
	  "operations": [
	    {"tool": "createFolder", "args": {"name": "Ideas"}, "label": "folder"},
	    {"tool": "createNote", "args": {"text": "Ship it", "parentId": {"$ref": "folder.id"}}},
	    {"tool": "create_note", "args": {"text": "typo"}}
	  ]}`))
	if err != nil {
		panic(err)
	}
	res, err := eng.Batch(context.Background(), req)
	if err != nil {
		panic(err)
	}
	for _, r := range res.Results {
		if r.Success {
			fmt.Printf("%d %s: %s\n", r.Index, r.Tool, r.Result)
		} else {
			fmt.Printf("%d %s: %s %v\n", r.Index, r.Tool, r.Error.Code, r.Error.Suggestions)
		}
	}
	// Output:
	// 0 createFolder: {"id":"folder-1"}
	// 1 createNote: {"id":"note-2"}
	// 2 create_note: unknown_tool [createNote]
}

// A front end that has to wait before it runs a batch (its board is busy)
// first asks whether the batch could run at all.
func ExampleEngine_CheckBatch() {
	eng, err := engine.NewBuilder().Add(notes()...).Build()
	if err != nil {
		panic(err)
	}
	for _, body := range []string{
		`{"operations": [{"tool": "createNote", "args": {"text": "a", "parentId": {"$ref": "f.id"}}}]}`,
		`{"operations": [{"tool": "createFolder", "args": {"name": "x"}, "label": "f"}, {"tool": "createNote", "args": {"text": "a", "parentId": {"$ref": "f.id"}}}]}`,
	} {
		req, err := engine.ParseBatchRequest([]byte(body))
		if err != nil {
			panic(err)
		}
		fmt.Println(eng.CheckBatch(req))
	}
	// Output:
	// bad_request: operation 0: $ref "f.id" names no labelled operation (no operation has a label)
	// <nil>
}

// A model step with native tool calls: a batch call is unwrapped into its
// operations; every write goes to the Approver, as one set.
func ExampleEngine_HandleToolCalls() {
	approver := engine.ApproverFunc(func(ctx context.Context, reqs []engine.ApprovalRequest) ([]engine.Decision, error) {
		out := make([]engine.Decision, len(reqs))
		for i, r := range reqs {
			fmt.Println("asked:", r.Tool, string(r.Args))
			out[i].Approved = !strings.Contains(string(r.Args), "secret")
		}
		return out, nil
	})
	eng, err := engine.NewBuilder().Add(notes()...).WithApprover(approver).Build()
	if err != nil {
		panic(err)
	}
	results := eng.HandleToolCalls(context.Background(), []engine.ToolCall{
		{ID: "call_1", Name: "createFolder", Arguments: json.RawMessage(`"{\"name\":\"Inbox\"}"`)},
		{ID: "call_2", Name: "createNote", Arguments: json.RawMessage(`{"text":"secret plan"}`)},
	})
	for _, r := range results {
		fmt.Println(r.ID, r.IsError, string(r.Content))
	}
	// Output:
	// asked: createFolder {"name":"Inbox"}
	// asked: createNote {"text":"secret plan"}
	// call_1 false {"id":"folder-1"}
	// call_2 true {"error":{"code":"denied","message":"call of \"createNote\" was denied"}}
}

// Definitions for a model API: the tools plus the batch meta-tool, with
// dotted names mapped for providers that forbid dots.
func ExampleEngine_ToolDefinitions() {
	eng, err := engine.NewBuilder().Add(notes()...).Build()
	if err != nil {
		panic(err)
	}
	tools, err := eng.ToolDefinitions().OpenAI()
	if err != nil {
		panic(err)
	}
	for _, t := range tools {
		fmt.Println(t.Type, t.Function.Name)
	}
	// Output:
	// function createFolder
	// function createNote
	// function batch
	// function execute_code
	// function search_tools
}

// Errors are data with a code; errors.Is matches by code.
func ExampleError() {
	eng, _ := engine.NewBuilder().Add(notes()...).Build()
	_, err := eng.Call(context.Background(), "createNote", json.RawMessage(`{"txt":"hi"}`))
	var e *engine.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, errors.Is(err, engine.ErrInvalidArgs))
		for _, d := range e.Details {
			fmt.Printf("%q: %s\n", d.Path, d.Message)
		}
	}
	// Output:
	// invalid_args true
	// "": missing property 'text'
	// "": additional properties 'txt' not allowed
}

// A script that chains one call's result into the next, recovers from a
// misspelt tool with the error's suggestion, and logs.
func ExampleEngine_Execute() {
	eng, err := engine.NewBuilder().Add(notes()...).Build()
	if err != nil {
		panic(err)
	}
	res, err := eng.Execute(context.Background(), engine.ExecuteRequest{
		Code: `
const folder = await tools.createFolder({ name: input.folder });
let note;
try {
  note = await tools.create_note({ text: "Ship it", parentId: folder.id });
} catch (e) {
  console.log(e.code, "->", e.suggestions[0]);
  note = await tools[e.suggestions[0]]({ text: "Ship it", parentId: folder.id });
}
return { folder: folder.id, note: note.id };`,
		Input: json.RawMessage(`{"folder": "Ideas"}`),
	})
	if err != nil {
		panic(err) // only a malformed request is an error; a failed script is a result
	}
	fmt.Println(res.Success, string(res.Result))
	for _, l := range res.Logs {
		fmt.Println(l.Level+":", l.Message)
	}
	for _, c := range res.Calls {
		fmt.Printf("call %d %s at line %d: success %v\n", c.Index, c.Tool, c.Line, c.Success)
	}
	fmt.Println(string(res.ModelText()))
	// Output:
	// true {"folder":"folder-1","note":"note-2"}
	// log: unknown_tool -> createNote
	// call 0 createFolder at line 2: success true
	// call 1 create_note at line 5: success false
	// call 2 createNote at line 8: success true
	// {"success":true,"result":{"folder":"folder-1","note":"note-2"},"logs":["log: unknown_tool -> createNote"]}
}

// A name from elsewhere, an MCP tool's or an OpenAPI operationId, becomes a
// name segment the same way whichever binding makes it.
func ExampleNameSegment() {
	fmt.Println(engine.NameSegment("issues/list-for-repo"), engine.NameSegment("2fa"), engine.NameSegment(""))
	// Output: issues_list_for_repo _2fa _
}

// A catalog's namespaces, with how many tools each holds: what a client
// shows in place of a thousand names.
func ExampleEngine_Namespaces() {
	tool := func(name string) engine.Tool {
		return bindings.MustFunc(name, "A tool.", func(ctx context.Context, in struct{}) (Created, error) { return Created{}, nil })
	}
	eng, err := engine.NewBuilder().Add(tool("github.issues_list_for_repo"), tool("github.issues_create"), tool("notes.create"), tool("echo")).Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ns := range eng.Namespaces() {
		fmt.Println(ns.Name, ns.Tools)
	}
	// Output:
	// github 2
	// notes 1
}
