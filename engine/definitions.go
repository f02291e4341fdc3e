package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/engine/internal/defs"
	"github.com/codemode-dev/codemode/engine/internal/tsgen"
)

// The shapes model APIs take tool definitions in. They are plain structs:
// json.Marshal gives exactly the provider's format.

// MCPTool is a tool as MCP's tools/list returns it.
type MCPTool struct {
	// Name is the canonical name, dots kept ("board.getState").
	Name        string `json:"name"`
	Description string `json:"description"`
	// InputSchema is the tool's input schema as registered ({"type":
	// "object"} when it had none).
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema is left out when the tool has none.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Annotations are the MCP hints (readOnlyHint, ...), as JSON.
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

// OpenAITool is a tool for the "tools" array of OpenAI's Chat Completions
// API.
type OpenAITool struct {
	// Type is always "function".
	Type     string         `json:"type"`
	Function OpenAIFunction `json:"function"`
}

// OpenAIFunction is the function part of an OpenAITool.
type OpenAIFunction struct {
	// Name is the tool's name in wire form (see WireName).
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the input schema: in the form OpenAI's strict mode
	// accepts when Strict is set (every property required, the optional
	// ones nullable, additionalProperties false), else as registered.
	Parameters json.RawMessage `json:"parameters"`
	// Strict asks OpenAI to decode calls under Parameters exactly. It is
	// always sent, true or false: the Responses API takes a missing strict
	// as true.
	Strict bool `json:"strict"`
	// NotStrict says why Strict is false: the places in the input schema
	// strict mode cannot express. It is not sent.
	NotStrict string `json:"-"`
}

// AnthropicTool is a tool for the "tools" array of Anthropic's Messages API.
type AnthropicTool struct {
	// Name is the tool's name in wire form (see WireName).
	Name        string `json:"name"`
	Description string `json:"description"`
	// InputSchema is the tool's input schema as registered ({"type":
	// "object"} when it had none).
	InputSchema json.RawMessage `json:"input_schema"`
}

// Definitions is what a model is shown: every tool, then the meta-tools
// (batch, execute_code, search_tools). Meta-tool entries carry no Handler:
// HandleToolCalls runs them.
type Definitions struct {
	Tools []Tool
}

// ToolDefinitions returns the model-facing tool list. The batch meta-tool's
// schema names the tools as an enum and, while the tool set is small (≤ 40
// tools, ≤ 48 KiB of schemas), is a union keyed by tool name carrying each
// tool's own argument schema, so a model under strict decoding (OpenAI's
// strict mode: see Definitions.OpenAI) can neither misspell a tool nor
// malform its arguments. The meta-tools' definitions are made by the first
// call (execute_code's description holds every tool's declaration) and kept.
func (e *Engine) ToolDefinitions() Definitions {
	return Definitions{Tools: append(e.Tools(), e.meta()...)}
}

// planMetaTools makes, for Build, the batch meta-tool's schema, which fails
// on a tool schema it cannot embed, and sets up the rest of the meta-tool
// definitions, and where their strict forms make optional members nullable,
// to be made on first use (see Engine.meta).
func (e *Engine) planMetaTools() error {
	e.meta = func() []Tool { return nil }
	e.nulls = func() map[string]*defs.Nulls { return nil }
	if len(e.names) == 0 {
		return nil
	}
	opt := e.batchOptions()
	in := e.Tools()
	list := make([]defs.Tool, len(in))
	for i, t := range in {
		list[i] = toDef(t)
	}
	schema, err := defs.BatchSchema(list, opt)
	if err != nil {
		return fmt.Errorf("batch meta-tool schema: %w", err)
	}
	e.batchSchema = schema
	e.meta = sync.OnceValue(e.metaTools)
	e.nulls = sync.OnceValue(func() map[string]*defs.Nulls {
		return planNulls(Definitions{Tools: append(e.Tools(), e.meta()...)})
	})
	return nil
}

func (e *Engine) batchOptions() defs.BatchOptions {
	opt := defs.DefaultBatchOptions()
	opt.MaxOperations = e.cfg.Limits.MaxOperations
	return opt
}

// metaTools makes the meta-tool definitions of an engine with tools.
func (e *Engine) metaTools() []Tool {
	code := defs.ExecuteCodeOptions{
		MaxToolCalls:   e.cfg.Script.MaxToolCalls,
		TimeoutSeconds: e.cfg.Script.Timeout.D().Seconds(),
		MaxOutputChars: e.cfg.Script.MaxOutputChars,
	}
	// Over the budget, the declarations would crowd the model's context:
	// the description names the tools, and search_tools declares them.
	budget := e.cfg.Script.MaxDeclarationChars
	var codeDesc string
	if !e.declarationsOver(budget) {
		if decls := e.Declarations(); len(decls) <= budget {
			codeDesc = defs.ExecuteCodeDescription(code, decls)
		}
	}
	if codeDesc == "" {
		codeDesc = defs.ExecuteCodeIndexDescription(code, e.names, MetaSearchTools, tsgen.Declaration(tsTool(e.search.Tool)), budget)
	}
	meta := []Tool{{
		Name:        MetaBatch,
		Description: defs.BatchDescription(e.batchOptions()),
		InputSchema: e.batchSchema,
		Annotations: Annotations{Title: "Batch of tool calls", OpenWorldHint: Bool(false)},
	}, {
		Name:        MetaExecuteCode,
		Description: codeDesc,
		InputSchema: json.RawMessage(defs.ExecuteCodeSchema),
		Annotations: Annotations{Title: "Run a script that calls the tools", OpenWorldHint: Bool(false)},
	}, e.search.Tool}
	meta[2].Handler = nil
	return meta
}

// declarationsOver reports, without writing them, that the script tools'
// declarations are surely over budget: each tool's holds at least its
// method's name and every non-space character of its description. It spares
// a catalog the declarations its execute_code leaves out (GitHub's REST
// API: 3.7 MB of them, 440 ms to write).
func (e *Engine) declarationsOver(budget int) bool {
	least := 0
	for _, n := range e.scriptTools {
		t, _ := e.lookup(n)
		least += len(n) - strings.LastIndex(n, ".") - 1
		for d := t.Description; d != ""; {
			r, size := utf8.DecodeRuneInString(d) // an invalid byte is written as one byte
			if !unicode.IsSpace(r) {
				least += size
			}
			d = d[size:]
		}
		if least > budget {
			return true
		}
	}
	return false
}

// planNulls records, per tool and meta-tool, where the OpenAI export's
// strict form made an optional member nullable (see dropNulls).
func planNulls(d Definitions) map[string]*defs.Nulls {
	nulls := map[string]*defs.Nulls{}
	for _, t := range d.list() {
		if n := defs.Strict(defs.InputSchema(t)).Nulls; n != nil {
			nulls[t.Name] = n
		}
	}
	return nulls
}

// dropNulls takes out of a model's arguments for tool the nulls it sent for
// optional members, as a model decoding under the strict form of the tool's
// schema does for the members it leaves out. Only members optional in the
// tool's schema, whose schema does not take null, are dropped: a call that
// keeps such a null would fail validation anyway.
func (e *Engine) dropNulls(tool string, args json.RawMessage) json.RawMessage {
	out, _ := e.nulls()[tool].Drop(args)
	return out
}

// Declarations returns the TypeScript declarations scripts see: the global
// tools with every tool as an async method (search_tools among them, when
// there are tools), input and console.
func (e *Engine) Declarations() string {
	list := make([]tsgen.Tool, 0, len(e.scriptTools))
	for _, n := range e.scriptTools {
		t, _ := e.lookup(n)
		list = append(list, tsTool(t.Tool))
	}
	return tsgen.Declarations(list)
}

func tsTool(t Tool) tsgen.Tool {
	return tsgen.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema}
}

func toDef(t Tool) defs.Tool {
	ann, _ := json.Marshal(t.Annotations) // plain struct: cannot fail
	return defs.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: ann}
}

func (d Definitions) list() []defs.Tool {
	out := make([]defs.Tool, len(d.Tools))
	for i, t := range d.Tools {
		out[i] = toDef(t)
	}
	return out
}

// MCP returns the definitions in MCP's shape.
func (d Definitions) MCP() []MCPTool {
	in := defs.MCP(d.list())
	out := make([]MCPTool, len(in))
	for i, t := range in {
		out[i] = MCPTool(t)
	}
	return out
}

// OpenAI returns the definitions in OpenAI's shape, names in wire form
// (dots → '-'; see WireName), each marked strict with its input schema in
// the strict form, or not strict with the reason in NotStrict where the
// schema has no strict form (open objects, values of any type, keywords like
// allOf, over strict mode's size limits). A model decoding under a strict
// schema sends null for an optional argument it leaves out; HandleToolCalls
// drops those nulls before the call is checked against the tool's own
// schema. It fails only for names too long for OpenAI.
func (d Definitions) OpenAI() ([]OpenAITool, error) {
	in, err := defs.OpenAI(d.list())
	if err != nil {
		return nil, err
	}
	out := make([]OpenAITool, len(in))
	for i, t := range in {
		out[i] = OpenAITool{Type: t.Type, Function: OpenAIFunction(t.Function)}
	}
	return out, nil
}

// Anthropic returns the definitions in Anthropic's shape, names in wire form.
func (d Definitions) Anthropic() ([]AnthropicTool, error) {
	in, err := defs.Anthropic(d.list())
	if err != nil {
		return nil, err
	}
	out := make([]AnthropicTool, len(in))
	for i, t := range in {
		out[i] = AnthropicTool(t)
	}
	return out, nil
}

// WireName maps a canonical tool name to the form model APIs accept: OpenAI
// and Anthropic forbid dots, so every '.' becomes '-'. Tool names never
// contain '-', so CanonicalName reverses it exactly.
func WireName(name string) string { return defs.WireName(name) }

// CanonicalName reverses WireName; a canonical name is returned unchanged.
func CanonicalName(wire string) string { return defs.CanonicalName(wire) }
