// Package bench measures the ways a model can use tools on the same tasks:
// one tool call per model turn (per-call, the classic loop), the batch
// meta-tool (batch), a script (code, the execute_code meta-tool), and, for a
// catalog too big to send whole, search_tools and then the tools it found,
// one call per turn (search). Every
// strategy goes through the engine's real entry points — the tool list a host
// would send (Engine.ToolDefinitions, in OpenAI's format) and
// Engine.HandleToolCalls for the calls the model makes — so what is measured
// is what a host would send and run.
//
// A Scenario is a task in words, a starting board and a checker over the final
// board, or, for a catalog's task, its own engine and a world (a fake API's
// state) with a checker of it and of the model's answer. A Model answers
// each turn: by default the scenario's deterministic
// scripted model, which writes what a competent model would and reacts to the
// tool results it gets (ids, errors, suggestions); or a live model behind any
// OpenAI-compatible endpoint (NewOpenAIModel). Run plays every scenario with
// every strategy and measures round trips, tokens (o200k_base), tool calls,
// engine time and the wall time of a stated latency model.
//
// This file holds the package's public declarations; the implementation is in
// the other files.
package bench

import (
	"context"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// Strategy is how the model is asked to use the tools.
type Strategy string

const (
	// PerCall shows the model every tool, and it makes one call per turn.
	PerCall Strategy = "per-call"
	// Batch shows the model only the batch meta-tool (whose schema carries
	// every tool's arguments); it sends calls in batches, as many rounds as
	// it needs.
	Batch Strategy = "batch"
	// Code shows the model only the execute_code meta-tool (whose
	// description declares every tool as a TypeScript function, or, for a
	// catalog over its declaration budget, names the namespaces and points
	// to search_tools, which scripts call); it writes a script.
	Code Strategy = "code"
	// Search shows the model only search_tools at first; every tool a
	// search finds is shown from the next turn on, beside it (as hosts
	// with deferred tool loading do), and the model makes one call per
	// turn. It is per-call for a catalog too big to send whole.
	Search Strategy = "search"
)

// Strategies lists the strategies in the order reports show them.
var Strategies = []Strategy{PerCall, Search, Batch, Code}

// BoardStrategies are the strategies a scenario runs when it names none:
// search is for catalogs, not for the whiteboard's dozen tools.
var BoardStrategies = []Strategy{PerCall, Batch, Code}

// Message is one message of a chat in OpenAI's Chat Completions format:
// "system", "user", "assistant" (with ToolCalls when it calls tools) or
// "tool" (a call's result, for ToolCallID).
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is one tool call of an assistant message.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall names the tool (in wire form: "graph-layout") and carries its
// arguments as a JSON text, as OpenAI sends them.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Request is what the host sends the model for one turn: the whole chat so
// far and the tools the strategy shows.
type Request struct {
	Messages []Message
	Tools    []engine.OpenAITool
}

// Reply is a model's answer to one turn.
type Reply struct {
	Message Message
	// Usage is the token counts the provider reported, if any (a live
	// model); zero otherwise, and the run counts the tokens itself.
	Usage Usage
	// Latency is how long the provider took (a live model); zero for a
	// scripted model, whose wall time comes from the latency model.
	Latency time.Duration
}

// Usage is a turn's token counts.
type Usage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
}

// Model answers turns. A Model is used for one run (one scenario with one
// strategy) and may keep state across its turns.
type Model interface {
	Complete(ctx context.Context, req Request) (Reply, error)
}

// ModelFunc makes a function a Model.
type ModelFunc func(ctx context.Context, req Request) (Reply, error)

// Complete calls f.
func (f ModelFunc) Complete(ctx context.Context, req Request) (Reply, error) { return f(ctx, req) }

// Scenario is one task: what the user asks, the board it starts from, and how
// to tell the task was done.
type Scenario struct {
	// Name is a short identifier ("retro", "bug-recolor").
	Name string
	// Task is the user's message, in plain words.
	Task string
	// Start returns the starting board, fresh for each run; nil starts
	// from an empty board.
	Start func() (*whiteboard.Board, error)
	// Check says whether the final board does what Task asks: nil, or
	// the reason it does not.
	Check func(b *whiteboard.Board) error
	// Scripted returns the deterministic model of this scenario for a
	// strategy, new for each run.
	Scripted func(s Strategy) Model
	// Tools names the tools beyond the whiteboard's the scenario needs
	// ("graph.layout"); Run reports a scenario whose tools the engine
	// lacks as failed, with the reason.
	Tools []string
	// Strategies are those the scenario has scripted models for; nil
	// means BoardStrategies. Run plays the ones of them Config asks for.
	Strategies []Strategy

	// A catalog scenario works on an API's tools instead of the board:
	// Engine holds them (Config.Engine is for the board's scenarios),
	// Catalog names them in reports ("github"), and Env makes each run's
	// world: a context holding its fresh state for the tools, and the
	// checker of that state and of the model's final answer. Start and
	// Check are then unused.
	Engine  *engine.Engine
	Catalog string
	Env     func(ctx context.Context) (context.Context, func(answer string) error, error)
}

// strategies are the strategies sc runs.
func (sc *Scenario) strategies() []Strategy {
	if sc.Strategies == nil {
		return BoardStrategies
	}
	return sc.Strategies
}

// Latency is the wall-time model of a live provider, for the scripted model
// (whose turns take no time): each turn costs PerRoundTrip plus its input
// and output tokens at their rates. Engine time is added as measured.
type Latency struct {
	PerRoundTrip   time.Duration `json:"perRoundTrip"`
	PerInputToken  time.Duration `json:"perInputToken"`
	PerOutputToken time.Duration `json:"perOutputToken"`
}

// Config is a benchmark's set-up.
type Config struct {
	// Engine runs the tool calls. It must have the whiteboard's tools
	// (whiteboard.Tools(nil): each run's board is put in the calls'
	// context) and any tools the scenarios name.
	Engine *engine.Engine
	// Model, if set, answers every run (a live model); nil uses each
	// scenario's scripted model.
	Model func(s Strategy) Model
	// ModelName names Model in the report ("scripted" when Model is nil).
	ModelName string
	// Strategies to run; nil runs every one.
	Strategies []Strategy
	// Repeat runs each scenario and strategy this many times (a live
	// model's success rate); 0 means 1.
	Repeat int
	// MaxTurns ends a run that has not finished after this many model
	// turns (counted as failed); 0 means DefaultMaxTurns.
	MaxTurns int
	// Latency is the wall-time model; the zero value means DefaultLatency.
	Latency Latency
	// Progress, if set, is called after each run.
	Progress func(done, total int, r *Result)
}

// DefaultMaxTurns bounds a run's model turns: enough for the per-call loop
// to make a 10 × 10 grid one note per turn.
const DefaultMaxTurns = 250

// Result is the measure of one run: one scenario with one strategy.
type Result struct {
	Scenario string   `json:"scenario"`
	Strategy Strategy `json:"strategy"`
	Repeat   int      `json:"repeat"` // 0 for the first run of a scenario and strategy
	// Turns is how many times the model was asked; RoundTrips how many of
	// those turns called tools (each a trip to the tools and back). Every
	// run ends with a turn that calls none, the model's answer.
	Turns      int `json:"turns"`
	RoundTrips int `json:"roundTrips"`
	// InputTokens is the sum over turns of each turn's whole request
	// (the chat so far and the tool definitions, re-sent every turn);
	// OutputTokens the sum of what the model wrote.
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
	// MaxInputTokens is the largest of those requests: what must fit the
	// model's context window.
	MaxInputTokens int `json:"maxInputTokens"`
	// ToolCalls counts the tools' calls the engine ran: a batch's
	// operations and a script's calls each count, the meta-tool calls
	// themselves do not.
	ToolCalls int `json:"toolCalls"`
	// EngineTime is the time spent in HandleToolCalls.
	EngineTime time.Duration `json:"engineTimeNs"`
	// Wall is the run's modelled wall time (Latency per turn, plus
	// EngineTime); for a live model, the providers' measured latency plus
	// EngineTime.
	Wall time.Duration `json:"wallNs"`
	// Correct is the checker's verdict; Failure says why not (the
	// checker's reason, a model error, too many turns).
	Correct bool   `json:"correct"`
	Failure string `json:"failure,omitempty"`
	// Transcript is the whole chat, tool results included.
	Transcript []Message `json:"transcript"`
	// BoardSVG is the final board drawn (for reports).
	BoardSVG string `json:"boardSvg,omitempty"`
}

// Report is a benchmark's results.
type Report struct {
	Model      string    `json:"model"` // "scripted", or the live model's name
	Latency    Latency   `json:"latency"`
	Tokenizer  string    `json:"tokenizer"` // "o200k_base"
	Results    []Result  `json:"results"`
	Strategies []Summary `json:"strategies"`
	// Catalogs are the tool sets of the catalog scenarios that ran.
	Catalogs []Catalog `json:"catalogs,omitempty"`
}

// Catalog is the size of a catalog scenario's tool set: every tool but the
// meta-tools, as per-call sends them each turn, and what code and search
// send in their place (execute_code naming the namespaces; search_tools).
type Catalog struct {
	Name         string `json:"name"`
	Tools        int    `json:"tools"`
	Tokens       int    `json:"tokens"`
	CodeTokens   int    `json:"codeTokens"`
	SearchTokens int    `json:"searchTokens"`
}

// Summary is one strategy's totals over every scenario.
type Summary struct {
	Strategy     Strategy      `json:"strategy"`
	Runs         int           `json:"runs"`
	Correct      int           `json:"correct"`
	RoundTrips   int           `json:"roundTrips"`
	InputTokens  int           `json:"inputTokens"`
	OutputTokens int           `json:"outputTokens"`
	ToolCalls    int           `json:"toolCalls"`
	Wall         time.Duration `json:"wallNs"`
}
