package cluster

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
)

// keywords yields the significant words of text, in order, repeats
// included, each as written (lowercased) and as the stem it counts as.
// Words are runs of letters and digits; stopwords and words under three
// characters are dropped, except acronyms ("CI", "QA", "PRs" → "pr"), which
// are kept unstemmed. It allocates nothing for words already in lowercase.
func keywords(text string) iter.Seq2[string, string] {
	return func(yield func(word, stem string) bool) {
		start := -1 // of the current word, or -1
		for i, r := range text {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				if start < 0 {
					start = i
				}
			case start >= 0:
				if word, stem, ok := keyword(text[start:i]); ok && !yield(word, stem) {
					return
				}
				start = -1
			}
		}
		if start >= 0 {
			if word, stem, ok := keyword(text[start:]); ok {
				yield(word, stem)
			}
		}
	}
}

// keyword returns w's spelling and stem, or false if w is not significant.
func keyword(w string) (word, stem string, ok bool) {
	if a, ok := acronym(w); ok {
		return a, a, !stopwords[a]
	}
	w = strings.ToLower(w)
	if utf8.RuneCountInString(w) < 3 || stopwords[w] {
		return "", "", false
	}
	s := stemOf(w)
	if utf8.RuneCountInString(s) < 3 || stopwords[s] {
		return "", "", false
	}
	return w, s, true
}

// acronym reports whether w is an acronym: two capitals, or a capital and
// a digit ("CI", "K8"), or capitals pluralised with a lowercase s ("PRs",
// "APIs"). It returns it lowercased without the s. A longer word in capitals
// is not one: it may be shouted text ("TESTS FAIL"), stemmed as usual.
func acronym(w string) (string, bool) {
	base, plural := strings.CutSuffix(w, "s")
	n := utf8.RuneCountInString(base)
	if n < 2 || n > 2 && !plural {
		return "", false
	}
	letter := false
	for _, r := range base {
		switch {
		case unicode.IsUpper(r):
			letter = true
		case !unicode.IsDigit(r):
			return "", false
		}
	}
	return strings.ToLower(base), letter
}

// stemOf strips a plural and then an -ing or -ed ending, and a final e, so
// that "release", "releases", "released" and "releasing" meet. It is light
// on purpose: a wrong merge groups unrelated notes, a missed one only makes
// a smaller group. Stems are keys, never shown.
func stemOf(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y" // stories → story
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2] // classes → class
	case strings.HasSuffix(w, "s") && len(w) > 3 &&
		!strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1] // tests → test; not status, analysis, process
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) >= 6:
		w = undouble(w[:len(w)-3]) // testing → test, running → run
	case strings.HasSuffix(w, "ed") && len(w) >= 5 && !strings.HasSuffix(w, "eed"):
		w = undouble(w[:len(w)-2]) // failed → fail, stopped → stop; not speed
	}
	if strings.HasSuffix(w, "e") && len(w) >= 4 {
		w = w[:len(w)-1] // release → releas, to meet released
	}
	return w
}

// undouble drops the second of a final doubled consonant (stopp → stop)
// except l, s and z, which English doubles in the base word (fill, pass).
func undouble(w string) string {
	n := len(w)
	if n >= 2 && w[n-1] == w[n-2] && strings.IndexByte("bcdfghjkmnpqrtvwx", w[n-1]) >= 0 {
		return w[:n-1]
	}
	return w
}

// stopwords are common English words that carry no topic, plus a few that
// fill retro notes ("need", "lot", "thing"). The two-letter ones matter only
// for text in capitals ("WE ARE OK").
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		am an as at be by do go he if in is it me my no of ok on or so to up us we
		about above after again against all also always and any are aren around because been before
		being below between both but can cannot could couldn did didn does doesn doing done don down
		during each either else enough even ever every few for from further get gets getting got had
		has have having her here hers herself him himself his how however into isn its itself just
		let lot lots made make makes many may might more most much must need needs needed nor not
		now off once one only other our ours ourselves out over own quite rather really same she
		should shouldn since some still such than that the their theirs them themselves then there
		these they thing things this those though through too under until upon very via was wasn
		way were weren what when where whether which while who whom whose why will with within
		without won would wouldn yet you your yours yourself yourselves etc per like want wants
	`) {
		m[w] = true
	}
	return m
}()
