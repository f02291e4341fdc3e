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

// The JSON shapes of GitHub's answers: the required fields of the
// description's schemas (simple-user, label, issue, issue-comment,
// pull-request-simple, full-repository) and a few optional ones a model
// reads (state_reason, assignees, draft, author_association). Each is built
// afresh from the state under the lock, so it can be marshalled after the
// lock is released.

type userJSON struct {
	Login             string `json:"login"`
	ID                int64  `json:"id"`
	NodeID            string `json:"node_id"`
	AvatarURL         string `json:"avatar_url"`
	GravatarID        string `json:"gravatar_id"`
	URL               string `json:"url"`
	HTMLURL           string `json:"html_url"`
	FollowersURL      string `json:"followers_url"`
	FollowingURL      string `json:"following_url"`
	GistsURL          string `json:"gists_url"`
	StarredURL        string `json:"starred_url"`
	SubscriptionsURL  string `json:"subscriptions_url"`
	OrganizationsURL  string `json:"organizations_url"`
	ReposURL          string `json:"repos_url"`
	EventsURL         string `json:"events_url"`
	ReceivedEventsURL string `json:"received_events_url"`
	Type              string `json:"type"`
	UserViewType      string `json:"user_view_type"`
	SiteAdmin         bool   `json:"site_admin"`
}

func (s *Server) user(login string) user {
	u, ok := s.users[strings.ToLower(login)]
	if !ok { // not reached with the fixture's users; a stable id all the same
		h := fnv.New32a()
		h.Write([]byte(login))
		u = user{login: login, id: 100_000 + int64(h.Sum32()%900_000), typ: "User", association: "NONE"}
	}
	return u
}

func (s *Server) userJSON(login string) userJSON {
	u := s.user(login)
	api := apiURL + "/users/" + url.PathEscape(u.login)
	return userJSON{
		Login: u.login, ID: u.id, NodeID: nodeID("U_kgDO", u.id),
		AvatarURL: fmt.Sprintf("https://avatars.githubusercontent.com/u/%d?v=4", u.id),
		URL:       api, HTMLURL: webURL + "/" + url.PathEscape(u.login),
		FollowersURL: api + "/followers", FollowingURL: api + "/following{/other_user}", GistsURL: api + "/gists{/gist_id}",
		StarredURL: api + "/starred{/owner}{/repo}", SubscriptionsURL: api + "/subscriptions", OrganizationsURL: api + "/orgs",
		ReposURL: api + "/repos", EventsURL: api + "/events{/privacy}", ReceivedEventsURL: api + "/received_events",
		Type: u.typ, UserViewType: "public",
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
	Association      string         `json:"author_association"`
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
		ClosedAt: optionalTime(i.closed), CreatedAt: i.created, UpdatedAt: i.updated, Association: s.user(i.user).association,
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
	ID          int64     `json:"id"`
	NodeID      string    `json:"node_id"`
	URL         string    `json:"url"`
	HTMLURL     string    `json:"html_url"`
	IssueURL    string    `json:"issue_url"`
	Body        string    `json:"body"`
	User        userJSON  `json:"user"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	Association string    `json:"author_association"`
}

func (s *Server) commentJSON(r *repo, i *issue, c *comment) commentJSON {
	return commentJSON{
		ID: c.id, NodeID: nodeID("IC_kwDO", c.id), URL: fmt.Sprintf("%s/issues/comments/%d", r.apiURL(), c.id),
		HTMLURL: fmt.Sprintf("%s#issuecomment-%d", i.htmlURL(r), c.id), IssueURL: i.apiURL(r),
		Body: c.body, User: s.userJSON(c.user), CreatedAt: c.created, UpdatedAt: c.updated, Association: s.user(c.user).association,
	}
}

type branchJSON struct {
	Label string         `json:"label"`
	Ref   string         `json:"ref"`
	SHA   string         `json:"sha"`
	User  userJSON       `json:"user"`
	Repo  map[string]any `json:"repo"`
}

type href struct {
	Href string `json:"href"`
}

type pullJSON struct {
	URL                string          `json:"url"`
	ID                 int64           `json:"id"`
	NodeID             string          `json:"node_id"`
	HTMLURL            string          `json:"html_url"`
	DiffURL            string          `json:"diff_url"`
	PatchURL           string          `json:"patch_url"`
	IssueURL           string          `json:"issue_url"`
	CommitsURL         string          `json:"commits_url"`
	ReviewCommentsURL  string          `json:"review_comments_url"`
	ReviewCommentURL   string          `json:"review_comment_url"`
	CommentsURL        string          `json:"comments_url"`
	StatusesURL        string          `json:"statuses_url"`
	Number             int             `json:"number"`
	State              string          `json:"state"`
	Locked             bool            `json:"locked"`
	Title              string          `json:"title"`
	User               userJSON        `json:"user"`
	Body               *string         `json:"body"`
	Labels             []labelJSON     `json:"labels"`
	Milestone          *struct{}       `json:"milestone"`
	ActiveLockReason   *string         `json:"active_lock_reason"`
	CreatedAt          time.Time       `json:"created_at"`
	UpdatedAt          time.Time       `json:"updated_at"`
	ClosedAt           *time.Time      `json:"closed_at"`
	MergedAt           *time.Time      `json:"merged_at"`
	MergeCommitSHA     *string         `json:"merge_commit_sha"`
	Assignee           *userJSON       `json:"assignee"`
	Assignees          []userJSON      `json:"assignees"`
	RequestedReviewers []userJSON      `json:"requested_reviewers"`
	RequestedTeams     []struct{}      `json:"requested_teams"`
	Head               branchJSON      `json:"head"`
	Base               branchJSON      `json:"base"`
	Links              map[string]href `json:"_links"`
	Association        string          `json:"author_association"`
	AutoMerge          *struct{}       `json:"auto_merge"`
	Draft              bool            `json:"draft"`
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
	iu := i.apiURL(r)
	owner, rj := s.userJSON(r.owner), s.repoJSON(r)
	head := fakeSHA(r.owner, r.name, p.head, "head")
	out := pullJSON{
		URL: u, ID: p.id, NodeID: nodeID("PR_kwDO", p.id), HTMLURL: h, DiffURL: h + ".diff", PatchURL: h + ".patch",
		IssueURL: iu, CommitsURL: u + "/commits", ReviewCommentsURL: u + "/comments", ReviewCommentURL: r.apiURL() + "/pulls/comments{/number}",
		CommentsURL: iu + "/comments", StatusesURL: r.apiURL() + "/statuses/" + head, Number: i.number, State: i.state,
		Title: i.title, User: s.userJSON(i.user), Labels: r.labelsJSON(i.labels),
		CreatedAt: i.created, UpdatedAt: i.updated, ClosedAt: optionalTime(i.closed), MergedAt: optionalTime(p.merged),
		Assignees: s.usersJSON(i.assignees), RequestedReviewers: []userJSON{}, RequestedTeams: []struct{}{},
		Head: branchJSON{Label: r.owner + ":" + p.head, Ref: p.head, SHA: head, User: owner, Repo: rj},
		Base: branchJSON{Label: r.owner + ":" + p.base, Ref: p.base, SHA: fakeSHA(r.owner, r.name, p.base, "base"), User: owner, Repo: rj},
		Links: map[string]href{
			"self": {u}, "html": {h}, "issue": {iu}, "comments": {iu + "/comments"}, "review_comments": {u + "/comments"},
			"review_comment": {r.apiURL() + "/pulls/comments{/number}"}, "commits": {u + "/commits"}, "statuses": {r.apiURL() + "/statuses/" + head},
		},
		Association: s.user(i.user).association, Draft: p.draft,
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
	return out
}

// repoURLs are the URL templates of a repository object, after its API URL.
var repoURLs = map[string]string{
	"archive_url": "/{archive_format}{/ref}", "assignees_url": "/assignees{/user}", "blobs_url": "/git/blobs{/sha}",
	"branches_url": "/branches{/branch}", "collaborators_url": "/collaborators{/collaborator}", "comments_url": "/comments{/number}",
	"commits_url": "/commits{/sha}", "compare_url": "/compare/{base}...{head}", "contents_url": "/contents/{+path}",
	"contributors_url": "/contributors", "deployments_url": "/deployments", "downloads_url": "/downloads", "events_url": "/events",
	"forks_url": "/forks", "git_commits_url": "/git/commits{/sha}", "git_refs_url": "/git/refs{/sha}", "git_tags_url": "/git/tags{/sha}",
	"hooks_url": "/hooks", "issue_comment_url": "/issues/comments{/number}", "issue_events_url": "/issues/events{/number}",
	"issues_url": "/issues{/number}", "keys_url": "/keys{/key_id}", "labels_url": "/labels{/name}", "languages_url": "/languages",
	"merges_url": "/merges", "milestones_url": "/milestones{/number}", "notifications_url": "/notifications{?since,all,participating}",
	"pulls_url": "/pulls{/number}", "releases_url": "/releases{/id}", "stargazers_url": "/stargazers", "statuses_url": "/statuses/{sha}",
	"subscribers_url": "/subscribers", "subscription_url": "/subscription", "tags_url": "/tags", "teams_url": "/teams", "trees_url": "/git/trees{/sha}",
}

// repoJSON is a repository object (full-repository), a map for its many
// URL templates; json.Marshal sorts its keys, so it is deterministic.
func (s *Server) repoJSON(r *repo) map[string]any {
	open := 0 // GitHub counts open pull requests as open issues here
	for _, i := range r.issues {
		if i.state == "open" {
			open++
		}
	}
	u, web := r.apiURL(), r.webURL()
	m := map[string]any{
		"id": r.id, "node_id": nodeID("R_kgDO", r.id), "name": r.name, "full_name": r.owner + "/" + r.name,
		"owner": s.userJSON(r.owner), "private": false, "html_url": web, "description": optional(r.description), "fork": false,
		"url": u, "git_url": "git://github.com/" + r.owner + "/" + r.name + ".git", "ssh_url": "git@github.com:" + r.owner + "/" + r.name + ".git",
		"clone_url": web + ".git", "svn_url": web, "mirror_url": nil, "homepage": nil, "language": optional(r.language),
		"forks_count": 0, "forks": 0, "stargazers_count": 0, "watchers_count": 0, "watchers": 0, "subscribers_count": 0, "network_count": 0,
		"size": 2048, "default_branch": "main", "open_issues_count": open, "open_issues": open, "topics": []string{},
		"has_issues": true, "has_projects": false, "has_wiki": false, "has_pages": false, "has_downloads": false, "has_discussions": false,
		"archived": false, "disabled": false, "visibility": "public", "license": nil,
		"pushed_at": r.pushed, "created_at": r.created, "updated_at": r.pushed,
	}
	for k, v := range repoURLs {
		m[k] = u + v
	}
	return m
}
