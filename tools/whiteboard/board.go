// Package whiteboard is codemode's built-in tool set: an in-memory whiteboard
// of sticky notes, shapes, frames and connectors, driven by twelve tools. It
// is the CLI's default tool set, and small enough for canvas apps to copy.
//
// A [Board] holds the state. [Tools] binds the tools to a board: the one in the
// call's context ([NewContext]), so that a server can give every request its
// own board, or else a default one. [Board.LoadFile], [CheckFile] and
// [Board.SaveFile] keep a board in a file between runs without losing work.
//
// Rules chosen here:
//   - Coordinates are absolute board coordinates, also inside a frame: a
//     frame groups its children (they move and are deleted with it) but does
//     not offset them. Only stickies and shapes have parents; frames do not nest.
//   - Ids are "sticky-N", "shape-N", "frame-N", "conn-N" with one counter per
//     board that never goes back, not after a delete or a Restore either.
//   - A connector joins two distinct non-connector objects. Its geometry is
//     derived (the box between its ends' centers), so moveObject,
//     resizeObject and arrangeObjects refuse connectors.
//   - An operation that would make a number non-finite (JSON cannot carry
//     it) fails as a whole; so does every failed call: nothing half-applied.
//   - Filters that name a frame (parentId) must name an existing frame.
//   - A board is bounded (MaxObjects, MaxTextLength, MaxIDLength): a call
//     over a limit is a tool_error a script can catch, and a board file over
//     one does not load.
package whiteboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/codemode-dev/codemode/internal/fserr"
	"github.com/codemode-dev/codemode/internal/strictjson"
)

// Object types.
const (
	TypeSticky    = "sticky"
	TypeShape     = "shape"
	TypeFrame     = "frame"
	TypeConnector = "connector"
)

// Shape kinds, the Shape of a TypeShape object.
const (
	ShapeRectangle = "rectangle"
	ShapeEllipse   = "ellipse"
	ShapeDiamond   = "diamond"
	ShapeTriangle  = "triangle"
)

// Connector styles: which ends carry an arrow head.
const (
	StyleLine  = "line"
	StyleArrow = "arrow" // at the toId end
	StyleBoth  = "both"
)

var (
	types       = []string{TypeSticky, TypeShape, TypeFrame, TypeConnector}
	shapeKinds  = []string{ShapeRectangle, ShapeEllipse, ShapeDiamond, ShapeTriangle}
	styles      = []string{StyleLine, StyleArrow, StyleBoth}
	namedColors = []string{"yellow", "pink", "green", "blue", "orange", "purple", "red", "gray", "white"}
)

// colorPattern is ValidColor as a JSON Schema pattern, for the tools' schemas.
const colorPattern = `^(yellow|pink|green|blue|orange|purple|red|gray|white|#[0-9a-fA-F]{6})$`

// ValidColor reports whether c is one of the named colors (yellow pink green
// blue orange purple red gray white) or #rrggbb.
func ValidColor(c string) bool {
	if oneOf(c, namedColors) {
		return true
	}
	if len(c) != 7 || c[0] != '#' {
		return false
	}
	for _, r := range c[1:] {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}

// Object is one item on the board, in the JSON shape of getBoardState.
// Only the fields of its type are set: text/color/parentId for stickies,
// shape/text/color/parentId for shapes, title/color for frames, and
// fromId/toId/style/label/color for connectors. A connector's geometry is
// derived: the bounding box between the centers of its two endpoints.
type Object struct {
	ID       string  `json:"id" jsonschema:"maxLength=200"`
	Type     string  `json:"type" jsonschema:"enum=sticky,enum=shape,enum=frame,enum=connector"`
	X        float64 `json:"x" jsonschema_description:"Left edge in absolute board coordinates."`
	Y        float64 `json:"y" jsonschema_description:"Top edge in absolute board coordinates."`
	Width    float64 `json:"width"`
	Height   float64 `json:"height"`
	Text     string  `json:"text,omitempty" jsonschema:"maxLength=10000" jsonschema_description:"A sticky's or shape's text."`
	Title    string  `json:"title,omitempty" jsonschema:"maxLength=10000" jsonschema_description:"A frame's title."`
	Color    string  `json:"color,omitempty"`
	ParentID string  `json:"parentId,omitempty" jsonschema:"maxLength=200" jsonschema_description:"The frame this object is in."`
	FromID   string  `json:"fromId,omitempty" jsonschema:"maxLength=200" jsonschema_description:"A connector's start."`
	ToID     string  `json:"toId,omitempty" jsonschema:"maxLength=200" jsonschema_description:"A connector's end."`
	Style    string  `json:"style,omitempty" jsonschema:"enum=line,enum=arrow,enum=both"`
	Label    string  `json:"label,omitempty" jsonschema:"maxLength=10000" jsonschema_description:"A connector's label."`
	Shape    string  `json:"shape,omitempty" jsonschema:"enum=rectangle,enum=ellipse,enum=diamond,enum=triangle" jsonschema_description:"A shape's kind."`
}

// Board is a whiteboard. It is safe for concurrent use; every tool call is
// atomic. Objects are kept in creation order, which is also drawing order.
// The zero value is an empty board.
type Board struct {
	mu    sync.Mutex
	order []string           // ids in creation order
	objs  map[string]*Object // by id
	seq   int                // last number used in an id; ids are never reused
}

// NewBoard returns an empty board.
func NewBoard() *Board { return &Board{objs: map[string]*Object{}} }

// Objects returns a copy of all objects in creation order.
func (b *Board) Objects() []Object {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.list(func(*Object) bool { return true })
}

// Get returns a copy of the object with the given id.
func (b *Board) Get(id string) (Object, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.objs[id]
	if !ok {
		return Object{}, false
	}
	return *o, true
}

// Snapshot returns the board's objects for a later Restore: the hook for
// atomic runs, where a failed run puts the board back as it was.
func (b *Board) Snapshot() []Object { return b.Objects() }

// Restore replaces the board's objects with objs (normally from Snapshot),
// after validating them as Load does. The id counter is not rolled back, so
// ids handed out after the snapshot are not handed out again.
func (b *Board) Restore(objs []Object) error {
	var p strictjson.Problems
	objs = validate(objs, &p)
	if err := p.Err(); err != nil {
		return fmt.Errorf("whiteboard: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.replace(objs)
	return nil
}

// Clone returns an independent copy of the board, id counter included.
func (b *Board) Clone() *Board {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := NewBoard()
	c.replace(b.list(func(*Object) bool { return true }))
	c.seq = b.seq
	return c
}

// boardJSON is the board file format: getBoardState's result. Count is
// accepted (and ignored) so that a saved getBoardState result loads as is.
type boardJSON struct {
	Objects []Object `json:"objects"`
	Count   *int     `json:"count,omitempty"`
}

// MarshalJSON encodes the board as {"objects": [...]}.
func (b *Board) MarshalJSON() ([]byte, error) {
	return json.Marshal(boardJSON{Objects: b.Objects()})
}

// UnmarshalJSON replaces the board's objects with those of a board document
// ({"objects": [...]}). It rejects documents and boards that are not valid
// (see Load) and leaves the board unchanged on error.
func (b *Board) UnmarshalJSON(data []byte) error {
	if err := b.decode(data); err != nil {
		return fmt.Errorf("whiteboard: %w", err)
	}
	return nil
}

// UnmarshalStored is UnmarshalJSON for a document that MarshalJSON wrote,
// kept by a store and read back (a server loading a board another replica
// changed): the same board, made with the same checks of its objects, but
// the JSON read by encoding/json, several times faster than the strict
// decoder, whose field-by-field reports a document this package wrote never
// needs. A document it refuses is decoded strictly, for the error. Only
// for documents this package wrote: it lets pass what only the strict
// decoder sees (unknown or repeated fields, a field name in other case).
func (b *Board) UnmarshalStored(data []byte) error {
	var doc boardJSON
	if len(bytes.TrimSpace(data)) > 0 && json.Unmarshal(data, &doc) == nil {
		var p strictjson.Problems
		objs := validate(doc.Objects, &p)
		if p.Len() == 0 {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.replace(objs)
			return nil
		}
	}
	return b.UnmarshalJSON(data)
}

// decode is Load's work, with errors that do not name the package: a
// *strictjson.Error listing every problem. Empty data is an empty board.
func (b *Board) decode(data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte(`{"objects":[]}`)
	}
	var doc boardJSON
	p := strictjson.Decode(data, &doc)
	var objs []Object
	if !p.Broken() {
		objs = validate(doc.Objects, p)
	}
	if err := p.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.replace(objs)
	return nil
}

// Load replaces the board with the board document read from r. The document
// is decoded strictly: malformed JSON, data after the board, unknown fields,
// fields given twice and values of the wrong type are errors. So are invalid
// boards: an unknown type or shape, duplicate or empty ids, a parentId or
// connector end that names no object, a parent that is not a frame, a
// connector to itself, a bad color or style, a field that does not belong to
// the type, a size that is not positive, and what is over the limits (more
// than MaxObjects objects, an id over MaxIDLength characters, a text, title
// or label over MaxTextLength). Every problem is reported at
// once, each with its path in the document (objects[2].color), in one error
// that lists them separated by "; ". Connector geometry is recomputed from
// the endpoints, so board files may leave it out. Ids created later never
// collide with loaded ones. An empty document (nothing, or only white space,
// as in a file just made with touch) is an empty board.
func (b *Board) Load(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err == nil {
		err = b.decode(data)
	}
	if err != nil {
		return fmt.Errorf("whiteboard: %w", err)
	}
	return nil
}

// Save writes the board document to w, indented, with a final newline.
func (b *Board) Save(w io.Writer) error {
	data, err := json.MarshalIndent(boardJSON{Objects: b.Objects()}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// FileError is a problem with a board file (or the SVG file of
// SaveSVGFile): it cannot be read or is not a board, or it cannot be
// written. Path is the file as given (a symbolic link stays a link); Err
// says what is wrong, without the path.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return "whiteboard: " + e.Path + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// LoadFile replaces the board with the board file at path, as Load does (an
// empty file is an empty board). A missing file is an error that wraps
// fs.ErrNotExist: a caller that starts empty then checks for it.
func (b *Board) LoadFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return &FileError{path, fserr.Pathless(err)}
	}
	if err := b.decode(data); err != nil {
		return &FileError{path, err}
	}
	return nil
}

// CheckFile reports whether SaveFile(path) can write the board there,
// without writing it, so that a program can refuse before doing work it
// could not keep: path must be a writable regular file, or missing in an
// existing directory where files can be made. A symbolic link is checked
// for its target, which is what SaveFile writes.
func CheckFile(path string) error { return checkFile(path, "board") }

// checkFile is CheckFile for a file of the given kind ("board", "SVG").
func checkFile(path, kind string) error {
	target, err := resolveLinks(path)
	if err != nil {
		return &FileError{path, err}
	}
	dir := filepath.Dir(target)
	if err := preferDirectory(checkTarget(target, kind), func() error { return checkSaveDir(dir) }); err != nil {
		return &FileError{path, err}
	}
	return nil
}

// preferDirectory decides which problem of a board file to report: the
// file's own, unless it is a want of permission and the directory (dirErr,
// called only then, or when the file is fine) cannot take new files either.
// The directory is what to fix first then, since a save writes a new file
// there and renames it over the board.
func preferDirectory(fileErr error, dirErr func() error) error {
	if fileErr == nil {
		return dirErr()
	}
	if !errors.Is(fileErr, fs.ErrPermission) {
		return fileErr
	}
	if err := dirErr(); err != nil {
		return err
	}
	return fileErr
}

// checkSaveDir says whether a save can write its temporary file in dir:
// it tries, as a save would.
func checkSaveDir(dir string) error {
	if err := checkDir(dir); err != nil {
		return err
	}
	probe, err := os.CreateTemp(dir, ".board-check-*")
	if err != nil {
		return fmt.Errorf("cannot create files in directory %s: %w", dir, fserr.Pathless(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// SaveFile writes the board to path atomically: into a temporary file in the
// same directory, synced, then renamed over path, so that a crash leaves
// either the old file or the new one. An existing file keeps its mode (a new
// one is made 0644); a symbolic link stays a link and its target is written.
// A read-only file or one that is not a regular file is refused, not
// replaced.
func (b *Board) SaveFile(path string) error { return saveFile(path, "board", b.Save) }

// saveFile is SaveFile for a file of the given kind ("board", "SVG") whose
// content write writes.
func saveFile(path, kind string, write func(io.Writer) error) error {
	target, err := resolveLinks(path)
	if err != nil {
		return &FileError{path, err}
	}
	if err := checkTarget(target, kind); err != nil {
		return &FileError{path, err}
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := writeAtomic(target, mode, write); err != nil {
		if derr := checkDir(filepath.Dir(target)); derr != nil {
			err = derr // says it better than the failed create
		}
		return &FileError{path, err}
	}
	return nil
}

// checkDir checks that the directory of a board file exists.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("directory %s does not exist", dir)
	case err != nil:
		return fserr.Pathless(err)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	return nil
}

// writeAtomic writes a file through write into a temporary file beside
// target, then renames it over target.
func writeAtomic(target string, mode fs.FileMode, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		return fserr.Pathless(err)
	}
	defer os.Remove(tmp.Name()) // after a failure; a no-op after the rename
	err = tmp.Chmod(mode)       // CreateTemp makes 0600
	if err == nil {
		err = write(tmp)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), target)
	}
	return fserr.Pathless(err)
}

// checkTarget checks the file a save would replace, if there is one; kind
// is what the file should be ("board", "SVG").
func checkTarget(target, kind string) error {
	fi, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fserr.Pathless(err)
	case fi.IsDir():
		if kind == "SVG" {
			return errors.New("is a directory, not an SVG file")
		}
		return errors.New("is a directory, not a board file")
	case !fi.Mode().IsRegular():
		return errors.New("is not a regular file")
	case fi.Mode().Perm()&0o222 == 0:
		// Renaming over a file needs only the directory's permission:
		// without this check a read-only board would be replaced.
		return errors.New("the file is read-only")
	}
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("cannot write the file: %w", fserr.Pathless(err))
	}
	return f.Close()
}

// resolveLinks follows path while it is a symbolic link, to the file a save
// should write; a dangling link resolves to its missing target.
func resolveLinks(path string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", fserr.Pathless(err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", fserr.Pathless(err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", errors.New("too many levels of symbolic links")
}

// list copies the objects that keep returns true for, in creation order.
// The result is never nil, so that it encodes as [].
func (b *Board) list(keep func(*Object) bool) []Object {
	out := []Object{}
	for _, id := range b.order {
		if o := b.objs[id]; keep(o) {
			out = append(out, *o)
		}
	}
	return out
}

// replace installs already validated objects and moves the id counter past
// every number used in their ids.
func (b *Board) replace(objs []Object) {
	b.order = make([]string, 0, len(objs))
	b.objs = make(map[string]*Object, len(objs))
	for i := range objs {
		o := objs[i]
		b.order = append(b.order, o.ID)
		b.objs[o.ID] = &o
		if n := idNumber(o.ID); n > b.seq {
			b.seq = n
		}
	}
}

// add appends a new object, giving it the next id with the type's prefix.
func (b *Board) add(o Object) Object {
	if b.objs == nil {
		b.objs = map[string]*Object{}
	}
	prefix := o.Type
	if prefix == TypeConnector {
		prefix = "conn"
	}
	for {
		b.seq++
		o.ID = prefix + "-" + strconv.Itoa(b.seq)
		if _, taken := b.objs[o.ID]; !taken {
			break
		}
	}
	b.order = append(b.order, o.ID)
	b.objs[o.ID] = &o
	return o
}

// idNumber returns n for ids of the form "anything-n", else 0.
func idNumber(id string) int {
	i := strings.LastIndexByte(id, '-')
	if i < 0 {
		return 0
	}
	n, err := strconv.Atoi(id[i+1:])
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// validate checks a board's objects, adding every problem to p with its
// path (objects[2].color), and returns a copy with connector geometry
// recomputed. A problem where p has one already (a value of the wrong type)
// is not reported again.
func validate(objs []Object, p *strictjson.Problems) []Object {
	out := make([]Object, len(objs))
	copy(out, objs)
	checkLimits(out, p)
	byID := make(map[string]int, len(out))
	for i := range out {
		o, at := &out[i], strictjson.Index("objects", i)
		switch j, dup := byID[o.ID]; {
		case o.ID == "":
			p.Addf(at+".id", "missing (every object needs an id)")
		case dup:
			p.Addf(at+".id", "duplicate id %s (also objects[%d])", strictjson.Quote(o.ID), j)
		default:
			byID[o.ID] = i
		}
		checkObject(o, at, p)
	}
	for i := range out {
		o, at := &out[i], strictjson.Index("objects", i)
		from, to, ok := checkRefs(o, at, out, byID, p)
		if ok {
			o.route(from, to)
			if !finiteGeometry(o) {
				p.Addf(at, "geometry out of range: its ends are too far apart")
			}
		}
	}
	return out
}

// checkObject checks an object on its own: type, fields, numbers, color.
func checkObject(o *Object, at string, p *strictjson.Problems) {
	switch {
	case o.Type == "":
		p.Addf(at+".type", "missing (want one of %s)", strings.Join(types, ", "))
		return
	case !oneOf(o.Type, types):
		p.Addf(at+".type", "unknown type %s (want one of %s)", strictjson.Quote(o.Type), strings.Join(types, ", "))
		return
	}
	// Fields that do not belong to the type are rejected rather than kept
	// invisibly (a frame's "text" is a typo for "title").
	allowed := map[string]string{
		TypeSticky:    "text color parentId",
		TypeShape:     "shape text color parentId",
		TypeFrame:     "title color",
		TypeConnector: "fromId toId style label color",
	}[o.Type]
	for _, f := range []struct{ name, val string }{
		{"text", o.Text}, {"title", o.Title}, {"color", o.Color}, {"parentId", o.ParentID},
		{"fromId", o.FromID}, {"toId", o.ToID}, {"style", o.Style}, {"label", o.Label}, {"shape", o.Shape},
	} {
		if f.val != "" && !oneOf(f.name, strings.Fields(allowed)) {
			p.Addf(at+"."+f.name, "a %s has no %s", o.Type, f.name)
		}
	}
	switch {
	case o.Type != TypeShape:
	case o.Shape == "":
		p.Addf(at+".shape", "missing (a shape needs one of %s)", strings.Join(shapeKinds, ", "))
	case !oneOf(o.Shape, shapeKinds):
		p.Addf(at+".shape", "must be one of %s, got %s", strings.Join(shapeKinds, ", "), strictjson.Quote(o.Shape))
	}
	if o.Style != "" && !oneOf(o.Style, styles) {
		p.Addf(at+".style", "must be one of %s, got %s", strings.Join(styles, ", "), strictjson.Quote(o.Style))
	}
	if o.Color != "" && !ValidColor(o.Color) {
		p.Addf(at+".color", "%v", colorError(o.Color))
	}
	if o.Type == TypeConnector {
		return // geometry is derived
	}
	ok := true
	for _, f := range []struct {
		name string
		v    float64
	}{{"x", o.X}, {"y", o.Y}, {"width", o.Width}, {"height", o.Height}} {
		switch {
		case !finite(f.v):
			p.Addf(at+"."+f.name, "must be a finite number, got %v", f.v)
			ok = false
		case f.v <= 0 && (f.name == "width" || f.name == "height"):
			p.Addf(at+"."+f.name, "must be positive, got %v", f.v)
			ok = false
		}
	}
	if ok && !finiteGeometry(o) {
		p.Addf(at, "geometry out of range: x + width or y + height is too large")
	}
}

// checkRefs checks an object's references to other objects (objs, indexed
// by id in byID). For a connector whose ends are valid, it returns them
// and true.
func checkRefs(o *Object, at string, objs []Object, byID map[string]int, p *strictjson.Problems) (from, to Object, ok bool) {
	if o.ParentID != "" && o.Type != TypeConnector && o.Type != TypeFrame {
		j, found := byID[o.ParentID]
		switch {
		case !found:
			p.Addf(at+".parentId", "no object with id %s", strictjson.Quote(o.ParentID))
		case objs[j].Type != TypeFrame:
			p.Addf(at+".parentId", "%s is a %s, not a frame", strictjson.Quote(o.ParentID), objs[j].Type)
		}
	}
	if o.Type != TypeConnector {
		return Object{}, Object{}, false
	}
	ok = true
	ends := [2]Object{}
	for k, end := range []struct{ name, id string }{{"fromId", o.FromID}, {"toId", o.ToID}} {
		j, found := byID[end.id]
		switch {
		case end.id == "":
			p.Addf(at+"."+end.name, "missing (a connector needs %s)", end.name)
		case !found:
			p.Addf(at+"."+end.name, "no object with id %s", strictjson.Quote(end.id))
		case objs[j].Type == TypeConnector:
			p.Addf(at+"."+end.name, "%s is a connector; connectors join stickies, shapes and frames", strictjson.Quote(end.id))
		default:
			ends[k] = objs[j]
			continue
		}
		ok = false
	}
	if ok && o.FromID == o.ToID {
		p.Addf(at+".toId", "cannot connect %s to itself", strictjson.Quote(o.FromID))
		ok = false
	}
	return ends[0], ends[1], ok
}

// route sets a connector's geometry: the box between its endpoints' centers.
func (o *Object) route(from, to Object) {
	x1, y1 := from.X+from.Width/2, from.Y+from.Height/2
	x2, y2 := to.X+to.Width/2, to.Y+to.Height/2
	o.X, o.Y = math.Min(x1, x2), math.Min(y1, y2)
	o.Width, o.Height = math.Abs(x2-x1), math.Abs(y2-y1)
}

// finiteGeometry reports whether the object's box, corners included, is
// finite: JSON cannot encode anything else.
func finiteGeometry(o *Object) bool {
	return finite(o.X, o.Y, o.Width, o.Height, o.X+o.Width, o.Y+o.Height)
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

func oneOf(s string, set []string) bool {
	for _, v := range set {
		if s == v {
			return true
		}
	}
	return false
}

func colorError(c string) error {
	return fmt.Errorf("invalid color %s: use one of %s, or #rrggbb", strictjson.Quote(c), strings.Join(namedColors, ", "))
}
