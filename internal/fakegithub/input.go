package fakegithub

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/internal/strictjson"
)

// Reading requests: query parameters, JSON bodies, pagination. A mistake
// answers as GitHub does: 400 "Problems parsing JSON" for a body that is not
// JSON, 422 "Invalid request" saying which field is wrong and how for one
// that does not match the operation's schema.

// invalidRequest is GitHub's 422 for a body or query that does not match
// the operation's schema.
func (c *call) invalidRequest(format string, args ...any) *reply {
	r := c.fail(http.StatusUnprocessableEntity, "Invalid request.\n\n"+fmt.Sprintf(format, args...))
	return &r
}

// enum reads a query parameter that takes one of a few values.
func (c *call) enum(name, def string, allowed ...string) (string, *reply) {
	v := c.query.Get(name)
	if !c.query.Has(name) {
		return def, nil
	}
	for _, a := range allowed {
		if v == a {
			return v, nil
		}
	}
	return "", c.invalidRequest("For 'query/%s', %s is not one of %s.", name, strictjson.Quote(v), quoteList(allowed))
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// since reads the since query parameter: a timestamp in ISO 8601 format
// (RFC 3339, or a bare date meaning its midnight UTC).
func (c *call) since() (time.Time, *reply) {
	v := c.query.Get("since")
	if v == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339, time.DateOnly} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, c.invalidRequest("For 'query/since', %s is not a timestamp in ISO 8601 format (YYYY-MM-DDTHH:MM:SSZ).", strictjson.Quote(v))
}

// positive reads an integer query parameter of at least 1.
func (c *call) positive(name string, def int) (int, *reply) {
	v := c.query.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, c.invalidRequest("For 'query/%s', %s is not a positive integer.", name, strictjson.Quote(v))
	}
	return n, nil
}

// pageOf answers the page of list the query asks for (page, per_page), each
// item as js makes it, with the Link header of the pages around it.
func pageOf[E, T any](c *call, list []E, js func(E) T) reply {
	lo, hi, link, fail := c.page(len(list))
	if fail != nil {
		return *fail
	}
	out := make([]T, 0, hi-lo)
	for _, e := range list[lo:hi] {
		out = append(out, js(e))
	}
	return reply{status: http.StatusOK, body: out, link: link}
}

// page cuts a listing of total items into the page the query asks for
// (per_page 30 by default, 100 at most; page from 1), returning its bounds
// and GitHub's Link header: prev and first after the first page, next and
// last before the last one, none when everything fits in one page.
func (c *call) page(total int) (lo, hi int, link string, fail *reply) {
	per, fail := c.positive("per_page", 30)
	if fail != nil {
		return 0, 0, "", fail
	}
	per = min(per, 100)
	p, fail := c.positive("page", 1)
	if fail != nil {
		return 0, 0, "", fail
	}
	last := max(1, (total+per-1)/per)
	lo = total // past the last page: empty, as GitHub answers (and (p-1)*per may overflow)
	if p <= last {
		lo = min(total, (p-1)*per)
	}
	hi = min(total, lo+per)
	var links []string
	add := func(n int, rel string) {
		q := maps.Clone(c.query)
		q.Set("page", strconv.Itoa(n))
		links = append(links, fmt.Sprintf("<%s?%s>; rel=%q", c.self, q.Encode(), rel))
	}
	if p > 1 {
		add(min(p-1, last), "prev")
	}
	if p < last {
		add(p+1, "next")
		add(last, "last")
	}
	if p > 1 {
		add(1, "first")
	}
	return lo, hi, strings.Join(links, ", "), nil
}

// object reads the body as a JSON object; an empty body is an empty object
// (the fields the operation requires are then reported missing).
func (c *call) object() (fields, *reply) {
	f := fields{c: c, o: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(c.body)) == 0 {
		return f, nil
	}
	if !json.Valid(c.body) {
		r := c.fail(http.StatusBadRequest, "Problems parsing JSON")
		return f, &r
	}
	if k := strictjson.Describe(c.body); k != "an object" {
		return f, c.invalidRequest("The body must be a JSON object, not %s.", k)
	}
	if err := json.Unmarshal(c.body, &f.o); err != nil { // not reached: valid JSON, an object
		return f, c.invalidRequest("The body must be a JSON object: %v", err)
	}
	return f, nil
}

// fields are the members of a JSON object body, read with type checks.
type fields struct {
	c *call
	o map[string]json.RawMessage
}

func (f fields) has(name string) bool { _, ok := f.o[name]; return ok }

func (f fields) null(name string) bool {
	return f.has(name) && bytes.Equal(bytes.TrimSpace(f.o[name]), []byte("null"))
}

// wrongType is the 422 for a field of the wrong JSON type.
func (f fields) wrongType(name, want string) *reply {
	raw := strictjson.Excerpt(string(bytes.TrimSpace(f.o[name])))
	return f.c.invalidRequest("For 'properties/%s', %s is not %s.", name, raw, want)
}

// missing is the 422 for a required field left out.
func (f fields) missing(name string) *reply {
	return f.c.invalidRequest("%q wasn't supplied.", name)
}

// str reads a string field; ok is false when it is absent or null.
func (f fields) str(name string) (v string, ok bool, fail *reply) {
	if !f.has(name) || f.null(name) {
		return "", false, nil
	}
	if err := json.Unmarshal(f.o[name], &v); err != nil {
		return "", false, f.wrongType(name, "a string")
	}
	return v, true, nil
}

// oneOf reads a string field that takes one of a few values.
func (f fields) oneOf(name string, allowed ...string) (v string, ok bool, fail *reply) {
	v, ok, fail = f.str(name)
	if !ok || fail != nil {
		return v, ok, fail
	}
	for _, a := range allowed {
		if v == a {
			return v, true, nil
		}
	}
	return "", false, f.c.invalidRequest("For 'properties/%s', %s is not one of %s.", name, strictjson.Quote(v), quoteList(allowed))
}

// names reads an array field of strings or of objects with a key string
// member ({"name": "bug"}, {"login": "ada"}), as the description allows for
// labels and assignees; ok is false when it is absent.
func (f fields) names(name, key string) (vs []string, ok bool, fail *reply) {
	if !f.has(name) {
		return nil, false, nil
	}
	vs, fail = f.c.nameList(f.o[name], name, key)
	return vs, fail == nil, fail
}

// nameList reads a JSON array of strings or of objects with a key string
// member; field names it in messages.
func (c *call) nameList(raw json.RawMessage, field, key string) ([]string, *reply) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || items == nil {
		return nil, fields{c: c, o: map[string]json.RawMessage{field: raw}}.wrongType(field, "an array")
	}
	vs := []string{}
	for k, it := range items {
		var v string
		if err := json.Unmarshal(it, &v); err != nil {
			var o map[string]json.RawMessage
			if json.Unmarshal(it, &o) != nil || json.Unmarshal(o[key], &v) != nil {
				return nil, c.invalidRequest("For 'items/%d' of %q, %s is neither a string nor an object with a string %q.", k, field, strictjson.Excerpt(string(bytes.TrimSpace(it))), key)
			}
		}
		vs = append(vs, v)
	}
	return vs, nil
}
