// Package suggest finds the names a caller probably meant.
package suggest

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Max is the most suggestions Names returns.
const Max = 3

// MaxName is the length (in bytes) above which a name gets no suggestions,
// unless some candidate is at least half as long: a name that long is no
// misspelling, and matching it would cost time in proportion to its length.
const MaxName = 256

// Names returns up to Max candidates close to name, best first: name itself
// if it is a candidate, then exact matches after folding case and removing '_', '-' and '.' (create_sticky_note →
// createStickyNote), then candidates within a small edit distance (red → read,
// createStikyNote → createStickyNote), then candidates whose folded form
// contains the folded name or is contained in it.
//
// The work is bounded whatever the name: names longer than MaxName (and
// twice the longest candidate) are not matched at all, and the edit distance
// is computed only for candidates whose length is within the distance limit.
func Names(name string, candidates []string) []string {
	longest := MaxName / 2
	for _, c := range candidates {
		longest = max(longest, len(c))
	}
	if len(name) > 2*longest {
		return nil
	}
	folded := fold(name)
	if folded == "" {
		return nil
	}
	n := utf8.RuneCountInString(folded)
	limit := min(1+len(folded)/4, 4)
	type scored struct {
		name  string
		score int
		raw   int // edit distance before folding: breaks ties toward the closer spelling
	}
	var hits []scored
	for _, c := range candidates {
		fc := fold(c)
		switch {
		case c == name:
			hits = append(hits, scored{c, -1, 0})
		case fc == folded:
			hits = append(hits, scored{c, 0, distance(name, c)})
		default:
			d := limit + 1
			if abs(utf8.RuneCountInString(fc)-n) <= limit { // the distance is at least the length difference
				d = distance(folded, fc)
			}
			if d <= limit {
				hits = append(hits, scored{c, 1 + d, 0})
			} else if len(folded) >= 4 && (strings.Contains(fc, folded) || strings.Contains(folded, fc)) {
				hits = append(hits, scored{c, 10 + abs(len(fc)-len(folded)), 0})
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score < hits[j].score
		}
		if hits[i].raw != hits[j].raw {
			return hits[i].raw < hits[j].raw
		}
		return hits[i].name < hits[j].name
	})
	if len(hits) > Max {
		hits = hits[:Max]
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.name
	}
	return out
}

func fold(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r == '_' || r == '-' || r == '.' || r == ' ' {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// distance is the optimal-string-alignment edit distance: insertions,
// deletions, substitutions and adjacent transpositions each cost one.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	n, m := len(ra), len(rb)
	prev2 := make([]int, m+1)
	prev := make([]int, m+1)
	cur := make([]int, m+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= n; i++ {
		cur[0] = i
		for j := 1; j <= m; j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[m]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
