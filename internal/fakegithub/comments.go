package fakegithub

import (
	"net/http"
	"strings"
	"unicode/utf8"
)

// listComments is GET /repos/{owner}/{repo}/issues/{issue_number}/comments:
// oldest first, since (updated at or after), paginated.
func (s *Server) listComments(c *call) reply {
	i, fail := c.issue()
	if fail != nil {
		return *fail
	}
	since, fail := c.since()
	if fail != nil {
		return *fail
	}
	var recent []*comment
	for _, cm := range i.comments {
		if !cm.updated.Before(since) {
			recent = append(recent, cm)
		}
	}
	return pageOf(c, recent, func(cm *comment) commentJSON { return s.commentJSON(c.repo, i, cm) })
}

// createComment is POST /repos/{owner}/{repo}/issues/{issue_number}/comments
// {body}: 201, by Agent; the commented issue's count and updated_at follow.
func (s *Server) createComment(c *call) reply {
	i, fail := c.issue()
	if fail != nil {
		return *fail
	}
	f, fail := c.object()
	if fail != nil {
		return *fail
	}
	body, ok, fail := f.str("body")
	switch {
	case fail != nil:
		return *fail
	case !ok:
		return *f.missing("body")
	case strings.TrimSpace(body) == "":
		return c.invalid("IssueComment", "missing_field", "body", "body cannot be blank")
	case utf8.RuneCountInString(body) > 65536:
		return c.invalid("IssueComment", "invalid", "body", "body is too long (maximum is 65536 characters)")
	}
	now := s.tick()
	cm := &comment{id: s.newID(), user: Agent, body: body, created: now, updated: now}
	i.comments = append(i.comments, cm)
	i.updated = now
	j := s.commentJSON(c.repo, i, cm)
	return reply{status: http.StatusCreated, body: j, location: j.URL}
}
