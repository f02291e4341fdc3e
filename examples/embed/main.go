// Command embed shows codemode embedded in a Go program: a typed tool of
// your own next to the whiteboard, one engine shared by every request, a
// board per request, an approver for writes, and a batch with a $ref.
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
	if err := run(os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer) error {
	weather := bindings.MustFunc("weather", "Current temperature in a city.",
		func(ctx context.Context, in WeatherArgs) (Weather, error) {
			return Weather{City: in.City, Celsius: 21.5}, nil
		}, bindings.ReadOnly())

	// Build once; the engine is immutable and safe for concurrent use.
	eng, err := engine.NewBuilder().
		Add(weather).
		Add(whiteboard.Tools(nil)...). // no default board: each request brings its own
		WithApprover(engine.ApproverFunc(func(ctx context.Context, reqs []engine.ApprovalRequest) ([]engine.Decision, error) {
			out := make([]engine.Decision, len(reqs))
			for i, r := range reqs {
				out[i] = engine.Decision{Approved: r.Tool != "deleteObject", Reason: "deleting is not allowed here"}
			}
			return out, nil
		})).
		Build()
	if err != nil {
		return err
	}

	// Per request: a board in the context.
	board := whiteboard.NewBoard()
	ctx := whiteboard.NewContext(context.Background(), board)

	req, err := engine.ParseBatchRequest([]byte(`{"executionMode": "sequential", "operations": [
		{"tool": "weather", "args": {"city": "Lisbon"}, "label": "w"},
		{"tool": "createStickyNote", "args": {"text": {"$ref": "w.city"}, "x": 0, "y": 0}, "label": "note"},
		{"tool": "deleteObject", "args": {"objectId": {"$ref": "note.id"}}}
	]}`))
	if err != nil {
		return err
	}
	res, err := eng.Batch(ctx, req)
	if err != nil {
		return err
	}
	for _, r := range res.Results {
		if r.Success {
			fmt.Fprintf(w, "%d %-16s ok    %s\n", r.Index, r.Tool, r.Result)
		} else {
			fmt.Fprintf(w, "%d %-16s %-5s %s\n", r.Index, r.Tool, r.Error.Code, r.Error.Message)
		}
	}
	state, _ := json.Marshal(board)
	fmt.Fprintf(w, "board: %s\n", strings.TrimSpace(string(state)))
	return nil
}
