package scenarios

import (
	"fmt"
	"strings"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// done ends a run: the model's answer once its last calls succeeded, or an
// error (a scripted model that sees a failure it did not plan for is a bug
// the benchmark reports).
func done(t *bench.Turn) (bench.Message, error) {
	if err := failed(t); err != nil {
		return bench.Message{}, err
	}
	return bench.Say("Done."), nil
}

// scriptOnce is the code strategy's model of most tasks: one execute_code
// call with code, then the answer (once the script's result is checked).
func scriptOnce(code string) bench.Model {
	return bench.Script(func(t *bench.Turn) (bench.Message, error) {
		if t.Index > 0 {
			return done(t)
		}
		return bench.Calls(t.CodeCall(code)), nil
	})
}

// failed is the first failure among the previous turn's results: a failed
// call, a batch with a failed operation, a script that did not succeed.
func failed(t *bench.Turn) error {
	for _, r := range t.Results {
		if e := r.Error(); e != nil {
			return fmt.Errorf("call %s failed: %s", r.CallID, e.Message)
		}
		var v struct {
			Success *bool `json:"success"`
			Summary *struct {
				Failed int `json:"failed"`
			} `json:"summary"`
		}
		if r.Decode(&v) != nil {
			continue
		}
		if v.Success != nil && !*v.Success || v.Summary != nil && v.Summary.Failed > 0 {
			return fmt.Errorf("call %s did not succeed: %.300s", r.CallID, r.Content)
		}
	}
	return nil
}

// resultID is the id a create call returned.
func resultID(r bench.ToolResult) (string, error) {
	var v struct {
		ID string `json:"id"`
	}
	if err := r.Decode(&v); err != nil || v.ID == "" {
		return "", fmt.Errorf("no id in the result of %s: %.200s", r.CallID, r.Content)
	}
	return v.ID, nil
}

func quoteAll(texts []string) string {
	q := make([]string, len(texts))
	for i, t := range texts {
		q[i] = fmt.Sprintf("%q", t)
	}
	return strings.Join(q, ", ")
}

// oneFrame is the one frame titled title.
func oneFrame(b *whiteboard.Board, title string) (whiteboard.Object, error) {
	var found []whiteboard.Object
	for _, o := range b.Objects() {
		if o.Type == "frame" && o.Title == title {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		return whiteboard.Object{}, fmt.Errorf("want one frame titled %q, found %d", title, len(found))
	}
	return found[0], nil
}

// notesIn checks that frame f holds exactly the sticky notes texts (in any
// order), each of color (if not ""), inside its bounds.
func notesIn(b *whiteboard.Board, f whiteboard.Object, texts []string, color string) error {
	want := make(map[string]bool, len(texts))
	for _, t := range texts {
		want[t] = true
	}
	for _, o := range b.Objects() {
		if o.Type != "sticky" || o.ParentID != f.ID {
			continue
		}
		if !want[o.Text] {
			return fmt.Errorf("frame %q holds a note %q it should not", f.Title, o.Text)
		}
		delete(want, o.Text)
		if color != "" && o.Color != color {
			return fmt.Errorf("note %q is %s, want %s", o.Text, o.Color, color)
		}
		if !inside(o, f) {
			return fmt.Errorf("note %q is not inside frame %q", o.Text, f.Title)
		}
	}
	if len(want) > 0 {
		var missing []string
		for _, t := range texts {
			if want[t] {
				missing = append(missing, t)
			}
		}
		return fmt.Errorf("frame %q lacks notes %s", f.Title, quoteAll(missing))
	}
	return nil
}
