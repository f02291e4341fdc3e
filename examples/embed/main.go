// Command embed shows codemode embedded in a Go program: a typed tool of
// your own next to the whiteboard, one engine shared by every request,
// scripts run in worker processes, an approver for writes, a board per
// request, and the three ways work comes in — a batch, a script, and a
// model's native tool calls.
//
// Run it from the root of the repository:
//
//	go run ./examples/embed
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/codemode-dev/codemode/bindings"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/worker"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// WeatherArgs are the arguments of the weather tool; the schema a model sees
// is reflected from this struct.
type WeatherArgs struct {
	City string `json:"city" jsonschema_description:"City name, e.g. Lisbon."`
}

// Weather is its result.
type Weather struct {
	City    string  `json:"city"`
	Celsius float64 `json:"celsius"`
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) error {
	// Scripts a model writes run in worker processes: copies of this program
	// under OS limits, so a script that crashes its process is that run's
	// error. Importing sandbox/worker is all it takes: its init serves in a
	// process started as a worker, before this program's main could run.
	pool, err := worker.New(worker.Config{})
	if err != nil {
		return err
	}
	defer pool.Close()

	weather := bindings.MustFunc("weather", "Current temperature in a city.",
		func(ctx context.Context, in WeatherArgs) (Weather, error) {
			return Weather{City: in.City, Celsius: 21.5}, nil
		}, bindings.ReadOnly())

	// Build once; the engine is immutable and safe for concurrent use.
	eng, err := engine.NewBuilder().
		Add(weather).
		Add(whiteboard.Tools(nil)...). // no default board: each request brings its own
		WithApprover(myApprover).      // writes go to it; read-only tools run without asking
		WithScriptRunner(pool).        // without it, scripts run in this process
		Build()
	if err != nil {
		return err
	}

	// Per request: a board in the context, then a batch.
	board := whiteboard.NewBoard()
	ctx = whiteboard.NewContext(ctx, board)
	req, err := engine.ParseBatchRequest(batchJSON) // as a client sends it; decoded strictly
	if err != nil {
		return err
	}
	res, err := eng.Batch(ctx, req)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "batch:")
	for _, r := range res.Results {
		if r.Success {
			fmt.Fprintf(w, "  %d %-16s ok     %s\n", r.Index, r.Tool, r.Result)
		} else {
			fmt.Fprintf(w, "  %d %-16s %-6s %s\n", r.Index, r.Tool, r.Error.Code, r.Error.Message)
		}
	}

	// A script: its request's timeout and limits may only tighten the configured ones.
	sreq, err := engine.ParseExecuteRequest(scriptJSON)
	if err != nil {
		return err
	}
	sres, err := eng.Execute(ctx, sreq)
	if err != nil {
		return err // only for a malformed request; a failed script is a result
	}
	fmt.Fprintf(w, "script: success %v, result %s, %d tool calls\n", sres.Success, sres.Result, sres.Stats.ToolCalls)

	// A model's step: give the model the definitions, run the calls it sends
	// back, and answer each call id with its result's Content.
	defs, err := eng.ToolDefinitions().OpenAI()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "model: %d tools offered\n", len(defs))
	calls := []engine.ToolCall{ // as a model might send them
		{ID: "call_1", Name: "weather", Arguments: json.RawMessage(`{"city": "Faro"}`)},
		{ID: "call_2", Name: "execute_code", Arguments: json.RawMessage(`{"code": "return (await tools.findObjects({type: 'sticky'})).objects.length"}`)},
	}
	for _, r := range eng.HandleToolCalls(ctx, calls) {
		fmt.Fprintf(w, "  %s %s: %s\n", r.ID, r.Name, r.Content)
	}

	state, err := json.Marshal(board)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "board: %s\n", strings.TrimSpace(string(state)))
	return nil
}

// myApprover allows every write but deleting.
var myApprover = engine.ApproverFunc(func(ctx context.Context, reqs []engine.ApprovalRequest) ([]engine.Decision, error) {
	out := make([]engine.Decision, len(reqs))
	for i, r := range reqs {
		out[i] = engine.Decision{Approved: r.Tool != "deleteObject", Reason: "deleting is not allowed here"}
	}
	return out, nil
})

// batchJSON is a batch request: a note made from the weather tool's result
// ($ref), then deleted, which the approver refuses.
var batchJSON = []byte(`{"executionMode": "sequential", "operations": [
	{"tool": "weather", "args": {"city": "Lisbon"}, "label": "w"},
	{"tool": "createStickyNote", "args": {"text": {"$ref": "w.city"}, "x": 0, "y": 0}, "label": "note"},
	{"tool": "deleteObject", "args": {"objectId": {"$ref": "note.id"}}}
]}`)

// scriptJSON is a code-mode request (docs/code-mode.md, "The request").
var scriptJSON = []byte(`{
	"code": "const t = await tools.weather({city: input.city});\nconst n = await tools.createStickyNote({text: t.city + ': ' + t.celsius + ' °C', x: 220, y: 0});\nreturn n.id;",
	"input": {"city": "Porto"},
	"timeout": 5000,
	"limits": {"maxToolCalls": 10}
}`)
