package fakegithub

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// route is one operation of GitHub's description the fake serves.
type route struct {
	method string
	path   string // as the description spells it, {name} for a parameter
	doc    string // the operation's externalDocs URL, GitHub's documentation_url
	// unsupported lists the query parameters the description gives the
	// operation that the fake does not implement: a request using one
	// answers 501 rather than a listing that ignores it.
	unsupported []string
	handle      func(*Server, *call) reply
}

// routes are the operations served; every other request answers 501.
var routes = []*route{
	{method: "GET", path: "/repos/{owner}/{repo}", doc: "https://docs.github.com/rest/repos/repos#get-a-repository", handle: (*Server).getRepo},
	{method: "GET", path: "/repos/{owner}/{repo}/issues", doc: "https://docs.github.com/rest/issues/issues#list-repository-issues",
		unsupported: []string{"milestone", "type", "mentioned", "issue_field_values"}, handle: (*Server).listIssues},
	{method: "GET", path: "/repos/{owner}/{repo}/issues/{issue_number}", doc: "https://docs.github.com/rest/issues/issues#get-an-issue", handle: (*Server).getIssue},
	{method: "PATCH", path: "/repos/{owner}/{repo}/issues/{issue_number}", doc: "https://docs.github.com/rest/issues/issues#update-an-issue", handle: (*Server).updateIssue},
	{method: "GET", path: "/repos/{owner}/{repo}/issues/{issue_number}/comments", doc: "https://docs.github.com/rest/issues/comments#list-issue-comments", handle: (*Server).listComments},
	{method: "POST", path: "/repos/{owner}/{repo}/issues/{issue_number}/comments", doc: "https://docs.github.com/rest/issues/comments#create-an-issue-comment", handle: (*Server).createComment},
	{method: "GET", path: "/repos/{owner}/{repo}/issues/{issue_number}/labels", doc: "https://docs.github.com/rest/issues/labels#list-labels-for-an-issue", handle: (*Server).listIssueLabels},
	{method: "POST", path: "/repos/{owner}/{repo}/issues/{issue_number}/labels", doc: "https://docs.github.com/rest/issues/labels#add-labels-to-an-issue", handle: (*Server).addIssueLabels},
	{method: "PUT", path: "/repos/{owner}/{repo}/issues/{issue_number}/labels", doc: "https://docs.github.com/rest/issues/labels#set-labels-for-an-issue", handle: (*Server).setIssueLabels},
	{method: "DELETE", path: "/repos/{owner}/{repo}/issues/{issue_number}/labels", doc: "https://docs.github.com/rest/issues/labels#remove-all-labels-from-an-issue", handle: (*Server).removeAllIssueLabels},
	{method: "DELETE", path: "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", doc: "https://docs.github.com/rest/issues/labels#remove-a-label-from-an-issue", handle: (*Server).removeIssueLabel},
	{method: "GET", path: "/repos/{owner}/{repo}/labels", doc: "https://docs.github.com/rest/issues/labels#list-labels-for-a-repository", handle: (*Server).listLabels},
	{method: "POST", path: "/repos/{owner}/{repo}/labels", doc: "https://docs.github.com/rest/issues/labels#create-a-label", handle: (*Server).createLabel},
	{method: "GET", path: "/repos/{owner}/{repo}/labels/{name}", doc: "https://docs.github.com/rest/issues/labels#get-a-label", handle: (*Server).getLabel},
	{method: "PATCH", path: "/repos/{owner}/{repo}/labels/{name}", doc: "https://docs.github.com/rest/issues/labels#update-a-label", handle: (*Server).updateLabel},
	{method: "DELETE", path: "/repos/{owner}/{repo}/labels/{name}", doc: "https://docs.github.com/rest/issues/labels#delete-a-label", handle: (*Server).deleteLabel},
	{method: "GET", path: "/repos/{owner}/{repo}/pulls", doc: "https://docs.github.com/rest/pulls/pulls#list-pull-requests", handle: (*Server).listPulls},
}

// match finds the route of method and an escaped path, and its parameters
// unescaped (a label's name may hold spaces or slashes).
func match(method, escaped string) (*route, map[string]string) {
	segs := strings.Split(escaped, "/")
	for _, rt := range routes {
		if rt.method != method {
			continue
		}
		pat := strings.Split(rt.path, "/")
		if len(pat) != len(segs) {
			continue
		}
		params := map[string]string{}
		ok := true
		for i, p := range pat {
			if name, isParam := strings.CutPrefix(p, "{"); isParam {
				v, err := url.PathUnescape(segs[i])
				if err != nil || v == "" {
					ok = false
					break
				}
				params[strings.TrimSuffix(name, "}")] = v
			} else if p != segs[i] {
				ok = false
				break
			}
		}
		if ok {
			return rt, params
		}
	}
	return nil, nil
}

// apiError is GitHub's error body (basic-error, validation-error).
type apiError struct {
	Message          string       `json:"message"`
	Errors           []fieldError `json:"errors,omitempty"`
	DocumentationURL string       `json:"documentation_url,omitempty"`
	Status           string       `json:"status"`
}

// fieldError is one entry of a validation error's errors.
type fieldError struct {
	Resource string `json:"resource,omitempty"`
	Code     string `json:"code"`
	Field    string `json:"field,omitempty"`
	Message  string `json:"message,omitempty"`
}

// fail answers status with GitHub's error body for the call's operation.
func (c *call) fail(status int, msg string) reply {
	return reply{status: status, body: apiError{Message: msg, DocumentationURL: c.route.doc, Status: strconv.Itoa(status)}}
}

// notFound is GitHub's 404, for a repository, issue or label that does not
// exist (GitHub does not say which).
func (c *call) notFound() reply { return c.fail(http.StatusNotFound, "Not Found") }

// invalid is GitHub's 422 for a validation error: what is wrong with which
// field of which resource.
func (c *call) invalid(resource, code, field, msg string) reply {
	return reply{status: http.StatusUnprocessableEntity, body: apiError{
		Message:          "Validation Failed",
		Errors:           []fieldError{{Resource: resource, Code: code, Field: field, Message: msg}},
		DocumentationURL: c.route.doc,
		Status:           "422",
	}}
}
