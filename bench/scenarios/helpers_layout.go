package scenarios

import (
	"bytes"
	"embed"
	"fmt"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// layoutFixtures are the starting boards of summary-counts and move-frame.
//
//go:embed testdata/summary-counts.json testdata/move-frame.json
var layoutFixtures embed.FS

// layoutFixture loads testdata/NAME.json, a fresh board for each call: a
// scenario's Start, and its checker's view of how the board began.
func layoutFixture(name string) (*whiteboard.Board, error) {
	data, err := layoutFixtures.ReadFile("testdata/" + name + ".json")
	if err != nil {
		return nil, err
	}
	b := whiteboard.NewBoard()
	if err := b.Load(bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("testdata/%s.json: %w", name, err)
	}
	return b, nil
}

// batchOps decodes the operations of a batch call's result, in request order.
func batchOps(r bench.ToolResult) ([]engine.OperationResult, error) {
	if e := r.Error(); e != nil {
		return nil, fmt.Errorf("batch %s failed: %s", r.CallID, e.Message)
	}
	var v struct {
		Results []engine.OperationResult `json:"results"`
	}
	if err := r.Decode(&v); err != nil {
		return nil, err
	}
	return v.Results, nil
}

// labelled is the result of the successful operation labelled label, to
// read like a call's.
func labelled(ops []engine.OperationResult, label string) (bench.ToolResult, error) {
	for _, op := range ops {
		if op.Label == label && op.Success {
			return bench.ToolResult{CallID: "operation " + label, Content: string(op.Result)}, nil
		}
	}
	return bench.ToolResult{}, fmt.Errorf("no successful operation labelled %q in the batch", label)
}

// labelledObjects is what the batch operation labelled label returned, a
// getBoardState or findObjects result: its objects.
func labelledObjects(r bench.ToolResult, label string) ([]whiteboard.Object, error) {
	ops, err := batchOps(r)
	if err != nil {
		return nil, err
	}
	op, err := labelled(ops, label)
	if err != nil {
		return nil, err
	}
	return objectsIn([]byte(op.Content))
}

// inside says whether o's box lies within f's.
func inside(o, f whiteboard.Object) bool {
	return o.X >= f.X && o.Y >= f.Y && o.X+o.Width <= f.X+f.Width && o.Y+o.Height <= f.Y+f.Height
}

// describe names an object in a checker's reason: its id and its text or title.
func describe(o whiteboard.Object) string {
	switch {
	case o.Text != "":
		return fmt.Sprintf("%s %s %q", o.Type, o.ID, o.Text)
	case o.Title != "":
		return fmt.Sprintf("%s %s %q", o.Type, o.ID, o.Title)
	}
	return fmt.Sprintf("%s %s", o.Type, o.ID)
}
