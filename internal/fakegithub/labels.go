package fakegithub

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// defaultColor is the colour of a label created by naming it on an issue,
// as GitHub gives one.
const defaultColor = "ededed"

// labelByName returns the repository label the call's name parameter names,
// compared without case.
func (c *call) labelByName() (*label, *reply) {
	l := c.repo.labelNamed(c.params["name"])
	if l == nil {
		r := c.notFound()
		return nil, &r
	}
	return l, nil
}

// checkLabelNames refuses blank and overlong names before anything changes.
func checkLabelNames(c *call, names []string) *reply {
	for _, n := range names {
		if r := checkLabelName(c, "name", n); r != nil {
			return r
		}
	}
	return nil
}

func checkLabelName(c *call, field, name string) *reply {
	var r reply
	switch {
	case strings.TrimSpace(name) == "":
		r = c.invalid("Label", "missing_field", field, "a label's name cannot be blank")
	case utf8.RuneCountInString(name) > 50:
		r = c.invalid("Label", "invalid", field, "a label's name is too long (maximum is 50 characters)")
	default:
		return nil
	}
	return &r
}

// labelsNamed returns the repository's labels of those names, once each,
// creating the unknown ones with the default colour as GitHub does.
func (s *Server) labelsNamed(r *repo, names []string) []*label {
	out := []*label{}
	for _, n := range names {
		l := r.labelNamed(n)
		if l == nil {
			l = &label{id: s.newID(), name: n, color: defaultColor}
			r.labels = append(r.labels, l)
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// labelsBody reads the body of adding or setting an issue's labels:
// {"labels": [...]} or, as GitHub also takes, the array itself; each label a
// name or {"name": ...}.
func (c *call) labelsBody() ([]string, *reply) {
	var names []string
	if raw := bytes.TrimSpace(c.body); len(raw) > 0 && raw[0] == '[' && json.Valid(raw) {
		var fail *reply
		if names, fail = c.nameList(raw, "labels", "name"); fail != nil {
			return nil, fail
		}
	} else {
		f, fail := c.object()
		if fail != nil {
			return nil, fail
		}
		var ok bool
		if names, ok, fail = f.names("labels", "name"); fail != nil {
			return nil, fail
		}
		if !ok {
			return nil, f.missing("labels")
		}
	}
	return names, checkLabelNames(c, names)
}

func (s *Server) listIssueLabels(c *call) reply {
	i, fail := c.issue()
	if fail != nil {
		return *fail
	}
	return labelPage(c, i.labels)
}

// labelPage answers a page of labels, by name; only the page is made JSON.
func labelPage(c *call, ls []*label) reply {
	ls = slices.Clone(ls)
	sortLabels(ls)
	return pageOf(c, ls, c.repo.labelJSON)
}

// addIssueLabels adds labels to an issue's and answers all its labels.
func (s *Server) addIssueLabels(c *call) reply {
	i, fail := c.issue()
	if fail != nil {
		return *fail
	}
	names, fail := c.labelsBody()
	if fail != nil {
		return *fail
	}
	if len(names) == 0 {
		return *c.invalidRequest("For 'properties/labels', [] has fewer items than the minimum of 1.")
	}
	i.updated = s.tick()
	for _, l := range s.labelsNamed(c.repo, names) {
		if !slices.Contains(i.labels, l) {
			i.labels = append(i.labels, l)
		}
	}
	return reply{status: http.StatusOK, body: c.repo.labelsJSON(i.labels)}
}

// setIssueLabels replaces an issue's labels (an empty list removes them all).
func (s *Server) setIssueLabels(c *call) reply {
	i, fail := c.issue()
	if fail != nil {
		return *fail
	}
	names, fail := c.labelsBody()
	if fail != nil {
		return *fail
	}
	i.updated = s.tick()
	i.labels = s.labelsNamed(c.repo, names)
	return reply{status: http.StatusOK, body: c.repo.labelsJSON(i.labels)}
}

func (s *Server) removeAllIssueLabels(c *call) reply {
	i, fail := c.issue()
	if fail != nil {
		return *fail
	}
	i.updated = s.tick()
	i.labels = nil
	return reply{status: http.StatusNoContent}
}

// removeIssueLabel removes one label from an issue and answers the labels
// left; 404 "Label does not exist" when it is not on that issue.
func (s *Server) removeIssueLabel(c *call) reply {
	i, fail := c.issue()
	if fail != nil {
		return *fail
	}
	k := slices.IndexFunc(i.labels, func(l *label) bool { return strings.EqualFold(l.name, c.params["name"]) })
	if k < 0 {
		return c.fail(http.StatusNotFound, "Label does not exist")
	}
	i.updated = s.tick()
	i.labels = slices.Delete(slices.Clone(i.labels), k, k+1)
	return reply{status: http.StatusOK, body: c.repo.labelsJSON(i.labels)}
}

func (s *Server) listLabels(c *call) reply { return labelPage(c, c.repo.labels) }

func (s *Server) getLabel(c *call) reply {
	l, fail := c.labelByName()
	if fail != nil {
		return *fail
	}
	return reply{status: http.StatusOK, body: c.repo.labelJSON(l)}
}

// labelFields reads a label's color and description: a colour is six
// hexadecimal digits without '#', a description 100 characters at most.
func labelFields(c *call, f fields) (color string, hasColor bool, desc string, hasDesc bool, fail *reply) {
	if color, hasColor, fail = f.str("color"); fail != nil {
		return
	}
	if hasColor && !isHexColor(color) {
		r := c.invalid("Label", "invalid", "color", "a colour is six hexadecimal digits without a leading '#', like \"d73a4a\"")
		return "", false, "", false, &r
	}
	if desc, hasDesc, fail = f.str("description"); fail != nil {
		return
	}
	hasDesc = hasDesc || f.null("description")
	if utf8.RuneCountInString(desc) > 100 {
		r := c.invalid("Label", "invalid", "description", "description is too long (maximum is 100 characters)")
		return "", false, "", false, &r
	}
	return strings.ToLower(color), hasColor, desc, hasDesc, nil
}

func isHexColor(s string) bool {
	if len(s) != 6 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}

// createLabel is POST /repos/{owner}/{repo}/labels: 201, or 422
// already_exists when a label of that name exists, compared without case.
func (s *Server) createLabel(c *call) reply {
	f, fail := c.object()
	if fail != nil {
		return *fail
	}
	name, ok, fail := f.str("name")
	if fail != nil {
		return *fail
	}
	if !ok {
		return *f.missing("name")
	}
	if fail := checkLabelName(c, "name", name); fail != nil {
		return *fail
	}
	color, _, desc, _, fail := labelFields(c, f)
	if fail != nil {
		return *fail
	}
	if c.repo.labelNamed(name) != nil {
		return c.invalid("Label", "already_exists", "name", "")
	}
	s.tick()
	l := &label{id: s.newID(), name: name, color: cmp.Or(color, defaultColor), description: desc}
	c.repo.labels = append(c.repo.labels, l)
	j := c.repo.labelJSON(l)
	return reply{status: http.StatusCreated, body: j, location: j.URL}
}

// updateLabel is PATCH /repos/{owner}/{repo}/labels/{name}: new_name, color,
// description; 422 already_exists when new_name is another label's.
func (s *Server) updateLabel(c *call) reply {
	l, fail := c.labelByName()
	if fail != nil {
		return *fail
	}
	f, fail := c.object()
	if fail != nil {
		return *fail
	}
	newName, hasName, fail := f.str("new_name")
	if fail != nil {
		return *fail
	}
	if hasName {
		if fail := checkLabelName(c, "new_name", newName); fail != nil {
			return *fail
		}
		if other := c.repo.labelNamed(newName); other != nil && other != l {
			return c.invalid("Label", "already_exists", "name", "")
		}
	}
	color, hasColor, desc, hasDesc, fail := labelFields(c, f)
	if fail != nil {
		return *fail
	}
	s.tick()
	if hasName {
		l.name = newName
	}
	if hasColor {
		l.color = color
	}
	if hasDesc {
		l.description = desc
	}
	return reply{status: http.StatusOK, body: c.repo.labelJSON(l)}
}

// deleteLabel deletes a label from the repository and every issue.
func (s *Server) deleteLabel(c *call) reply {
	l, fail := c.labelByName()
	if fail != nil {
		return *fail
	}
	s.tick()
	c.repo.labels = slices.DeleteFunc(slices.Clone(c.repo.labels), func(x *label) bool { return x == l })
	for _, i := range c.repo.issues {
		i.labels = slices.DeleteFunc(slices.Clone(i.labels), func(x *label) bool { return x == l })
	}
	return reply{status: http.StatusNoContent}
}
