package suggest

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNames(t *testing.T) {
	board := []string{
		"createStickyNote", "createFrame", "createShape", "deleteItem",
		"board.getState", "board.setTitle", "moveItem",
	}
	for _, tc := range []struct {
		desc       string
		name       string
		candidates []string
		want       []string
	}{
		{
			desc:       "one edit away",
			name:       "red",
			candidates: []string{"read", "write", "readAll"},
			want:       []string{"read"},
		},
		{
			desc:       "missing letter",
			name:       "createStikyNote",
			candidates: board,
			want:       []string{"createStickyNote"},
		},
		{
			desc:       "snake case",
			name:       "create_sticky_note",
			candidates: board,
			want:       []string{"createStickyNote"},
		},
		{
			desc:       "upper case",
			name:       "CREATESTICKYNOTE",
			candidates: board,
			want:       []string{"createStickyNote"},
		},
		{
			desc:       "kebab case",
			name:       "create-sticky-note",
			candidates: board,
			want:       []string{"createStickyNote"},
		},
		{
			desc:       "adjacent transposition costs one",
			name:       "craeteFrame",
			candidates: board,
			want:       []string{"createFrame"},
		},
		{
			desc:       "dotted name, case folded",
			name:       "board.getstate",
			candidates: board,
			// board.setTitle is 4 edits from boardgetstate, within the limit
			// for a 13-letter name, so it follows.
			want: []string{"board.getState", "board.setTitle"},
		},
		{
			desc:       "dot dropped",
			name:       "boardGetState",
			candidates: board,
			want:       []string{"board.getState", "board.setTitle"},
		},
		{
			desc:       "dotted name with a typo",
			name:       "board.setTitel",
			candidates: []string{"board.setTitle", "board.setTheme", "createFrame"},
			want:       []string{"board.setTitle", "board.setTheme"},
		},
		{
			desc:       "exact fold before edit distance",
			name:       "create_frame",
			candidates: []string{"createFrames", "createFrame", "createFram"},
			want:       []string{"createFrame", "createFram", "createFrames"},
		},
		{
			desc:       "smaller distance first",
			name:       "createNote",
			candidates: []string{"createNotes", "createNode", "createNoteX1"},
			want:       []string{"createNode", "createNotes", "createNoteX1"},
		},
		{
			desc:       "ties broken by name, at most three",
			name:       "xead",
			candidates: []string{"read", "lead", "head", "bead", "mead"},
			want:       []string{"bead", "head", "lead"},
		},
		{
			desc:       "ties ordered the same whatever the input order",
			name:       "xead",
			candidates: []string{"mead", "bead", "read", "head", "lead"},
			want:       []string{"bead", "head", "lead"},
		},
		{
			desc:       "substring fallback: name inside candidate",
			name:       "sticky",
			candidates: board,
			want:       []string{"createStickyNote"},
		},
		{
			desc:       "substring fallback: candidate inside name",
			name:       "moveItemToFrameNow",
			candidates: board,
			want:       []string{"moveItem"},
		},
		{
			desc:       "substring fallback ranks by length difference",
			name:       "frame",
			candidates: []string{"createFrameFromSelection", "createFrame", "frameIt"},
			want:       []string{"frameIt", "createFrame", "createFrameFromSelection"},
		},
		{
			desc:       "edit distance before substring",
			name:       "items",
			candidates: []string{"listItems", "item"},
			want:       []string{"item", "listItems"},
		},
		{
			desc:       "no substring fallback for short names",
			name:       "rea",
			candidates: []string{"createArea"},
			want:       []string{},
		},
		{
			desc:       "wildly different",
			name:       "launchRocket",
			candidates: board,
			want:       []string{},
		},
		{
			desc:       "empty name",
			name:       "",
			candidates: board,
			want:       nil,
		},
		{
			desc:       "name of separators only",
			name:       "_.-",
			candidates: []string{"a", "b"},
			want:       nil,
		},
		{
			desc:       "no candidates",
			name:       "read",
			candidates: nil,
			want:       []string{},
		},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			got := Names(tc.name, tc.candidates)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Names(%q, %q) mismatch (-want +got):\n%s", tc.name, tc.candidates, diff)
			}
		})
	}
}

func TestNamesEmptyMeansNone(t *testing.T) {
	// Callers only check len; both empty input and no match give no suggestions.
	for _, name := range []string{"", "zzzzzzzzzz"} {
		if got := Names(name, []string{"read", "write"}); len(got) != 0 {
			t.Errorf("Names(%q) = %q, want none", name, got)
		}
	}
}

func TestNamesDoesNotModifyCandidates(t *testing.T) {
	candidates := []string{"write", "read", "readAll", "reap"}
	want := append([]string(nil), candidates...)
	Names("rea", candidates)
	if diff := cmp.Diff(want, candidates); diff != "" {
		t.Errorf("candidates modified (-want +got):\n%s", diff)
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"read", "read", 0},
		{"red", "read", 1},
		{"craete", "create", 1},
		{"ab", "ba", 1},
		{"abc", "ca", 3}, // optimal string alignment, not full Damerau
		{"kitten", "sitting", 3},
		{"héllo", "hello", 1}, // runes, not bytes
	} {
		if got := distance(tc.a, tc.b); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := distance(tc.b, tc.a); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d (symmetry)", tc.b, tc.a, got, tc.want)
		}
	}
}

func FuzzNames(f *testing.F) {
	f.Add("red", "read\nwrite\nreadAll")
	f.Add("create_sticky_note", "createStickyNote\ncreateFrame\nboard.getState")
	f.Add("craeteFrame", "createFrame\ncreateShape")
	f.Add("board.getstate", "board.getState\nboard.setTitle")
	f.Add("", "a\nb")
	f.Add("sticky", "createStickyNote\nsticky\nnote")
	f.Add("read", "read\nreadAll\nreap\nbread")
	f.Add("héllo\x00", "hello\n\xff\xfe\nHÉLLO")
	f.Fuzz(func(t *testing.T, name, list string) {
		candidates := strings.Split(list, "\n")
		got := Names(name, candidates)
		if len(got) > Max {
			t.Fatalf("Names(%q, %q) = %q: more than %d results", name, candidates, got, Max)
		}
		in := make(map[string]bool, len(candidates))
		exact := false
		for _, c := range candidates {
			in[c] = true
			exact = exact || c == name
		}
		for _, g := range got {
			if !in[g] {
				t.Fatalf("Names(%q, %q) = %q: %q is not a candidate", name, candidates, got, g)
			}
		}
		if fold(name) == "" {
			if len(got) != 0 {
				t.Fatalf("Names(%q, %q) = %q, want none for a name that folds to nothing", name, candidates, got)
			}
			return
		}
		if exact && (len(got) == 0 || got[0] != name) {
			t.Fatalf("Names(%q, %q) = %q: the exact candidate is not first", name, candidates, got)
		}
		// Deterministic: the same call gives the same answer.
		if again := Names(name, candidates); !cmp.Equal(got, again) {
			t.Fatalf("Names(%q, %q) = %q, then %q", name, candidates, got, again)
		}
	})
}

func TestNamesExactAndCloserSpellingFirst(t *testing.T) {
	if got := Names("read", []string{"READ", "REad", "ReAd", "read"}); !cmp.Equal(got, []string{"read", "ReAd", "REad"}) && !cmp.Equal(got, []string{"read", "REad", "ReAd"}) {
		t.Errorf("got %v: the exact name must come first", got)
	}
	if got := Names("readAll", []string{"READALL", "readall"}); !cmp.Equal(got, []string{"readall", "READALL"}) {
		t.Errorf("got %v: the closer spelling must come first", got)
	}
}

// A huge name costs no more than reading it: no edit distance is computed
// for a name no candidate is near in length. Before the bound, a name of
// 32M characters took 17 s.
func TestNamesHugeNameIsCheap(t *testing.T) {
	board := []string{"createStickyNote", "createFrame", "createShape", "deleteItem", "board.getState"}
	for _, name := range []string{
		strings.Repeat("a", 32<<20),
		strings.Repeat("createFrame", 3<<20),
		strings.Repeat("é", MaxName), // over MaxName bytes, half as many characters
		"createFrame" + strings.Repeat("x", MaxName),
	} {
		start := time.Now()
		got := Names(name, board)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Names of a %d-byte name took %v", len(name), d)
		}
		if len(got) != 0 {
			t.Errorf("Names of a %d-byte name = %q, want none", len(name), got)
		}
	}
	// Up to MaxName a long name is still matched, against long candidates too.
	long := strings.Repeat("x", 200) + "Tool"
	if got := Names(strings.ToUpper(long), []string{long}); !cmp.Equal(got, []string{long}) {
		t.Errorf("got %q, want the long candidate", got)
	}
	if got := Names(long+"s", []string{long}); !cmp.Equal(got, []string{long}) {
		t.Errorf("got %q, want the long candidate", got)
	}
}

// FuzzNamesLong repeats a piece into names of up to megabytes: Names must
// stay within its bounds (no answer for a name over twice the longest
// candidate and MaxName) and never take long.
func FuzzNamesLong(f *testing.F) {
	f.Add("a", uint16(60000), "read\nwrite")
	f.Add("createFrame", uint16(30), "createFrame\ncreateShape")
	f.Add("_", uint16(5000), "createFrame")
	f.Add("é", uint16(200), strings.Repeat("é", 190))
	f.Fuzz(func(t *testing.T, piece string, reps uint16, list string) {
		name := strings.Repeat(piece, int(reps)%(1<<20/max(1, len(piece))))
		candidates := strings.Split(list, "\n")
		start := time.Now()
		got := Names(name, candidates)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("Names of a %d-byte name over %d candidates took %v", len(name), len(candidates), d)
		}
		longest := MaxName / 2
		for _, c := range candidates {
			longest = max(longest, len(c))
		}
		if len(name) > 2*longest && len(got) > 0 {
			t.Fatalf("Names of a %d-byte name = %q, want none", len(name), got)
		}
		if len(got) > Max {
			t.Fatalf("%d results", len(got))
		}
	})
}
