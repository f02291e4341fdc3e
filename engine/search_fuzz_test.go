package engine

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// FuzzQueryWords: any text splits into distinct, non-empty, lower-case words
// of letters and digits only, within the bounds, without panicking.
func FuzzQueryWords(f *testing.F) {
	for _, seed := range []string{"github.createIssue", "create_issue", "HTTPServer2go", "the a an", "ÄrgerÜber straße", "\xff\xfe.x", "İstanbul", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words := queryWords(s)
		if len(words) > maxWords {
			t.Fatalf("%d words", len(words))
		}
		for i, w := range words {
			if w == "" || stopWords[w] || slices.Contains(words[:i], w) {
				t.Fatalf("word %d %q of %q", i, w, words)
			}
			if strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) >= 0 {
				t.Fatalf("word %q holds a separator", w)
			}
			if w != strings.ToLower(w) {
				t.Fatalf("word %q is not lower case", w)
			}
		}
	})
}

func TestQueryWords(t *testing.T) {
	for in, want := range map[string][]string{
		"github.createIssue":       {"github", "create", "issue"},
		"create_issue create":      {"create", "issue"},
		"HTTPServer v2Api":         {"http", "server", "v2", "api"},
		"find the notes of a team": {"find", "notes", "team"},
	} {
		if got := queryWords(in); !slices.Equal(got, want) {
			t.Errorf("queryWords(%q) = %q, want %q", in, got, want)
		}
	}
}
