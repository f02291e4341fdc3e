package openapi

import (
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
	r := &reader{doc: doc, set: set, p: p, ids: map[string]string{},
		params: map[string]paramRead{}, bodies: map[string]*Body{}, results: map[string]any{}}
	var ops []Operation
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		at := strictjson.Member("paths", path)
		item, _, ok := r.deref(paths[path], at)
		if !ok {
			continue
		}
		if !strings.HasPrefix(path, "/") {
			p.Addf(at, "a path starts with /")
			continue
		}
		shared := r.paramList(item["parameters"], strictjson.Member(at, "parameters"))
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

	// What was read of a parameter, body or response that operations share
	// through a $ref, by the $ref it was reached by last: converted once,
	// its problems reported once and at the component, however many
	// operations use it (its schema objects count once against maxNodes).
	params  map[string]paramRead
	bodies  map[string]*Body
	results map[string]any
}

// paramRead is a parameter as read: ok false when it is not one (a
// problem was reported, or it is a header OpenAPI says to ignore).
type paramRead struct {
	p  Param
	ok bool
}

// maxRefHops bounds the $refs followed from one use of a parameter, body,
// response or path item: a chain that long is a mistake, or a cycle.
const maxRefHops = 8

// deref follows an object's $ref (a parameter's, a body's, a response's,
// a path item's), up to maxRefHops of them, and wants an object there. It
// returns the object, the last $ref followed ("" for none) and the path
// of the object (at for an object written in place).
func (r *reader) deref(v any, at string) (map[string]any, string, bool) {
	last := ""
	for hops := 0; hops <= maxRefHops; hops++ {
		m, ok := v.(map[string]any)
		if !ok {
			r.p.Addf(at, "want an object, got %s", describe(v))
			return nil, "", false
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return m, last, true
		}
		if !strings.HasPrefix(ref, "#") {
			r.p.Addf(strictjson.Member(at, "$ref"), "external reference %s: only references within the document are read", strictjson.Quote(ref))
			return nil, "", false
		}
		if v, _, ok = resolvePointer(r.doc, ref); !ok {
			r.p.Addf(strictjson.Member(at, "$ref"), "nothing at %s", strictjson.Quote(ref))
			return nil, "", false
		}
		last = ref
	}
	r.p.Addf(strictjson.Member(at, "$ref"), "a chain of more than %d references", maxRefHops)
	return nil, "", false
}

// where is the path an object reached by ref lives at: the path ref
// points to, or at itself when ref is "" (written in place).
func (r *reader) where(ref, at string) string {
	if ref == "" {
		return at
	}
	_, path, _ := resolvePointer(r.doc, ref)
	return path
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
	own := r.paramList(m["parameters"], strictjson.Member(at, "parameters"))
	op.Params = mergeParams(shared, own)
	r.checkPathParams(&op, at)
	if body, ok := m["requestBody"]; ok {
		op.Body = r.body(body, strictjson.Member(at, "requestBody"))
	}
	if res, ok := m["responses"]; ok {
		op.Result = r.result(res, strictjson.Member(at, "responses"))
	}
	return op, true
}

// paramList reads a parameters list, each schema converted.
func (r *reader) paramList(raw any, at string) []Param {
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
		m, ref, ok := r.deref(e, strictjson.Index(at, i))
		if !ok {
			continue
		}
		read, done := r.params[ref]
		if !done {
			read = r.param(m, r.where(ref, strictjson.Index(at, i)))
			if ref != "" {
				r.params[ref] = read
			}
		}
		if read.ok {
			out = append(out, read.p)
		}
	}
	return out
}

// param reads the parameter m, which is at pat.
func (r *reader) param(m map[string]any, pat string) paramRead {
	prm := Param{}
	prm.Name, _ = m["name"].(string)
	prm.In, _ = m["in"].(string)
	prm.Required, _ = m["required"].(bool)
	prm.Description, _ = m["description"].(string)
	switch {
	case prm.Name == "":
		r.p.Addf(strictjson.Member(pat, "name"), "missing: a parameter has a name")
		return paramRead{}
	case !slices.Contains([]string{"path", "query", "header", "cookie"}, prm.In):
		r.p.Addf(strictjson.Member(pat, "in"), "want path, query, header or cookie, got %s", describe(m["in"]))
		return paramRead{}
	}
	if prm.In == "header" && ignoredHeader(prm.Name) {
		return paramRead{} // OpenAPI: such a parameter SHALL be ignored (the configured headers say them)
	}
	style, _ := m["style"].(string)
	explode, given := m["explode"].(bool)
	prm.Explode = explode || (!given && (style == "" || style == "form"))
	var schema any = map[string]any{}
	sat := strictjson.Member(pat, "schema")
	if s, ok := m["schema"]; ok {
		schema = s
	} else if content, ok := m["content"].(map[string]any); ok && len(content) > 0 {
		mt := slices.Sorted(maps.Keys(content))[0]
		c, _ := content[mt].(map[string]any)
		if s, ok := c["schema"]; ok {
			schema, sat = s, strictjson.Member(strictjson.Member(strictjson.Member(pat, "content"), mt), "schema")
		}
		prm.JSON = true
	}
	if schema == nil {
		schema = map[string]any{}
	}
	prm.Schema = r.schema(schema, sat)
	return paramRead{p: prm, ok: true}
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
	m, ref, ok := r.deref(raw, at)
	if !ok {
		return nil
	}
	if b, done := r.bodies[ref]; done {
		return b
	}
	b := r.readBody(m, r.where(ref, at))
	if ref != "" {
		r.bodies[ref] = b
	}
	return b
}

// readBody reads the request body m, which is at at.
func (r *reader) readBody(m map[string]any, at string) *Body {
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
		resp, ref, ok := r.deref(m[code], strictjson.Member(at, code))
		if !ok {
			continue
		}
		if s, done := r.results[ref]; done {
			return s
		}
		s := r.response(resp, r.where(ref, strictjson.Member(at, code)))
		if ref != "" {
			r.results[ref] = s
		}
		return s
	}
	return nil
}

// response is the schema of the response m's first JSON content, nil when
// it has none; m is at at.
func (r *reader) response(m map[string]any, at string) any {
	content, _ := m["content"].(map[string]any)
	for _, mt := range slices.Sorted(maps.Keys(content)) {
		if !isJSON(mt) {
			continue
		}
		c, _ := content[mt].(map[string]any)
		if s, ok := c["schema"]; ok {
			return r.schema(s, strictjson.Member(strictjson.Member(strictjson.Member(at, "content"), mt), "schema"))
		}
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
