package whiteboard

import (
	"bytes"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SVG rendering of a board (docs/whiteboard.md, "SVG"). The document is
//
//	<svg xmlns=… viewBox=… width=… height=… font-family=…>
//	<rect class="background" …/>
//	<g class="frames">…</g>
//	<g class="items">…</g>       stickies and shapes
//	<g class="connectors">…</g>
//	</svg>
//
// with each object one line, <g data-id="ID" class="TYPE">…</g>, in creation
// order within its layer. An object's fragment (ObjectSVG, ChangeSVG) is
// exactly that <g>, self-contained (no defs, no references), so a client can
// append it to its layer or replace the element with the same data-id.
//
// Everything in an object may come from a model, so the output is built for
// untrusted input: every text is escaped, characters XML 1.0 forbids are
// dropped, texts are cut (…) to what fits their box and to a fixed length,
// and every number written is finite.

// Colors: each named color has a fill (stickies, shapes, a frame's title
// bar) and a line, a darker shade for borders and connectors.
type paint struct{ fill, line string }

var palette = map[string]paint{
	"yellow": {"#ffe27a", "#e0a800"},
	"pink":   {"#ffc2d9", "#d6336c"},
	"green":  {"#b7ebc0", "#2f9e44"},
	"blue":   {"#b3dcff", "#1c7ed6"},
	"orange": {"#ffcc94", "#e8590c"},
	"purple": {"#d9cbff", "#6741d9"},
	"red":    {"#ffb0b0", "#e03131"},
	"gray":   {"#dfe3e8", "#5c6670"},
	"white":  {"#ffffff", "#868e96"},
}

// Colors of objects without one (only stickies get a color by default, but
// a board file may leave any out).
const (
	inkDark       = "#1f2328" // text on light fills
	inkLight      = "#ffffff" // text on dark fills
	noColorFill   = "#ffffff" // a shape without a color
	noColorLine   = "#495057" // its border; a connector without a color
	noFrameBody   = "#f3f5f7"
	noFrameBar    = "#dfe3e8"
	noFrameLine   = "#b8c0c8"
	boardBack     = "#fbfbfc"
	stickyDefault = "yellow"
)

// Limits that bound the output whatever the input.
const (
	maxTextRunes  = 2000 // of a sticky's or shape's text considered for drawing
	maxLines      = 80   // lines drawn of one text
	maxLabelRunes = 200  // of a title or label
	maxLabelWidth = 260  // a connector label's width on the board, before …
	minFontSize   = 6    // the smallest text, in the smallest boxes
	lineHeight    = 1.22 // in font sizes
	boardMargin   = 40
)

const fontFamily = "Helvetica, Arial, 'Liberation Sans', sans-serif"

// SVG returns the whole board as one SVG document.
func (b *Board) SVG() []byte {
	var buf bytes.Buffer
	b.WriteSVG(&buf)
	return buf.Bytes()
}

// WriteSVG writes the board as one SVG document (see SVG) to w.
func (b *Board) WriteSVG(w io.Writer) error {
	objs := b.Objects()
	byID := make(map[string]*Object, len(objs))
	for i := range objs {
		byID[objs[i].ID] = &objs[i]
	}
	var s svgWriter
	s.document(objs, func(id string) (Object, bool) {
		if o, ok := byID[id]; ok {
			return *o, true
		}
		return Object{}, false
	})
	_, err := w.Write(s.Bytes())
	return err
}

// ObjectSVG returns the fragment of the object with the given id: its
// <g data-id="ID">…</g>, exactly as in SVG. A connector is drawn between its
// ends as they are on the board now.
func (b *Board) ObjectSVG(id string) (string, bool) {
	b.mu.Lock()
	o, ok := b.objs[id]
	if !ok {
		b.mu.Unlock()
		return "", false
	}
	obj := *o
	ends := map[string]Object{}
	if obj.Type == TypeConnector {
		for _, e := range []string{obj.FromID, obj.ToID} {
			if x, ok := b.objs[e]; ok {
				ends[e] = *x
			}
		}
	}
	b.mu.Unlock()
	var s svgWriter
	s.object(&obj, lookupIn(ends))
	return s.String(), true
}

// ChangeSVG returns the fragments of the objects of a change (what a
// tool_call_end carries to redraw them), by id. A connector is drawn
// between its ends as the call left them: those recorded with the change
// by WithChanges, else those in c.Objects, else those on b now (for a
// Change made by other means). A connector whose ends are found nowhere is
// drawn as its label alone. b may be nil.
func (b *Board) ChangeSVG(c Change) map[string]string {
	out := make(map[string]string, len(c.Objects))
	inChange := map[string]Object{}
	for _, o := range c.Objects {
		inChange[o.ID] = o
	}
	lookup := func(id string) (Object, bool) {
		if o, ok := c.ends[id]; ok {
			return o, true
		}
		if o, ok := inChange[id]; ok {
			return o, true
		}
		if b == nil {
			return Object{}, false
		}
		return b.Get(id)
	}
	for i := range c.Objects {
		var s svgWriter
		s.object(&c.Objects[i], lookup)
		out[c.Objects[i].ID] = s.String()
	}
	return out
}

// CheckSVGFile is CheckFile for SaveSVGFile: it reports whether the picture
// can be written to path, without writing it.
func CheckSVGFile(path string) error { return checkFile(path, "SVG") }

// SaveSVGFile writes the board as an SVG document to path, atomically and
// with the rules of SaveFile (a temporary file renamed over path; an
// existing file keeps its mode, a new one is 0644; a symbolic link stays a
// link; a read-only file or one that is not a regular file is refused).
func (b *Board) SaveSVGFile(path string) error { return saveFile(path, "SVG", b.WriteSVG) }

func lookupIn(m map[string]Object) func(string) (Object, bool) {
	return func(id string) (Object, bool) { o, ok := m[id]; return o, ok }
}

// svgWriter builds SVG text.
type svgWriter struct{ bytes.Buffer }

// document writes the whole board; lookup finds connector ends.
func (s *svgWriter) document(objs []Object, lookup func(string) (Object, bool)) {
	minX, minY, maxX, maxY := 0.0, 0.0, 320.0, 200.0 // an empty board
	for i, o := range objs {
		if i == 0 {
			minX, minY, maxX, maxY = o.X, o.Y, o.X+o.Width, o.Y+o.Height
			continue
		}
		minX, minY = math.Min(minX, o.X), math.Min(minY, o.Y)
		maxX, maxY = math.Max(maxX, o.X+o.Width), math.Max(maxY, o.Y+o.Height)
	}
	if len(objs) > 0 {
		minX, minY, maxX, maxY = minX-boardMargin, minY-boardMargin, maxX+boardMargin, maxY+boardMargin
	}
	w, h := span(minX, maxX), span(minY, maxY)
	s.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="`)
	s.nums(minX, minY, w, h)
	s.WriteString(`" width="` + num(w) + `" height="` + num(h) + `" font-family="` + fontFamily + `">` + "\n")
	s.WriteString(`<rect class="background" x="` + num(minX) + `" y="` + num(minY) + `" width="` + num(w) + `" height="` + num(h) + `" fill="` + boardBack + `"/>` + "\n")
	for _, layer := range []struct {
		class string
		types []string
	}{
		{"frames", []string{TypeFrame}},
		{"items", []string{TypeSticky, TypeShape}},
		{"connectors", []string{TypeConnector}},
	} {
		s.WriteString(`<g class="` + layer.class + `">` + "\n")
		for i := range objs {
			if oneOf(objs[i].Type, layer.types) {
				s.object(&objs[i], lookup)
				s.WriteByte('\n')
			}
		}
		s.WriteString("</g>\n")
	}
	s.WriteString("</svg>\n")
}

// span is hi - lo, at most the largest float64 (a board from -1e308 to
// 1e308 is wider than that), and never 0.
func span(lo, hi float64) float64 {
	d := hi - lo
	if math.IsInf(d, 1) || math.IsNaN(d) {
		return math.MaxFloat64
	}
	return math.Max(d, 1)
}

// object writes one object's <g>.
func (s *svgWriter) object(o *Object, lookup func(string) (Object, bool)) {
	s.WriteString(`<g data-id="`)
	s.WriteString(escape(o.ID, true))
	s.WriteString(`" class="`)
	s.WriteString(escape(o.Type, true))
	s.WriteString(`">`)
	switch o.Type {
	case TypeFrame:
		s.frame(o)
	case TypeSticky:
		s.sticky(o)
	case TypeShape:
		s.shape(o)
	case TypeConnector:
		s.connector(o, lookup)
	}
	s.WriteString(`</g>`)
}

func (s *svgWriter) frame(o *Object) {
	body, bar, line := noFrameBody, noFrameBar, noFrameLine
	if o.Color != "" {
		p := paintOf(o.Color)
		bar, line = p.fill, p.line
		body = mix(p.fill, "#ffffff", 0.78)
	}
	x, y, w, h := o.X, o.Y, o.Width, o.Height
	r := math.Min(10, math.Min(w, h)/4)
	barH := math.Min(36, h/3)
	s.el("rect", "x y width height rx", x, y, w, h, r)
	s.attr("fill", body)
	s.WriteString("/>")
	// The title bar: the frame's top, rounded like it.
	s.WriteString(`<path d="M`)
	s.nums(x, y+barH)
	s.WriteString(`V`)
	s.nums(y + r)
	s.WriteString(`A`)
	s.nums(r, r, 0, 0, 1, x+r, y)
	s.WriteString(`H`)
	s.nums(x + w - r)
	s.WriteString(`A`)
	s.nums(r, r, 0, 0, 1, x+w, y+r)
	s.WriteString(`V`)
	s.nums(y + barH)
	s.WriteString(`Z"`)
	s.attr("fill", bar)
	s.WriteString("/>")
	s.el("rect", "x y width height rx", x, y, w, h, r)
	s.attr("fill", "none")
	s.attr("stroke", line)
	s.WriteString(` stroke-width="1.5"/>`)
	size := math.Min(16, barH*0.5)
	pad := math.Min(14, w/10)
	if title, _ := clean(o.Title, maxLabelRunes); title != "" && size >= 5 {
		title = fitLine(strings.Join(strings.Fields(title), " "), size*1.06, w-2*pad) // bold is wider
		if title != "" {
			s.el("text", "x y font-size", x+pad, y+barH/2+size*0.35, size)
			s.attr("font-weight", "bold")
			s.attr("fill", inkOn(bar))
			s.WriteString(">")
			s.WriteString(escape(title, false))
			s.WriteString("</text>")
		}
	}
}

func (s *svgWriter) sticky(o *Object) {
	color := o.Color
	if color == "" {
		color = stickyDefault
	}
	p := paintOf(color)
	x, y, w, h := o.X, o.Y, o.Width, o.Height
	r := math.Min(4, math.Min(w, h)/8)
	// A soft shadow: two offset layers, the outer fainter.
	s.el("rect", "x y width height rx", x+1, y+4, w, h, r)
	s.WriteString(` fill="#000000" fill-opacity="0.07"/>`)
	s.el("rect", "x y width height rx", x+0.5, y+1.5, w, h, r)
	s.WriteString(` fill="#000000" fill-opacity="0.12"/>`)
	s.el("rect", "x y width height rx", x, y, w, h, r)
	s.attr("fill", p.fill)
	s.WriteString("/>")
	pad := math.Min(w, h) * 0.09
	s.textIn(o.Text, []box{{x + pad, y + pad, w - 2*pad, h - 2*pad}}, clamp(math.Sqrt(w*h)/9, 10, 28), inkOn(p.fill))
}

func (s *svgWriter) shape(o *Object) {
	fill, line := noColorFill, noColorLine
	if o.Color != "" {
		p := paintOf(o.Color)
		fill, line = p.fill, p.line
	}
	x, y, w, h := o.X, o.Y, o.Width, o.Height
	cx, cy := x+w/2, y+h/2
	// The boxes inside the shape that text may fill: for the round and
	// pointed ones, a wide, a middle and a tall one, for short and long
	// texts.
	var boxes []box
	switch o.Shape {
	case ShapeEllipse:
		s.el("ellipse", "cx cy rx ry", cx, cy, w/2, h/2)
		for _, k := range []float64{0.45, 0.7, 0.85} { // half-height / (h/2)
			hw, hh := math.Sqrt(1-k*k)*w/2, k*h/2
			boxes = append(boxes, box{cx - hw, cy - hh, 2 * hw, 2 * hh})
		}
	case ShapeDiamond:
		s.polygon(cx, y, x+w, cy, cx, y+h, x, cy)
		for _, k := range []float64{0.3, 0.5, 0.7} {
			hw, hh := (1-k)*w/2, k*h/2
			boxes = append(boxes, box{cx - hw, cy - hh, 2 * hw, 2 * hh})
		}
	case ShapeTriangle:
		s.polygon(cx, y, x+w, y+h, x, y+h)
		for _, f := range []float64{0.3, 0.5, 0.65} { // height / h, from the base
			hw := (1 - f) * w / 2
			boxes = append(boxes, box{cx - hw, y + h - f*h, 2 * hw, f * h})
		}
	default: // rectangle
		s.el("rect", "x y width height rx", x, y, w, h, math.Min(8, math.Min(w, h)/8))
		boxes = []box{{x, y, w, h}}
	}
	s.attr("fill", fill)
	s.attr("stroke", line)
	s.WriteString(` stroke-width="2" stroke-linejoin="round"/>`)
	for i, b := range boxes {
		pad := math.Min(8, math.Min(b.w, b.h)*0.08)
		boxes[i] = box{b.x + pad, b.y + pad, b.w - 2*pad, b.h - 2*pad}
	}
	s.textIn(o.Text, boxes, clamp(math.Sqrt(w*h)/7, 10, 20), inkOn(fill))
}

// connector draws a line from the edge of one end to the edge of the other,
// with arrow heads as its style says and its label at the middle.
func (s *svgWriter) connector(o *Object, lookup func(string) (Object, bool)) {
	color := noColorLine
	if o.Color != "" {
		color = lineOf(o.Color)
	}
	from, ok1 := lookup(o.FromID)
	to, ok2 := lookup(o.ToID)
	if !ok1 || !ok2 {
		// Ends unknown: the label alone, at the middle of the box.
		s.label(o.Label, o.X+o.Width/2, o.Y+o.Height/2, color)
		return
	}
	x1, y1 := from.X+from.Width/2, from.Y+from.Height/2
	x2, y2 := to.X+to.Width/2, to.Y+to.Height/2
	dx, dy := x2-x1, y2-y1
	scale := math.Max(math.Abs(dx), math.Abs(dy))
	if !(scale > 0) || math.IsInf(scale, 0) {
		s.label(o.Label, x1, y1, color) // the ends share their center
		return
	}
	ux, uy := dx/scale, dy/scale
	n := math.Hypot(ux, uy)
	ux, uy = ux/n, uy/n
	dist := scale * n // may be +Inf for ends at opposite ends of float64
	const gap = 3     // between the end's outline and the arrow's tip
	t1, t2 := exit(&from, ux, uy)+gap, exit(&to, -ux, -uy)+gap
	sx, sy, ex, ey := x1+ux*t1, y1+uy*t1, x2-ux*t2, y2-uy*t2
	length := dist - t1 - t2
	if !(length > 6) {
		// The ends touch or overlap: join their centers.
		sx, sy, ex, ey, length = x1, y1, x2, y2, dist
	}
	head := math.Min(12, length/3)
	lsx, lsy, lex, ley := sx, sy, ex, ey // the line, short of the heads
	if o.Style != StyleLine {
		lex, ley = ex-ux*head*0.8, ey-uy*head*0.8
	}
	if o.Style == StyleBoth {
		lsx, lsy = sx+ux*head*0.8, sy+uy*head*0.8
	}
	s.WriteString(`<path d="M`)
	s.nums(lsx, lsy)
	s.WriteString(`L`)
	s.nums(lex, ley)
	s.WriteString(`"`)
	s.attr("stroke", color)
	s.WriteString(` stroke-width="2" stroke-linecap="round" fill="none"/>`)
	if o.Style != StyleLine {
		s.arrowHead(ex, ey, ux, uy, head, color)
	}
	if o.Style == StyleBoth {
		s.arrowHead(sx, sy, -ux, -uy, head, color)
	}
	s.label(o.Label, sx/2+ex/2, sy/2+ey/2, color)
}

// arrowHead draws a head with its tip at (x, y) pointing along (ux, uy).
func (s *svgWriter) arrowHead(x, y, ux, uy, length float64, color string) {
	bx, by := x-ux*length, y-uy*length
	half := length * 0.45
	s.polygon(x, y, bx-uy*half, by+ux*half, bx+uy*half, by-ux*half)
	s.attr("fill", color)
	s.attr("stroke", color)
	s.WriteString(` stroke-width="1" stroke-linejoin="round"/>`)
}

// label draws a connector's label centered at (x, y) on a white halo.
func (s *svgWriter) label(text string, x, y float64, color string) {
	text, _ = clean(text, maxLabelRunes)
	text = fitLine(strings.Join(strings.Fields(text), " "), 13, maxLabelWidth)
	if text == "" {
		return
	}
	const size = 13
	w := textWidth(text, size) + 12
	h := size * 1.5
	s.el("rect", "x y width height rx", x-w/2, y-h/2, w, h, h/2)
	s.attr("fill", "#ffffff")
	s.attr("stroke", color)
	s.WriteString(` stroke-opacity="0.35"/>`)
	s.el("text", "x y font-size", x, y+size*0.35, size)
	s.attr("text-anchor", "middle")
	s.attr("fill", inkDark)
	s.WriteString(">")
	s.WriteString(escape(text, false))
	s.WriteString("</text>")
}

// exit is the distance from the center of an end to its outline along the
// unit direction (ux, uy): where a connector leaves it.
func exit(o *Object, ux, uy float64) float64 {
	hw, hh := o.Width/2, o.Height/2
	ax, ay := math.Abs(ux), math.Abs(uy)
	var t float64
	switch {
	case o.Type == TypeShape && o.Shape == ShapeEllipse:
		t = 1 / math.Hypot(ux/hw, uy/hh)
	case o.Type == TypeShape && o.Shape == ShapeDiamond:
		t = 1 / (ax/hw + ay/hh)
	case o.Type == TypeShape && o.Shape == ShapeTriangle:
		t = polygonExit(ux, uy, [][2]float64{{0, -hh}, {hw, hh}, {-hw, hh}})
	default: // a box
		t = math.Inf(1)
		if ax > 0 {
			t = hw / ax
		}
		if ay > 0 {
			t = math.Min(t, hh/ay)
		}
	}
	if !finite(t) || t < 0 {
		return 0
	}
	return t
}

// polygonExit is the distance from the origin, inside the convex polygon
// pts, to its outline along (ux, uy).
func polygonExit(ux, uy float64, pts [][2]float64) float64 {
	best := math.Inf(1)
	for i := range pts {
		p, q := pts[i], pts[(i+1)%len(pts)]
		ex, ey := q[0]-p[0], q[1]-p[1]
		den := ux*ey - uy*ex
		if den == 0 {
			continue // parallel
		}
		t := (p[0]*ey - p[1]*ex) / den
		u := (p[0]*uy - p[1]*ux) / den
		if t >= 0 && u >= -1e-9 && u <= 1+1e-9 {
			best = math.Min(best, t)
		}
	}
	return best
}

// box is a rectangle that text may fill.
type box struct{ x, y, w, h float64 }

// textLayout is a text fitted into a box.
type textLayout struct {
	box
	lines []string
	size  float64
	cut   bool // some of the text did not fit
}

// textIn draws text wrapped and centered in the best of boxes (the one
// where it fits whole at the largest size), at the largest font size from
// maxSize down that fits it whole, else at the smallest, cut with "…".
func (s *svgWriter) textIn(text string, boxes []box, maxSize float64, ink string) {
	text, cut := clean(text, maxTextRunes)
	if strings.TrimSpace(text) == "" {
		return
	}
	var best textLayout
	for i, b := range boxes {
		l := fit(text, cut, b, maxSize)
		if i == 0 || (best.cut && !l.cut) || (best.cut == l.cut && l.size > best.size) {
			best = l
		}
	}
	if len(best.lines) == 0 {
		return
	}
	cx := best.x + best.w/2
	lh := best.size * lineHeight
	top := best.y + best.h/2 - float64(len(best.lines))*lh/2
	s.el("text", "x font-size", cx, best.size)
	s.attr("text-anchor", "middle")
	s.attr("fill", ink)
	s.WriteString(">")
	for i, line := range best.lines {
		s.el("tspan", "x y", cx, top+(float64(i)+0.5)*lh+best.size*0.35)
		s.WriteString(">")
		s.WriteString(escape(line, false))
		s.WriteString("</tspan>")
	}
	s.WriteString("</text>")
}

// fit lays text out in b: wrapped at the largest font size from maxSize
// down (by tenths) that fits it whole, else at the smallest with as many
// lines as fit, the last ending in "…". The smallest is 0.6 maxSize, at
// most 11 and at least minFontSize: long texts are cut rather than shrunk
// until nobody can read them. cut says the text was cut already.
func fit(text string, cut bool, b box, maxSize float64) textLayout {
	l := textLayout{box: b, cut: cut}
	if !(b.w > 0) || !(b.h > 0) {
		l.cut = true
		return l
	}
	smallest := clamp(maxSize*0.6, minFontSize, 11)
	size := math.Max(smallest, math.Min(maxSize, b.h/lineHeight))
	for {
		l.lines = wrap(text, size, b.w, maxLines+1)
		if float64(len(l.lines))*size*lineHeight <= b.h && len(l.lines) <= maxLines {
			break
		}
		if size == smallest {
			n := int(math.Min(b.h/(size*lineHeight), maxLines))
			if n < len(l.lines) {
				l.lines, l.cut = l.lines[:n], true
			}
			break
		}
		size = math.Max(smallest, size*0.9)
	}
	l.size = size
	if l.cut && len(l.lines) > 0 {
		last := len(l.lines) - 1
		line := fitLine(l.lines[last]+"…", size, b.w)
		if !strings.HasSuffix(line, "…") { // the whole line fitted: "…" after it
			line = fitLine(line+" …", size, b.w)
		}
		l.lines[last] = line
	}
	return l
}

// wrap breaks text into lines no wider than maxW at the given font size:
// at spaces, and inside words too long for a line; a newline in the text
// starts a new line. It stops after limit lines.
func wrap(text string, size, maxW float64, limit int) []string {
	var lines []string
	for _, par := range strings.Split(text, "\n") {
		var line strings.Builder
		lineW := 0.0
		push := func() {
			lines = append(lines, line.String())
			line.Reset()
			lineW = 0
		}
		for _, word := range strings.Fields(par) {
			if len(lines) >= limit {
				return lines
			}
			ww := textWidth(word, size)
			sp := textWidth(" ", size)
			switch {
			case line.Len() == 0:
			case lineW+sp+ww <= maxW:
				line.WriteByte(' ')
				lineW += sp
			default:
				push()
			}
			if ww <= maxW || line.Len() > 0 {
				line.WriteString(word)
				lineW += ww
				continue
			}
			// A word wider than a line: as many runes per line as fit.
			for _, r := range word {
				rw := runeWidth(r) * size
				if lineW+rw > maxW && line.Len() > 0 {
					push()
					if len(lines) >= limit {
						return lines
					}
				}
				line.WriteRune(r)
				lineW += rw
			}
		}
		if len(lines) >= limit {
			return lines
		}
		push() // an empty paragraph is an empty line
	}
	return lines
}

// fitLine returns line, cut with "…" to be no wider than maxW, or "" when
// not even "…" fits.
func fitLine(line string, size, maxW float64) string {
	if textWidth(line, size) <= maxW {
		return line
	}
	ell := textWidth("…", size)
	if ell > maxW {
		return ""
	}
	w := ell
	for i, r := range line {
		w += runeWidth(r) * size
		if w > maxW {
			return strings.TrimRight(line[:i], " ") + "…"
		}
	}
	return line
}

// textWidth estimates the width of text in the font: Helvetica's advance
// widths (Arial and Liberation Sans have the same), a little more for
// safety.
func textWidth(text string, size float64) float64 {
	w := 0.0
	for _, r := range text {
		w += runeWidth(r)
	}
	return w * size
}

// helveticaWidths are the advance widths of ASCII 32…126 in 1/1000 em.
var helveticaWidths = [95]uint16{
	278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space … /
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0 … ?
	1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @ … O
	667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P … _
	333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // ` … o
	556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, // p … ~
}

// runeWidth is a rune's estimated advance in em.
func runeWidth(r rune) float64 {
	const safety = 1.06
	switch {
	case r >= 32 && r <= 126:
		return float64(helveticaWidths[r-32]) / 1000 * safety
	case r == '…':
		return 1.0 * safety
	case unicode.Is(unicode.Han, r), unicode.Is(unicode.Hangul, r), unicode.Is(unicode.Hiragana, r),
		unicode.Is(unicode.Katakana, r), r >= 0x1F000, r >= 0xFF00 && r <= 0xFFEF:
		return 1.0 * safety // wide: CJK, full-width forms, emoji
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0 // combining marks and format characters take no room
	}
	return 0.6 * safety
}

// clean makes text safe to write into XML and bounded: characters XML 1.0
// forbids (most control characters, U+FFFE, U+FFFF) are dropped, a tab is a
// space, "\r\n" and "\r" are "\n", and the text is cut after max runes
// (cut reports that).
func clean(text string, max int) (out string, cut bool) {
	var b strings.Builder
	n := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case r == '\r':
			if i < len(text) && text[i] == '\n' {
				continue
			}
			r = '\n'
		case r == '\t':
			r = ' '
		case r == utf8.RuneError && size == 1:
			r = '\uFFFD' // a byte that is not UTF-8
		}
		if !xmlChar(r) || (r >= 0x7F && r <= 0x9F) {
			continue
		}
		if n == max {
			return b.String(), true
		}
		b.WriteRune(r)
		n++
	}
	return b.String(), false
}

// xmlChar reports whether XML 1.0 allows r in a document.
func xmlChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' ||
		(r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

// escape makes s text content (attr false) or an attribute value in double
// quotes (attr true): markup characters become references, and characters
// XML forbids are dropped. In attributes, white space other than a space is
// written as a reference so that it survives attribute normalization.
func escape(s string, attr bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == utf8.RuneError && size == 1 {
			r = '\uFFFD'
		}
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"' && attr:
			b.WriteString("&quot;")
		case r == '\n' && attr:
			b.WriteString("&#xA;")
		case r == '\r':
			b.WriteString("&#xD;")
		case r == '\t' && attr:
			b.WriteString("&#x9;")
		case xmlChar(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// el starts an element with numeric attributes, named in names
// (separated by spaces): el("rect", "x y", 1, 2) writes <rect x="1" y="2".
func (s *svgWriter) el(name, names string, vals ...float64) {
	s.WriteString("<" + name)
	for i, n := range strings.Fields(names) {
		s.WriteString(" " + n + `="` + num(vals[i]) + `"`)
	}
}

// attr writes a string attribute whose value needs no escaping (colors,
// keywords).
func (s *svgWriter) attr(name, value string) {
	s.WriteString(" " + name + `="` + value + `"`)
}

// polygon starts a polygon through the points x1, y1, x2, y2, ….
func (s *svgWriter) polygon(xy ...float64) {
	s.WriteString(`<polygon points="`)
	for i := 0; i+1 < len(xy); i += 2 {
		if i > 0 {
			s.WriteByte(' ')
		}
		s.WriteString(num(xy[i]) + "," + num(xy[i+1]))
	}
	s.WriteString(`"`)
}

// nums writes numbers separated by spaces.
func (s *svgWriter) nums(vs ...float64) {
	for i, v := range vs {
		if i > 0 {
			s.WriteByte(' ')
		}
		s.WriteString(num(v))
	}
}

// num formats a coordinate: at most two decimals, in exponent form when
// large, and 0 for what is not finite (which valid boards never give).
func num(v float64) string {
	if !finite(v) {
		return "0"
	}
	if math.Abs(v) >= 1e15 {
		return strconv.FormatFloat(v, 'g', 8, 64)
	}
	v = math.Round(v*100) / 100
	if v == 0 {
		return "0" // not "-0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// paintOf is the fill and line of a color: the palette's for a named one;
// for #rrggbb, the color itself and a darker shade of it.
func paintOf(c string) paint {
	if p, ok := palette[c]; ok {
		return p
	}
	if !ValidColor(c) {
		return paint{noColorFill, noColorLine}
	}
	c = strings.ToLower(c)
	return paint{c, mix(c, "#000000", 0.35)}
}

// lineOf is a connector's color: a named color's line shade, or #rrggbb as
// given.
func lineOf(c string) string {
	if p, ok := palette[c]; ok {
		return p.line
	}
	if !ValidColor(c) {
		return noColorLine
	}
	return strings.ToLower(c)
}

// rgb parses #rrggbb.
func rgb(c string) (r, g, b float64) {
	v, _ := strconv.ParseUint(c[1:], 16, 32)
	return float64(v >> 16), float64(v >> 8 & 0xff), float64(v & 0xff)
}

// mix is a + (b - a) * t, of #rrggbb colors.
func mix(a, b string, t float64) string {
	r1, g1, b1 := rgb(a)
	r2, g2, b2 := rgb(b)
	ch := func(x, y float64) string {
		s := strconv.FormatUint(uint64(math.Round(x+(y-x)*t)), 16)
		if len(s) < 2 {
			s = "0" + s
		}
		return s
	}
	return "#" + ch(r1, r2) + ch(g1, g2) + ch(b1, b2)
}

// inkOn is the text color readable on fill: dark or white, whichever
// contrasts more (WCAG relative luminance).
func inkOn(fill string) string {
	r, g, b := rgb(fill)
	lin := func(c float64) float64 {
		c /= 255
		if c <= 0.04045 {
			return c / 12.92
		}
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	l := 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
	dr, dg, db := rgb(inkDark)
	dark := 0.2126*lin(dr) + 0.7152*lin(dg) + 0.0722*lin(db)
	// Contrast with white: 1.05 / (l + 0.05); with the dark ink: (l + 0.05) / (dark + 0.05).
	if 1.05/(l+0.05) > (l+0.05)/(dark+0.05) {
		return inkLight
	}
	return inkDark
}
