package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

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

// The fields of a tool that a query word can hit, as bits of a posting.
const (
	fieldName      uint8 = 1 << iota // the name's words, namespace included
	fieldTitle                       // Annotations.Title: what a model would call the tool
	fieldParam                       // the input schema's property names
	fieldDesc                        // the description
	fieldParamText                   // the properties' descriptions and enum values

	// counted marks a word that counts in the tool's specificity: a word
	// of its title or of its name outside the namespace (which the
	// namespace's tools share).
	counted uint8 = 1 << 7
)

// fieldWeights are the weights of a query word's hit by field, in the
// order of the bits: a name or title hit outweighs a parameter hit, which
// outweighs a description hit; a word of a parameter's description or
// enum ("closed" of a state) counts least, but counts.
var fieldWeights = [...]float64{3, 3, 2, 1, 0.5}

// Shape of a score. A query word's hit is its field's weight (times
// prefixFactor when one word begins the other, "repo" and "repository"),
// times the word's inverse document frequency: a word every tool of the
// catalog has ("repository") weighs less than a rare one ("comment").
// A tool whose name or title every query word hits gains coverBonus. The
// words of its name and title that no query word hits cost it lengthNorm
// times their specificity (inverse frequency among the names and titles),
// a rare word more than a common one: "Create an issue comment" beats
// "Create reaction for an issue comment" for "create issue comment". A
// query that is a tool's whole name puts that tool first.
const (
	prefixFactor   = 0.5
	coverBonus     = 0.5
	lengthNorm     = 0.05
	wholeNameBonus = 1e6
	minPrefixRunes = 3 // a prefix hit needs the shorter word to have this many runes
)

// searchIndex is the engine's tools' words, made once, at the engine's
// first search: each word (stemmed) with the tools that have it and where.
type searchIndex struct {
	tools []searchEntry
	words []string    // sorted, so that the words a prefix begins are a range
	posts [][]posting // posts[i]: the tools that have words[i], in tool order
	// specific[i] is how specific words[i] is as a word of a name or
	// title: its inverse frequency among the names and titles, 0 when no
	// name or title has it.
	specific []float64
}

type posting struct {
	tool   int32
	fields uint8
}

// searchEntry is one tool, as a search returns it and scores its length.
type searchEntry struct {
	name, description string
	lower, wire       string // the name in lower case, canonical and wire form
	// specific sums the specificity of its counted words.
	specific float64
	// declaration is the tool's TypeScript declaration, made when first
	// found and kept: rendering it took most of a search, and a script may
	// search in a loop (BenchmarkSearchGitHub/next/limit=5, on a shared
	// machine: a median 11 ms before, 4.8 ms after).
	declaration func() string
}

// newSearchTool builds the search_tools meta-tool over e's tools, or nil
// for an engine without tools.
func (e *Engine) newSearchTool() (*registered, error) {
	if len(e.names) == 0 {
		return nil, nil
	}
	// The index is made by the first search: most runs make none.
	index := sync.OnceValue(func() *searchIndex {
		tools := make([]Tool, len(e.names))
		for i, n := range e.names {
			tools[i] = e.tools[n].Tool
		}
		return newSearchIndex(tools)
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
			return searchTools(index(), args)
		},
	}
	return &registered{Tool: t, schema: s}, nil
}

func newSearchIndex(tools []Tool) *searchIndex {
	ix := &searchIndex{tools: make([]searchEntry, len(tools))}
	byWord := map[string][]posting{}
	fields := map[string]uint8{}
	for i, t := range tools {
		clear(fields)
		add := func(f uint8, words []string) {
			for _, w := range words {
				fields[w] |= f
			}
		}
		dot := strings.LastIndexByte(t.Name, '.')
		add(fieldName, splitWords(t.Name[:max(dot, 0)], maxQueryRunes, maxWords))
		add(fieldName|counted, splitWords(t.Name[dot+1:], maxQueryRunes, maxWords))
		add(fieldTitle|counted, splitWords(t.Annotations.Title, maxQueryRunes, maxWords))
		add(fieldDesc, splitWords(t.Description, maxTextRunes, maxTextWords))
		params, text := paramWords(t.InputSchema)
		add(fieldParam, params)
		add(fieldParamText, text)
		for w, f := range fields {
			byWord[w] = append(byWord[w], posting{int32(i), f})
		}
		ix.tools[i] = searchEntry{
			name:        t.Name,
			description: t.Description,
			lower:       strings.ToLower(t.Name),
			wire:        strings.ToLower(WireName(t.Name)),
			declaration: sync.OnceValue(func() string {
				return tsgen.Declaration(tsgen.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema})
			}),
		}
	}
	ix.words = make([]string, 0, len(byWord))
	for w := range byWord {
		ix.words = append(ix.words, w)
	}
	slices.Sort(ix.words)
	ix.posts = make([][]posting, len(ix.words))
	ix.specific = make([]float64, len(ix.words))
	for i, w := range ix.words {
		ix.posts[i] = byWord[w]
		strong := 0
		for _, p := range ix.posts[i] {
			if p.fields&(fieldName|fieldTitle) != 0 {
				strong++
			}
		}
		if strong == 0 {
			continue
		}
		ix.specific[i] = math.Log(1 + float64(len(tools))/float64(strong))
		for _, p := range ix.posts[i] {
			if p.fields&counted != 0 {
				ix.tools[p.tool].specific += ix.specific[i]
			}
		}
	}
	return ix
}

// paramWords returns the words of an input schema's property names, and
// of their descriptions and enum values (an array's items' too), the
// properties taken in name order so that the bound on words keeps the
// same ones every time.
func paramWords(inputSchema json.RawMessage) (names, text []string) {
	var root struct {
		Properties map[string]struct {
			Description string `json:"description"`
			Enum        []any  `json:"enum"`
			Items       struct {
				Enum []any `json:"enum"`
			} `json:"items"`
		} `json:"properties"`
	}
	// Build checked that the schema is an object. A property of another
	// shape (true, a description that is not a string) is a type error,
	// which Unmarshal reports after decoding the rest, that property
	// with its name and no text: one pass over a schema of any size.
	_ = json.Unmarshal(inputSchema, &root)
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(root.Properties)) {
		names = append(names, queryWords(k)...)
		if b.Len() >= maxTextRunes {
			continue
		}
		p := root.Properties[k]
		b.WriteString(p.Description)
		for _, v := range append(p.Enum, p.Items.Enum...) {
			if s, ok := v.(string); ok {
				b.WriteString(" ")
				b.WriteString(s)
			}
		}
		b.WriteString(" ")
	}
	return names, splitWords(b.String(), maxTextRunes, maxTextWords)
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

func searchTools(ix *searchIndex, args json.RawMessage) (json.RawMessage, error) {
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
	hits := ix.search(words, strings.ToLower(strings.TrimSpace(req.Query)))
	out := SearchResult{Tools: make([]SearchHit, 0, min(limit, len(hits)))}
	for _, h := range hits[:min(limit, len(hits))] {
		en := &ix.tools[h.tool]
		out.Tools = append(out.Tools, SearchHit{Name: en.name, Description: en.description, Declaration: en.declaration()})
	}
	return json.Marshal(out)
}

type scored struct {
	tool  int32
	score float64
}

// toolScore is what a search gathers about one tool, word by word.
type toolScore struct {
	sum, specific float64 // specific: of the tool's name and title words hit
	strong        int     // query words that hit the name or title
}

// search returns the tools that the query's words hit, best first; whole
// is the query as typed, lower-cased, to compare with the tools' names.
func (ix *searchIndex) search(words []string, whole string) []scored {
	n := len(ix.tools)
	acc := make([]toolScore, n)
	best := make([]float64, n)
	seen := make([]uint8, n)
	var touched []int32
	for _, q := range words {
		touched = touched[:0]
		ix.matches(q, func(i int, factor float64) {
			for _, p := range ix.posts[i] {
				w := factor * fieldWeights[bitsIndex(p.fields)]
				if best[p.tool] == 0 {
					touched = append(touched, p.tool)
				}
				best[p.tool] = max(best[p.tool], w)
				seen[p.tool] |= p.fields
				if p.fields&counted != 0 {
					acc[p.tool].specific += ix.specific[i]
				}
			}
		})
		if len(touched) == 0 {
			continue
		}
		idf := math.Log(1 + float64(n)/float64(len(touched)))
		for _, t := range touched {
			a := &acc[t]
			a.sum += best[t] * idf
			if seen[t]&(fieldName|fieldTitle) != 0 {
				a.strong++
			}
			best[t], seen[t] = 0, 0
		}
	}
	var hits []scored
	for i := range acc {
		a, en := &acc[i], &ix.tools[i]
		if a.sum == 0 {
			continue
		}
		s := a.sum
		if a.strong == len(words) {
			s *= 1 + coverBonus
		}
		s /= 1 + lengthNorm*max(0, en.specific-a.specific)
		if whole == en.lower || whole == en.wire {
			s += wholeNameBonus
		}
		hits = append(hits, scored{int32(i), s})
	}
	sort.Slice(hits, func(i, j int) bool {
		a, b := &ix.tools[hits[i].tool], &ix.tools[hits[j].tool]
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		if len(a.name) != len(b.name) {
			return len(a.name) < len(b.name)
		}
		return a.name < b.name
	})
	return hits
}

// matches calls f with each indexed word that q hits and the factor of
// the hit: q itself (1), the words q begins and the words that begin q
// (prefixFactor), the shorter of the two of minPrefixRunes runes or more.
func (ix *searchIndex) matches(q string, f func(i int, factor float64)) {
	i, found := slices.BinarySearch(ix.words, q)
	if found {
		f(i, 1)
		i++
	}
	if utf8.RuneCountInString(q) >= minPrefixRunes {
		for ; i < len(ix.words) && strings.HasPrefix(ix.words[i], q); i++ {
			f(i, prefixFactor)
		}
	}
	runes := 0
	for end := range q {
		if runes >= minPrefixRunes {
			if j, ok := slices.BinarySearch(ix.words, q[:end]); ok {
				f(j, prefixFactor)
			}
		}
		runes++
	}
}

// bitsIndex is the index in fieldWeights of the heaviest field of fields.
func bitsIndex(fields uint8) int {
	for i := range fieldWeights {
		if fields&(1<<i) != 0 {
			return i
		}
	}
	return 0
}

// stopWords are left out of queries and descriptions: "create an issue"
// should not match every description with "an" in it.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "in": true, "on": true, "for": true,
	"and": true, "or": true, "is": true, "it": true, "by": true, "with": true, "from": true, "as": true,
	"all": true, "my": true, "at": true, "be": true, "are": true,
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
// boundaries: "github.createIssue" and "create_issues" both give "create",
// "issue". Words are stemmed of their plural; stop words and repeats are
// dropped; at most maxWords words of the first maxRunes runes are kept.
func splitWords(s string, maxRunes, maxWords int) []string {
	var words []string
	seen := map[string]bool{}
	begin := -1 // the current word's first byte, -1 between words
	flush := func(end int) {
		if begin < 0 {
			return
		}
		w := strings.ToLower(s[begin:end])
		begin = -1
		if !stopWords[w] {
			w = stem(w)
		}
		if !stopWords[w] && !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	runes := 0
	prev := rune(-1) // the rune before r in the current word
	end := len(s)
	for i, r := range s {
		if runes == maxRunes || len(words) >= maxWords {
			end = i
			break
		}
		runes++
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			prev = -1
			continue
		}
		if prev >= 0 && unicode.IsUpper(r) {
			after, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
			nextLower := runes < maxRunes && unicode.IsLower(after)
			// "createIssue" → create|Issue; "HTTPServer" → HTTP|Server.
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush(i)
			}
		}
		if begin < 0 {
			begin = i
		}
		prev = r
	}
	if len(words) < maxWords {
		flush(end)
	}
	return words
}

// stem takes an English plural's "s" off (Harman's S-stemmer: "issues" →
// "issue", "repositories" → "repository", "labels" → "label"), the same
// on both sides, query and tools, so that a query's number does not
// matter. Words of three letters or fewer ("has", "its") are left.
func stem(w string) string {
	n := len(w)
	switch {
	case n <= 3:
		return w
	case n > 4 && strings.HasSuffix(w, "ies") && !strings.HasSuffix(w, "eies") && !strings.HasSuffix(w, "aies"):
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "es") && !strings.HasSuffix(w, "aes") && !strings.HasSuffix(w, "ees") && !strings.HasSuffix(w, "oes"):
		return w[:n-1]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "ss"):
		return w[:n-1]
	}
	return w
}
