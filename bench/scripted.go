package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode-dev/codemode/engine"
)

// Turn is what a scripted model sees of the chat when it is asked: which
// turn it is, and the results of the calls it made in the turn before.
type Turn struct {
	// Index counts the model's turns from 0.
	Index int
	// Results are the results of the previous turn's tool calls, in the
	// order of the calls; none on the first turn.
	Results []ToolResult
	// Request is the whole request, for a model that wants more.
	Request Request
	calls   int
}

// ToolResult is one tool call's result as the model reads it.
type ToolResult struct {
	CallID  string
	Content string // the JSON text the host sent back
}

// Decode decodes the result's JSON into v.
func (r ToolResult) Decode(v any) error {
	if err := json.Unmarshal([]byte(r.Content), v); err != nil {
		return fmt.Errorf("result of %s: %w: %s", r.CallID, err, r.Content)
	}
	return nil
}

// Error is the error the result reports ({"error": {...}}, as a failed
// call's result reads), or nil.
func (r ToolResult) Error() *engine.Error {
	var v struct {
		Error *engine.Error `json:"error"`
	}
	if json.Unmarshal([]byte(r.Content), &v) != nil {
		return nil
	}
	return v.Error
}

// Script makes a scripted Model of next, which is asked once per turn and
// writes the turn's message: Calls(...) to call tools, Say(...) to answer
// and end. State a script keeps across turns lives in its closure: make a
// new Script for each run (Scenario.Scripted is called once per run).
func Script(next func(t *Turn) (Message, error)) Model {
	return ModelFunc(func(_ context.Context, req Request) (Reply, error) {
		t := &Turn{Request: req}
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				t.Index++
			}
		}
		// The results of the last assistant message's calls follow it.
		for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role == "tool"; i-- {
			m := req.Messages[i]
			t.Results = append([]ToolResult{{CallID: m.ToolCallID, Content: m.Content}}, t.Results...)
		}
		msg, err := next(t)
		return Reply{Message: msg}, err
	})
}

// Call is a call of tool (its canonical name, "graph.layout") with args
// (marshalled to JSON), with an id unique in the run.
func (t *Turn) Call(tool string, args any) ToolCall {
	// As a model writes them: "=>" and "&&" in a script stay as they are
	// (json.Marshal would escape them for HTML, and count more tokens).
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(args); err != nil {
		panic(fmt.Sprintf("bench: arguments of %s: %v", tool, err)) // a scripted model's bug
	}
	data := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	t.calls++
	return ToolCall{
		ID:       fmt.Sprintf("call_%d_%d", t.Index, t.calls),
		Type:     "function",
		Function: FunctionCall{Name: engine.WireName(tool), Arguments: string(data)},
	}
}

// Op is one operation of a batch call.
type Op struct {
	Tool  string `json:"tool"`
	Args  any    `json:"args"`
	Label string `json:"label,omitempty"`
}

// Ref is a batch operation's reference to an earlier one's result:
// {"$ref": "label.path"}.
func Ref(path string) any { return map[string]string{"$ref": path} }

// BatchCall is a call of the batch meta-tool with ops, run in order
// (sequential: an operation may use an earlier one's result).
func (t *Turn) BatchCall(ops ...Op) ToolCall {
	return t.Call(engine.MetaBatch, map[string]any{"operations": ops, "executionMode": "sequential"})
}

// CodeCall is a call of the execute_code meta-tool with a script.
func (t *Turn) CodeCall(code string) ToolCall {
	return t.Call(engine.MetaExecuteCode, map[string]any{"code": code})
}

// Calls is an assistant message calling tools.
func Calls(calls ...ToolCall) Message {
	return Message{Role: "assistant", ToolCalls: calls}
}

// Say is an assistant message that answers in words and calls nothing: the
// run's last turn.
func Say(text string) Message { return Message{Role: "assistant", Content: text} }
