package cluster

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func ip(n float64) *float64 { return &n }

// items numbers texts as sticky-1, sticky-2, ...
func items(texts ...string) []Item {
	its := make([]Item, len(texts))
	for i, t := range texts {
		its[i] = Item{ID: fmt.Sprint("sticky-", i+1), Text: t}
	}
	return its
}

var retro = items(
	"CI is slow",
	"Slow CI builds",
	"Flaky tests in CI",
	"More tests needed",
	"Testing takes forever",
	"Great teamwork",
	"Release went smoothly",
	"Releases are too rare",
)

func TestCluster(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want Output
	}{{
		name: "retro: ties go to the alphabetically first keyword",
		in:   Input{Items: retro},
		want: Output{
			Groups: []Group{
				{"ci", []string{"sticky-1", "sticky-2", "sticky-3"}},
				{"release", []string{"sticky-7", "sticky-8"}},
				{"tests", []string{"sticky-4", "sticky-5"}},
			},
			Ungrouped: []string{"sticky-6"},
		},
	}, {
		name: "maxGroups caps the groups",
		in:   Input{Items: retro, MaxGroups: ip(1)},
		want: Output{
			Groups:    []Group{{"ci", []string{"sticky-1", "sticky-2", "sticky-3"}}},
			Ungrouped: []string{"sticky-4", "sticky-5", "sticky-6", "sticky-7", "sticky-8"},
		},
	}, {
		name: "the largest group first; label as most items spell it",
		in: Input{Items: items("Deploys fail", "deploy script broken", "Deploying by hand", "deploys at night",
			"Broken script", "Night shift")},
		want: Output{
			Groups: []Group{
				{"deploys", []string{"sticky-1", "sticky-2", "sticky-3", "sticky-4"}},
				{"broken", []string{"sticky-5"}[:0:0]},
			}[:1],
			Ungrouped: []string{"sticky-5", "sticky-6"},
		},
	}, {
		name: "nothing shared",
		in:   Input{Items: items("alpha", "beta", "", "gamma")},
		want: Output{Groups: []Group{}, Ungrouped: []string{"sticky-1", "sticky-2", "sticky-3", "sticky-4"}},
	}, {
		name: "no items",
		in:   Input{Items: []Item{}},
		want: Output{Groups: []Group{}, Ungrouped: []string{}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Cluster(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if err := verify(tt.in, got); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestKeywords(t *testing.T) {
	tests := map[string]string{
		"CI is slow":                        "ci/ci slow/slow",
		"PRs wait; QA and UX, CI/CD":        "pr/pr wait/wait qa/qa ux/ux ci/ci cd/cd",
		"WE ARE OK IT":                      "",
		"APIs API apis K8s v2 2FA 42":       "api/api api/api apis/apis k8/k8 2fa/2fa",
		"TESTS FAILING 2024s":               "tests/test failing/fail 2024s/2024",
		"Tests, testing, tested; test":      "tests/test testing/test tested/test test/test",
		"Release released releases":         "release/releas released/releas releases/releas",
		"stories classes status process":    "stories/story classes/class status/status process/process",
		"stopped running need speed filled": "stopped/stop running/run speed/speed filled/fill",
		"the and of a to we need more":      "",
		"end:CI,ok-QA.":                     "end/end ci/ci qa/qa",
		"trailing word":                     "trailing/trail word/word",
		"Überprüfung läuft schnell":         "überprüfung/überprüfung läuft/läuft schnell/schnell",
		"using used uses code coding":       "using/using used/used uses/use code/cod coding/cod",
	}
	for text, want := range tests {
		var got []string
		for word, stem := range keywords(text) {
			got = append(got, word+"/"+stem)
		}
		if s := strings.Join(got, " "); s != want {
			t.Errorf("keywords(%q) = %q, want %q", text, s, want)
		}
	}
}

// verify checks what every clustering guarantees: each id exactly once,
// groups of two or more, largest first, at most the cap; and when the cap
// was not reached, no two ungrouped items share a keyword.
func verify(in Input, out Output) error {
	max := DefaultMaxGroups
	if in.MaxGroups != nil {
		max = int(*in.MaxGroups)
	}
	if len(out.Groups) > max {
		return fmt.Errorf("%d groups, cap %d", len(out.Groups), max)
	}
	seen := map[string]bool{}
	for gi, g := range out.Groups {
		if len(g.IDs) < 2 || g.Label == "" {
			return fmt.Errorf("group %d: %+v", gi, g)
		}
		if gi > 0 && len(g.IDs) > len(out.Groups[gi-1].IDs) {
			return fmt.Errorf("group %d larger than group %d", gi, gi-1)
		}
		for _, id := range g.IDs {
			if seen[id] {
				return fmt.Errorf("id %q twice", id)
			}
			seen[id] = true
		}
	}
	for _, id := range out.Ungrouped {
		if seen[id] {
			return fmt.Errorf("id %q twice", id)
		}
		seen[id] = true
	}
	if len(seen) != len(in.Items) {
		return fmt.Errorf("%d ids out, %d in", len(seen), len(in.Items))
	}
	if len(out.Groups) == max {
		return nil
	}
	text := map[string]string{}
	for _, it := range in.Items {
		text[it.ID] = it.Text
	}
	owner := map[string]string{}
	for _, id := range out.Ungrouped {
		for _, stem := range keywords(text[id]) {
			if o, ok := owner[stem]; ok && o != id {
				return fmt.Errorf("ungrouped %q and %q share %q", o, id, stem)
			}
			owner[stem] = id
		}
	}
	return nil
}

var vocab = strings.Fields("CI slow build builds tests testing flaky deploy deploys release the and of PRs QA review reviews on-call pager alerts noisy docs missing onboarding meetings too many long retro")

func randomText(r *rand.Rand, words int) string {
	var b strings.Builder
	for range words {
		b.WriteString(vocab[r.IntN(len(vocab))])
		b.WriteString(" ")
	}
	return b.String()
}

func TestClusterRandomProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 300 {
		in := Input{Items: make([]Item, r.IntN(40))}
		for j := range in.Items {
			in.Items[j] = Item{ID: fmt.Sprint(j), Text: randomText(r, r.IntN(4))}
		}
		if r.IntN(2) == 0 {
			in.MaxGroups = ip(float64(1 + r.IntN(MaxGroups)))
		}
		out, err := Cluster(in)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if err := verify(in, out); err != nil {
			t.Fatalf("case %d: %v\n%+v\n%+v", i, err, in, out)
		}
		if again, _ := Cluster(in); !cmp.Equal(out, again) {
			t.Fatalf("case %d: not deterministic", i)
		}
	}
}

func TestClusterLimits(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	in := Input{Items: make([]Item, MaxItems), MaxGroups: ip(MaxGroups)}
	for i := range in.Items {
		var b strings.Builder
		for b.Len() < MaxTextLen-12 {
			fmt.Fprintf(&b, "w%d ", r.IntN(100000))
		}
		in.Items[i] = Item{ID: fmt.Sprint(i), Text: b.String()}
	}
	start := time.Now()
	out, err := Cluster(in)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d items of %d characters: %d groups in %v", len(in.Items), MaxTextLen, len(out.Groups), time.Since(start))
	if err := verify(in, out); err != nil {
		t.Fatal(err)
	}
}

func TestClusterErrors(t *testing.T) {
	tests := []struct {
		in   Input
		want string
	}{
		{Input{}, "items: required"},
		{Input{Items: make([]Item, MaxItems+1)}, "items: 2001 items, at most 2000 allowed"},
		{Input{Items: []Item{{ID: "a"}, {}}}, "items[1].id: empty"},
		{Input{Items: []Item{{ID: strings.Repeat("é", MaxIDLen+1)}}}, "items[0].id: longer than 256 characters"},
		{Input{Items: []Item{{ID: "a"}, {ID: "b"}, {ID: "a"}}}, `items[2].id: duplicate id "a" (also items[0])`},
		{Input{Items: []Item{{ID: "a", Text: strings.Repeat("é", MaxTextLen+1)}}}, "items[0].text: 2001 characters, at most 2000 allowed"},
		{Input{Items: []Item{}, MaxGroups: ip(0)}, "maxGroups: must be an integer between 1 and 20, got 0"},
		{Input{Items: []Item{}, MaxGroups: ip(21)}, "maxGroups: must be an integer between 1 and 20, got 21"},
		{Input{Items: []Item{}, MaxGroups: ip(2.5)}, "maxGroups: must be an integer between 1 and 20, got 2.5"},
	}
	for _, tt := range tests {
		_, err := Cluster(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("got error %v, want %q", err, tt.want)
		}
	}
	if _, err := Cluster(Input{Items: []Item{{ID: strings.Repeat("é", MaxIDLen), Text: strings.Repeat("é", MaxTextLen)}}}); err != nil {
		t.Errorf("at the limits: %v", err)
	}
}
