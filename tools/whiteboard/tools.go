package whiteboard

import (
	"context"
	"slices"

	"github.com/codemode-dev/codemode/bindings"
	"github.com/codemode-dev/codemode/engine"
)

// Tools returns the twelve whiteboard tools (docs/whiteboard.md). Each call
// works on the board in its context (see NewContext), else on defaultBoard;
// with neither it fails with tool_error. Pass a nil defaultBoard on servers
// that must never share a board between requests.
//
// The schemas document defaults and enums for models, but the engine does
// the schema validation: the handlers re-check everything JSON Schema cannot
// say (finite numbers, positive sizes, ids that exist) and do not rely on it.
func Tools(defaultBoard *Board) []engine.Tool {
	d := defaultBoard
	write := []bindings.Option{bindings.Destructive(false), bindings.OpenWorld(false)}
	idem := []bindings.Option{bindings.Idempotent(), bindings.Destructive(false), bindings.OpenWorld(false)}
	read := []bindings.Option{bindings.ReadOnly(), bindings.OpenWorld(false)}
	tools := []engine.Tool{
		bind(d, "createStickyNote", "Create a sticky note and return its id and geometry. Coordinates are absolute board coordinates (top-left corner), also when parentId puts the note inside a frame.",
			(*Board).createStickyNote, with(write, "Create sticky note")...),
		bind(d, "createShape", "Create a rectangle, ellipse, diamond or triangle and return its id and geometry. Coordinates are absolute board coordinates; parentId puts the shape inside a frame.",
			(*Board).createShape, with(write, "Create shape")...),
		bind(d, "createFrame", "Create a titled frame, a container that groups objects: objects created with its id as parentId move and are deleted with it.",
			(*Board).createFrame, with(write, "Create frame")...),
		bind(d, "createConnector", "Connect two objects (stickies, shapes or frames) with a line or arrow, optionally labelled. The connector follows its ends when they move.",
			(*Board).createConnector, with(write, "Create connector")...),
		bind(d, "moveObject", "Move an object so its top-left corner is at (x, y) in absolute board coordinates. Moving a frame moves its children by the same amount.",
			(*Board).moveObject, with(idem, "Move object")...),
		bind(d, "resizeObject", "Set an object's width and height, keeping its top-left corner. A frame's children are not resized or moved.",
			(*Board).resizeObject, with(idem, "Resize object")...),
		bind(d, "updateText", "Replace an object's text: a frame's title, a connector's label, or a sticky's or shape's text.",
			(*Board).updateText, with(idem, "Update text")...),
		bind(d, "changeColor", "Change an object's color to a named color or #rrggbb.",
			(*Board).changeColor, with(idem, "Change color")...),
		bind(d, "deleteObject", "Delete an object. Deleting a frame also deletes its children, and connectors attached to anything deleted go too; the result lists every deleted id.",
			(*Board).deleteObject, bindings.Destructive(true), bindings.OpenWorld(false), bindings.Title("Delete object")),
		bind(d, "getBoardState", "List the objects on the board in creation order, optionally only one type or only the children of one frame.",
			func(b *Board, a getBoardStateArgs, _ *tracker) (objectsResult, error) {
				return b.query(a.Type, a.ParentID, "", "")
			},
			with(read, "Get board state")...),
		bind(d, "findObjects", "Find objects matching every filter given: text is a case-insensitive substring of an object's text, title or label.",
			func(b *Board, a findObjectsArgs, _ *tracker) (objectsResult, error) {
				return b.query(a.Type, a.ParentID, a.Color, a.Text)
			},
			with(read, "Find objects")...),
		bind(d, "arrangeObjects", "Lay objects out in a grid, row or column in the given order, starting at (x, y) (default: the first object's current position) with gap between them. Frames take their children along.",
			(*Board).arrangeObjects, with(idem, "Arrange objects")...),
	}
	for i := range tools {
		tools[i].Origin = Origin
	}
	return tools
}

// Origin is the Origin of the whiteboard's tools, so that a tool of another
// set with the same name is reported as clashing with "the whiteboard".
const Origin = "the whiteboard"

// with returns base plus a title, without sharing base's backing array.
func with(base []bindings.Option, title string) []bindings.Option {
	return append(slices.Clip(base), bindings.Title(title))
}

// bind makes a tool whose handler runs op on the call's board. When the
// context asks for changes (WithChanges), op records them in a tracker,
// and a change, if any, is reported once op has returned without error.
func bind[In, Out any](def *Board, name, desc string, op func(*Board, In, *tracker) (Out, error), opts ...bindings.Option) engine.Tool {
	return bindings.MustFunc(name, desc, func(ctx context.Context, in In) (Out, error) {
		var zero Out
		if err := ctx.Err(); err != nil {
			return zero, err // do not change a board for a run that has ended
		}
		b, ok := FromContext(ctx)
		if !ok {
			b = def
		}
		if b == nil {
			return zero, engine.Errorf(engine.CodeToolError, "no board: the host gave this call no whiteboard")
		}
		record := changeRecorder(ctx)
		if record == nil {
			return op(b, in, nil)
		}
		t := &tracker{}
		out, err := op(b, in, t)
		if err != nil {
			return out, err
		}
		if c, ok := t.change(); ok {
			record(ctx, c)
		}
		return out, nil
	}, opts...)
}

type createStickyNoteArgs struct {
	Text     string   `json:"text" jsonschema:"maxLength=10000" jsonschema_description:"The note's text."`
	X        float64  `json:"x" jsonschema_description:"Left edge in absolute board coordinates (not relative to a parent frame)."`
	Y        float64  `json:"y" jsonschema_description:"Top edge in absolute board coordinates (not relative to a parent frame); y grows downwards."`
	Color    string   `json:"color,omitempty" jsonschema:"default=yellow,pattern=^(yellow|pink|green|blue|orange|purple|red|gray|white|#[0-9a-fA-F]{6})$" jsonschema_description:"A named color (yellow, pink, green, blue, orange, purple, red, gray, white) or #rrggbb."`
	Width    *float64 `json:"width,omitempty" jsonschema:"default=200,exclusiveMinimum=0" jsonschema_description:"Width in board units."`
	Height   *float64 `json:"height,omitempty" jsonschema:"default=200,exclusiveMinimum=0" jsonschema_description:"Height in board units."`
	ParentID string   `json:"parentId,omitempty" jsonschema:"maxLength=200" jsonschema_description:"Id of a frame to put the object in; it then moves and is deleted with the frame."`
}

type createShapeArgs struct {
	Type     string  `json:"type" jsonschema:"enum=rectangle,enum=ellipse,enum=diamond,enum=triangle" jsonschema_description:"The kind of shape."`
	X        float64 `json:"x" jsonschema_description:"Left edge in absolute board coordinates (not relative to a parent frame)."`
	Y        float64 `json:"y" jsonschema_description:"Top edge in absolute board coordinates (not relative to a parent frame); y grows downwards."`
	Width    float64 `json:"width" jsonschema:"exclusiveMinimum=0" jsonschema_description:"Width in board units."`
	Height   float64 `json:"height" jsonschema:"exclusiveMinimum=0" jsonschema_description:"Height in board units."`
	Color    string  `json:"color,omitempty" jsonschema:"pattern=^(yellow|pink|green|blue|orange|purple|red|gray|white|#[0-9a-fA-F]{6})$" jsonschema_description:"A named color (yellow, pink, green, blue, orange, purple, red, gray, white) or #rrggbb."`
	Text     string  `json:"text,omitempty" jsonschema:"maxLength=10000" jsonschema_description:"Text shown inside the shape."`
	ParentID string  `json:"parentId,omitempty" jsonschema:"maxLength=200" jsonschema_description:"Id of a frame to put the object in; it then moves and is deleted with the frame."`
}

type createFrameArgs struct {
	Title  string  `json:"title" jsonschema:"maxLength=10000" jsonschema_description:"The frame's title."`
	X      float64 `json:"x" jsonschema_description:"Left edge in absolute board coordinates."`
	Y      float64 `json:"y" jsonschema_description:"Top edge in absolute board coordinates; y grows downwards."`
	Width  float64 `json:"width" jsonschema:"exclusiveMinimum=0" jsonschema_description:"Width in board units."`
	Height float64 `json:"height" jsonschema:"exclusiveMinimum=0" jsonschema_description:"Height in board units."`
	Color  string  `json:"color,omitempty" jsonschema:"pattern=^(yellow|pink|green|blue|orange|purple|red|gray|white|#[0-9a-fA-F]{6})$" jsonschema_description:"A named color (yellow, pink, green, blue, orange, purple, red, gray, white) or #rrggbb."`
}

type createConnectorArgs struct {
	FromID string `json:"fromId" jsonschema:"maxLength=200" jsonschema_description:"Id of the object the connector starts at."`
	ToID   string `json:"toId" jsonschema:"maxLength=200" jsonschema_description:"Id of the object the connector ends at (must differ from fromId)."`
	Style  string `json:"style,omitempty" jsonschema:"enum=line,enum=arrow,enum=both,default=arrow" jsonschema_description:"line: no arrow heads; arrow: a head at toId; both: heads at both ends."`
	Label  string `json:"label,omitempty" jsonschema:"maxLength=10000" jsonschema_description:"Text shown on the connector."`
}

type moveObjectArgs struct {
	ObjectID string  `json:"objectId" jsonschema:"maxLength=200" jsonschema_description:"Id of the object, as returned when it was created or by getBoardState."`
	X        float64 `json:"x" jsonschema_description:"New left edge in absolute board coordinates."`
	Y        float64 `json:"y" jsonschema_description:"New top edge in absolute board coordinates."`
}

type resizeObjectArgs struct {
	ObjectID string  `json:"objectId" jsonschema:"maxLength=200" jsonschema_description:"Id of the object, as returned when it was created or by getBoardState."`
	Width    float64 `json:"width" jsonschema:"exclusiveMinimum=0" jsonschema_description:"New width in board units."`
	Height   float64 `json:"height" jsonschema:"exclusiveMinimum=0" jsonschema_description:"New height in board units."`
}

type updateTextArgs struct {
	ObjectID string `json:"objectId" jsonschema:"maxLength=200" jsonschema_description:"Id of the object, as returned when it was created or by getBoardState."`
	Text     string `json:"text" jsonschema:"maxLength=10000" jsonschema_description:"The new text (a frame's title, a connector's label)."`
}

type changeColorArgs struct {
	ObjectID string `json:"objectId" jsonschema:"maxLength=200" jsonschema_description:"Id of the object, as returned when it was created or by getBoardState."`
	Color    string `json:"color" jsonschema:"pattern=^(yellow|pink|green|blue|orange|purple|red|gray|white|#[0-9a-fA-F]{6})$" jsonschema_description:"A named color (yellow, pink, green, blue, orange, purple, red, gray, white) or #rrggbb."`
}

type deleteObjectArgs struct {
	ObjectID string `json:"objectId" jsonschema:"maxLength=200" jsonschema_description:"Id of the object, as returned when it was created or by getBoardState."`
}

type getBoardStateArgs struct {
	Type     string `json:"type,omitempty" jsonschema:"enum=sticky,enum=shape,enum=frame,enum=connector" jsonschema_description:"Only objects of this type."`
	ParentID string `json:"parentId,omitempty" jsonschema:"maxLength=200" jsonschema_description:"Only the children of this frame."`
}

type findObjectsArgs struct {
	Text     string `json:"text,omitempty" jsonschema:"maxLength=10000" jsonschema_description:"Case-insensitive substring of the object's text, title or label."`
	Type     string `json:"type,omitempty" jsonschema:"enum=sticky,enum=shape,enum=frame,enum=connector" jsonschema_description:"Only objects of this type."`
	Color    string `json:"color,omitempty" jsonschema:"pattern=^(yellow|pink|green|blue|orange|purple|red|gray|white|#[0-9a-fA-F]{6})$" jsonschema_description:"Only objects of this color."`
	ParentID string `json:"parentId,omitempty" jsonschema:"maxLength=200" jsonschema_description:"Only the children of this frame."`
}

type arrangeObjectsArgs struct {
	ObjectIDs []string `json:"objectIds" jsonschema:"minItems=1,maxItems=5000,maxLength=200" jsonschema_description:"Ids of the objects to arrange, in layout order (left to right, then top to bottom). Not connectors."`
	Layout    string   `json:"layout" jsonschema:"enum=grid,enum=row,enum=column" jsonschema_description:"grid: rows of 'columns' objects; row: one row; column: one column."`
	Columns   *int     `json:"columns,omitempty" jsonschema:"minimum=1" jsonschema_description:"Objects per grid row; default: the square root of the count, rounded up. Ignored for row and column."`
	Gap       *float64 `json:"gap,omitempty" jsonschema:"default=20,minimum=0" jsonschema_description:"Space between neighbouring objects."`
	X         *float64 `json:"x,omitempty" jsonschema_description:"Left edge of the layout; default: the first object's current x."`
	Y         *float64 `json:"y,omitempty" jsonschema_description:"Top edge of the layout; default: the first object's current y."`
}

// placement is the result of tools that create or place a box.
type placement struct {
	ID     string  `json:"id"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

func placed(o Object) placement {
	return placement{ID: o.ID, X: o.X, Y: o.Y, Width: o.Width, Height: o.Height}
}

type idResult struct {
	ID string `json:"id"`
}

type deleteResult struct {
	ID      string   `json:"id"`
	Deleted []string `json:"deleted" jsonschema_description:"Every id removed: the object, then a frame's children and attached connectors."`
}

type objectsResult struct {
	Objects []Object `json:"objects"`
	Count   int      `json:"count"`
}

type arrangeResult struct {
	Objects []Object `json:"objects" jsonschema_description:"The arranged objects, in the order of objectIds, at their new positions."`
}
