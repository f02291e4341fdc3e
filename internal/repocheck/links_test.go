package repocheck

import (
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

// TestMarkdownLinks checks every relative link of the repository's Markdown
// files — [text](file), [text](file.md#anchor), [text](#anchor) — the way
// GitHub resolves them: the file (or directory) must exist, and an anchor
// into a Markdown file must be the slug of one of its headings. A heading
// renamed without its links fails here, not in a reader's browser.
func TestMarkdownLinks(t *testing.T) {
	root := repoRoot(t)
	files, err := markdownFiles(root)
	if err != nil {
		t.Skip(err)
	}
	anchors := map[string]map[string]bool{} // by slash path from the root
	anchorsOf := func(rel string) (map[string]bool, error) {
		if a, ok := anchors[rel]; ok {
			return a, nil
		}
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		a := headingAnchors(string(text))
		anchors[rel] = a
		return a, nil
	}
	checked := 0
	for _, file := range files {
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			t.Error(err)
			continue
		}
		for _, l := range relativeLinks(string(text)) {
			checked++
			where := fmt.Sprintf("%s:%d: link %q", file, l.line, l.target)
			target, frag, _ := strings.Cut(l.target, "#")
			p, err := url.PathUnescape(target)
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			switch {
			case p == "":
				p = file // #anchor: this file
			case strings.HasPrefix(p, "/"):
				p = strings.TrimPrefix(path.Clean(p), "/") // GitHub: from the repository's root
			default:
				p = path.Join(path.Dir(file), p)
			}
			if p == ".." || strings.HasPrefix(p, "../") {
				t.Errorf("%s: points outside the repository", where)
				continue
			}
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
				t.Errorf("%s: no file %s", where, p)
				continue
			}
			if frag == "" || !strings.HasSuffix(p, ".md") {
				continue
			}
			a, err := anchorsOf(p)
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			if !a[frag] {
				t.Errorf("%s: %s has no heading with the anchor #%s (its anchors: %s)", where, p, frag, strings.Join(slices.Sorted(maps.Keys(a)), " "))
			}
		}
	}
	if checked == 0 {
		t.Fatalf("no relative links found in %d Markdown files: the parser is broken", len(files))
	}
}

// markdownFiles lists the Markdown files of the working tree, tracked or
// not (ignored ones aside), but the fixtures of testdata directories, which
// are no documentation.
func markdownFiles(root string) ([]string, error) {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "*.md").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files unavailable: %v", err)
	}
	var files []string
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if f == "" || slices.Contains(strings.Split(f, "/"), "testdata") {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(f))); err == nil { // not deleted
			files = append(files, f)
		}
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}

type mdLink struct {
	line   int
	target string
}

var (
	fenceLineRe = regexp.MustCompile("^ {0,3}(```+|~~~+)")
	linkRe      = regexp.MustCompile(`\]\(\s*<?([^()\s<>]*)>?(?:\s+"[^"]*")?\s*\)`)
	schemeRe    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// relativeLinks finds the inline links of a Markdown text whose target is
// not a URL with a scheme, outside fenced blocks and code spans.
func relativeLinks(text string) []mdLink {
	prose := blankCode(text)
	var links []mdLink
	for _, m := range linkRe.FindAllStringSubmatchIndex(prose, -1) {
		target := prose[m[2]:m[3]]
		if target == "" || schemeRe.MatchString(target) {
			continue
		}
		links = append(links, mdLink{line: 1 + strings.Count(prose[:m[0]], "\n"), target: target})
	}
	return links
}

// blankCode replaces fenced blocks and code spans by spaces, keeping the
// line breaks, so that what is left is prose at its original lines.
func blankCode(text string) string {
	lines := strings.Split(text, "\n")
	var fence string
	for i, l := range lines {
		if fence != "" {
			if m := fenceLineRe.FindStringSubmatch(l); m != nil && m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(l[strings.Index(l, m[1])+len(m[1]):]) == "" {
				fence = ""
			}
			lines[i] = ""
			continue
		}
		if m := fenceLineRe.FindStringSubmatch(l); m != nil {
			fence = m[1]
			lines[i] = ""
		}
	}
	b := []byte(strings.Join(lines, "\n"))
	// Code spans: a run of n backticks up to the next run of exactly n.
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		end := -1
		for j := i + n; j < len(b); {
			if b[j] != '`' {
				j++
				continue
			}
			k := 0
			for j+k < len(b) && b[j+k] == '`' {
				k++
			}
			if k == n {
				end = j + k
				break
			}
			j += k
		}
		if end < 0 {
			i += n
			continue
		}
		for j := i; j < end; j++ {
			if b[j] != '\n' {
				b[j] = ' '
			}
		}
		i = end
	}
	return string(b)
}

var headingRe = regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown text (ATX headings outside fenced blocks), plus the ids of
// <a id="…"> and <a name="…"> elements.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	var fence string
	for _, l := range strings.Split(text, "\n") {
		if m := fenceLineRe.FindStringSubmatch(l); m != nil {
			switch {
			case fence == "":
				fence = m[1]
			case m[1][0] == fence[0] && len(m[1]) >= len(fence):
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		for _, m := range htmlAnchorRe.FindAllStringSubmatch(l, -1) {
			anchors[m[1]] = true
		}
		m := headingRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			anchors[s] = true
		}
		seen[s]++
	}
	return anchors
}

var (
	htmlAnchorRe = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	mdLinkTextRe = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// slug is GitHub's anchor for a heading: its text as rendered (code spans'
// backticks, emphasis marks and link targets gone), lower-cased, without
// punctuation and symbols but for '-' and '_', spaces made hyphens.
func slug(heading string) string {
	text := mdLinkTextRe.ReplaceAllString(heading, "$1")
	text = strings.NewReplacer("`", "", "*", "").Replace(text)
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestSlug(t *testing.T) {
	// Anchors as GitHub makes them for these headings.
	for heading, want := range map[string]string{
		"Worker processes":             "worker-processes",
		"OpenAI's strict mode":         "openais-strict-mode",
		"Board JSON format":            "board-json-format",
		"`createStickyNote`":           "createstickynote",
		"What remains — and why":       "what-remains--and-why",
		"Durations and zero (ms, Go)":  "durations-and-zero-ms-go",
		"Set-up":                       "set-up",
		"snake_case & [a link](x.md)":  "snake_case--a-link",
		"Straße 2.0: ümlauts":          "straße-20-ümlauts",
		"**Bold** and *emphasis* here": "bold-and-emphasis-here",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestHeadingAnchorsAndLinks(t *testing.T) {
	doc := "# Title\n\n## Limits\n\ntext [x](other.md#a) `[not](a.md)` and [multi\nline](b.md) [web](https://x.org)\n\n" +
		"```md\n## Not a heading\n[nor](c.md)\n```\n\n## Limits\n### Ends with hashes ##\n<a id=\"custom\"></a>\n"
	gotAnchors := slices.Sorted(maps.Keys(headingAnchors(doc)))
	if diff := cmp.Diff([]string{"custom", "ends-with-hashes", "limits", "limits-1", "title"}, gotAnchors); diff != "" {
		t.Errorf("anchors (-want +got):\n%s", diff)
	}
	want := []mdLink{{5, "other.md#a"}, {6, "b.md"}}
	if diff := cmp.Diff(want, relativeLinks(doc), cmp.AllowUnexported(mdLink{})); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
}
