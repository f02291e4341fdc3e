package fakegithub

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

func (s *Server) getRepo(c *call) reply {
	return reply{status: http.StatusOK, body: s.repoJSON(c.repo)}
}

// issue returns what the call's issue_number names: an issue or a pull request
// (GitHub answers 404 for a number that is not one).
func (c *call) issue() (*issue, *reply) {
	n, err := strconv.Atoi(c.params["issue_number"])
	if err != nil || n < 1 || n > len(c.repo.issues) {
		r := c.notFound()
		return nil, &r
	}
	return c.repo.issues[n-1], nil
}

// listIssues is GET /repos/{owner}/{repo}/issues: issues and pull requests
// (these with a pull_request key), filtered by state, labels (every one
// named), since (updated at or after), creator and assignee ("none", "*" or a
// login), sorted by created, updated or comments, ties by number.
func (s *Server) listIssues(c *call) reply {
	state, fail := c.enum("state", "open", "open", "closed", "all")
	if fail != nil {
		return *fail
	}
	by, fail := c.enum("sort", "created", "created", "updated", "comments")
	if fail != nil {
		return *fail
	}
	dir, fail := c.enum("direction", "desc", "asc", "desc")
	if fail != nil {
		return *fail
	}
	since, fail := c.since()
	if fail != nil {
		return *fail
	}
	want := splitList(c.query.Get("labels"))
	creator, assignee := c.query.Get("creator"), c.query.Get("assignee")
	var list []*issue
	for _, i := range c.repo.issues {
		if (state != "all" && i.state != state) || i.updated.Before(since) ||
			(creator != "" && !strings.EqualFold(i.user, creator)) || !hasLabels(i, want) || !assigned(i, assignee) {
			continue
		}
		list = append(list, i)
	}
	sortIssues(list, by, dir)
	return pageOf(c, list, func(i *issue) issueJSON { return s.issueJSON(c.repo, i) })
}

// hasLabels reports whether i carries every label named (without case).
func hasLabels(i *issue, names []string) bool {
	for _, n := range names {
		if !slices.ContainsFunc(i.labels, func(l *label) bool { return strings.EqualFold(l.name, n) }) {
			return false
		}
	}
	return true
}

// assigned applies the assignee filter: "" any, "none" unassigned, "*"
// assigned to someone, else assigned to that login.
func assigned(i *issue, who string) bool {
	switch who {
	case "":
		return true
	case "none":
		return len(i.assignees) == 0
	case "*":
		return len(i.assignees) > 0
	}
	return slices.ContainsFunc(i.assignees, func(a string) bool { return strings.EqualFold(a, who) })
}

// sortIssues orders issues by created, updated, comments (for pulls also
// popularity, the comments' count), ties broken by number, asc or desc.
func sortIssues(list []*issue, by, dir string) {
	slices.SortStableFunc(list, func(a, b *issue) int {
		var d int
		switch by {
		case "updated":
			d = a.updated.Compare(b.updated)
		case "comments", "popularity":
			d = cmp.Compare(len(a.comments), len(b.comments))
		default:
			d = a.created.Compare(b.created)
		}
		d = cmp.Or(d, cmp.Compare(a.number, b.number))
		if dir == "desc" {
			return -d
		}
		return d
	})
}

func (s *Server) getIssue(c *call) reply {
	i, fail := c.issue()
	if fail != nil {
		return *fail
	}
	return reply{status: http.StatusOK, body: s.issueJSON(c.repo, i)}
}

// updateIssue is PATCH /repos/{owner}/{repo}/issues/{issue_number}: title,
// body, state and state_reason, labels (names; unknown ones are created),
// assignees (logins the fake does not know are dropped, as GitHub drops
// those without access) and the closing-down assignee. The whole body is
// checked before anything changes.
func (s *Server) updateIssue(c *call) reply {
	i, fail := c.issue()
	if fail != nil {
		return *fail
	}
	f, fail := c.object()
	if fail != nil {
		return *fail
	}
	var title string
	if f.has("title") {
		var n int64
		if v, ok, _ := f.str("title"); ok {
			title = v
		} else if f.null("title") || json.Unmarshal(f.o["title"], &n) != nil {
			return *f.wrongType("title", "a string or an integer")
		} else {
			title = strconv.FormatInt(n, 10)
		}
		if strings.TrimSpace(title) == "" {
			return c.invalid("Issue", "missing_field", "title", "title cannot be blank")
		}
		if utf8.RuneCountInString(title) > 256 {
			return c.invalid("Issue", "invalid", "title", "title is too long (maximum is 256 characters)")
		}
	}
	body, hasBody, fail := f.str("body")
	if fail != nil {
		return *fail
	}
	if utf8.RuneCountInString(body) > 65536 {
		return c.invalid("Issue", "invalid", "body", "body is too long (maximum is 65536 characters)")
	}
	state, hasState, fail := f.oneOf("state", "open", "closed")
	if fail != nil {
		return *fail
	}
	reason, _, fail := f.oneOf("state_reason", "completed", "not_planned", "duplicate", "reopened")
	if fail != nil {
		return *fail
	}
	if state == "closed" && reason == "reopened" {
		return c.invalid("Issue", "invalid", "state_reason", `state_reason "reopened" is for reopening an issue, not closing it`)
	}
	labelNames, hasLabels, fail := f.names("labels", "name")
	if fail != nil {
		return *fail
	}
	if fail := checkLabelNames(c, labelNames); fail != nil {
		return *fail
	}
	assignees, hasAssignees, fail := f.names("assignees", "login")
	if fail != nil {
		return *fail
	}
	assignee, hasAssignee, fail := f.str("assignee")
	if fail != nil {
		return *fail
	}
	if f.has("milestone") && !f.null("milestone") {
		return c.invalid("Issue", "invalid", "milestone", "the repository has no milestones")
	}

	now := s.tick()
	if f.has("title") {
		i.title = title
	}
	if hasBody {
		i.body = &body
	} else if f.null("body") {
		i.body = nil
	}
	switch {
	case hasState && state == "closed" && i.state == "open":
		i.state, i.closed, i.stateReason = "closed", now, cmp.Or(reason, "completed")
	case hasState && state == "closed" && reason != "":
		i.stateReason = reason
	case hasState && state == "open" && i.state == "closed":
		i.state, i.closed, i.stateReason = "open", time.Time{}, "reopened"
	}
	if hasLabels {
		i.labels = s.labelsNamed(c.repo, labelNames)
	}
	if hasAssignee || f.null("assignee") {
		assignees, hasAssignees = []string{}, true
		if hasAssignee {
			assignees = []string{assignee}
		}
	}
	if hasAssignees {
		i.assignees = s.knownUsers(assignees)
	}
	i.updated = now
	return reply{status: http.StatusOK, body: s.issueJSON(c.repo, i)}
}

// knownUsers keeps the logins the fake knows, once each, in their own
// spelling.
func (s *Server) knownUsers(logins []string) []string {
	out := []string{}
	for _, l := range logins {
		u, ok := s.users[strings.ToLower(l)]
		if ok && u.typ == "User" && !slices.Contains(out, u.login) {
			out = append(out, u.login)
		}
	}
	return out
}
