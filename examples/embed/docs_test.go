package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// TestREADMEQuotesThisProgram checks that every Go block of README.md is
// quoted from the Go files of this directory, which compile and whose tests
// run them: a snippet a reader copies cannot drift from code that works.
// A block is a run of consecutive lines of one file, indentation removed; a
// line "// ..." in it stands for any number of lines, so that one block may
// show parts of a file in order.
func TestREADMEQuotesThisProgram(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := goBlocks(string(readme))
	if len(blocks) == 0 {
		t.Fatal("README.md has no Go blocks: the parser is broken")
	}
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string][]string{}
	for _, name := range names {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sources[name] = strings.Split(string(text), "\n")
	}
	for _, b := range blocks {
		found := false
		for _, src := range sources {
			if quotes(src, b.lines) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("README.md:%d: this Go block is not quoted from examples/embed/*.go (make it an excerpt of code that compiles and runs there):\n%s", b.line, strings.Join(b.lines, "\n"))
		}
	}
}

type goBlock struct {
	line  int // of the opening fence
	lines []string
}

var fenceRe = regexp.MustCompile("^```+[ \t]*([A-Za-z0-9_+-]*)")

// goBlocks returns the fenced blocks of a Markdown text whose language is go.
func goBlocks(text string) []goBlock {
	var (
		blocks []goBlock
		cur    *goBlock
		fence  string
	)
	for i, l := range strings.Split(text, "\n") {
		if cur == nil && fence == "" {
			if m := fenceRe.FindStringSubmatch(l); m != nil {
				fence = strings.TrimRight(l[:len(m[0])-len(m[1])], " \t")
				if m[1] == "go" {
					cur = &goBlock{line: i + 1}
				}
			}
			continue
		}
		if strings.HasPrefix(l, fence) && strings.TrimSpace(l[len(fence):]) == "" {
			if cur != nil {
				blocks = append(blocks, *cur)
			}
			cur, fence = nil, ""
			continue
		}
		if cur != nil {
			cur.lines = append(cur.lines, l)
		}
	}
	return blocks
}

// quotes reports whether block is an excerpt of src: its parts (split at
// "// ..." lines) each a run of src's lines, in order, each part with one
// indentation of tabs removed from all its lines.
func quotes(src, block []string) bool {
	var parts [][]string
	part := []string{}
	for _, l := range block {
		if strings.TrimSpace(l) == "// ..." {
			parts = append(parts, part)
			part = []string{}
			continue
		}
		part = append(part, l)
	}
	parts = append(parts, part)
	at := 0
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		i := findPart(src, p, at)
		if i < 0 {
			return false
		}
		at = i + len(p)
	}
	return true
}

// findPart returns the first line of src at or after from where part starts,
// or -1.
func findPart(src, part []string, from int) int {
	for i := from; i+len(part) <= len(src); i++ {
		indent, ok := strings.CutSuffix(src[i], part[0])
		if !ok || strings.Trim(indent, "\t") != "" {
			continue
		}
		match := true
		for j, l := range part[1:] {
			s := src[i+1+j]
			if !(l == "" && s == "") && s != indent+l {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

func TestQuotes(t *testing.T) {
	src := strings.Split("func f() {\n\ta := 1\n\n\tb := 2\n\tc := 3\n}\nfunc g() {}", "\n")
	for _, c := range []struct {
		block string
		want  bool
	}{
		{"a := 1\n\nb := 2", true},
		{"func f() {\n// ...\nc := 3\n// ...\nfunc g() {}", true},
		{"b := 2\n// ...\na := 1", false},          // out of order
		{"a := 1\nb := 2", false},                  // a line left out without "// ..."
		{"a := 2", false},                          // changed
		{"func f() {\n\ta := 1\nb := 2", false},    // one indentation per part
		{"func f() {\n\ta := 1\n\n\tb := 2", true}, // the file's own indentation
	} {
		if got := quotes(src, strings.Split(c.block, "\n")); got != c.want {
			t.Errorf("quotes(%q) = %v, want %v", c.block, got, c.want)
		}
	}
}

// TestCodeModeRequest runs the request docs/code-mode.md shows under "The
// request": it must decode with engine.ParseExecuteRequest, as the document
// says, and run.
func TestCodeModeRequest(t *testing.T) {
	doc, err := os.ReadFile("../../docs/code-mode.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## The request\n")
	if !ok {
		t.Fatal(`docs/code-mode.md has no section "The request"`)
	}
	_, block, ok := strings.Cut(section, "\n```json\n")
	block, _, ok2 := strings.Cut(block, "\n```\n")
	if !ok || !ok2 {
		t.Fatal(`docs/code-mode.md shows no JSON block under "The request"`)
	}
	req, err := engine.ParseExecuteRequest([]byte(block))
	if err != nil {
		t.Fatalf("the request of docs/code-mode.md: %v", err)
	}
	eng, err := engine.NewBuilder().Add(whiteboard.Tools(nil)...).Build()
	if err != nil {
		t.Fatal(err)
	}
	ctx := whiteboard.NewContext(context.Background(), whiteboard.NewBoard())
	res, err := eng.Execute(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success || string(res.Result) != `"frame-1"` {
		t.Errorf("the request of docs/code-mode.md: success %v, result %s, error %v; want the id of the frame it makes", res.Success, res.Result, res.Error)
	}
}
