package fakegithub

import (
	"strings"
)

// listPulls is GET /repos/{owner}/{repo}/pulls: state, head ("owner:branch"
// or a branch), base, sort (created, updated, popularity: comments,
// long-running: created, only those opened over a month before the fake
// clock's now), direction (desc by default for created, asc otherwise),
// paginated.
func (s *Server) listPulls(c *call) reply {
	state, fail := c.enum("state", "open", "open", "closed", "all")
	if fail != nil {
		return *fail
	}
	by, fail := c.enum("sort", "created", "created", "updated", "popularity", "long-running")
	if fail != nil {
		return *fail
	}
	def := "asc"
	if by == "created" {
		def = "desc"
	}
	dir, fail := c.enum("direction", def, "asc", "desc")
	if fail != nil {
		return *fail
	}
	head, base := c.query.Get("head"), c.query.Get("base")
	var list []*issue
	for _, i := range c.repo.issues {
		p := i.pull
		if p == nil || (state != "all" && i.state != state) || (base != "" && p.base != base) ||
			(head != "" && !strings.EqualFold(head, c.repo.owner+":"+p.head) && head != p.head) ||
			(by == "long-running" && !i.created.Before(s.now.AddDate(0, -1, 0))) {
			continue
		}
		list = append(list, i)
	}
	sortIssues(list, by, dir)
	return pageOf(c, list, func(i *issue) pullJSON { return s.pullJSON(c.repo, i) })
}
