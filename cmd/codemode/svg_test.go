package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// wellFormedSVG checks that the file at path is one well-formed SVG
// document, and returns its text.
func wellFormedSVG(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the picture: %v", err)
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Fatalf("%s: root element %q, want svg", path, root)
	}
	return string(data)
}

// --svg writes the board as a picture after the run, with or without
// --board, for batch and run alike; with --board it is the saved board's
// picture.
func TestSVGFlagWritesThePicture(t *testing.T) {
	for _, cmd := range []string{"batch", "run"} {
		t.Run(cmd, func(t *testing.T) {
			dir := t.TempDir()
			pic := filepath.Join(dir, "board.svg")
			_, errs, code := cli(t, oneSticky[cmd], cmd, "--svg", pic, "--runner", "inprocess")
			if code != exitOK || errs != "" {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			if got := wellFormedSVG(t, pic); !strings.Contains(got, `<g data-id="sticky-1" class="sticky">`) || !strings.Contains(got, ">work</tspan>") {
				t.Errorf("the picture does not show the sticky:\n%s", got)
			}

			// With --board: the picture is the board's as saved, and
			// an existing picture is replaced, keeping its mode.
			board := filepath.Join(dir, "board.json")
			os.Chmod(pic, 0o600)
			if _, errs, code := cli(t, oneSticky[cmd], cmd, "--board", board, "--svg", pic, "--runner", "inprocess"); code != exitOK || errs != "" {
				t.Fatalf("with --board: exit %d, stderr %q", code, errs)
			}
			saved := whiteboard.NewBoard()
			if err := saved.LoadFile(board); err != nil {
				t.Fatal(err)
			}
			if got := wellFormedSVG(t, pic); got != string(saved.SVG()) {
				t.Errorf("the picture is not the saved board's:\n%s\nwant\n%s", got, saved.SVG())
			}
			if fi, _ := os.Stat(pic); fi.Mode().Perm() != 0o600 {
				t.Errorf("the picture's mode became %v", fi.Mode().Perm())
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 2 {
				t.Errorf("the directory holds %d files, want the board and the picture only", len(entries))
			}
		})
	}
}

// The picture is written also when the run failed (exit 1), as the board
// is: it shows the work of the calls that succeeded.
func TestSVGFlagAfterAFailedRun(t *testing.T) {
	for cmd, input := range map[string]string{
		"batch": `{"executionMode":"sequential","operations":[{"tool":"createStickyNote","args":{"text":"kept","x":0,"y":0}},{"tool":"moveObject","args":{"objectId":"nope","x":0,"y":0}}]}`,
		"run":   `await tools.createStickyNote({ text: "kept", x: 0, y: 0 }); throw new Error("late")`,
	} {
		pic := filepath.Join(t.TempDir(), "board.svg")
		out, _, code := cli(t, input, cmd, "--svg", pic, "--runner", "inprocess")
		if code != exitFailed || out == "" {
			t.Fatalf("%s: exit %d, stdout %q; want 1 and the result", cmd, code, out)
		}
		if got := wellFormedSVG(t, pic); !strings.Contains(got, ">kept</tspan>") {
			t.Errorf("%s: the picture does not show the work done:\n%s", cmd, got)
		}
	}
}

// --svg is checked before anything runs, like --board: a run whose picture
// could not be written does not start, every problem is reported at once,
// and a request rejected before the run writes no picture.
func TestSVGFlagCheckedBeforeTheRun(t *testing.T) {
	dir := t.TempDir()
	readOnly := writeFile(t, filepath.Join(dir, "ro.svg"), "old")
	os.Chmod(readOnly, 0o444)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	board := filepath.Join(dir, "board.json")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("board.json", link); err != nil {
		t.Fatal(err)
	}
	writeFile(t, board, `{"objects":[]}`)
	missing := filepath.Join(dir, "nope", "b.svg")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing directory", []string{"--svg", missing}, "--svg " + missing + ": directory " + filepath.Dir(missing) + " does not exist"},
		{"read-only file", []string{"--svg", readOnly}, "--svg " + readOnly + ": the file is read-only"},
		{"a directory", []string{"--svg", sub}, "--svg " + sub + ": is a directory, not an SVG file"},
		{"the board file", []string{"--board", board, "--svg", board}, "--svg " + board + ": is the --board file; give the picture a file of its own"},
		{"the board file through a link", []string{"--board", board, "--svg", link}, "--svg " + link + ": is the --board file; give the picture a file of its own"},
		{"with a bad board", []string{"--board", filepath.Join(dir, "nope", "b.json"), "--svg", sub},
			"--board " + filepath.Join(dir, "nope", "b.json") + ": directory " + filepath.Join(dir, "nope") + " does not exist; --svg " + sub + ": is a directory, not an SVG file"},
	}
	if os.Geteuid() != 0 { // root writes in read-only directories
		roDir := filepath.Join(dir, "rodir")
		os.Mkdir(roDir, 0o555)
		cases = append(cases, struct {
			name string
			args []string
			want string
		}{"read-only directory", []string{"--svg", filepath.Join(roDir, "b.svg")},
			"--svg " + filepath.Join(roDir, "b.svg") + ": cannot create files in directory " + roDir + ": permission denied"})
	}
	for _, c := range cases {
		for _, cmd := range []string{"batch", "run"} {
			t.Run(c.name+"/"+cmd, func(t *testing.T) {
				args := append([]string{cmd, "--runner", "inprocess"}, c.args...)
				out, errs, code := cli(t, oneSticky[cmd], args...)
				if code != exitUsage || out != "" || errs != "codemode: "+cmd+": "+c.want+"\n" {
					t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, and %q", code, out, errs, c.want)
				}
			})
		}
	}
	if data, _ := os.ReadFile(readOnly); string(data) != "old" {
		t.Errorf("the read-only picture was changed: %s", data)
	}
	if data, _ := os.ReadFile(board); string(data) != `{"objects":[]}` {
		t.Errorf("the board was changed, so something ran: %s", data)
	}

	// A request rejected before the run: no picture.
	pic := filepath.Join(dir, "rejected.svg")
	if _, _, code := cli(t, `{"operations":[{"tool":"getBoardState","args":{},"label":"a"},{"tool":"getBoardState","args":{},"label":"a"}]}`, "batch", "--svg", pic, "--runner", "inprocess"); code != exitUsage {
		t.Fatalf("a request with a label twice: exit %d, want 2", code)
	}
	if _, err := os.Stat(pic); err == nil {
		t.Error("a rejected request wrote a picture")
	}

	// Only batch and run take --svg.
	if _, errs, code := cli(t, "", "tools", "--svg", pic); code != exitUsage || !strings.HasPrefix(errs, "codemode: tools: --svg is for batch and run only; ") {
		t.Errorf("tools --svg: exit %d, stderr %q", code, errs)
	}
}

// A picture that cannot be written after the run (its directory went
// during the run) is exit status 1, and is put where it can be, as an
// unsaved board is.
func TestSVGWriteFailureKeepsThePicture(t *testing.T) {
	board := whiteboard.NewBoard()
	if err := board.Restore([]whiteboard.Object{{ID: "sticky-1", Type: "sticky", Width: 200, Height: 200, Text: "work"}}); err != nil {
		t.Fatal(err)
	}
	t.Run("beside", func(t *testing.T) {
		dir := t.TempDir()
		path := writeFile(t, filepath.Join(dir, "board.svg"), "old")
		os.Chmod(path, 0o444) // made read-only during the run
		s := &session{o: &options{svg: path}, board: board}
		msg := s.saveSVG()
		_, kept, ok := strings.Cut(msg, ": the picture was not written there; it is in ")
		if !strings.HasPrefix(msg, "--svg "+path+": the file is read-only: ") || !ok || filepath.Dir(kept) != dir ||
			!strings.HasPrefix(filepath.Base(kept), "board.svg.unsaved-") || !strings.HasSuffix(kept, ".svg") {
			t.Fatalf("message %q: want why, and a file board.svg.unsaved-* in %s", msg, dir)
		}
		if got := wellFormedSVG(t, kept); !strings.Contains(got, ">work</tspan>") {
			t.Errorf("the kept picture:\n%s", got)
		}
	})
	t.Run("nowhere", func(t *testing.T) {
		t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "gone"))
		path := filepath.Join(t.TempDir(), "gone", "board.svg")
		s := &session{o: &options{svg: path}, board: board}
		if msg := s.saveSVG(); !strings.HasSuffix(msg, ": the picture was not written there, nor beside it or in "+os.TempDir()) {
			t.Errorf("message %q", msg)
		}
	})
	// After the run, both are written and both failures reported, one
	// line each; the command then exits 1.
	t.Run("board and picture", func(t *testing.T) {
		t.Setenv("TMPDIR", t.TempDir())
		gone := filepath.Join(t.TempDir(), "gone")
		s := &session{o: &options{board: filepath.Join(gone, "b.json"), svg: filepath.Join(gone, "b.svg")}, board: board}
		var stderr strings.Builder
		if s.save("run", &stderr) {
			t.Error("save reported success")
		}
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "codemode: run: --board ") || !strings.HasPrefix(lines[1], "codemode: run: --svg ") {
			t.Errorf("stderr %q: want a line for the board, then one for the picture", stderr.String())
		}
		ok := &session{o: &options{svg: filepath.Join(t.TempDir(), "b.svg")}, board: board}
		if stderr.Reset(); !ok.save("run", &stderr) || stderr.Len() != 0 {
			t.Errorf("a save that works: stderr %q", stderr.String())
		}
	})
}
