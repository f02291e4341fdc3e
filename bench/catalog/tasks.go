package catalog

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/internal/fakegithub"
)

// task is one catalog scenario: the request in words, a plan for the
// per-call, search and batch strategies, a script for code, and a checker
// of the fake GitHub's state and the model's answer.
type task struct {
	name, text string
	queries    map[string]string // tool → the search a model would send for it
	plan       plan
	script     string
	answer     func(result json.RawMessage) (string, error)
	check      func(gh *fakegithub.Server, answer string) error
}

func (t task) model(s bench.Strategy) bench.Model {
	if s == bench.Code {
		return codeModel(t.queries, t.script, t.answer)
	}
	return replayModel(s, t.queries, t.plan)
}

// The tools the tasks use, and the searches that find them.
const (
	listIssues    = "github.issues_list_for_repo"
	addLabels     = "github.issues_add_labels"
	createComment = "github.issues_create_comment"
	updateIssue   = "github.issues_update"
	listLabels    = "github.issues_list_labels_for_repo"
	createLabel   = "github.issues_create_label"
	updateLabel   = "github.issues_update_label"
	listPulls     = "github.pulls_list"
)

var searches = map[string]string{
	listIssues:    "list repository issues",
	addLabels:     "add labels to an issue",
	createComment: "create an issue comment",
	updateIssue:   "update an issue",
	listLabels:    "list labels for a repository",
	createLabel:   "create a label",
	updateLabel:   "update a label",
	listPulls:     "list pull requests",
}

func queriesFor(tools ...string) map[string]string {
	m := make(map[string]string, len(tools))
	for _, t := range tools {
		m[t] = searches[t]
	}
	return m
}

const (
	owner        = fakegithub.Owner
	crashComment = "Thanks for the report: labelled as a crash, we will look at it this week."
)

// issue is what the plans read of an issue GitHub lists.
type issue struct {
	Number      int             `json:"number"`
	Title       string          `json:"title"`
	Body        *string         `json:"body"`
	UpdatedAt   time.Time       `json:"updated_at"`
	PullRequest json.RawMessage `json:"pull_request"`
	Labels      []issueLabel    `json:"labels"`
	User        struct {
		Login string `json:"login"`
	} `json:"user"`
}

// openIssuesJS starts the scripts that read a repository's open issues:
// every page of them, as a model that does not know how many there are
// writes it.
const openIssuesJS = `const owner = "codemode-dev", repo = "engine";
const issues = [];
for (let page = 1; ; page++) {
  const got = await tools.github.issues_list_for_repo({owner, repo, state: "open", per_page: 100, page});
  issues.push(...got);
  if (got.length < 100) break;
}
`

type issueLabel struct {
	Name string `json:"name"`
}

// openIssues lists a repository's open issues and pull requests, one page
// of 100 (the fixture's repositories have fewer).
func openIssues(c *caller, repo string) ([]issue, error) {
	res, err := c.do(listIssues, map[string]any{"owner": owner, "repo": repo, "state": "open", "per_page": 100})
	if err != nil {
		return nil, err
	}
	var list []issue
	if err := json.Unmarshal(res, &list); err != nil {
		return nil, fmt.Errorf("the issues: %v", err)
	}
	if len(list) == 100 {
		return nil, fmt.Errorf("more than a page of issues: the plan reads one")
	}
	return list, nil
}

func numbers(list []issue) string {
	var s []string
	for _, i := range list {
		s = append(s, fmt.Sprintf("#%d", i.Number))
	}
	return strings.Join(s, ", ")
}

// crashLabel: label the open issues that mention a crash, and comment on
// each. The crash reports are on both pages of GitHub's default listing,
// some mention it only in the body; a closed issue and an open pull
// request mention one too.
func crashLabel() task {
	isCrash := func(title, body string) bool { return strings.Contains(strings.ToLower(title+"\n"+body), "crash") }
	return task{
		name: "gh-crash-label",
		text: "In the GitHub repository codemode-dev/engine, find every open issue (not pull requests) whose title or body mentions a crash " +
			"(\"crash\", \"crashes\", \"crashed\", in any letter case). Add the label \"crash\" to each, and comment on each: \"" + crashComment + "\"",
		queries: queriesFor(listIssues, addLabels, createComment),
		plan: func(c *caller) (string, error) {
			list, err := openIssues(c, "engine")
			if err != nil {
				return "", err
			}
			var crashes []issue
			var steps []step
			for _, i := range list {
				if i.PullRequest != nil || !isCrash(i.Title, deref(i.Body)) {
					continue
				}
				crashes = append(crashes, i)
				at := map[string]any{"owner": owner, "repo": "engine", "issue_number": i.Number}
				steps = append(steps,
					step{addLabels, with(at, "body", map[string]any{"labels": []string{"crash"}})},
					step{createComment, with(at, "body", crashComment)})
			}
			if _, err := c.doAll(steps); err != nil {
				return "", err
			}
			return fmt.Sprintf("Labelled %d open issues as crashes and commented on each: %s.", len(crashes), numbers(crashes)), nil
		},
		script: openIssuesJS + `const crashes = issues.filter(i => !i.pull_request && /crash/i.test(i.title + "\n" + (i.body ?? "")));
await Promise.all(crashes.map(i => Promise.all([
  tools.github.issues_add_labels({owner, repo, issue_number: i.number, body: {labels: ["crash"]}}),
  tools.github.issues_create_comment({owner, repo, issue_number: i.number, body: ` + "`" + crashComment + "`" + `}),
])));
return crashes.map(i => i.number);`,
		answer: func(res json.RawMessage) (string, error) {
			var ns []int
			if err := json.Unmarshal(res, &ns); err != nil {
				return "", err
			}
			return fmt.Sprintf("Labelled %d open issues as crashes and commented on each: %v.", len(ns), ns), nil
		},
		check: func(gh *fakegithub.Server, _ string) error {
			start := fakegithub.Default()
			for _, was := range start.Issues(owner, "engine") {
				is := find(gh.Issues(owner, "engine"), was.Number)
				want := !was.PullRequest && was.State == "open" && isCrash(was.Title, was.Body)
				comments := gh.Comments(owner, "engine", was.Number)
				added := comments[len(start.Comments(owner, "engine", was.Number)):]
				switch {
				case want && !slices.Contains(is.Labels, "crash"):
					return fmt.Errorf("#%d mentions a crash but has no crash label (labels %v)", was.Number, is.Labels)
				case want && (len(added) != 1 || added[0].Body != crashComment):
					return fmt.Errorf("#%d mentions a crash: want the one comment asked for, got %d new comments", was.Number, len(added))
				case !want && (slices.Contains(is.Labels, "crash") || len(added) > 0):
					return fmt.Errorf("#%d (%q) was labelled or commented on, but is not an open issue mentioning a crash", was.Number, was.Title)
				case !slices.Equal(withoutCrash(is.Labels), was.Labels) || is.State != was.State:
					return fmt.Errorf("#%d was changed beyond its crash label", was.Number)
				}
			}
			return nil
		},
	}
}

// staleClose: close the open issues not updated since a date, but the
// pinned ones, and say how many. An old pull request is a decoy.
func staleClose() task {
	cutoff := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	stale := func(i fakegithub.Issue) bool {
		return !i.PullRequest && i.State == "open" && i.UpdatedAt.Before(cutoff) && !slices.Contains(i.Labels, "pinned")
	}
	return task{
		name: "gh-stale-close",
		text: "In the GitHub repository codemode-dev/engine, close every open issue (not pull requests) that has not been updated since " +
			"2026-06-01, except those labelled \"pinned\", as not planned. Then tell me how many issues you closed.",
		queries: queriesFor(listIssues, updateIssue),
		plan: func(c *caller) (string, error) {
			list, err := openIssues(c, "engine")
			if err != nil {
				return "", err
			}
			var closing []issue
			var steps []step
			for _, i := range list {
				pinned := slices.Contains(i.Labels, issueLabel{"pinned"})
				if i.PullRequest != nil || pinned || !i.UpdatedAt.Before(cutoff) {
					continue
				}
				closing = append(closing, i)
				steps = append(steps, step{updateIssue, map[string]any{"owner": owner, "repo": "engine", "issue_number": i.Number,
					"state": "closed", "state_reason": "not_planned"}})
			}
			if _, err := c.doAll(steps); err != nil {
				return "", err
			}
			return fmt.Sprintf("Closed %d stale issues as not planned: %s.", len(closing), numbers(closing)), nil
		},
		script: openIssuesJS + `const stale = issues.filter(i => !i.pull_request && i.updated_at < "2026-06-01" && !i.labels.some(l => l.name === "pinned"));
await Promise.all(stale.map(i => tools.github.issues_update({owner, repo, issue_number: i.number, state: "closed", state_reason: "not_planned"})));
return {closed: stale.length, numbers: stale.map(i => i.number)};`,
		answer: func(res json.RawMessage) (string, error) {
			var v struct {
				Closed  int   `json:"closed"`
				Numbers []int `json:"numbers"`
			}
			if err := json.Unmarshal(res, &v); err != nil {
				return "", err
			}
			return fmt.Sprintf("Closed %d stale issues as not planned: %v.", v.Closed, v.Numbers), nil
		},
		check: func(gh *fakegithub.Server, answer string) error {
			n := 0
			for _, was := range fakegithub.Default().Issues(owner, "engine") {
				is := find(gh.Issues(owner, "engine"), was.Number)
				if stale(was) {
					n++
					if is.State != "closed" || is.StateReason != "not_planned" {
						return fmt.Errorf("#%d is stale: want it closed as not_planned, it is %s (%s)", was.Number, is.State, is.StateReason)
					}
				} else if is.State != was.State {
					return fmt.Errorf("#%d (%q) is not a stale issue but was %s", was.Number, was.Title, is.State)
				}
			}
			if !regexp.MustCompile(fmt.Sprintf(`\b%d\b`, n)).MatchString(answer) {
				return fmt.Errorf("the answer does not say %d issues were closed: %q", n, answer)
			}
			return nil
		},
	}
}

// label is what the plans read of a label.
type label struct {
	Name        string  `json:"name"`
	Color       string  `json:"color"`
	Description *string `json:"description"`
}

// copyLabels: give codemode-dev/web every label of codemode-dev/engine,
// same colours and descriptions: some are new there, one differs, one is
// the same already, and web's own stays.
func copyLabels() task {
	return task{
		name: "gh-copy-labels",
		text: "Copy the labels of the GitHub repository codemode-dev/engine to codemode-dev/web: every label of engine must exist in web " +
			"with the same name, color and description (update the labels web already has). Leave web's other labels alone.",
		queries: queriesFor(listLabels, createLabel, updateLabel),
		plan: func(c *caller) (string, error) {
			res, err := c.doAll([]step{
				{listLabels, map[string]any{"owner": owner, "repo": "engine", "per_page": 100}},
				{listLabels, map[string]any{"owner": owner, "repo": "web", "per_page": 100}},
			})
			if err != nil {
				return "", err
			}
			var from, to []label
			if err := json.Unmarshal(res[0], &from); err != nil {
				return "", err
			}
			if err := json.Unmarshal(res[1], &to); err != nil {
				return "", err
			}
			var steps []step
			made, changed := 0, 0
			for _, l := range from {
				args := map[string]any{"owner": owner, "repo": "web", "color": l.Color, "description": deref(l.Description)}
				i := slices.IndexFunc(to, func(w label) bool { return strings.EqualFold(w.Name, l.Name) })
				switch {
				case i < 0:
					steps = append(steps, step{createLabel, with(args, "name", l.Name)})
					made++
				case to[i].Color != l.Color || deref(to[i].Description) != deref(l.Description):
					steps = append(steps, step{updateLabel, with(args, "name", to[i].Name)})
					changed++
				}
			}
			if _, err := c.doAll(steps); err != nil {
				return "", err
			}
			return fmt.Sprintf("Copied engine's %d labels to web: %d created, %d updated, the rest were the same.", len(from), made, changed), nil
		},
		script: `const owner = "codemode-dev";
const [from, to] = await Promise.all(["engine", "web"].map(repo => tools.github.issues_list_labels_for_repo({owner, repo, per_page: 100})));
const byName = new Map(to.map(l => [l.name.toLowerCase(), l]));
let created = 0, updated = 0;
await Promise.all(from.map(l => {
  const have = byName.get(l.name.toLowerCase());
  const want = {owner, repo: "web", color: l.color, description: l.description ?? ""};
  if (!have) { created++; return tools.github.issues_create_label({...want, name: l.name}); }
  if (have.color !== l.color || (have.description ?? "") !== (l.description ?? "")) { updated++; return tools.github.issues_update_label({...want, name: have.name}); }
}));
return {labels: from.length, created, updated};`,
		answer: func(res json.RawMessage) (string, error) {
			var v struct{ Labels, Created, Updated int }
			if err := json.Unmarshal(res, &v); err != nil {
				return "", err
			}
			return fmt.Sprintf("Copied engine's %d labels to web: %d created, %d updated, the rest were the same.", v.Labels, v.Created, v.Updated), nil
		},
		check: func(gh *fakegithub.Server, _ string) error {
			web := gh.Labels(owner, "web")
			for _, l := range gh.Labels(owner, "engine") {
				i := slices.IndexFunc(web, func(w fakegithub.Label) bool { return w.Name == l.Name })
				if i < 0 {
					return fmt.Errorf("web has no label %q", l.Name)
				}
				if web[i].Color != l.Color || web[i].Description != l.Description {
					return fmt.Errorf("web's label %q is %s %q, want %s %q", l.Name, web[i].Color, web[i].Description, l.Color, l.Description)
				}
			}
			for _, l := range fakegithub.Default().Labels(owner, "web") {
				if slices.ContainsFunc(fakegithub.Default().Labels(owner, "engine"), func(e fakegithub.Label) bool { return e.Name == l.Name }) {
					continue
				}
				i := slices.IndexFunc(web, func(w fakegithub.Label) bool { return w.Name == l.Name })
				if i < 0 || web[i] != l {
					return fmt.Errorf("web's own label %q was changed or deleted", l.Name)
				}
			}
			if n, want := len(web), len(unionNames()); n != want {
				return fmt.Errorf("web has %d labels, want %d", n, want)
			}
			return nil
		},
	}
}

// pullsByAuthor: count the open pull requests by author, most first.
func pullsByAuthor() task {
	return task{
		name:    "gh-pulls-by-author",
		text:    "Summarise the open pull requests of the GitHub repository codemode-dev/engine by author: for each author, how many open pull requests they have, most first.",
		queries: queriesFor(listPulls),
		plan: func(c *caller) (string, error) {
			res, err := c.do(listPulls, map[string]any{"owner": owner, "repo": "engine", "state": "open", "per_page": 100})
			if err != nil {
				return "", err
			}
			var pulls []issue
			if err := json.Unmarshal(res, &pulls); err != nil {
				return "", err
			}
			count := map[string]int{}
			for _, p := range pulls {
				count[p.User.Login]++
			}
			return summary(count), nil
		},
		script: `const pulls = await tools.github.pulls_list({owner: "codemode-dev", repo: "engine", state: "open", per_page: 100});
const count = {};
for (const p of pulls) count[p.user.login] = (count[p.user.login] ?? 0) + 1;
return count;`,
		answer: func(res json.RawMessage) (string, error) {
			var count map[string]int
			if err := json.Unmarshal(res, &count); err != nil {
				return "", err
			}
			return summary(count), nil
		},
		check: func(gh *fakegithub.Server, answer string) error {
			count := map[string]int{}
			for _, p := range gh.Pulls(owner, "engine") {
				if p.State == "open" {
					count[p.User]++
				}
			}
			// Authors with as many pull requests as each other may come in
			// any order: the answer is read in its own order, and its
			// counts must never rise.
			at := map[string]int{}
			for a := range count {
				m := regexp.MustCompile(regexp.QuoteMeta(a) + `\D{0,20}?(\d+)`).FindStringSubmatchIndex(answer)
				if m == nil || answer[m[2]:m[3]] != fmt.Sprint(count[a]) {
					return fmt.Errorf("the answer does not give %s's %d open pull requests: %q", a, count[a], answer)
				}
				at[a] = m[0]
			}
			listed := slices.SortedFunc(maps.Keys(at), func(a, b string) int { return at[a] - at[b] })
			for i := 1; i < len(listed); i++ {
				if count[listed[i]] > count[listed[i-1]] {
					return fmt.Errorf("the answer does not list the authors most first (%s before %s): %q", listed[i-1], listed[i], answer)
				}
			}
			return nil
		},
	}
}

// summary is the answer of pullsByAuthor: authors by count, most first.
func summary(count map[string]int) string {
	var parts []string
	for _, a := range byCount(count) {
		parts = append(parts, fmt.Sprintf("%s: %d", a, count[a]))
	}
	return "Open pull requests by author: " + strings.Join(parts, ", ") + "."
}

// byCount is count's keys, largest count first, then by name.
func byCount(count map[string]int) []string {
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if count[a] != count[b] {
			return count[b] - count[a]
		}
		return strings.Compare(a, b)
	})
	return keys
}

// unionNames are the labels web has once engine's are copied.
func unionNames() map[string]bool {
	names := map[string]bool{}
	for _, repo := range []string{"engine", "web"} {
		for _, l := range fakegithub.Default().Labels(owner, repo) {
			names[strings.ToLower(l.Name)] = true
		}
	}
	return names
}

func find(list []fakegithub.Issue, number int) fakegithub.Issue {
	i := slices.IndexFunc(list, func(i fakegithub.Issue) bool { return i.Number == number })
	if i < 0 {
		return fakegithub.Issue{}
	}
	return list[i]
}

func withoutCrash(labels []string) []string {
	return slices.DeleteFunc(slices.Clone(labels), func(l string) bool { return l == "crash" })
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// with is args with one more member.
func with(args map[string]any, k string, v any) map[string]any {
	out := maps.Clone(args)
	out[k] = v
	return out
}
