package fakegithub

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// The state of a Server. Issue labels point at their repository's labels, so
// that renaming a label renames it on every issue, as on GitHub.

type user struct {
	login       string
	id          int64
	typ         string // "User", "Bot" or "Organization"
	association string // author_association: "MEMBER", "CONTRIBUTOR", "NONE"
}

type label struct {
	id                       int64
	name, color, description string
	dflt                     bool
}

type comment struct {
	id               int64
	user, body       string
	created, updated time.Time
}

type issue struct {
	number                   int
	id                       int64
	title                    string
	body                     *string // nil when there is none
	user                     string
	state, stateReason       string // stateReason "" when none
	labels                   []*label
	assignees                []string
	comments                 []*comment
	created, updated, closed time.Time // closed zero while open
	pull                     *pull     // nil for an issue
}

type pull struct {
	id         int64
	head, base string
	draft      bool
	merged     time.Time // zero unless merged
}

type repo struct {
	id                                 int64
	owner, name, description, language string
	created, pushed                    time.Time
	labels                             []*label
	issues                             []*issue // issues[n-1] is number n
}

// labelNamed returns the repository's label of that name, compared without
// case as GitHub does.
func (r *repo) labelNamed(name string) *label {
	for _, l := range r.labels {
		if strings.EqualFold(l.name, name) {
			return l
		}
	}
	return nil
}

// sortLabels orders labels as GitHub lists them: by name, without case.
func sortLabels(ls []*label) {
	slices.SortFunc(ls, func(a, b *label) int {
		return cmp.Or(strings.Compare(strings.ToLower(a.name), strings.ToLower(b.name)), cmp.Compare(a.id, b.id))
	})
}

// Label is a snapshot of a repository's label.
type Label struct {
	ID          int64
	Name        string
	Color       string // six hexadecimal digits, no '#'
	Description string
	Default     bool
}

// Issue is a snapshot of an issue or a pull request (they share their
// numbers, as on GitHub).
type Issue struct {
	Number      int
	ID          int64
	Title       string
	Body        string
	User        string // the author's login
	State       string // "open" or "closed"
	StateReason string // "completed", "not_planned", "reopened"...; "" when none
	Labels      []string
	Assignees   []string
	Comments    int
	CreatedAt   time.Time
	UpdatedAt   time.Time
	ClosedAt    time.Time // zero while open

	// Set for a pull request only.
	PullRequest bool
	Head, Base  string // branch names
	Draft       bool
	MergedAt    time.Time // zero unless merged
}

// Comment is a snapshot of a comment on an issue or pull request.
type Comment struct {
	ID        int64
	Issue     int // the number of its issue or pull request
	User      string
	Body      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

func (s *Server) repo(owner, name string) *repo {
	return s.repos[strings.ToLower(owner+"/"+name)]
}

// Issues returns the issues and pull requests of a repository by number
// (nil for a repository the fake does not have), their labels by name.
func (s *Server) Issues(owner, name string) []Issue {
	return s.issues(owner, name, func(*issue) bool { return true })
}

// Pulls returns the pull requests of a repository by number, as Issues does.
func (s *Server) Pulls(owner, name string) []Issue {
	return s.issues(owner, name, func(i *issue) bool { return i.pull != nil })
}

func (s *Server) issues(owner, name string, keep func(*issue) bool) []Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(owner, name)
	if r == nil {
		return nil
	}
	out := []Issue{}
	for _, i := range r.issues {
		if keep(i) {
			out = append(out, i.snapshot())
		}
	}
	return out
}

func (i *issue) snapshot() Issue {
	ls := slices.Clone(i.labels)
	sortLabels(ls)
	out := Issue{
		Number: i.number, ID: i.id, Title: i.title, User: i.user,
		State: i.state, StateReason: i.stateReason,
		Labels:    []string{},
		Assignees: slices.Clone(i.assignees),
		Comments:  len(i.comments),
		CreatedAt: i.created, UpdatedAt: i.updated, ClosedAt: i.closed,
	}
	if i.body != nil {
		out.Body = *i.body
	}
	for _, l := range ls {
		out.Labels = append(out.Labels, l.name)
	}
	if i.pull != nil {
		out.PullRequest = true
		out.Head, out.Base, out.Draft, out.MergedAt = i.pull.head, i.pull.base, i.pull.draft, i.pull.merged
	}
	return out
}

// Labels returns a repository's labels by name, without case (nil for a
// repository the fake does not have).
func (s *Server) Labels(owner, name string) []Label {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(owner, name)
	if r == nil {
		return nil
	}
	ls := slices.Clone(r.labels)
	sortLabels(ls)
	out := []Label{}
	for _, l := range ls {
		out = append(out, Label{ID: l.id, Name: l.name, Color: l.color, Description: l.description, Default: l.dflt})
	}
	return out
}

// Comments returns the comments on an issue or pull request, oldest first
// (nil when the repository or issue does not exist).
func (s *Server) Comments(owner, name string, number int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repo(owner, name)
	if r == nil || number < 1 || number > len(r.issues) {
		return nil
	}
	out := []Comment{}
	for _, c := range r.issues[number-1].comments {
		out = append(out, Comment{ID: c.id, Issue: number, User: c.user, Body: c.body, CreatedAt: c.created, UpdatedAt: c.updated})
	}
	return out
}
