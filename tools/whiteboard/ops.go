package whiteboard

import (
	"math"
	"strings"

	"github.com/codemode-dev/codemode/engine"
)

// The tools' operations. Each runs under the board's lock and either applies
// whole or fails without changing anything. Their errors are tool_error
// *engine.Error values whose messages name the offending id or argument, for
// the model to read.

const (
	defaultStickyColor = "yellow"
	defaultStickySize  = 200
	defaultGap         = 20
)

func toolError(format string, args ...any) error {
	return engine.Errorf(engine.CodeToolError, format, args...)
}

func (b *Board) createStickyNote(a createStickyNoteArgs, t *tracker) (placement, error) {
	o := Object{Type: TypeSticky, Text: a.Text, X: a.X, Y: a.Y, Color: a.Color, ParentID: a.ParentID,
		Width: orDefault(a.Width, defaultStickySize), Height: orDefault(a.Height, defaultStickySize)}
	if o.Color == "" {
		o.Color = defaultStickyColor
	}
	return b.create(o, t)
}

func (b *Board) createShape(a createShapeArgs, t *tracker) (placement, error) {
	if !oneOf(a.Type, shapeKinds) {
		return placement{}, toolError("type must be one of %s, got %q", strings.Join(shapeKinds, ", "), a.Type)
	}
	return b.create(Object{Type: TypeShape, Shape: a.Type, Text: a.Text, X: a.X, Y: a.Y,
		Width: a.Width, Height: a.Height, Color: a.Color, ParentID: a.ParentID}, t)
}

func (b *Board) createFrame(a createFrameArgs, t *tracker) (placement, error) {
	return b.create(Object{Type: TypeFrame, Title: a.Title, X: a.X, Y: a.Y,
		Width: a.Width, Height: a.Height, Color: a.Color}, t)
}

// create checks and adds a sticky, shape or frame.
func (b *Board) create(o Object, t *tracker) (placement, error) {
	if err := checkBox(o.X, o.Y, o.Width, o.Height); err != nil {
		return placement{}, err
	}
	if o.Color != "" && !ValidColor(o.Color) {
		return placement{}, toolError("%v", colorError(o.Color))
	}
	if err := checkText("text", o.Text); err != nil {
		return placement{}, err
	}
	if err := checkText("title", o.Title); err != nil {
		return placement{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.roomForOne(); err != nil {
		return placement{}, err
	}
	if o.ParentID != "" {
		if _, err := b.frame("parentId", o.ParentID); err != nil {
			return placement{}, err
		}
	}
	o = b.add(o)
	t.set(b, o)
	return placed(o), nil
}

func (b *Board) createConnector(a createConnectorArgs, t *tracker) (idResult, error) {
	style := a.Style
	if style == "" {
		style = StyleArrow
	}
	if !oneOf(style, styles) {
		return idResult{}, toolError("style must be one of %s, got %q", strings.Join(styles, ", "), style)
	}
	if err := checkText("label", a.Label); err != nil {
		return idResult{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.roomForOne(); err != nil {
		return idResult{}, err
	}
	var ends [2]*Object
	for i, end := range []struct{ field, id string }{{"fromId", a.FromID}, {"toId", a.ToID}} {
		o, err := b.get(end.field, end.id)
		if err != nil {
			return idResult{}, err
		}
		if o.Type == TypeConnector {
			return idResult{}, toolError("%s: %q is a connector; connectors join stickies, shapes and frames", end.field, o.ID)
		}
		ends[i] = o
	}
	if a.FromID == a.ToID {
		return idResult{}, toolError("cannot connect %q to itself", a.FromID)
	}
	c := Object{Type: TypeConnector, FromID: a.FromID, ToID: a.ToID, Style: style, Label: a.Label}
	c.route(*ends[0], *ends[1])
	if !finiteGeometry(&c) {
		return idResult{}, toolError("the connector between %q and %q would be out of range", a.FromID, a.ToID)
	}
	c = b.add(c)
	t.set(b, c)
	return idResult{ID: c.ID}, nil
}

func (b *Board) moveObject(a moveObjectArgs, t *tracker) (placement, error) {
	if !finite(a.X, a.Y) {
		return placement{}, toolError("x and y must be finite numbers")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	o, err := b.movable(a.ObjectID)
	if err != nil {
		return placement{}, err
	}
	st := stage{}
	b.moveTo(st, o, a.X, a.Y, nil)
	if err := b.commit(st, t); err != nil {
		return placement{}, err
	}
	return placed(*o), nil
}

func (b *Board) resizeObject(a resizeObjectArgs, t *tracker) (placement, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, err := b.movable(a.ObjectID)
	if err != nil {
		return placement{}, err
	}
	if err := checkBox(o.X, o.Y, a.Width, a.Height); err != nil {
		return placement{}, err
	}
	n := *o
	n.Width, n.Height = a.Width, a.Height
	if err := b.commit(stage{n.ID: n}, t); err != nil {
		return placement{}, err
	}
	return placed(*o), nil
}

func (b *Board) updateText(a updateTextArgs, t *tracker) (idResult, error) {
	if err := checkText("text", a.Text); err != nil {
		return idResult{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	o, err := b.get("objectId", a.ObjectID)
	if err != nil {
		return idResult{}, err
	}
	field := &o.Text
	switch o.Type {
	case TypeFrame:
		field = &o.Title
	case TypeConnector:
		field = &o.Label
	}
	if *field != a.Text {
		*field = a.Text
		t.set(b, *o)
	}
	return idResult{ID: o.ID}, nil
}

func (b *Board) changeColor(a changeColorArgs, t *tracker) (idResult, error) {
	if !ValidColor(a.Color) {
		return idResult{}, toolError("%v", colorError(a.Color))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	o, err := b.get("objectId", a.ObjectID)
	if err != nil {
		return idResult{}, err
	}
	if o.Color != a.Color {
		o.Color = a.Color
		t.set(b, *o)
	}
	return idResult{ID: o.ID}, nil
}

// deleteObject removes the object, a frame's children, and every connector
// attached to anything removed; deleted lists the object first, then the
// rest in creation order.
func (b *Board) deleteObject(a deleteObjectArgs, t *tracker) (deleteResult, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, err := b.get("objectId", a.ObjectID)
	if err != nil {
		return deleteResult{}, err
	}
	gone := map[string]bool{o.ID: true}
	deleted := []string{o.ID}
	sweep := func(match func(*Object) bool) {
		for _, id := range b.order {
			if x := b.objs[id]; !gone[id] && match(x) {
				gone[id] = true
				deleted = append(deleted, id)
			}
		}
	}
	sweep(func(x *Object) bool { return x.ParentID == o.ID })
	sweep(func(x *Object) bool { return x.Type == TypeConnector && (gone[x.FromID] || gone[x.ToID]) })
	kept := b.order[:0]
	for _, id := range b.order {
		if gone[id] {
			delete(b.objs, id)
		} else {
			kept = append(kept, id)
		}
	}
	b.order = kept
	t.deleted(deleted)
	return deleteResult{ID: o.ID, Deleted: deleted}, nil
}

// query is getBoardState and findObjects: every filter that is set must match.
func (b *Board) query(typ, parentID, color, text string) (objectsResult, error) {
	if typ != "" && !oneOf(typ, types) {
		return objectsResult{}, toolError("type must be one of %s, got %q", strings.Join(types, ", "), typ)
	}
	if color != "" && !ValidColor(color) {
		return objectsResult{}, toolError("%v", colorError(color))
	}
	if err := checkText("text", text); err != nil {
		return objectsResult{}, err
	}
	text = strings.ToLower(text)
	b.mu.Lock()
	defer b.mu.Unlock()
	if parentID != "" {
		if _, err := b.frame("parentId", parentID); err != nil {
			return objectsResult{}, err
		}
	}
	objs := b.list(func(o *Object) bool {
		return (typ == "" || o.Type == typ) &&
			(parentID == "" || o.ParentID == parentID) &&
			(color == "" || strings.EqualFold(o.Color, color)) &&
			(text == "" || strings.Contains(strings.ToLower(o.Text+"\x00"+o.Title+"\x00"+o.Label), text))
	})
	return objectsResult{Objects: objs, Count: len(objs)}, nil
}

// arrangeObjects lays the objects out in the given order, left to right and
// top to bottom, each at the top-left of its slot. A grid column is as wide
// as its widest object and a grid row as tall as its tallest, so objects of
// mixed sizes never overlap and uniform ones form a regular grid. A row is
// top-aligned, a column left-aligned. Frames take their children along
// (children listed themselves get their own slot instead).
func (b *Board) arrangeObjects(a arrangeObjectsArgs, t *tracker) (arrangeResult, error) {
	if len(a.ObjectIDs) == 0 {
		return arrangeResult{}, toolError("objectIds must list at least one object")
	}
	if !oneOf(a.Layout, []string{"grid", "row", "column"}) {
		return arrangeResult{}, toolError("layout must be one of grid, row, column, got %q", a.Layout)
	}
	gap := orDefault(a.Gap, defaultGap)
	if !finite(gap) || gap < 0 {
		return arrangeResult{}, toolError("gap must be a non-negative number, got %v", gap)
	}
	n := len(a.ObjectIDs)
	cols := int(math.Ceil(math.Sqrt(float64(n))))
	if a.Columns != nil {
		if *a.Columns < 1 {
			return arrangeResult{}, toolError("columns must be at least 1, got %d", *a.Columns)
		}
		cols = *a.Columns
	}
	switch a.Layout {
	case "row":
		cols = n
	case "column":
		cols = 1
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	objs := make([]*Object, n)
	listed := map[string]bool{}
	for i, id := range a.ObjectIDs {
		if id == "" {
			return arrangeResult{}, toolError("objectIds[%d] is empty", i)
		}
		o, err := b.movable(id)
		if err != nil {
			return arrangeResult{}, err
		}
		if listed[id] {
			return arrangeResult{}, toolError("objectIds lists %q twice", id)
		}
		listed[id] = true
		objs[i] = o
	}
	x0, y0 := orDefault(a.X, objs[0].X), orDefault(a.Y, objs[0].Y)
	if !finite(x0, y0) {
		return arrangeResult{}, toolError("x and y must be finite numbers")
	}

	colW := make([]float64, min(cols, n))
	rowH := make([]float64, (n+cols-1)/cols)
	for i, o := range objs {
		colW[i%cols] = max(colW[i%cols], o.Width)
		rowH[i/cols] = max(rowH[i/cols], o.Height)
	}
	st := stage{}
	y := y0
	for r := range rowH {
		x := x0
		for c := range colW {
			if i := r*cols + c; i < n {
				b.moveTo(st, objs[i], x, y, listed)
			}
			x += colW[c] + gap
		}
		y += rowH[r] + gap
	}
	if err := b.commit(st, t); err != nil {
		return arrangeResult{}, err
	}
	out := make([]Object, n)
	for i, o := range objs {
		out[i] = *o
	}
	return arrangeResult{Objects: out}, nil
}

// stage holds the new state of objects changed by one operation, so that
// the whole change can be checked before any of it is applied.
type stage map[string]Object

// moveTo stages o at (x, y) and, if o is a frame, its children by the same
// delta, except those in skip (which are placed on their own).
func (b *Board) moveTo(st stage, o *Object, x, y float64, skip map[string]bool) {
	dx, dy := x-o.X, y-o.Y
	n := *o
	n.X, n.Y = x, y
	st[o.ID] = n
	if o.Type != TypeFrame {
		return
	}
	for _, id := range b.order {
		if c := b.objs[id]; c.ParentID == o.ID && !skip[id] {
			m := *c
			m.X, m.Y = c.X+dx, c.Y+dy
			st[id] = m
		}
	}
}

// commit reroutes the connectors attached to staged objects, checks that
// everything stays finite, and applies the stage; t records the objects
// whose state it changed, in creation order.
func (b *Board) commit(st stage, t *tracker) error {
	cur := func(id string) Object {
		if o, ok := st[id]; ok {
			return o
		}
		return *b.objs[id]
	}
	for _, id := range b.order {
		o := b.objs[id]
		if o.Type != TypeConnector {
			continue
		}
		_, from := st[o.FromID]
		_, to := st[o.ToID]
		if from || to {
			c := *o
			c.route(cur(o.FromID), cur(o.ToID))
			st[id] = c
		}
	}
	for _, id := range b.order {
		if o, ok := st[id]; ok && !finiteGeometry(&o) {
			return toolError("%q would end up out of range; keep coordinates and sizes moderate", id)
		}
	}
	var changed []*Object
	for _, id := range b.order {
		if o, ok := st[id]; ok && *b.objs[id] != o {
			*b.objs[id] = o
			if t != nil {
				changed = append(changed, b.objs[id])
			}
		}
	}
	for _, o := range changed { // after all are applied: a connector's ends are final
		t.set(b, *o)
	}
	return nil
}

// get returns the object with the given id; field names the argument.
func (b *Board) get(field, id string) (*Object, error) {
	if id == "" {
		return nil, toolError("%s is required", field)
	}
	if err := checkIDLength(field, id); err != nil {
		return nil, err
	}
	o, ok := b.objs[id]
	if !ok {
		if field == "objectId" {
			return nil, toolError("no object with id %q", id)
		}
		return nil, toolError("%s: no object with id %q", field, id)
	}
	return o, nil
}

// frame is get for arguments that must name a frame.
func (b *Board) frame(field, id string) (*Object, error) {
	o, err := b.get(field, id)
	if err != nil {
		return nil, err
	}
	if o.Type != TypeFrame {
		return nil, toolError("%s: %q is a %s, not a frame", field, id, o.Type)
	}
	return o, nil
}

// movable is get for objects that have their own position: not connectors,
// whose geometry follows their endpoints.
func (b *Board) movable(id string) (*Object, error) {
	o, err := b.get("objectId", id)
	if err != nil {
		return nil, err
	}
	if o.Type == TypeConnector {
		return nil, toolError("%q is a connector: it follows the objects it joins; move or resize those instead", id)
	}
	return o, nil
}

// checkBox checks a new position and size.
func checkBox(x, y, w, h float64) error {
	if !finite(x, y) {
		return toolError("x and y must be finite numbers")
	}
	if !finite(w, h) || w <= 0 || h <= 0 {
		return toolError("width and height must be positive numbers, got width %v, height %v", w, h)
	}
	if !finite(x+w, y+h) {
		return toolError("position plus size is out of range; keep coordinates and sizes moderate")
	}
	return nil
}

func orDefault(p *float64, def float64) float64 {
	if p == nil {
		return def
	}
	return *p
}
