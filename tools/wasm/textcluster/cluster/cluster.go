// Package cluster groups short texts, such as the sticky notes of a retro
// or brainstorm, by the significant keywords they share (affinity
// clustering). Greedily, the keyword shared by most of the remaining items
// labels the next group, which takes every remaining item containing it;
// this repeats while a keyword is shared by at least two items. Keywords are
// lowercased words of three or more letters or digits, not stopwords, lightly
// stemmed ("tests", "testing" and "tested" are one keyword). The result is
// deterministic: ties go to the alphabetically first keyword.
package cluster

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
)

// Limits and defaults. The tool's input schema states the same numbers.
const (
	MaxItems         = 2000
	MaxTextLen       = 2000 // characters
	MaxIDLen         = 256  // characters
	DefaultMaxGroups = 6
	MaxGroups        = 20
)

// Input is the items to cluster: the tool's arguments.
type Input struct {
	Items []Item `json:"items"`
	// MaxGroups caps the number of groups; nil means DefaultMaxGroups. It
	// is a float so that 3.0, a JSON Schema integer, is accepted too.
	MaxGroups *float64 `json:"maxGroups,omitempty"`
}

// Item is one text, e.g. a sticky note's.
type Item struct {
	ID   string `json:"id"`
	Text string `json:"text,omitempty"`
}

// Output is the clustering: the tool's result.
type Output struct {
	// Groups come largest first (the order they were formed).
	Groups []Group `json:"groups"`
	// Ungrouped lists the ids in no group, in input order.
	Ungrouped []string `json:"ungrouped"`
}

// Group is items sharing a keyword.
type Group struct {
	// Label is the keyword as most of the group's items spell it.
	Label string `json:"label"`
	// IDs are in input order.
	IDs []string `json:"ids"`
}

// Cluster groups in's items, or reports the first thing wrong with in.
func Cluster(in Input) (Output, error) {
	maxGroups, err := validate(in)
	if err != nil {
		return Output{}, err
	}
	// Keywords are interned as numbers; each item keeps its distinct ones,
	// sorted. Spellings are looked up again only for the groups' labels.
	var words []string
	number := map[string]int32{}
	kws := make([][]int32, len(in.Items))
	count := []int{}      // remaining items per keyword
	lastItem := []int32{} // per keyword: 1 + the last item it was seen in
	var ks []int32        // scratch: the item's keywords
	for i, it := range in.Items {
		ks = ks[:0]
		for _, stem := range keywords(it.Text) {
			n, ok := number[stem]
			if !ok {
				n = int32(len(words))
				number[stem] = n
				words = append(words, stem)
				count, lastItem = append(count, 0), append(lastItem, 0)
			}
			if lastItem[n] != int32(i+1) {
				lastItem[n] = int32(i + 1)
				count[n]++
				ks = append(ks, n)
			}
		}
		slices.Sort(ks)
		kws[i] = slices.Clone(ks)
	}

	grouped := make([]bool, len(in.Items))
	out := Output{Groups: []Group{}, Ungrouped: []string{}}
	for len(out.Groups) < maxGroups {
		best := -1
		for k, c := range count {
			if c >= 2 && (best < 0 || c > count[best] || c == count[best] && words[k] < words[best]) {
				best = k
			}
		}
		if best < 0 {
			break
		}
		var g Group
		spellings := map[string]int{}
		for i, ks := range kws {
			if grouped[i] {
				continue
			}
			if _, ok := slices.BinarySearch(ks, int32(best)); !ok {
				continue
			}
			grouped[i] = true
			g.IDs = append(g.IDs, in.Items[i].ID)
			spellings[spelling(in.Items[i].Text, words[best])]++
			for _, k := range ks {
				count[k]--
			}
		}
		g.Label = commonest(spellings)
		out.Groups = append(out.Groups, g)
	}
	for i, it := range in.Items {
		if !grouped[i] {
			out.Ungrouped = append(out.Ungrouped, it.ID)
		}
	}
	return out, nil
}

// spelling returns the first spelling of stem in text.
func spelling(text, stem string) string {
	for word, s := range keywords(text) {
		if s == stem {
			return word
		}
	}
	return stem // not reached: the text has the stem
}

// commonest returns the most frequent spelling, then the shortest, then
// the alphabetically first.
func commonest(spellings map[string]int) string {
	var best string
	for w, n := range spellings {
		if best == "" || cmp.Or(cmp.Compare(spellings[best], n), cmp.Compare(len(w), len(best)), cmp.Compare(w, best)) < 0 {
			best = w
		}
	}
	return best
}

// validate checks in and returns the group cap, with errors that name the
// offending field as a JSON path.
func validate(in Input) (int, error) {
	if in.Items == nil {
		return 0, fmt.Errorf("items: required")
	}
	if len(in.Items) > MaxItems {
		return 0, fmt.Errorf("items: %d items, at most %d allowed", len(in.Items), MaxItems)
	}
	index := make(map[string]int, len(in.Items))
	for i, it := range in.Items {
		switch {
		case it.ID == "":
			return 0, fmt.Errorf("items[%d].id: empty", i)
		case utf8.RuneCountInString(it.ID) > MaxIDLen:
			return 0, fmt.Errorf("items[%d].id: longer than %d characters", i, MaxIDLen)
		}
		if j, dup := index[it.ID]; dup {
			return 0, fmt.Errorf("items[%d].id: duplicate id %q (also items[%d])", i, it.ID, j)
		}
		index[it.ID] = i
		if n := utf8.RuneCountInString(it.Text); n > MaxTextLen {
			return 0, fmt.Errorf("items[%d].text: %d characters, at most %d allowed", i, n, MaxTextLen)
		}
	}
	if in.MaxGroups == nil {
		return DefaultMaxGroups, nil
	}
	if m := *in.MaxGroups; !(m >= 1 && m <= MaxGroups && m == math.Trunc(m)) {
		return 0, fmt.Errorf("maxGroups: must be an integer between 1 and %d, got %v", MaxGroups, m)
	}
	return int(*in.MaxGroups), nil
}
