package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/codemode-dev/codemode/engine/internal/schema"
	"github.com/codemode-dev/codemode/engine/internal/tsgen"
)

// The search_tools meta-tool lets a model find tools by keyword, with their
// TypeScript declarations, instead of reading every tool's declaration in
// execute_code's description: with hundreds of tools those would fill the
// model's context before it has done anything.

// Bounds of a search's "limit".
const (
	defaultSearchLimit = 5
	maxSearchLimit     = 20
)

var searchToolsSchema = fmt.Sprintf(`{"type":"object","properties":{`+
	`"query":{"type":"string","description":"Keywords: words of the tool's name, namespace, description or parameter names."},`+
	`"limit":{"type":"integer","minimum":1,"maximum":%d,"default":%d,"description":"Most tools to return."}},`+
	`"required":["query"],"additionalProperties":false}`, maxSearchLimit, defaultSearchLimit)

// searchToolsCompiled is searchToolsSchema compiled, once per process.
var searchToolsCompiled = sync.OnceValues(func() (*schema.Schema, error) {
	return schema.Compile(json.RawMessage(searchToolsSchema))
})

const searchToolsDescription = "Find tools by keywords in their names, namespaces, descriptions and parameter names. " +
	"Returns {tools: [{name, description, declaration}]}, best match first; declaration is the tool's TypeScript declaration " +
	"as execute_code scripts call it. Scripts can call it too: await tools.search_tools({query: \"issue\"})."

// Weights of a query word's hit, by where it hits. A name hit outweighs a
// parameter hit, which outweighs a description hit, and a whole-word hit
// outweighs a prefix hit in the same place.
const (
	nameHit, namePrefixHit   = 6, 3
	paramHit, paramPrefixHit = 4, 2
	descHit, descPrefixHit   = 2, 1
	wholeNameHit             = 100 // the query is the tool's name
	minPrefixRunes           = 3   // shorter query words match whole words only
)

// searchEntry is one tool's words, found once, at the engine's first search.
type searchEntry struct {
	name, description string
	lower, wire       string // the name in lower case, canonical and wire form
	nameWords         map[string]bool
	params, descWords map[string]bool
	ts                tsgen.Tool // for its declaration, made when found
}

// newSearchTool builds the search_tools meta-tool over e's tools, or nil
// for an engine without tools.
func (e *Engine) newSearchTool() (*registered, error) {
	if len(e.names) == 0 {
		return nil, nil
	}
	// The index is made by the first search: most runs make none.
	entries := sync.OnceValue(func() []searchEntry {
		entries := make([]searchEntry, len(e.names))
		for i, n := range e.names {
			entries[i] = newSearchEntry(e.tools[n].Tool)
		}
		return entries
	})
	s, err := searchToolsCompiled()
	if err != nil {
		return nil, err
	}
	t := Tool{
		Name:        MetaSearchTools,
		Description: searchToolsDescription,
		InputSchema: json.RawMessage(searchToolsSchema),
		Annotations: Annotations{Title: "Search the tools", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: Bool(false)},
		Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			return searchTools(entries(), args)
		},
	}
	return &registered{Tool: t, schema: s}, nil
}

func newSearchEntry(t Tool) searchEntry {
	en := searchEntry{
		name:        t.Name,
		description: t.Description,
		lower:       strings.ToLower(t.Name),
		wire:        strings.ToLower(WireName(t.Name)),
		nameWords:   wordSet(splitWords(t.Name, maxQueryRunes, maxWords)),
		params:      map[string]bool{},
		descWords:   wordSet(splitWords(t.Description, maxTextRunes, maxTextWords)),
		ts:          tsgen.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema},
	}
	var root struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(t.InputSchema, &root) // Build checked it is an object; properties may be anything
	for p := range root.Properties {
		for _, w := range queryWords(p) {
			en.params[w] = true
		}
	}
	return en
}

// searchRequest is search_tools' input; the schema has checked it.
type searchRequest struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

// SearchResult is what search_tools returns.
type SearchResult struct {
	Tools []SearchHit `json:"tools"`
}

// SearchHit is one tool search_tools found.
type SearchHit struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Declaration is the tool's TypeScript declaration, as scripts see it.
	Declaration string `json:"declaration"`
}

func searchTools(entries []searchEntry, args json.RawMessage) (json.RawMessage, error) {
	var req searchRequest
	if err := json.Unmarshal(args, &req); err != nil {
		return nil, Errorf(CodeInvalidArgs, "arguments of %q: %v", MetaSearchTools, err)
	}
	words := queryWords(req.Query)
	if len(words) == 0 {
		return nil, Errorf(CodeBadRequest, "%q needs a query with at least one word, got %s", MetaSearchTools, quote(req.Query))
	}
	limit := req.Limit
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	limit = min(limit, maxSearchLimit)
	whole := strings.ToLower(strings.TrimSpace(req.Query))
	type scored struct {
		en    *searchEntry
		score int
	}
	var hits []scored
	for i := range entries {
		en := &entries[i]
		s := en.score(words)
		if whole == en.lower || whole == en.wire {
			s += wholeNameHit
		}
		if s > 0 {
			hits = append(hits, scored{en, s})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].en.name < hits[j].en.name
	})
	out := SearchResult{Tools: make([]SearchHit, 0, min(limit, len(hits)))}
	for _, h := range hits[:min(limit, len(hits))] {
		out.Tools = append(out.Tools, SearchHit{Name: h.en.name, Description: h.en.description, Declaration: tsgen.Declaration(h.en.ts)})
	}
	return json.Marshal(out)
}

// score sums, over the query's words, the weight of each word's best hit.
func (en *searchEntry) score(words []string) int {
	total := 0
	for _, w := range words {
		total += max(
			hit(en.nameWords, w, nameHit, namePrefixHit),
			hit(en.params, w, paramHit, paramPrefixHit),
			hit(en.descWords, w, descHit, descPrefixHit),
		)
	}
	return total
}

// hit is whole when set holds w, prefix when a word of set starts with a
// long enough w ("issue" in "issues"), else 0.
func hit(set map[string]bool, w string, whole, prefix int) int {
	if set[w] {
		return whole
	}
	if len([]rune(w)) < minPrefixRunes {
		return 0
	}
	for s := range set {
		if strings.HasPrefix(s, w) {
			return prefix
		}
	}
	return 0
}

func wordSet(words []string) map[string]bool {
	set := make(map[string]bool, len(words))
	for _, w := range words {
		set[w] = true
	}
	return set
}

// stopWords are left out of queries and descriptions: "create an issue"
// should not match every description with "an" in it.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "in": true, "on": true, "for": true,
	"and": true, "or": true, "is": true, "it": true, "by": true, "with": true, "from": true, "as": true,
}

// Bounds of tokenizing: a query (or a name, or a parameter's name) is cut
// to maxWords words of its first maxQueryRunes runes, so a hostile query
// costs little per tool; a description to more, once per engine.
const (
	maxQueryRunes = 1000
	maxWords      = 64
	maxTextRunes  = 20_000
	maxTextWords  = 2_000
)

// queryWords is splitWords under the bounds of a query.
func queryWords(s string) []string { return splitWords(s, maxQueryRunes, maxWords) }

// splitWords splits s into lower-case words at anything that is not a
// letter or digit (dots, underscores, spaces, dashes) and at camelCase
// boundaries: "github.createIssue" and "create_issue" both give "create",
// "issue". Stop words and repeats are dropped; at most maxWords words of the first
// maxRunes runes are kept.
func splitWords(s string, maxRunes, maxWords int) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			w := strings.ToLower(string(cur))
			if !stopWords[w] && !slices.Contains(words, w) {
				words = append(words, w)
			}
			cur = cur[:0]
		}
	}
	runes := make([]rune, 0, min(len(s), maxRunes))
	for _, r := range s {
		if len(runes) == maxRunes {
			break
		}
		runes = append(runes, r)
	}
	for i, r := range runes {
		if len(words) >= maxWords {
			break
		}
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case len(cur) > 0 && unicode.IsUpper(r):
			prev := cur[len(cur)-1]
			nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
			// "createIssue" → create|Issue; "HTTPServer" → HTTP|Server.
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	if len(words) < maxWords {
		flush()
	}
	return words
}
