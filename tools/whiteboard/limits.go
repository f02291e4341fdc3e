package whiteboard

import (
	"unicode/utf8"

	"github.com/codemode-dev/codemode/internal/strictjson"
)

// Limits of a board. Without them one run could grow a board without bound
// (texts and ids of any length, any number of objects), and every later use
// of it would pay: each run clones it, a server stores it whole per commit
// and sends it whole to every watcher. The tools' schemas state the same
// numbers (maxLength, maxItems), so that models see them; the operations
// and Load check them again, so that a board used from Go holds them too.
const (
	// MaxTextLength is the most characters (Unicode code points, as JSON
	// Schema's maxLength counts) of a text, title or label.
	MaxTextLength = 10000
	// MaxIDLength is the most characters of an id. The board's own ids
	// are far shorter; this bounds ids in board files and id arguments.
	MaxIDLength = 200
	// MaxObjects is the most objects a board holds.
	MaxObjects = 5000
)

// overLimit reports whether s has more than limit characters, and how many.
func overLimit(s string, limit int) (n int, over bool) {
	if len(s) <= limit { // a character takes at least a byte
		return 0, false
	}
	n = utf8.RuneCountInString(s)
	return n, n > limit
}

// checkText refuses a text, title or label (field) that is too long.
func checkText(field, s string) error {
	if n, over := overLimit(s, MaxTextLength); over {
		return toolError("%s is %d characters, more than the %d allowed; shorten it or spread it over several objects", field, n, MaxTextLength)
	}
	return nil
}

// checkIDLength refuses an id argument (field) that is too long, without
// quoting it.
func checkIDLength(field, id string) error {
	if n, over := overLimit(id, MaxIDLength); over {
		return toolError("%s is %d characters, more than the %d an id may have; ids are the ones the board gave (\"sticky-3\")", field, n, MaxIDLength)
	}
	return nil
}

// roomForOne checks that the board can take one more object; b.mu is held.
func (b *Board) roomForOne() error {
	if len(b.order) >= MaxObjects {
		return toolError("a board holds at most %d objects; delete some first", MaxObjects)
	}
	return nil
}

// checkLimits adds to p what of a board document is over the limits.
func checkLimits(objs []Object, p *strictjson.Problems) {
	if len(objs) > MaxObjects {
		p.Addf("objects", "%d objects, more than the %d a board holds", len(objs), MaxObjects)
	}
	for i := range objs {
		o, at := &objs[i], strictjson.Index("objects", i)
		for _, f := range []struct {
			name, val string
			limit     int
		}{
			// References need no bound of their own: they name ids.
			{"id", o.ID, MaxIDLength}, {"text", o.Text, MaxTextLength},
			{"title", o.Title, MaxTextLength}, {"label", o.Label, MaxTextLength},
		} {
			if n, over := overLimit(f.val, f.limit); over {
				p.Addf(at+"."+f.name, "%d characters, more than the %d allowed", n, f.limit)
			}
		}
	}
}
