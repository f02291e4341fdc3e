package scenarios

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// Starting boards are fixtures: board files (getBoardState's JSON) a user
// could open with `codemode` too.
//
//go:embed testdata/*.json
var fixtures embed.FS

// fixture is a Scenario.Start that loads testdata/name.json, fresh each run.
func fixture(name string) func() (*whiteboard.Board, error) {
	return func() (*whiteboard.Board, error) {
		data, err := fixtures.ReadFile("testdata/" + name + ".json")
		if err != nil {
			return nil, err
		}
		b := whiteboard.NewBoard()
		if err := b.Load(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("fixture %s: %w", name, err)
		}
		return b, nil
	}
}

// startObjects is the objects of the fixture a checker compares the final
// board with.
func startObjects(name string) ([]whiteboard.Object, error) {
	b, err := fixture(name)()
	if err != nil {
		return nil, err
	}
	return b.Objects(), nil
}

// batchResults decodes a batch call's results, failing on the first
// operation that did not succeed (a scripted model does not go on from a
// failure it did not plan for).
func batchResults(r bench.ToolResult) ([]engine.OperationResult, error) {
	if err := failed(&bench.Turn{Results: []bench.ToolResult{r}}); err != nil {
		return nil, err
	}
	var v engine.BatchResult
	if err := r.Decode(&v); err != nil {
		return nil, err
	}
	return v.Results, nil
}

// objectsIn decodes a getBoardState or findObjects result.
func objectsIn(data []byte) ([]whiteboard.Object, error) {
	var v struct {
		Objects []whiteboard.Object `json:"objects"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("not a list of objects: %w: %.200s", err, data)
	}
	return v.Objects, nil
}

// ofType keeps the objects of one type.
func ofType(objs []whiteboard.Object, typ string) []whiteboard.Object {
	return slices.DeleteFunc(slices.Clone(objs), func(o whiteboard.Object) bool { return o.Type != typ })
}

// overlap says whether two objects' boxes share more than an edge.
func overlap(a, b whiteboard.Object) bool {
	return a.X < b.X+b.Width && b.X < a.X+a.Width && a.Y < b.Y+b.Height && b.Y < a.Y+a.Height
}

// noOverlap is the first pair of objs that overlap, as an error.
func noOverlap(objs []whiteboard.Object) error {
	for i, a := range objs {
		for _, b := range objs[i+1:] {
			if overlap(a, b) {
				return fmt.Errorf("%s %q and %s %q overlap", a.Type, label(a), b.Type, label(b))
			}
		}
	}
	return nil
}

// label is how a checker's reason names an object: its text or title.
func label(o whiteboard.Object) string {
	if o.Type == "frame" {
		return o.Title
	}
	return o.Text
}

// bottom is the lowest edge of objs' boxes (connectors aside), 0 for none.
func bottom(objs []whiteboard.Object) float64 {
	var y float64
	for _, o := range objs {
		if o.Type != "connector" {
			y = max(y, o.Y+o.Height)
		}
	}
	return y
}

// unchanged checks that every object of start is on b as it was, except
// those skip names.
func unchanged(b *whiteboard.Board, start []whiteboard.Object, skip func(was whiteboard.Object) bool) error {
	for _, was := range start {
		if skip != nil && skip(was) {
			continue
		}
		is, ok := b.Get(was.ID)
		if !ok {
			return fmt.Errorf("%s %q (%s) was deleted", was.Type, label(was), was.ID)
		}
		if is != was {
			return fmt.Errorf("%s %q (%s) was changed", was.Type, label(was), was.ID)
		}
	}
	return nil
}

// step is one call of a per-call model.
type step struct {
	tool string
	// args are made when the step's turn comes, so they can use what
	// earlier steps' results gave (ids).
	args func() any
	// then, if set, reads the call's result; it may queue more steps.
	then func(r bench.ToolResult) error
}

// oneByOne is the classic loop: one call per turn, the queue's next step,
// each step's result read before the next call; done once the queue is
// empty.
type oneByOne struct {
	queue []step
	next  int
}

func (q *oneByOne) add(s ...step) { q.queue = append(q.queue, s...) }

// model is the per-call model that works through the queue.
func (q *oneByOne) model() bench.Model {
	return bench.Script(func(t *bench.Turn) (bench.Message, error) {
		if err := failed(t); err != nil {
			return bench.Message{}, err
		}
		if q.next > 0 {
			if then := q.queue[q.next-1].then; then != nil {
				if err := then(t.Results[0]); err != nil {
					return bench.Message{}, err
				}
			}
		}
		if q.next == len(q.queue) {
			return done(t)
		}
		s := q.queue[q.next]
		q.next++
		return bench.Calls(t.Call(s.tool, s.args())), nil
	})
}

// fixed is step args known from the start.
func fixed(args any) func() any { return func() any { return args } }
