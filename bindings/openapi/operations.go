package openapi

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/codemode-dev/codemode/internal/strictjson"
)

// MaxOperations bounds a document's operations (GitHub's has 1,223).
const MaxOperations = 10000

// Operation is one operation of a document, its schemas converted.
type Operation struct {
	// ID is the operationId, or METHOD_path when the document gives none.
	ID     string
	Method string // upper case: GET, POST, …
	// Path is the path template ("/repos/{owner}/{repo}/issues").
	Path                 string
	Summary, Description string
	Deprecated           bool
	// Params are the path, query, header and cookie parameters, the
	// path item's and the operation's (which override by name and place).
	Params []Param
	// Body is the request body, nil when the operation takes none.
	Body *Body
	// Result is the schema of the first 2xx response's JSON content, nil
	// when there is none.
	Result any
}

// Param is one parameter of an operation.
type Param struct {
	Name        string
	In          string // path, query, header or cookie
	Required    bool
	Description string
	Schema      any
	// Explode is form style's explode: an array query parameter is
	// repeated (ids=1&ids=2), or else joined by commas (ids=1,2).
	Explode bool
	// JSON: the parameter is described by content, not schema, and is
	// sent as JSON text.
	JSON bool
}

// Body is an operation's request body.
type Body struct {
	Required    bool
	Description string
	// MediaType is what the body is sent as: a JSON one when the
	// operation takes JSON, else the first the document lists (the body
	// is then a string, sent as it is).
	MediaType string
	Schema    any
}

// JSON reports whether the body is sent as JSON.
func (b *Body) JSON() bool { return isJSON(b.MediaType) }

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// pathParam finds a path template's parameters.
var pathParam = regexp.MustCompile(`\{([^{}/]+)\}`)

// readPaths reads every operation of doc's paths, sorted by path then by
// method, checking what the tools will rely on.
func readPaths(doc map[string]any, set *schemaSet, p *strictjson.Problems) []Operation {
	paths, ok := doc["paths"].(map[string]any)
	if !ok {
		if doc["paths"] == nil {
			p.Addf("paths", "missing: the document has no operations")
		} else {
			p.Addf("paths", "want an object, got %s", describe(doc["paths"]))
		}
		return nil
	}
	r := &reader{doc: doc, set: set, p: p, ids: map[string]string{}}
	var ops []Operation
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		at := strictjson.Member("paths", path)
		item, ok := r.deref(paths[path], at)
		if !ok {
			continue
		}
		if !strings.HasPrefix(path, "/") {
			p.Addf(at, "a path starts with /")
			continue
		}
		shared := r.params(item["parameters"], strictjson.Member(at, "parameters"))
		for _, m := range methods {
			raw, ok := item[m]
			if !ok {
				continue
			}
			if len(ops) == MaxOperations {
				p.Addf("paths", "more than %d operations", MaxOperations)
				return ops
			}
			if op, ok := r.operation(path, m, raw, shared, strictjson.Member(at, m)); ok {
				ops = append(ops, op)
			}
		}
	}
	if len(ops) == 0 && p.Len() == 0 {
		p.Addf("paths", "no operations")
	}
	return ops
}

// reader reads a document's operations.
type reader struct {
	doc map[string]any
	set *schemaSet
	p   *strictjson.Problems
	ids map[string]string // operationId → where first seen
}

// deref follows an object's $ref (a parameter's, a body's, a response's,
// a path item's), up to a few hops, and wants an object there.
func (r *reader) deref(v any, at string) (map[string]any, bool) {
	for range 8 {
		m, ok := v.(map[string]any)
		if !ok {
			r.p.Addf(at, "want an object, got %s", describe(v))
			return nil, false
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return m, true
		}
		if !strings.HasPrefix(ref, "#") {
			r.p.Addf(strictjson.Member(at, "$ref"), "external reference %s: only references within the document are read", strictjson.Quote(ref))
			return nil, false
		}
		if v, ok = resolvePointer(r.doc, ref); !ok {
			r.p.Addf(strictjson.Member(at, "$ref"), "nothing at %s", strictjson.Quote(ref))
			return nil, false
		}
	}
	r.p.Addf(strictjson.Member(at, "$ref"), "a chain of more than 8 references")
	return nil, false
}

// operation reads one operation.
func (r *reader) operation(path, method string, raw any, shared []Param, at string) (Operation, bool) {
	m, ok := raw.(map[string]any)
	if !ok {
		r.p.Addf(at, "want an object, got %s", describe(raw))
		return Operation{}, false
	}
	op := Operation{Method: strings.ToUpper(method), Path: path}
	op.ID, _ = m["operationId"].(string)
	if op.ID == "" {
		op.ID = method + "_" + path
	}
	if first, dup := r.ids[op.ID]; dup {
		r.p.Addf(strictjson.Member(at, "operationId"), "%s is also the operationId of %s", strictjson.Quote(op.ID), first)
	}
	r.ids[op.ID] = at
	op.Summary, _ = m["summary"].(string)
	op.Description, _ = m["description"].(string)
	op.Deprecated, _ = m["deprecated"].(bool)
	own := r.params(m["parameters"], strictjson.Member(at, "parameters"))
	op.Params = mergeParams(shared, own)
	r.checkPathParams(&op, at)
	for i := range op.Params {
		op.Params[i].Schema = r.schema(op.Params[i].Schema, strictjson.Member(at, "parameters"))
	}
	if body, ok := m["requestBody"]; ok {
		op.Body = r.body(body, strictjson.Member(at, "requestBody"))
	}
	if res, ok := m["responses"]; ok {
		op.Result = r.result(res, strictjson.Member(at, "responses"))
	}
	return op, true
}

// params reads a parameters list.
func (r *reader) params(raw any, at string) []Param {
	if raw == nil {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		r.p.Addf(at, "want a list, got %s", describe(raw))
		return nil
	}
	var out []Param
	for i, e := range list {
		pat := strictjson.Index(at, i)
		m, ok := r.deref(e, pat)
		if !ok {
			continue
		}
		prm := Param{}
		prm.Name, _ = m["name"].(string)
		prm.In, _ = m["in"].(string)
		prm.Required, _ = m["required"].(bool)
		prm.Description, _ = m["description"].(string)
		switch {
		case prm.Name == "":
			r.p.Addf(strictjson.Member(pat, "name"), "missing: a parameter has a name")
			continue
		case !slices.Contains([]string{"path", "query", "header", "cookie"}, prm.In):
			r.p.Addf(strictjson.Member(pat, "in"), "want path, query, header or cookie, got %s", describe(m["in"]))
			continue
		}
		if prm.In == "header" && ignoredHeader(prm.Name) {
			continue // OpenAPI: such a parameter SHALL be ignored (the configured headers say them)
		}
		style, _ := m["style"].(string)
		explode, given := m["explode"].(bool)
		prm.Explode = explode || (!given && (style == "" || style == "form"))
		if s, ok := m["schema"]; ok {
			prm.Schema = s
		} else if content, ok := m["content"].(map[string]any); ok && len(content) > 0 {
			mt := slices.Sorted(maps.Keys(content))[0]
			c, _ := content[mt].(map[string]any)
			prm.Schema, prm.JSON = c["schema"], true
		}
		if prm.Schema == nil {
			prm.Schema = map[string]any{}
		}
		out = append(out, prm)
	}
	return out
}

// ignoredHeader reports whether a header parameter is one OpenAPI says to
// ignore: Accept, Content-Type and Authorization, which a tool's call sets
// itself, or its configuration.
func ignoredHeader(name string) bool {
	return strings.EqualFold(name, "Accept") || strings.EqualFold(name, "Content-Type") || strings.EqualFold(name, "Authorization")
}

// mergeParams is the path item's parameters overridden by the operation's
// of the same name and place.
func mergeParams(shared, own []Param) []Param {
	out := slices.Clone(own)
	for _, s := range shared {
		if !slices.ContainsFunc(own, func(o Param) bool { return o.Name == s.Name && o.In == s.In }) {
			out = append(out, s)
		}
	}
	return out
}

// checkPathParams wants a parameter for every {name} of the path, and
// every path parameter required.
func (r *reader) checkPathParams(op *Operation, at string) {
	for _, m := range pathParam.FindAllStringSubmatch(op.Path, -1) {
		if !slices.ContainsFunc(op.Params, func(p Param) bool { return p.In == "path" && p.Name == m[1] }) {
			r.p.Addf(strictjson.Member(at, "parameters"), "the path's {%s} has no path parameter", m[1])
		}
	}
	for i := range op.Params {
		prm := &op.Params[i]
		if prm.In == "path" {
			if !strings.Contains(op.Path, "{"+prm.Name+"}") {
				r.p.Addf(strictjson.Member(at, "parameters"), "path parameter %s is not in the path %s", strictjson.Quote(prm.Name), strictjson.Quote(op.Path))
			}
			prm.Required = true
		}
	}
}

// schema converts one of an operation's schemas (the tool finds the
// components it refers to in the result: walkRefs).
func (r *reader) schema(v any, at string) any {
	return r.set.converter(map[string]bool{}, func(path, msg string) { r.p.Addf(path, "%s", msg) }).convert(v, at, 0)
}

// body reads a request body.
func (r *reader) body(raw any, at string) *Body {
	m, ok := r.deref(raw, at)
	if !ok {
		return nil
	}
	content, _ := m["content"].(map[string]any)
	if len(content) == 0 {
		r.p.Addf(strictjson.Member(at, "content"), "missing: a request body has at least one media type")
		return nil
	}
	b := &Body{}
	b.Required, _ = m["required"].(bool)
	b.Description, _ = m["description"].(string)
	types := slices.Sorted(maps.Keys(content))
	b.MediaType = types[0]
	if i := slices.IndexFunc(types, isJSON); i >= 0 {
		b.MediaType = types[i]
	}
	c, _ := content[b.MediaType].(map[string]any)
	if !b.JSON() {
		b.Schema = map[string]any{"type": "string", "description": "The body, sent as " + b.MediaType + "."}
		return b
	}
	s, ok := c["schema"]
	if !ok {
		s = map[string]any{}
	}
	b.Schema = r.schema(s, strictjson.Member(strictjson.Member(strictjson.Member(at, "content"), b.MediaType), "schema"))
	return b
}

// result reads the schema of the first 2xx response with JSON content.
func (r *reader) result(raw any, at string) any {
	m, ok := raw.(map[string]any)
	if !ok {
		r.p.Addf(at, "want an object, got %s", describe(raw))
		return nil
	}
	for _, code := range slices.Sorted(maps.Keys(m)) {
		if !(strings.HasPrefix(code, "2") && len(code) == 3) {
			continue
		}
		resp, ok := r.deref(m[code], strictjson.Member(at, code))
		if !ok {
			continue
		}
		content, _ := resp["content"].(map[string]any)
		for _, mt := range slices.Sorted(maps.Keys(content)) {
			if !isJSON(mt) {
				continue
			}
			c, _ := content[mt].(map[string]any)
			if s, ok := c["schema"]; ok {
				return r.schema(s, fmt.Sprintf("%s.content[%q].schema", strictjson.Member(at, code), mt))
			}
		}
		return nil
	}
	return nil
}

// isJSON reports whether a media type is JSON's (application/json,
// application/vnd.github+json, application/json; charset=utf-8).
func isJSON(mediaType string) bool {
	mt, _, _ := strings.Cut(strings.ToLower(mediaType), ";")
	mt = strings.TrimSpace(mt)
	return mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "*/*"
}
