package engine

import (
	"encoding/json"
	"errors"
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
		"github.createIssue":        {"github", "create", "issue"},
		"create_issue create":       {"create", "issue"},
		"HTTPServer v2Api":          {"http", "server", "v2", "api"},
		"find the notes of a team":  {"find", "note", "team"},
		"issues repositories Repos": {"issue", "repository", "repo"},
		"status access has ands":    {"status", "access", "has"},
		"list all my labels":        {"list", "label"},
	} {
		if got := queryWords(in); !slices.Equal(got, want) {
			t.Errorf("queryWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzSearch: any query finds distinct tools, best first, or fails with
// bad_request when it has no words; never panics.
func FuzzSearch(f *testing.F) {
	for _, seed := range []string{"create issue comment", "repo", "organizations", "close", "github.issues_get", "the a", "\xff", "rrr rr r", ""} {
		f.Add(seed)
	}
	tool := func(name, title, props string) Tool {
		return Tool{Name: name, Description: title + ". GET /x/{id}", Annotations: Annotations{Title: title},
			InputSchema: json.RawMessage(`{"type":"object","properties":{` + props + `}}`)}
	}
	ix := newSearchIndex([]Tool{
		tool("github.issues_get", "Get an issue", `"owner":{"type":"string","description":"The account owner of the repository."}`),
		tool("github.issues_update", "Update an issue", `"state":{"enum":["open","closed",1,null]},"labels":{"type":"array","items":{"enum":["bug"]}}`),
		tool("github.repos_get", "Get a repository", `"x":true,"y":[1]`),
		tool("orgs.list", "", ""),
		tool("rr", "r rr rrr", `"rrrr":{}`),
	})
	f.Fuzz(func(t *testing.T, q string) {
		words := queryWords(q)
		hits := ix.search(words, q)
		seen := map[int32]bool{}
		for i, h := range hits {
			if seen[h.tool] || h.score <= 0 || i > 0 && h.score > hits[i-1].score {
				t.Fatalf("hit %d of %q: %+v in %+v", i, q, h, hits)
			}
			seen[h.tool] = true
		}
		args, _ := json.Marshal(map[string]any{"query": q, "limit": 3})
		res, err := searchTools(ix, args)
		if len(words) == 0 {
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeBadRequest {
				t.Fatalf("%q without words: %v", q, err)
			}
			return
		}
		var out SearchResult
		if err != nil || json.Unmarshal(res, &out) != nil || len(out.Tools) != min(3, len(hits)) {
			t.Fatalf("%q: %s %v", q, res, err)
		}
		for i, h := range out.Tools {
			if want := ix.tools[hits[i].tool].name; h.Name != want || h.Declaration == "" {
				t.Fatalf("%q: hit %d %+v, want %s", q, i, h, want)
			}
		}
	})
}
