//go:build unix

package main

// What a reader who follows the documents leaves behind: the commands of
// docs/cli.md run the built ./codemode, as README's do, and write their
// files under /tmp; the files any document's commands write in the tree are
// ones .gitignore keeps out of a commit (the README's WASM recipe makes
// mytools/, the Set-up a flowchart board).

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestDocsWriteWhereReadersExpect(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skipf("asks git what it ignores, and %s is not a git work tree (%v)", root, err)
	}
	files, err := docFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	written := map[string][]string{} // path in the tree → where it is written
	for _, file := range files {
		text, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		blocks, _ := parseDoc(file, string(text))
		for _, b := range blocks {
			if b.skip != "" {
				continue
			}
			away := false // the block's shell left the tree (cd /tmp/x)
			for _, c := range blockCommands(b) {
				if file == "docs/cli.md" && bareCodemodeRe.MatchString(unquoted(c.text)) {
					t.Errorf("%s:%d: %q runs codemode from PATH; write ./codemode, as README does", file, c.line, c.text)
				}
				if away {
					continue
				}
				var paths []string
				paths, away = writtenPaths(c.text)
				for _, p := range paths {
					if file == "docs/cli.md" && p != "codemode" {
						t.Errorf("%s:%d: %q writes %s in the repository; write it under /tmp/codemode-docs", file, c.line, c.text, p)
					}
					written[p] = append(written[p], file+":"+strconv.Itoa(c.line))
				}
			}
		}
	}
	if len(written) == 0 {
		t.Fatal("no document writes a file: the scan is broken")
	}
	paths := slices.Sorted(maps.Keys(written))
	cmd := exec.Command("git", "-C", root, "check-ignore", "--no-index", "--stdin")
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\n") + "\n")
	out, _ := cmd.Output() // exit status 1 when none is ignored
	ignored := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, p := range paths {
		if !slices.Contains(ignored, p) {
			t.Errorf("%s, written by %s, is not in .gitignore: a reader following the docs would commit it", p, strings.Join(written[p], ", "))
		}
	}
}

// docCommand is one command line of a block (a here-document's body left
// out), with its line in the document.
type docCommand struct {
	line int
	text string
}

var heredocRe = regexp.MustCompile(`<<-?\s*['"]?(\w+)['"]?`)

func blockCommands(b *docBlock) []docCommand {
	if b.lang == "console" {
		var cmds []docCommand
		for _, c := range b.console {
			cmds = append(cmds, docCommand{c.line, c.cmd})
		}
		return cmds
	}
	var cmds []docCommand
	lines := strings.Split(b.code, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		cmds = append(cmds, docCommand{b.line + 1 + i, l})
		if m := heredocRe.FindStringSubmatch(l); m != nil {
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != m[1]; i++ {
			}
		}
	}
	return cmds
}

// bareCodemodeRe finds codemode run as a command from PATH.
var bareCodemodeRe = regexp.MustCompile(`(^|[|;&(]\s*)codemode\b`)

// unquoted is s without its quoted strings, so that a word in a script or
// a JSON argument is not taken for a command.
func unquoted(s string) string {
	return regexp.MustCompile(`'[^']*'|"[^"]*"`).ReplaceAllString(s, "''")
}

// writtenPaths returns the relative paths a command line writes: the
// targets of > and >>, of --board and go build -o, of mkdir, touch, tee,
// and the last argument of cp and ln. A path with a variable, an absolute
// one (/tmp, /dev/null) and those written after a cd elsewhere are left out;
// away reports such a cd, after which the shell is no longer in the tree.
func writtenPaths(line string) (paths []string, away bool) {
	line = regexp.MustCompile(`\s#\s.*$`).ReplaceAllString(line, "")
	var out []string
	add := func(p string) {
		p = strings.Trim(p, `'"`)
		if p == "" || strings.ContainsAny(p, "$`~*") || filepath.IsAbs(p) || strings.HasPrefix(p, "-") {
			return
		}
		out = append(out, filepath.Clean(p))
	}
	for _, part := range regexp.MustCompile(`&&|\|\||;|\|`).Split(line, -1) {
		words := strings.Fields(part)
		if len(words) == 0 {
			continue
		}
		cmd := 0
		for cmd < len(words) && strings.Contains(words[cmd], "=") && !strings.HasPrefix(words[cmd], "-") {
			cmd++ // VAR=value before the command
		}
		if cmd < len(words) && words[cmd] == "cd" {
			if cmd+1 < len(words) && filepath.IsAbs(words[cmd+1]) {
				return out, true // what follows is relative to elsewhere
			}
		}
		for i := cmd; i < len(words); i++ {
			w := words[i]
			switch {
			case w == ">" || w == ">>":
				if i+1 < len(words) {
					add(words[i+1])
				}
			case strings.HasPrefix(w, ">") && !strings.HasPrefix(w, ">&"):
				add(strings.TrimLeft(w, ">"))
			case w == "--board" && i+1 < len(words):
				add(words[i+1])
			case strings.HasPrefix(w, "--board="):
				add(strings.TrimPrefix(w, "--board="))
			case w == "-o" && i+1 < len(words) && slices.Contains(words[cmd:i], "build"):
				add(words[i+1])
			}
		}
		if cmd >= len(words) {
			continue
		}
		var args []string
		for _, w := range words[cmd+1:] {
			if strings.HasPrefix(w, ">") || w == "2>&1" {
				break
			}
			if !strings.HasPrefix(w, "-") {
				args = append(args, w)
			}
		}
		switch words[cmd] {
		case "mkdir", "touch", "tee":
			for _, a := range args {
				add(a)
			}
		case "cp", "ln", "mv":
			if len(args) >= 2 {
				add(args[len(args)-1])
			}
		}
	}
	return out, false
}
