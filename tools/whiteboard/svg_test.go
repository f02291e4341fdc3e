package whiteboard

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/svg")

// The boards drawn by the golden tests: testdata/svg/NAME.json, drawn as
// testdata/svg/NAME.svg. flowchart is what examples/flowchart.ts drew,
// retro what examples/retro.json drew, swot what examples/swot.ts drew;
// edge has hostile and awkward texts, every shape, every style, overlapping
// ends, a dark color and an odd id; huge has coordinates near the ends of
// float64 and sizes near 0.
var goldenBoards = []string{"flowchart", "retro", "swot", "edge", "huge", "empty"}

func loadTestBoard(t testing.TB, name string) *Board {
	t.Helper()
	b := NewBoard()
	if err := b.LoadFile(filepath.Join("testdata", "svg", name+".json")); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSVGGolden pins the drawing of each golden board. To see a change:
// go test ./tools/whiteboard -run TestSVGGolden -update, then open the SVG
// files in a browser.
func TestSVGGolden(t *testing.T) {
	for _, name := range goldenBoards {
		t.Run(name, func(t *testing.T) {
			got := loadTestBoard(t, name).SVG()
			path := filepath.Join("testdata", "svg", name+".svg")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./tools/whiteboard -run TestSVGGolden -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s differs (-want +got); if the change is intended, rerun with -update and look at it:\n%s", path, diff)
			}
			checkSVG(t, got)
		})
	}
}

// svgElements are the elements the renderer writes; anything else in its
// output would be markup smuggled in by a text.
var svgElements = map[string]bool{"svg": true, "g": true, "rect": true, "path": true, "text": true,
	"tspan": true, "ellipse": true, "polygon": true}

// numericAttrs are the attributes that hold numbers (or lists of them).
var numericAttrs = map[string]bool{"x": true, "y": true, "width": true, "height": true, "rx": true, "ry": true,
	"cx": true, "cy": true, "font-size": true, "viewBox": true, "points": true, "d": true, "stroke-width": true,
	"fill-opacity": true, "stroke-opacity": true}

var numberRE = regexp.MustCompile(`-?[0-9][0-9.e+-]*`)

// checkSVG checks that data is one well-formed XML document with the
// renderer's structure: only its elements, every number finite, the three
// layers in order, each object a <g data-id> directly in its layer. It
// returns the document's texts by the data-id of the object they are in.
func checkSVG(t testing.TB, data []byte) map[string]string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	var stack, layers []string
	texts := map[string]string{}
	id := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, cut(data))
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			name := tok.Name.Local
			if !svgElements[name] {
				t.Fatalf("element <%s> in the output:\n%s", name, cut(data))
			}
			if len(stack) == 0 && name != "svg" {
				t.Fatalf("root element <%s>", name)
			}
			for _, a := range tok.Attr {
				if !numericAttrs[a.Name.Local] {
					continue
				}
				for _, n := range numberRE.FindAllString(a.Value, -1) {
					if f, err := strconv.ParseFloat(n, 64); err != nil || !finite(f) {
						t.Fatalf("%s=%q: %q is not a finite number", a.Name.Local, a.Value, n)
					}
				}
			}
			switch {
			case len(stack) == 1 && name == "g":
				layers = append(layers, attr(tok, "class"))
			case len(stack) == 2:
				if name != "g" || len(tok.Attr) == 0 || tok.Attr[0].Name.Local != "data-id" {
					t.Fatalf("in layer %s: <%s %v>, want <g data-id=…>", layers[len(layers)-1], name, tok.Attr)
				}
				id = attr(tok, "data-id")
				texts[id] += ""
			}
			stack = append(stack, name)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) >= 3 {
				texts[id] += string(tok)
			}
		}
	}
	if diff := cmp.Diff([]string{"frames", "items", "connectors"}, layers); diff != "" {
		t.Errorf("layers (-want +got):\n%s", diff)
	}
	return texts
}

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func cut(data []byte) string {
	if len(data) > 2000 {
		return string(data[:2000]) + "…"
	}
	return string(data)
}

// TestSVGFragments: an object's fragment is exactly its line of the whole
// document, in its layer, after the objects created before it; ChangeSVG
// gives the same for the objects of a change.
func TestSVGFragments(t *testing.T) {
	layerOf := map[string]string{TypeFrame: `<g class="frames">`, TypeSticky: `<g class="items">`,
		TypeShape: `<g class="items">`, TypeConnector: `<g class="connectors">`}
	for _, name := range goldenBoards {
		b := loadTestBoard(t, name)
		lines := strings.Split(string(b.SVG()), "\n")
		last := map[string]int{}
		objs := b.Objects()
		for _, o := range objs {
			frag, ok := b.ObjectSVG(o.ID)
			if !ok {
				t.Fatalf("%s: ObjectSVG(%q) found nothing", name, o.ID)
			}
			if !strings.HasPrefix(frag, `<g data-id="`+escape(o.ID, true)+`" class="`+o.Type+`">`) || !strings.HasSuffix(frag, "</g>") {
				t.Errorf("%s: fragment of %s: %s", name, o.ID, frag)
			}
			at := -1
			for i, l := range lines {
				if l == frag {
					at = i
				}
			}
			if at < 0 {
				t.Fatalf("%s: the fragment of %s is not a line of the document:\n%s", name, o.ID, frag)
			}
			layer := at
			for layer >= 0 && !strings.HasPrefix(lines[layer], `<g class=`) {
				layer--
			}
			if layer < 0 || lines[layer] != layerOf[o.Type] {
				t.Errorf("%s: %s is not in %s", name, o.ID, layerOf[o.Type])
				continue
			}
			if at <= last[lines[layer]] {
				t.Errorf("%s: %s is not after the objects created before it in its layer", name, o.ID)
			}
			last[lines[layer]] = at
		}
		frags := b.ChangeSVG(Change{Objects: objs})
		for _, o := range objs {
			if want, _ := b.ObjectSVG(o.ID); frags[o.ID] != want {
				t.Errorf("%s: ChangeSVG of %s:\n%s\nwant\n%s", name, o.ID, frags[o.ID], want)
			}
		}
		if len(frags) != len(objs) {
			t.Errorf("%s: ChangeSVG gave %d fragments for %d objects", name, len(frags), len(objs))
		}
	}
	if _, ok := NewBoard().ObjectSVG("nope"); ok {
		t.Error("ObjectSVG of an unknown id found something")
	}
}

// TestChangeSVGAsTheCallLeftIt: a change's connector is drawn between its
// ends as the call left them, also when another call has moved an end
// since; without recorded ends, from the change's objects, then the board.
func TestChangeSVGAsTheCallLeftIt(t *testing.T) {
	var got []Change
	b, tools, ctx := recordingTools(t, changeBoard, &got)
	move := func(ctx context.Context, id string, x int) {
		t.Helper()
		if _, err := tools["moveObject"].Handler(ctx, json.RawMessage(fmt.Sprintf(`{"objectId":%q,"x":%d,"y":0}`, id, x))); err != nil {
			t.Fatal(err)
		}
	}
	move(ctx, "sticky-3", 700)
	then, _ := b.ObjectSVG("conn-5")
	if frag := b.ChangeSVG(got[0])["conn-5"]; frag != then {
		t.Fatalf("right after the call:\n%s\nwant\n%s", frag, then)
	}
	move(NewContext(context.Background(), b), "sticky-2", 300) // the other end, by another call
	now, _ := b.ObjectSVG("conn-5")
	if now == then {
		t.Fatal("moving an end did not change the connector's drawing")
	}
	if frag := b.ChangeSVG(got[0])["conn-5"]; frag != then {
		t.Errorf("after another call moved an end, the first call's fragment is\n%s\nwant (as that call left it)\n%s", frag, then)
	}
	// A change made by hand: its own objects, then the board.
	conn, _ := b.Get("conn-5")
	if frag := b.ChangeSVG(Change{Objects: []Object{conn}})["conn-5"]; frag != now {
		t.Errorf("hand-made change:\n%s\nwant\n%s", frag, now)
	}
	// No ends anywhere: the label alone, still a <g>.
	conn.Label = "alone"
	frag := (*Board)(nil).ChangeSVG(Change{Objects: []Object{conn}})["conn-5"]
	if !strings.HasPrefix(frag, `<g data-id="conn-5" class="connector"><rect `) || !strings.HasSuffix(frag, ">alone</text></g>") || strings.Contains(frag, "<path") {
		t.Errorf("connector without ends: %s", frag)
	}
}

// hostile is a text a model might write to break out of the SVG.
const hostile = "</text><script>alert(1)</script><g data-id=\"x\">\" ' & &amp; ]]> <!-- --> <?pi?>" +
	"\x00\x01\x08\x0b\x0c\x1b\x7f\u0085\ufffe\uffff \xff\xfe bad UTF-8 \ud7ff\U0001F600 end"

// TestSVGHostileText: texts a model wrote cannot make markup, break the
// XML, or grow the output without bound.
func TestSVGHostileText(t *testing.T) {
	b := NewBoard()
	oddID := "</g><script>\"'&\n\t\x01"
	objs := []Object{
		{ID: "frame-1", Type: TypeFrame, X: 0, Y: 0, Width: 2000, Height: 2000, Title: hostile},
		{ID: "sticky-2", Type: TypeSticky, X: 0, Y: 100, Width: 1000, Height: 1000, Text: hostile},
		{ID: "shape-3", Type: TypeShape, Shape: ShapeEllipse, X: 1000, Y: 100, Width: 800, Height: 800, Text: hostile},
		{ID: "conn-4", Type: TypeConnector, FromID: "sticky-2", ToID: "shape-3", Label: hostile},
		{ID: oddID, Type: TypeSticky, X: 0, Y: 0, Width: 10, Height: 10},
	}
	if err := b.Restore(objs); err != nil {
		t.Fatal(err)
	}
	out := b.SVG()
	texts := checkSVG(t, out)
	for _, id := range []string{"frame-1", "sticky-2", "shape-3", "conn-4"} {
		for _, want := range []string{"</text><script>alert(1)</script>", `]]>`, `<?pi?>`, "\U0001F600", "\ufffd bad UTF-8"} {
			if id == "conn-4" && want != "</text><script>alert(1)</script>" {
				continue // a label is one line, cut at 260 wide
			}
			if !strings.Contains(texts[id], want) {
				t.Errorf("%s: %q is not drawn as text: %q", id, want, texts[id])
			}
		}
		for _, banned := range []string{"\x00", "\x01", "\x1b", "\x7f", "\u0085", "\ufffe"} {
			if strings.Contains(texts[id], banned) {
				t.Errorf("%s: %q kept", id, banned)
			}
		}
	}
	// The odd id is the data-id, less what XML cannot hold at all.
	if _, ok := texts["</g><script>\"'&\n\t"]; !ok {
		t.Errorf("the odd id is not a data-id; ids: %q", keys(texts))
	}

	// The longest text a board takes: cut, whatever the box.
	big := strings.Repeat("word & <tag> ", MaxTextLength/13)
	if err := b.Restore([]Object{{ID: "s", Type: TypeSticky, X: 0, Y: 0, Width: 1e9, Height: 1e9, Text: big}}); err != nil {
		t.Fatal(err)
	}
	out = b.SVG()
	checkSVG(t, out)
	if len(out) > 30_000 {
		t.Errorf("a sticky with a %d-character text drew %d bytes", len(big), len(out))
	}
	if !bytes.Contains(out, []byte("…")) {
		t.Error("the cut text does not end in …")
	}
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestSVGText: wrapping, cutting and fitting.
func TestSVGText(t *testing.T) {
	for _, tc := range []struct {
		text    string
		w, h    float64
		maxSize float64
		lines   []string
		size    float64
		cut     bool
	}{
		// Fits whole at the largest size.
		{"Went well", 200, 200, 20, []string{"Went well"}, 20, false},
		// Wraps at spaces; a newline starts a line; blank lines stay.
		{"one two three four", 60, 200, 10, []string{"one two", "three four"}, 10, false},
		{"a\n\nb", 100, 100, 10, []string{"a", "", "b"}, 10, false},
		// A word too long for a line is broken where it must (i, j, l are
		// narrow).
		{"abcdefghijklmnop", 30, 200, 10, []string{"abcde", "fghijkl", "mnop"}, 10, false},
		// Shrinks to fit: 91.9 wide at 20 (two lines, too high for 30),
		// 82.7 at 18, 74.4 at 16.2.
		{"Went well", 80, 30, 20, []string{"Went well"}, 16.2, false},
		// Cut with … at the smallest size (0.6 of 20, at most 11).
		{strings.Repeat("word ", 50), 100, 30, 20, []string{"word word word", "word word word…"}, 11, true},
	} {
		text, cut := clean(tc.text, maxTextRunes)
		l := fit(text, cut, box{0, 0, tc.w, tc.h}, tc.maxSize)
		if diff := cmp.Diff(tc.lines, l.lines); diff != "" || math.Abs(l.size-tc.size) > 0.01 || l.cut != tc.cut {
			t.Errorf("fit(%q, %vx%v, %v) = %q size %v cut %v; want size %v cut %v\n%s", tc.text, tc.w, tc.h, tc.maxSize, l.lines, l.size, l.cut, tc.size, tc.cut, diff)
		}
		for _, line := range l.lines {
			if w := textWidth(line, l.size); w > tc.w {
				t.Errorf("fit(%q): line %q is %v wide, more than %v", tc.text, line, w, tc.w)
			}
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"a\tb\r\nc\rd", "a b\nc\nd"},
		{"\x00x\x1fy\u0085z\ufffe\uffff", "xyz"},
		{"\xffok", "\ufffdok"},
	} {
		if got, _ := clean(tc.in, 100); got != tc.want {
			t.Errorf("clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got, cut := clean("abcdef", 3); got != "abc" || !cut {
		t.Errorf("clean cut: %q %v", got, cut)
	}
	if got := fitLine("a label far too long", 10, 50); got != "a label f…" {
		t.Errorf("fitLine = %q", got)
	}
	if got := fitLine("x", 10, 1); got != "" {
		t.Errorf("fitLine in no room = %q, want \"\"", got)
	}
}

// TestSVGNumbers: every number written is finite and short.
func TestSVGNumbers(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {-0.001, "0"}, {1.004, "1"}, {1.25, "1.25"}, {-3.14159, "-3.14"},
		{123456789, "123456789"}, {1e15, "1e+15"}, {-1.7976931348623157e308, "-1.7976931e+308"},
		{math.NaN(), "0"}, {math.Inf(1), "0"}, {math.Inf(-1), "0"},
	} {
		if got := num(tc.in); got != tc.want {
			t.Errorf("num(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := span(-1.7e308, 1.7e308); got != math.MaxFloat64 {
		t.Errorf("span overflowing = %v", got)
	}
}

// TestSVGConnectorEnds: a connector runs from outline to outline, not from
// center to center, with its heads where its style says.
func TestSVGConnectorEnds(t *testing.T) {
	sticky := func(id string, x float64) Object {
		return Object{ID: id, Type: TypeSticky, X: x, Y: 0, Width: 100, Height: 100}
	}
	shape := func(id, kind string, x float64) Object {
		return Object{ID: id, Type: TypeShape, Shape: kind, X: x, Y: 0, Width: 100, Height: 100}
	}
	for _, tc := range []struct {
		name     string
		from, to Object
		style    string
		path     string // the line
		heads    int
	}{
		// Boxes 100 apart: the line spans the gap less 3 at each end, and
		// stops short of a head by 12 × 0.8.
		{"arrow", sticky("a", 0), sticky("b", 200), StyleArrow, "M103 50L187.4 50", 1},
		{"line", sticky("a", 0), sticky("b", 200), StyleLine, "M103 50L197 50", 0},
		{"both", sticky("a", 0), sticky("b", 200), StyleBoth, "M112.6 50L187.4 50", 2},
		{"no style is an arrow", sticky("a", 0), sticky("b", 200), "", "M103 50L187.4 50", 1},
		// Along the axis an ellipse's and a diamond's outline are at the
		// box's edge too; a triangle's sides at mid-height are a quarter
		// of its width in.
		{"ellipse to diamond", shape("a", ShapeEllipse, 0), shape("b", ShapeDiamond, 200), StyleLine, "M103 50L197 50", 0},
		{"triangles", shape("a", ShapeTriangle, 0), shape("b", ShapeTriangle, 200), StyleLine, "M78 50L222 50", 0},
		// Overlapping ends: center to center.
		{"overlap", sticky("a", 0), sticky("b", 50), StyleLine, "M50 50L100 50", 0},
	} {
		c := Object{ID: "c", Type: TypeConnector, FromID: "a", ToID: "b", Style: tc.style}
		c.route(tc.from, tc.to)
		var s svgWriter
		s.connector(&c, lookupIn(map[string]Object{"a": tc.from, "b": tc.to}))
		out := s.String()
		if !strings.Contains(out, `<path d="`+tc.path+`"`) {
			t.Errorf("%s: %s\nwant the line %s", tc.name, out, tc.path)
		}
		if n := strings.Count(out, "<polygon"); n != tc.heads {
			t.Errorf("%s: %d arrow heads, want %d", tc.name, n, tc.heads)
		}
	}
	// Leaving at 45°: a box at its corner, a circle at its radius, a
	// diamond at the middle of its side.
	for _, tc := range []struct {
		o    Object
		want float64
	}{
		{sticky("s", 0), 50 * math.Sqrt2},
		{shape("e", ShapeEllipse, 0), 50},
		{shape("d", ShapeDiamond, 0), 50 / math.Sqrt2},
	} {
		if d := exit(&tc.o, math.Sqrt2/2, math.Sqrt2/2); math.Abs(d-tc.want) > 1e-9 {
			t.Errorf("exit from %s at 45°: %v, want %v", tc.o.ID, d, tc.want)
		}
	}
}

// TestSVGColors: the palette, hex colors as given, readable text.
func TestSVGColors(t *testing.T) {
	for _, name := range namedColors {
		p, ok := palette[name]
		if !ok || !ValidColor(p.fill) || !ValidColor(p.line) || p.fill[0] != '#' {
			t.Errorf("palette[%s] = %+v", name, p)
		}
		if inkOn(p.fill) != inkDark {
			t.Errorf("text on %s is not dark", name)
		}
	}
	if len(palette) != len(namedColors) {
		t.Errorf("the palette has %d colors, ValidColor knows %d", len(palette), len(namedColors))
	}
	for _, tc := range []struct{ fill, ink string }{
		{"#000000", inkLight}, {"#1a1a2e", inkLight}, {"#0b7285", inkLight}, {"#ffffff", inkDark}, {"#ffe27a", inkDark}, {"#808080", inkDark},
	} {
		if got := inkOn(tc.fill); got != tc.ink {
			t.Errorf("inkOn(%s) = %s, want %s", tc.fill, got, tc.ink)
		}
	}
	if p := paintOf("#FF8000"); p.fill != "#ff8000" || p.line != "#a65300" {
		t.Errorf("paintOf(#FF8000) = %+v", p)
	}
	if got := lineOf("#00AA00"); got != "#00aa00" {
		t.Errorf("a connector's hex color is drawn as %s", got)
	}
	frag, _ := loadTestBoard(t, "edge").ObjectSVG("sticky-3") // #1a1a2e
	if !strings.Contains(frag, `fill="#1a1a2e"/><text `) || !strings.Contains(frag, `fill="#ffffff"><tspan`) {
		t.Errorf("the dark sticky's text is not white: %s", frag)
	}
}

// TestSaveSVGFile: written whole and atomically, with the rules of board
// files; refused where a board file would be.
func TestSaveSVGFile(t *testing.T) {
	dir := t.TempDir()
	b := loadTestBoard(t, "retro")
	path := filepath.Join(dir, "board.svg")
	if err := CheckSVGFile(path); err != nil {
		t.Fatalf("CheckSVGFile of a new file: %v", err)
	}
	if err := b.SaveSVGFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, b.SVG()) {
		t.Fatalf("the file holds %d bytes (%v), want the board's SVG", len(got), err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	os.Chmod(path, 0o600)
	if err := b.SaveSVGFile(path); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after a second save %v, want 0600 kept", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d files, want just the SVG (no temporary file left)", len(entries))
	}

	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing", "b.svg")
	ro := filepath.Join(dir, "ro.svg")
	if err := os.WriteFile(ro, nil, 0o444); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{sub, "whiteboard: " + sub + ": is a directory, not an SVG file"},
		{missing, "whiteboard: " + missing + ": directory " + filepath.Dir(missing) + " does not exist"},
		{ro, "whiteboard: " + ro + ": the file is read-only"},
	} {
		for _, err := range []error{CheckSVGFile(tc.path), b.SaveSVGFile(tc.path)} {
			var fe *FileError
			if err == nil || err.Error() != tc.want || !errors.As(err, &fe) {
				t.Errorf("%s: %v, want %s", tc.path, err, tc.want)
			}
		}
	}
	if data, _ := os.ReadFile(ro); len(data) != 0 {
		t.Error("the read-only file was replaced")
	}
}

// FuzzSVG feeds board documents through Load and SVG: whatever loads must
// draw as one well-formed document of the renderer's elements, every
// number finite, and of bounded size.
func FuzzSVG(f *testing.F) {
	for _, name := range goldenBoards {
		data, err := os.ReadFile(filepath.Join("testdata", "svg", name+".json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	doc, _ := json.Marshal(map[string]any{"objects": []Object{
		{ID: hostile, Type: TypeSticky, X: 0, Y: 0, Width: 1, Height: 1, Text: hostile},
		{ID: "f", Type: TypeFrame, X: -1e308, Y: 1e308, Width: 1e-320, Height: 5e-324, Title: hostile},
		{ID: "a", Type: TypeShape, Shape: ShapeTriangle, X: 0, Y: 0, Width: 1, Height: 1e300, Text: hostile},
		{ID: "b", Type: TypeShape, Shape: ShapeEllipse, X: 5, Y: 5, Width: 1e-300, Height: 1, Color: "#000000"},
		{ID: "c", Type: TypeConnector, FromID: "a", ToID: "b", Style: StyleBoth, Label: hostile},
	}})
	f.Add(doc)
	f.Fuzz(func(t *testing.T, data []byte) {
		b := NewBoard()
		if err := b.Load(bytes.NewReader(data)); err != nil {
			return
		}
		out := b.SVG()
		checkSVG(t, out)
		limit := 2048
		for _, o := range b.Objects() {
			limit += 30_000 + 6*len(o.ID)
		}
		if len(out) > limit {
			t.Fatalf("%d objects drew %d bytes, more than %d", len(b.Objects()), len(out), limit)
		}
	})
}

// BenchmarkChangeSVG is what a server pays per tool call to send the
// fragments of its change: a move that reroutes a connector.
func BenchmarkChangeSVG(b *testing.B) {
	board := loadTestBoard(b, "retro")
	var ch Change
	handlers := map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){}
	for _, tool := range Tools(board) {
		handlers[tool.Name] = tool.Handler
	}
	ctx := WithChanges(context.Background(), func(_ context.Context, c Change) { ch = c })
	for i := 0; b.Loop(); i++ {
		args := json.RawMessage(fmt.Sprintf(`{"objectId":"sticky-7","x":%d,"y":100}`, 1000+i%2))
		if _, err := handlers["moveObject"](ctx, args); err != nil {
			b.Fatal(err)
		}
		if len(board.ChangeSVG(ch)) != 2 {
			b.Fatal("want the sticky and its connector")
		}
	}
}
