package fakegithub

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// seq is from, from-1, ... down to to, or up when to is larger, skipping
// the numbers in skip.
func seq(from, to int, skip ...int) []int {
	out := []int{}
	step := 1
	if to < from {
		step = -1
	}
	for n := from; ; n += step {
		if !slices.Contains(skip, n) {
			out = append(out, n)
		}
		if n == to {
			return out
		}
	}
}

var (
	closedIssues = []int{3, 7, 12, 18, 25, 33, 41, 50}
	closedPulls  = []int{15, 37}
	openPulls    = []int{22, 44, 52, 56, 59}
)

// TestListIssues: the default listing and its filters, sorts and pages.
func TestListIssues(t *testing.T) {
	s := Default()
	closed := append(slices.Clone(closedIssues), closedPulls...)
	stale := []int{1, 2, 5, 8, 11, 14, 17, 23, 31}
	for _, c := range []struct {
		query string
		want  []int
		link  string
	}{
		{"", seq(60, 27, closed...), `<http://example.com/repos/codemode-dev/engine/issues?page=2>; rel="next", <http://example.com/repos/codemode-dev/engine/issues?page=2>; rel="last"`},
		{"?page=2", seq(26, 1, closed...), `<http://example.com/repos/codemode-dev/engine/issues?page=1>; rel="prev", <http://example.com/repos/codemode-dev/engine/issues?page=1>; rel="first"`},
		{"?page=3", []int{}, `<http://example.com/repos/codemode-dev/engine/issues?page=2>; rel="prev", <http://example.com/repos/codemode-dev/engine/issues?page=1>; rel="first"`},
		{"?page=9223372036854775807", []int{}, `<http://example.com/repos/codemode-dev/engine/issues?page=2>; rel="prev", <http://example.com/repos/codemode-dev/engine/issues?page=1>; rel="first"`},
		{"?state=all&per_page=100", seq(60, 1), ""},
		{"?state=all&per_page=500", seq(60, 1), ""},
		{"?state=closed&direction=asc", slices.Sorted(slices.Values(closed)), ""},
		{"?state=all&per_page=10&page=3&direction=asc", seq(21, 30), `<http://example.com/repos/codemode-dev/engine/issues?direction=asc&page=2&per_page=10&state=all>; rel="prev", <http://example.com/repos/codemode-dev/engine/issues?direction=asc&page=4&per_page=10&state=all>; rel="next", <http://example.com/repos/codemode-dev/engine/issues?direction=asc&page=6&per_page=10&state=all>; rel="last", <http://example.com/repos/codemode-dev/engine/issues?direction=asc&page=1&per_page=10&state=all>; rel="first"`},
		{"?labels=pinned", []int{14, 2}, ""},
		{"?labels=docs,Good%20First%20Issue", []int{55, 10}, ""},
		{"?labels=bug,pinned", []int{}, ""},
		{"?labels=crash", []int{}, ""},
		{"?creator=ADA&state=all", []int{59, 52, 44, 32, 21, 11}, ""},
		{"?assignee=ada", []int{39, 21, 9, 6}, ""},
		{"?assignee=none&labels=bug&per_page=100", []int{52, 47, 43, 26, 19}, ""},
		{"?assignee=*", []int{58, 39, 30, 21, 9, 6}, ""},
		{"?since=2026-11-12T14:00:00Z", []int{60, 59, 58, 57, 56, 52, 44}, ""},
		{"?since=2026-11-12", []int{60, 59, 58, 57, 56, 52, 44}, ""},
		{"?since=2026-06-01T00:00:00Z&per_page=100", seq(60, 1, append(append(slices.Clone(closed), stale...), 22)...), ""},
		{"?sort=updated&direction=asc&per_page=10", []int{1, 5, 11, 17, 22, 2, 8, 23, 14, 31}, `<http://example.com/repos/codemode-dev/engine/issues?direction=asc&page=2&per_page=10&sort=updated>; rel="next", <http://example.com/repos/codemode-dev/engine/issues?direction=asc&page=5&per_page=10&sort=updated>; rel="last"`},
		{"?sort=comments&per_page=7", []int{60, 47, 9, 52, 30, 21, 14}, `<http://example.com/repos/codemode-dev/engine/issues?page=2&per_page=7&sort=comments>; rel="next", <http://example.com/repos/codemode-dev/engine/issues?page=8&per_page=7&sort=comments>; rel="last"`},
	} {
		a := must(t, s, 200, "GET", engine+"/issues"+c.query, "")
		if d := cmp.Diff(c.want, numbers(a.list(t))); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.query, d)
		}
		if got := a.header.Get("Link"); got != c.link {
			t.Errorf("%s: Link\n%s\nwant\n%s", c.query, got, c.link)
		}
	}
	// Pull requests carry a pull_request key, issues none.
	for _, o := range must(t, s, 200, "GET", engine+"/issues?state=all&per_page=100", "").list(t) {
		n := int(o["number"].(float64))
		pr, isPR := o["pull_request"].(map[string]any)
		if isPR != (slices.Contains(openPulls, n) || slices.Contains(closedPulls, n)) {
			t.Errorf("#%d: pull_request %v", n, o["pull_request"])
		}
		if isPR && pr["html_url"] != fmt.Sprintf("https://github.com/codemode-dev/engine/pull/%d", n) {
			t.Errorf("#%d: pull_request.html_url %v", n, pr["html_url"])
		}
	}
}

// TestGetIssue: one issue's fields, as a model reads them.
func TestGetIssue(t *testing.T) {
	s := Default()
	o := must(t, s, 200, "GET", engine+"/issues/21", "").object(t)
	for k, want := range map[string]any{
		"number": 21.0, "title": "Sandbox crashes when a script throws a non-Error value", "state": "open",
		"state_reason": nil, "closed_at": nil, "comments": 1.0, "created_at": "2025-09-19T21:57:00Z",
		"updated_at": "2026-10-28T14:21:00Z", "url": "https://api.github.com/repos/codemode-dev/engine/issues/21",
		"html_url": "https://github.com/codemode-dev/engine/issues/21", "node_id": "I_kwDO3001000021", "milestone": nil,
	} {
		if d := cmp.Diff(want, o[k]); d != "" {
			t.Errorf("%s (-want +got):\n%s", k, d)
		}
	}
	if _, ok := o["pull_request"]; ok {
		t.Error("an issue has a pull_request key")
	}
	user := o["user"].(map[string]any)
	if user["login"] != "ada" || user["type"] != "User" || user["id"] != 1001.0 {
		t.Errorf("user %v", user)
	}
	labels := o["labels"].([]any)
	if len(labels) != 1 || labels[0].(map[string]any)["name"] != "bug" || labels[0].(map[string]any)["color"] != "d73a4a" {
		t.Errorf("labels %v", labels)
	}
	if as := o["assignees"].([]any); len(as) != 2 || o["assignee"].(map[string]any)["login"] != "ada" {
		t.Errorf("assignees %v, assignee %v", as, o["assignee"])
	}
	o = must(t, s, 200, "GET", engine+"/issues/15", "").object(t)
	if o["state"] != "closed" || o["closed_at"] != "2025-07-24T14:15:00Z" || o["pull_request"].(map[string]any)["merged_at"] != "2025-07-24T14:15:00Z" {
		t.Errorf("merged pull request #15: %v", o)
	}
}

// TestUpdateIssue: closing, reopening, editing; the fake clock stamps each
// write a second after the one before.
func TestUpdateIssue(t *testing.T) {
	s := Default()
	o := must(t, s, 200, "PATCH", engine+"/issues/1", `{"state":"closed"}`).object(t)
	if o["state"] != "closed" || o["state_reason"] != "completed" || o["closed_at"] != "2026-11-20T09:00:00Z" || o["updated_at"] != "2026-11-20T09:00:00Z" {
		t.Errorf("closed: %v %v %v %v", o["state"], o["state_reason"], o["closed_at"], o["updated_at"])
	}
	o = must(t, s, 200, "PATCH", engine+"/issues/2", `{"state":"closed","state_reason":"not_planned"}`).object(t)
	if o["state_reason"] != "not_planned" || o["closed_at"] != "2026-11-20T09:00:01Z" {
		t.Errorf("closed as not planned: %v %v", o["state_reason"], o["closed_at"])
	}
	o = must(t, s, 200, "PATCH", engine+"/issues/1", `{"state":"open"}`).object(t)
	if o["state"] != "open" || o["state_reason"] != "reopened" || o["closed_at"] != nil || o["updated_at"] != "2026-11-20T09:00:02Z" {
		t.Errorf("reopened: %v %v %v %v", o["state"], o["state_reason"], o["closed_at"], o["updated_at"])
	}
	must(t, s, 422, "PATCH", engine+"/issues/1", `{"state":"closed","state_reason":"reopened"}`)
	o = must(t, s, 200, "PATCH", engine+"/issues/5", `{"title":12345,"body":null,"labels":["Bug",{"name":"triage"}],"assignees":["grace","nobody",{"login":"GRACE"}]}`).object(t)
	if o["title"] != "12345" || o["body"] != nil || o["assignee"].(map[string]any)["login"] != "grace" || len(o["assignees"].([]any)) != 1 {
		t.Errorf("edited: title %v body %v assignees %v", o["title"], o["body"], o["assignees"])
	}
	got := s.Issues(Owner, "engine")[4]
	if d := cmp.Diff([]string{"bug", "triage"}, got.Labels); d != "" {
		t.Errorf("labels (-want +got):\n%s", d)
	}
	if l := s.Labels(Owner, "engine"); l[len(l)-1].Name != "triage" || l[len(l)-1].Color != "ededed" {
		t.Errorf("the label named by the PATCH was not created with the default colour: %+v", l)
	}
	must(t, s, 200, "PATCH", engine+"/issues/5", `{"assignee":null,"labels":[]}`)
	if got := s.Issues(Owner, "engine")[4]; len(got.Assignees) != 0 || len(got.Labels) != 0 || got.UpdatedAt != Start.Add(4*time.Second) {
		t.Errorf("cleared: %+v", got)
	}
	must(t, s, 422, "PATCH", engine+"/issues/5", `{"title":"  "}`)
	must(t, s, 422, "PATCH", engine+"/issues/5", `{"milestone":1}`)
	// A pull request closes through the issues' endpoint too.
	must(t, s, 200, "PATCH", engine+"/issues/22", `{"state":"closed"}`)
	if p := s.Pulls(Owner, "engine"); p[1].Number != 22 || p[1].State != "closed" {
		t.Errorf("pull request #22 after closing: %+v", p[1])
	}
}

// TestComments: listing, posting, and the commented issue's count and stamp.
func TestComments(t *testing.T) {
	s := Default()
	l := must(t, s, 200, "GET", engine+"/issues/47/comments", "").list(t)
	if len(l) != 2 || l[0]["body"] != "Which MCP client?" || l[1]["user"].(map[string]any)["login"] != "radia" {
		t.Errorf("comments of #47: %v", l)
	}
	if l := must(t, s, 200, "GET", engine+"/issues/47/comments?since=2026-11-05T10:00:00Z", "").list(t); len(l) != 1 {
		t.Errorf("since keeps %d comments, want 1", len(l))
	}
	if l := must(t, s, 200, "GET", engine+"/issues/1/comments", "").list(t); len(l) != 0 {
		t.Errorf("comments of #1: %v", l)
	}
	a := must(t, s, 201, "POST", engine+"/issues/47/comments", `{"body":"Labelled as a crash."}`)
	o := a.object(t)
	if o["body"] != "Labelled as a crash." || o["user"].(map[string]any)["login"] != Agent || o["created_at"] != "2026-11-20T09:00:00Z" ||
		a.header.Get("Location") != o["url"] || o["issue_url"] != "https://api.github.com/repos/codemode-dev/engine/issues/47" {
		t.Errorf("posted: %v, Location %q", o, a.header.Get("Location"))
	}
	i := must(t, s, 200, "GET", engine+"/issues/47", "").object(t)
	if i["comments"] != 3.0 || i["updated_at"] != "2026-11-20T09:00:00Z" {
		t.Errorf("#47 after a comment: comments %v, updated_at %v", i["comments"], i["updated_at"])
	}
	cs := s.Comments(Owner, "engine", 47)
	if len(cs) != 3 || cs[2].Body != "Labelled as a crash." || cs[2].User != Agent {
		t.Errorf("Comments: %+v", cs)
	}
	l = must(t, s, 200, "GET", engine+"/issues/47/comments?per_page=2&page=2", "").list(t)
	if len(l) != 1 || l[0]["body"] != "Labelled as a crash." {
		t.Errorf("page 2 of #47's comments: %v", l)
	}
}

// TestListPulls: state, sorts, filters and pages of the pulls listing.
func TestListPulls(t *testing.T) {
	s := Default()
	for _, c := range []struct {
		query string
		want  []int
	}{
		{"", []int{59, 56, 52, 44, 22}},
		{"?state=closed", []int{37, 15}},
		{"?state=all&direction=asc", []int{15, 22, 37, 44, 52, 56, 59}},
		{"?sort=updated", []int{22, 44, 56, 52, 59}},
		{"?sort=updated&direction=desc&per_page=2&page=2", []int{56, 44}},
		{"?sort=popularity&direction=desc", []int{52, 59, 56, 44, 22}},
		{"?sort=long-running", []int{22, 44, 52, 56, 59}},
		{"?head=codemode-dev:fix-ref-cycle", []int{52}},
		{"?base=main&state=all&per_page=3", []int{59, 56, 52}},
		{"?base=develop", []int{}},
	} {
		l := must(t, s, 200, "GET", engine+"/pulls"+c.query, "").list(t)
		if d := cmp.Diff(c.want, numbers(l)); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.query, d)
		}
	}
	l := must(t, s, 200, "GET", engine+"/pulls?per_page=100", "").list(t)
	authors := map[string]int{}
	for _, p := range l {
		authors[p["user"].(map[string]any)["login"].(string)]++
	}
	if d := cmp.Diff(map[string]int{"ada": 3, "grace": 1, "linus": 1}, authors); d != "" {
		t.Errorf("authors (-want +got):\n%s", d)
	}
	p := l[4]
	if p["number"] != 22.0 || p["draft"] != true || p["head"].(map[string]any)["ref"] != "lua-sandbox" || p["base"].(map[string]any)["ref"] != "main" || p["html_url"] != "https://github.com/codemode-dev/engine/pull/22" {
		t.Errorf("#22: %v", p)
	}
	must(t, s, 200, "GET", "/repos/codemode-dev/web/pulls", "")
	if l := must(t, s, 200, "GET", "/repos/codemode-dev/web/pulls", "").list(t); len(l) != 0 {
		t.Errorf("web has pull requests: %v", l)
	}
}

// TestGetRepo: the repository object.
func TestGetRepo(t *testing.T) {
	s := Default()
	o := must(t, s, 200, "GET", engine, "").object(t)
	if o["full_name"] != "codemode-dev/engine" || o["open_issues_count"] != 50.0 || o["default_branch"] != "main" || o["owner"].(map[string]any)["type"] != "Organization" {
		t.Errorf("engine: %v", o)
	}
	must(t, s, 200, "PATCH", engine+"/issues/60", `{"state":"closed"}`)
	if o := must(t, s, 200, "GET", engine, "").object(t); o["open_issues_count"] != 49.0 {
		t.Errorf("open_issues_count after closing one: %v", o["open_issues_count"])
	}
}
