package whiteboard

import "context"

// Change is what one tool call did to a board: the server sends it with the
// call's tool_call_end, so that every client can redraw just that.
//
// Objects are the objects the call created or modified, in their state after
// the call and in creation order: besides the object named in the call, the
// connectors whose derived geometry moved because an end moved, was resized
// or was arranged, and a frame's children moved with it. An object is in the
// change only if the call changed it: a frame's child that arrangeObjects
// left where it was is not. Deleted lists every id the call removed, in the
// order of deleteObject's result (the object, then a frame's children, then
// attached connectors).
type Change struct {
	Objects []Object `json:"objects,omitempty"`
	Deleted []string `json:"deleted,omitempty"`

	// ends are the ends of the connectors in Objects as the call left
	// them, copied under the board's lock, so that ChangeSVG draws each
	// connector where the call put it even if another call has moved an
	// end since.
	ends map[string]Object
}

// Empty reports whether the change changes nothing.
func (c Change) Empty() bool { return len(c.Objects) == 0 && len(c.Deleted) == 0 }

// changesKey is the context key of the record function of WithChanges.
type changesKey struct{}

type recordFunc = func(ctx context.Context, c Change)

// WithChanges returns a context in which every tool call that changes its
// board reports the change to record: exactly once per call, on the
// handler's goroutine, before the handler returns, with the handler's own
// context (so that record can ask engine.CallFromContext which call it is).
//
// The change is computed under the board's lock, so it is exact when calls
// run in parallel; record itself is called after the lock is released, so it
// may use the board (ChangeSVG, Get). The record calls of parallel calls
// come in no particular order.
//
// record is not called for read-only tools (getBoardState, findObjects), for
// calls that fail (they change nothing), nor for calls that succeed without
// changing anything: moveObject to where the object already is, updateText
// with the same text, changeColor to the same color, resizeObject to the
// same size, arrangeObjects that leaves every object where it was. So
// record is called exactly when the board changed, and never with an empty
// Change. A nil record leaves ctx as it is.
func WithChanges(ctx context.Context, record func(ctx context.Context, c Change)) context.Context {
	if record == nil {
		return ctx
	}
	return context.WithValue(ctx, changesKey{}, recordFunc(record))
}

// changeRecorder returns the record function of WithChanges, if any.
func changeRecorder(ctx context.Context) recordFunc {
	f, _ := ctx.Value(changesKey{}).(recordFunc)
	return f
}

// tracker collects one call's change while the operation runs under the
// board's lock. A nil tracker records nothing: that is a call on a context
// without WithChanges, and costs nothing.
type tracker struct {
	c Change
}

// set records o, in its new state on b, as created or modified; for a
// connector it copies its ends too. b's lock is held.
func (t *tracker) set(b *Board, o Object) {
	if t == nil {
		return
	}
	t.c.Objects = append(t.c.Objects, o)
	if o.Type != TypeConnector {
		return
	}
	if t.c.ends == nil {
		t.c.ends = map[string]Object{}
	}
	for _, id := range []string{o.FromID, o.ToID} {
		if e, ok := b.objs[id]; ok {
			t.c.ends[id] = *e
		}
	}
}

// deleted records removed ids.
func (t *tracker) deleted(ids []string) {
	if t == nil {
		return
	}
	t.c.Deleted = append(t.c.Deleted, ids...)
}

// change returns the change recorded, or false if there is none.
func (t *tracker) change() (Change, bool) {
	if t == nil || t.c.Empty() {
		return Change{}, false
	}
	return t.c, true
}
