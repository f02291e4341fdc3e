package fakegithub

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestFixture checks the counts the benchmark's tasks rely on, as the
// comment on fixture.go states them.
func TestFixture(t *testing.T) {
	s := Default()
	all := s.Issues(Owner, "engine")
	if len(all) != 60 {
		t.Fatalf("%d issues and pull requests, want 60", len(all))
	}
	count := map[string]int{}
	openPRAuthors := map[string]int{}
	var crash, crashBodyOnly, stale, stalePinned []int
	oldOpenPRs := 0
	cut := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	var nextOldest time.Time
	for k, i := range all {
		if i.Number != k+1 {
			t.Fatalf("item %d has number %d", k, i.Number)
		}
		if k > 0 && !i.CreatedAt.After(all[k-1].CreatedAt) {
			t.Errorf("#%d created %s, not after #%d", i.Number, i.CreatedAt, k)
		}
		if i.UpdatedAt.Before(i.CreatedAt) || !i.UpdatedAt.Before(Start) {
			t.Errorf("#%d updated %s, created %s: not between its creation and the clock's start", i.Number, i.UpdatedAt, i.CreatedAt)
		}
		if (i.State == "closed") == i.ClosedAt.IsZero() {
			t.Errorf("#%d is %s with closed_at %v", i.Number, i.State, i.ClosedAt)
		}
		kind := "issue"
		if i.PullRequest {
			kind = "pull"
		}
		count[i.State+" "+kind]++
		text := strings.ToLower(i.Title + " " + i.Body)
		switch {
		case i.PullRequest && i.State == "open":
			openPRAuthors[i.User]++
			if i.UpdatedAt.Before(cut) {
				oldOpenPRs++
			}
		case i.State == "open":
			if strings.Contains(text, "crash") {
				crash = append(crash, i.Number)
				if !strings.Contains(strings.ToLower(i.Title), "crash") {
					crashBodyOnly = append(crashBodyOnly, i.Number)
				}
			}
			if i.UpdatedAt.Before(cut) {
				stale = append(stale, i.Number)
				if slices.Contains(i.Labels, "pinned") {
					stalePinned = append(stalePinned, i.Number)
				}
			} else if nextOldest.IsZero() || i.UpdatedAt.Before(nextOldest) {
				nextOldest = i.UpdatedAt
			}
			if slices.Contains(i.Labels, "crash") {
				t.Errorf("#%d carries the label crash at the start", i.Number)
			}
		}
		for k, c := range s.Comments(Owner, "engine", i.Number) {
			if c.CreatedAt.Before(i.CreatedAt) || c.CreatedAt.After(i.UpdatedAt) {
				t.Errorf("#%d's comment %d at %s, outside its issue's life", i.Number, k, c.CreatedAt)
			}
		}
	}
	want := map[string]int{"open issue": 45, "closed issue": 8, "open pull": 5, "closed pull": 2}
	if d := cmp.Diff(want, count); d != "" {
		t.Errorf("counts (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{9, 21, 30, 39, 47, 58}, crash); d != "" {
		t.Errorf("open crash issues (-want +got):\n%s", d)
	}
	if len(crashBodyOnly) < 2 {
		t.Errorf("crash issues mentioning it in the body only: %v, want at least 2", crashBodyOnly)
	}
	forms := regexp.MustCompile(`(?i)crash\w*`)
	seen := map[string]bool{}
	for _, n := range crash {
		for _, m := range forms.FindAllString(all[n-1].Title+" "+all[n-1].Body, -1) {
			seen[m] = true
		}
	}
	for _, f := range []string{"Crash", "crashes", "crashed", "CRASH"} {
		if !seen[f] {
			t.Errorf("no crash issue spells it %q (forms: %v)", f, seen)
		}
	}
	if d := cmp.Diff([]int{1, 2, 5, 8, 11, 14, 17, 23, 31}, stale); d != "" {
		t.Errorf("stale open issues (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{2, 14}, stalePinned); d != "" {
		t.Errorf("stale pinned issues (-want +got):\n%s", d)
	}
	if got := nextOldest.Format(time.DateOnly); got != "2026-06-11" {
		t.Errorf("the oldest open issue that is not stale was updated %s, want 2026-06-11", got)
	}
	for _, n := range stale {
		if u := all[n-1].UpdatedAt; !u.Before(time.Date(2026, 5, 9, 0, 0, 0, 0, time.UTC)) || !u.Before(Start.AddDate(0, -6, 0)) {
			t.Errorf("stale #%d updated %s: not before the gap from 2026-05-09 (six months before Start: %s)", n, u, Start.AddDate(0, -6, 0))
		}
	}
	if oldOpenPRs != 1 {
		t.Errorf("%d open pull requests updated before %s, want 1", oldOpenPRs, cut)
	}
	if d := cmp.Diff(map[string]int{"ada": 3, "grace": 1, "linus": 1}, openPRAuthors); d != "" {
		t.Errorf("open pull requests by author (-want +got):\n%s", d)
	}
	for _, n := range []int{15, 37} {
		if u := all[n-1].User; openPRAuthors[u] > 0 || !all[n-1].PullRequest || all[n-1].State != "closed" {
			t.Errorf("#%d: want a closed pull request by someone without open ones, got %+v", n, all[n-1])
		}
	}
	decoys := 0
	for _, n := range []int{33, 52} {
		if strings.Contains(strings.ToLower(all[n-1].Title+all[n-1].Body), "crash") {
			decoys++
		}
	}
	if decoys != 2 || all[32].State != "closed" || !all[51].PullRequest || all[51].State != "open" {
		t.Errorf("the crash decoys #33 (closed issue) and #52 (open pull request) are not as documented")
	}

	// Two crash issues on page 2 of the default listing, as a model sees it.
	var page2 []int
	for _, p := range []string{"", "?page=2"} {
		l := must(t, s, 200, "GET", engine+"/issues"+p, "").list(t)
		for _, o := range l {
			if _, pr := o["pull_request"]; !pr && strings.Contains(strings.ToLower(o["title"].(string)+" "+o["body"].(string)), "crash") && p != "" {
				page2 = append(page2, int(o["number"].(float64)))
			}
		}
	}
	if d := cmp.Diff([]int{21, 9}, page2); d != "" {
		t.Errorf("crash issues on page 2 (-want +got):\n%s", d)
	}

	labels := map[string][]Label{"engine": s.Labels(Owner, "engine"), "web": s.Labels(Owner, "web")}
	names := func(ls []Label) []string {
		var out []string
		for _, l := range ls {
			out = append(out, l.Name)
		}
		return out
	}
	if d := cmp.Diff([]string{"bug", "docs", "enhancement", "good first issue", "performance", "pinned", "question", "security"}, names(labels["engine"])); d != "" {
		t.Errorf("engine's labels (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"bug", "design", "question"}, names(labels["web"])); d != "" {
		t.Errorf("web's labels (-want +got):\n%s", d)
	}
	colors, descs := map[string]bool{}, map[string]bool{}
	for _, l := range labels["engine"] {
		colors[l.Color], descs[l.Description] = true, true
	}
	if len(colors) != 8 || len(descs) != 8 {
		t.Errorf("engine's labels share colours or descriptions: %v", labels["engine"])
	}
	eb, wb := labels["engine"][0], labels["web"][0]
	if eb.Color == wb.Color || eb.Description == wb.Description {
		t.Errorf("web's bug %+v is engine's %+v", wb, eb)
	}
	eq, wq := labels["engine"][6], labels["web"][2]
	if eq.Color != wq.Color || eq.Description != wq.Description || eq.Name != wq.Name {
		t.Errorf("web's question %+v differs from engine's %+v", wq, eq)
	}
	if n := len(s.Issues(Owner, "web")); n != 3 {
		t.Errorf("web has %d issues, want 3", n)
	}
	comments := 0
	for _, i := range all {
		comments += i.Comments
	}
	if comments != 10 {
		t.Errorf("%d comments, want 10", comments)
	}
}

// TestDefaultIsFresh: each Default is its own state, identical at the start.
func TestDefaultIsFresh(t *testing.T) {
	a, b := Default(), Default()
	must(t, a, 200, "PATCH", engine+"/issues/1", `{"state":"closed"}`)
	if got := b.Issues(Owner, "engine")[0].State; got != "open" {
		t.Errorf("a write to one Default changed another: #1 is %s", got)
	}
	if d := cmp.Diff(Default().Issues(Owner, "engine"), b.Issues(Owner, "engine")); d != "" {
		t.Errorf("two fresh fixtures differ:\n%s", d)
	}
	if d := cmp.Diff(Default().Labels(Owner, "engine"), b.Labels(Owner, "engine")); d != "" {
		t.Errorf("two fresh fixtures' labels differ:\n%s", d)
	}
	if s := Default(); s.Issues("nobody", "nothing") != nil || s.Labels(Owner, "nothing") != nil || s.Comments(Owner, "engine", 61) != nil {
		t.Error("accessors of a repository or issue that does not exist return something")
	}
}
