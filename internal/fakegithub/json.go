package fakegithub

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"net/url"
	"strings"
	"time"
)

// The JSON shapes of GitHub's answers, with the fields of the description's
// schemas (simple-user, label, issue, issue-comment, pull-request-simple,
// full-repository) that the fake fills in. Each is built afresh from the
// state under the lock, so it can be marshalled after the lock is released.

type userJSON struct {
	Login     string `json:"login"`
	ID        int64  `json:"id"`
	NodeID    string `json:"node_id"`
	AvatarURL string `json:"avatar_url"`
	URL       string `json:"url"`
	HTMLURL   string `json:"html_url"`
	Type      string `json:"type"`
	SiteAdmin bool   `json:"site_admin"`
}

func (s *Server) userJSON(login string) userJSON {
	u, ok := s.users[strings.ToLower(login)]
	if !ok { // not reached with the fixture's users; a stable id all the same
		h := fnv.New32a()
		h.Write([]byte(login))
		u = user{login: login, id: 100_000 + int64(h.Sum32()%900_000), typ: "User"}
	}
	return userJSON{
		Login: u.login, ID: u.id, NodeID: nodeID("U_kgDO", u.id),
		AvatarURL: fmt.Sprintf("https://avatars.githubusercontent.com/u/%d?v=4", u.id),
		URL:       apiURL + "/users/" + url.PathEscape(u.login), HTMLURL: webURL + "/" + url.PathEscape(u.login),
		Type: u.typ,
	}
}

func (s *Server) usersJSON(logins []string) []userJSON {
	out := []userJSON{}
	for _, l := range logins {
		out = append(out, s.userJSON(l))
	}
	return out
}

// nodeID makes a GraphQL node id of a kind's prefix and a numeric id.
func nodeID(prefix string, id int64) string { return fmt.Sprintf("%s%010d", prefix, id) }

// optional is a nullable string: nil for "".
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// optionalTime is a nullable timestamp: nil for the zero time.
func optionalTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func (r *repo) apiURL() string {
	return apiURL + "/repos/" + url.PathEscape(r.owner) + "/" + url.PathEscape(r.name)
}

func (r *repo) webURL() string {
	return webURL + "/" + url.PathEscape(r.owner) + "/" + url.PathEscape(r.name)
}

type labelJSON struct {
	ID          int64   `json:"id"`
	NodeID      string  `json:"node_id"`
	URL         string  `json:"url"`
	Name        string  `json:"name"`
	Color       string  `json:"color"`
	Default     bool    `json:"default"`
	Description *string `json:"description"`
}

func (r *repo) labelJSON(l *label) labelJSON {
	return labelJSON{
		ID: l.id, NodeID: nodeID("LA_kwDO", l.id), URL: r.apiURL() + "/labels/" + url.PathEscape(l.name),
		Name: l.name, Color: l.color, Default: l.dflt, Description: optional(l.description),
	}
}

// labelsJSON lists labels as GitHub does: by name, without case.
func (r *repo) labelsJSON(ls []*label) []labelJSON {
	ls = append([]*label(nil), ls...)
	sortLabels(ls)
	out := []labelJSON{}
	for _, l := range ls {
		out = append(out, r.labelJSON(l))
	}
	return out
}

type issueJSON struct {
	ID               int64          `json:"id"`
	NodeID           string         `json:"node_id"`
	URL              string         `json:"url"`
	RepositoryURL    string         `json:"repository_url"`
	LabelsURL        string         `json:"labels_url"`
	CommentsURL      string         `json:"comments_url"`
	EventsURL        string         `json:"events_url"`
	HTMLURL          string         `json:"html_url"`
	Number           int            `json:"number"`
	State            string         `json:"state"`
	StateReason      *string        `json:"state_reason"`
	Title            string         `json:"title"`
	Body             *string        `json:"body"`
	User             userJSON       `json:"user"`
	Labels           []labelJSON    `json:"labels"`
	Assignee         *userJSON      `json:"assignee"`
	Assignees        []userJSON     `json:"assignees"`
	Milestone        *struct{}      `json:"milestone"`
	Locked           bool           `json:"locked"`
	ActiveLockReason *string        `json:"active_lock_reason"`
	Comments         int            `json:"comments"`
	PullRequest      *issuePullJSON `json:"pull_request,omitempty"`
	ClosedAt         *time.Time     `json:"closed_at"`
	CreatedAt        time.Time      `json:"created_at"`
	UpdatedAt        time.Time      `json:"updated_at"`
	Draft            *bool          `json:"draft,omitempty"`
}

// issuePullJSON is an issue's pull_request key, which marks a pull request
// in the issues' listings.
type issuePullJSON struct {
	URL      string     `json:"url"`
	HTMLURL  string     `json:"html_url"`
	DiffURL  string     `json:"diff_url"`
	PatchURL string     `json:"patch_url"`
	MergedAt *time.Time `json:"merged_at"`
}

func (i *issue) apiURL(r *repo) string { return fmt.Sprintf("%s/issues/%d", r.apiURL(), i.number) }

func (i *issue) htmlURL(r *repo) string {
	if i.pull != nil {
		return fmt.Sprintf("%s/pull/%d", r.webURL(), i.number)
	}
	return fmt.Sprintf("%s/issues/%d", r.webURL(), i.number)
}

func (s *Server) issueJSON(r *repo, i *issue) issueJSON {
	u := i.apiURL(r)
	out := issueJSON{
		ID: i.id, NodeID: nodeID("I_kwDO", i.id), URL: u, RepositoryURL: r.apiURL(),
		LabelsURL: u + "/labels{/name}", CommentsURL: u + "/comments", EventsURL: u + "/events", HTMLURL: i.htmlURL(r),
		Number: i.number, State: i.state, StateReason: optional(i.stateReason), Title: i.title, User: s.userJSON(i.user),
		Labels: r.labelsJSON(i.labels), Assignees: s.usersJSON(i.assignees), Comments: len(i.comments),
		ClosedAt: optionalTime(i.closed), CreatedAt: i.created, UpdatedAt: i.updated,
	}
	if i.body != nil {
		b := *i.body
		out.Body = &b
	}
	if len(i.assignees) > 0 {
		a := s.userJSON(i.assignees[0])
		out.Assignee = &a
	}
	if p := i.pull; p != nil {
		pu := fmt.Sprintf("%s/pulls/%d", r.apiURL(), i.number)
		h := i.htmlURL(r)
		out.PullRequest = &issuePullJSON{URL: pu, HTMLURL: h, DiffURL: h + ".diff", PatchURL: h + ".patch", MergedAt: optionalTime(p.merged)}
		d := p.draft
		out.Draft = &d
	}
	return out
}

type commentJSON struct {
	ID        int64     `json:"id"`
	NodeID    string    `json:"node_id"`
	URL       string    `json:"url"`
	HTMLURL   string    `json:"html_url"`
	IssueURL  string    `json:"issue_url"`
	Body      string    `json:"body"`
	User      userJSON  `json:"user"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func (s *Server) commentJSON(r *repo, i *issue, c *comment) commentJSON {
	return commentJSON{
		ID: c.id, NodeID: nodeID("IC_kwDO", c.id), URL: fmt.Sprintf("%s/issues/comments/%d", r.apiURL(), c.id),
		HTMLURL: fmt.Sprintf("%s#issuecomment-%d", i.htmlURL(r), c.id), IssueURL: i.apiURL(r),
		Body: c.body, User: s.userJSON(c.user), CreatedAt: c.created, UpdatedAt: c.updated,
	}
}

type branchJSON struct {
	Label string   `json:"label"`
	Ref   string   `json:"ref"`
	SHA   string   `json:"sha"`
	User  userJSON `json:"user"`
}

type pullJSON struct {
	URL                string      `json:"url"`
	ID                 int64       `json:"id"`
	NodeID             string      `json:"node_id"`
	HTMLURL            string      `json:"html_url"`
	DiffURL            string      `json:"diff_url"`
	PatchURL           string      `json:"patch_url"`
	IssueURL           string      `json:"issue_url"`
	CommentsURL        string      `json:"comments_url"`
	Number             int         `json:"number"`
	State              string      `json:"state"`
	Locked             bool        `json:"locked"`
	Title              string      `json:"title"`
	User               userJSON    `json:"user"`
	Body               *string     `json:"body"`
	Labels             []labelJSON `json:"labels"`
	Milestone          *struct{}   `json:"milestone"`
	ActiveLockReason   *string     `json:"active_lock_reason"`
	CreatedAt          time.Time   `json:"created_at"`
	UpdatedAt          time.Time   `json:"updated_at"`
	ClosedAt           *time.Time  `json:"closed_at"`
	MergedAt           *time.Time  `json:"merged_at"`
	MergeCommitSHA     *string     `json:"merge_commit_sha"`
	Assignee           *userJSON   `json:"assignee"`
	Assignees          []userJSON  `json:"assignees"`
	RequestedReviewers []userJSON  `json:"requested_reviewers"`
	Head               branchJSON  `json:"head"`
	Base               branchJSON  `json:"base"`
	AutoMerge          *struct{}   `json:"auto_merge"`
	Draft              bool        `json:"draft"`
	Links              map[string]struct {
		Href string `json:"href"`
	} `json:"_links"`
}

// fakeSHA is a stable commit id for a pull request's branch.
func fakeSHA(parts ...string) string {
	h := sha1.Sum([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:])
}

func (s *Server) pullJSON(r *repo, i *issue) pullJSON {
	p := i.pull
	u := fmt.Sprintf("%s/pulls/%d", r.apiURL(), i.number)
	h := i.htmlURL(r)
	owner := s.userJSON(r.owner)
	out := pullJSON{
		URL: u, ID: p.id, NodeID: nodeID("PR_kwDO", p.id), HTMLURL: h, DiffURL: h + ".diff", PatchURL: h + ".patch",
		IssueURL: i.apiURL(r), CommentsURL: i.apiURL(r) + "/comments", Number: i.number, State: i.state,
		Title: i.title, User: s.userJSON(i.user), Labels: r.labelsJSON(i.labels),
		CreatedAt: i.created, UpdatedAt: i.updated, ClosedAt: optionalTime(i.closed), MergedAt: optionalTime(p.merged),
		Assignees: s.usersJSON(i.assignees), RequestedReviewers: []userJSON{},
		Head:  branchJSON{Label: r.owner + ":" + p.head, Ref: p.head, SHA: fakeSHA(r.owner, r.name, p.head, "head"), User: owner},
		Base:  branchJSON{Label: r.owner + ":" + p.base, Ref: p.base, SHA: fakeSHA(r.owner, r.name, p.base, "base"), User: owner},
		Draft: p.draft,
	}
	if i.body != nil {
		b := *i.body
		out.Body = &b
	}
	if len(i.assignees) > 0 {
		a := s.userJSON(i.assignees[0])
		out.Assignee = &a
	}
	if !p.merged.IsZero() {
		sha := fakeSHA(r.owner, r.name, p.head, "merge")
		out.MergeCommitSHA = &sha
	}
	out.Links = map[string]struct {
		Href string `json:"href"`
	}{"self": {u}, "html": {h}, "issue": {i.apiURL(r)}, "comments": {i.apiURL(r) + "/comments"}}
	return out
}

type repoJSON struct {
	ID              int64     `json:"id"`
	NodeID          string    `json:"node_id"`
	Name            string    `json:"name"`
	FullName        string    `json:"full_name"`
	Owner           userJSON  `json:"owner"`
	Private         bool      `json:"private"`
	HTMLURL         string    `json:"html_url"`
	Description     *string   `json:"description"`
	Fork            bool      `json:"fork"`
	URL             string    `json:"url"`
	IssuesURL       string    `json:"issues_url"`
	LabelsURL       string    `json:"labels_url"`
	PullsURL        string    `json:"pulls_url"`
	Homepage        *string   `json:"homepage"`
	Language        *string   `json:"language"`
	ForksCount      int       `json:"forks_count"`
	StargazersCount int       `json:"stargazers_count"`
	WatchersCount   int       `json:"watchers_count"`
	OpenIssuesCount int       `json:"open_issues_count"`
	DefaultBranch   string    `json:"default_branch"`
	Visibility      string    `json:"visibility"`
	HasIssues       bool      `json:"has_issues"`
	Archived        bool      `json:"archived"`
	Disabled        bool      `json:"disabled"`
	Topics          []string  `json:"topics"`
	PushedAt        time.Time `json:"pushed_at"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
}

func (s *Server) repoJSON(r *repo) repoJSON {
	open := 0 // GitHub counts open pull requests as open issues here
	for _, i := range r.issues {
		if i.state == "open" {
			open++
		}
	}
	u := r.apiURL()
	return repoJSON{
		ID: r.id, NodeID: nodeID("R_kgDO", r.id), Name: r.name, FullName: r.owner + "/" + r.name,
		Owner: s.userJSON(r.owner), HTMLURL: r.webURL(), Description: optional(r.description), URL: u,
		IssuesURL: u + "/issues{/number}", LabelsURL: u + "/labels{/name}", PullsURL: u + "/pulls{/number}",
		Language: optional(r.language), OpenIssuesCount: open, DefaultBranch: "main", Visibility: "public",
		HasIssues: true, Topics: []string{}, PushedAt: r.pushed, CreatedAt: r.created, UpdatedAt: r.pushed,
	}
}
