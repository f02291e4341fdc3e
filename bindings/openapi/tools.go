package openapi

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/engine"
)

// Options configure the tools of one document.
type Options struct {
	// BaseURL is where calls go ("https://api.github.com"); "" uses the
	// document's first server.
	BaseURL string
	// Headers are sent with every call; they override the tools' own
	// Accept, Content-Type and User-Agent, and the model's header
	// arguments. The values of credentials among them (Authorization,
	// Cookie, names with key, token, secret, auth…) are hidden from every
	// error and result the model sees.
	Headers map[string]string
	// Secrets are more values to hide, whatever their length (Bind's:
	// every value a header got from the environment, at least
	// MinEnvChars); the credentials among Headers are hidden from 8 bytes.
	Secrets []string
	// Client makes the calls; nil uses a client of its own with no timeout
	// (the engine's per-call timeout bounds each call).
	Client *http.Client
	// MaxResponseBytes bounds a response's body; 0 means
	// DefaultMaxResponseBytes. A larger one is the call's error.
	MaxResponseBytes int64
	// Timeout bounds one call (the engine's per-call timeout still
	// applies: the shorter one wins); 0 leaves it to the engine's.
	Timeout time.Duration
	// Origin names the document in the tools' Origin ("OpenAPI \"github\"").
	Origin string
}

// DefaultMaxResponseBytes bounds a response's body when Options leave it.
const DefaultMaxResponseBytes = 8 << 20

// MaxNameChars bounds a tool's name: OpenAI's limit for a function name,
// which the wire form (dots as dashes) must fit.
const MaxNameChars = 64

// MaxNamespaceChars bounds a namespace, leaving a name at least 31
// characters for its operation's part: the engine's bound on a config
// entry's name, so that both refuse the same.
const MaxNamespaceChars = engine.MaxOpenAPINamespaceChars

// MaxSchemaBytes bounds the schemas of one document's tools together: a
// tool's schemas carry the components they reach, so a document could
// repeat one large component in every operation (GitHub's tools: 4 MB).
const MaxSchemaBytes = 64 << 20

// Tools makes one tool per operation of spec, named NAMESPACE.operationId
// (see ToolName), calling the API at opts.BaseURL.
func Tools(namespace string, spec *Spec, opts Options) ([]engine.Tool, error) {
	if !engine.ValidName(namespace) || strings.Contains(namespace, ".") {
		return nil, engine.Errorf(engine.CodeBadRequest, "namespace %q: want an identifier ([A-Za-z_][A-Za-z0-9_]*)", namespace)
	}
	if len(namespace) > MaxNamespaceChars {
		return nil, engine.Errorf(engine.CodeBadRequest, "namespace %q: at most %d characters, so that a tool's name has room for its operation's", namespace, MaxNamespaceChars)
	}
	c, err := newCaller(spec, opts)
	if err != nil {
		return nil, err
	}
	names := ToolNames(namespace, spec)
	tools := make([]engine.Tool, len(spec.Operations))
	size := 0
	for i := range spec.Operations {
		op := &spec.Operations[i]
		t, err := tool(names[i], op, spec.schemas, c)
		if err != nil {
			return nil, engine.Errorf(engine.CodeBadRequest, "operation %s: %v", op.ID, err)
		}
		if size += len(t.InputSchema) + len(t.OutputSchema); size > MaxSchemaBytes {
			return nil, engine.Errorf(engine.CodeBadRequest, "the tools' schemas are over %d MiB by operation %s (each tool's carry the components it reaches)", MaxSchemaBytes>>20, op.ID)
		}
		t.Origin = opts.Origin
		tools[i] = t
	}
	return tools, nil
}

// ToolNames are the tools' names for spec's operations, in order:
// NAMESPACE.operationId with every character a name cannot hold replaced
// by "_" ("issues/list-for-repo" → "github.issues_list_for_repo"). A name
// whose wire form would be over MaxNameChars is cut and ends in a hash of
// the operationId, and a name that two operations would share gets _2,
// _3, … in document order, so that every name is unique and stable.
func ToolNames(namespace string, spec *Spec) []string {
	names := make([]string, len(spec.Operations))
	taken := map[string]bool{}
	for i, op := range spec.Operations {
		seg := engine.NameSegment(op.ID)
		room := MaxNameChars - len(namespace) - 1 // for the operation's part
		if len(seg) > room {
			h := fnv.New32a()
			h.Write([]byte(op.ID))
			suffix := fmt.Sprintf("_%08x", h.Sum32())
			seg = seg[:max(room-len(suffix), 0)] + suffix
		}
		name := namespace + "." + seg
		for n := 2; taken[name]; n++ {
			suffix := fmt.Sprintf("_%d", n)
			name = namespace + "." + seg[:min(len(seg), room-len(suffix))] + suffix
		}
		taken[name] = true
		names[i] = name
	}
	return names
}

// tool makes one operation's tool.
func tool(name string, op *Operation, set *schemaSet, c *caller) (engine.Tool, error) {
	in, plan := inputSchema(op, set)
	inJSON, err := withDefs(in, set)
	if err != nil {
		return engine.Tool{}, err
	}
	t := engine.Tool{
		Name:        name,
		Description: description(op),
		InputSchema: inJSON,
		Annotations: annotations(op),
		Handler:     c.handler(op, plan),
	}
	if isObject(op.Result, set) {
		if t.OutputSchema, err = withDefs(op.Result, set); err != nil {
			return engine.Tool{}, err
		}
	}
	return t, nil
}

// argPlan says where each of a tool's arguments goes in the request.
type argPlan struct {
	params map[string]*Param // argument name → parameter
	// body is the argument holding the whole body; "" when the body's
	// members are arguments of their own (flat), or there is no body.
	body string
	flat bool
}

// inputSchema builds an operation's input schema: its parameters by name,
// and its body's members beside them when the body is a plain JSON object
// whose members no parameter shares ({owner, repo, title, body} to create
// an issue), else the body whole as "body".
func inputSchema(op *Operation, set *schemaSet) (map[string]any, argPlan) {
	props := map[string]any{}
	var required []any
	plan := argPlan{params: map[string]*Param{}}
	for i := range op.Params {
		p := &op.Params[i]
		key := p.Name
		if _, taken := props[key]; taken {
			key = freeKey(props, p.In+"_"+p.Name) // a query and a header parameter of one name
		}
		props[key] = described(p.Schema, p.Description)
		plan.params[key] = p
		if p.Required {
			required = append(required, key)
		}
	}
	if b := op.Body; b != nil {
		if members, req, ok := flatBody(b, set); ok && !slices.ContainsFunc(slices.Collect(maps.Keys(members)), func(k string) bool { return props[k] != nil }) {
			maps.Copy(props, members)
			if b.Required {
				required = append(required, req...)
			}
			plan.flat = true
		} else {
			plan.body = freeKey(props, "body")
			props[plan.body] = described(b.Schema, b.Description)
			if b.Required {
				required = append(required, plan.body)
			}
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		slices.SortFunc(required, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
		s["required"] = slices.Compact(required)
	}
	return s, plan
}

// freeKey is key, or key_2, key_3, … the first that props lacks.
func freeKey(props map[string]any, key string) string {
	k := key
	for n := 2; props[k] != nil; n++ {
		k = fmt.Sprintf("%s_%d", key, n)
	}
	return k
}

// flatBody returns a JSON body's members and required members when the
// body is an object of named members and nothing else (no allOf, no map
// of arbitrary keys), following a component $ref.
func flatBody(b *Body, set *schemaSet) (map[string]any, []any, bool) {
	if !b.JSON() {
		return nil, nil, false
	}
	s := resolveComponent(b.Schema, set)
	m, ok := s.(map[string]any)
	if !ok {
		return nil, nil, false
	}
	props, ok := m["properties"].(map[string]any)
	if !ok || len(props) == 0 || (m["type"] != nil && m["type"] != "object") {
		return nil, nil, false
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf", "not", "patternProperties", "if", "$ref"} {
		if m[k] != nil {
			return nil, nil, false
		}
	}
	if ap, ok := m["additionalProperties"]; ok {
		if _, isBool := ap.(bool); !isBool {
			return nil, nil, false
		}
	}
	// A member the schema marks readOnly (an id the server assigns) is
	// not the client's to send, required or not. A required name that is
	// not among the members cannot be required of the tool's arguments,
	// whose root takes no other member (additionalProperties: false): the
	// tool could never be called. (A body passed whole keeps the
	// document's schema, which takes such a member unless it says
	// otherwise itself.)
	var req []any
	list, _ := m["required"].([]any)
	for _, r := range list {
		name, _ := r.(string)
		p, declared := props[name]
		if !declared {
			continue
		}
		if p, ok := p.(map[string]any); ok && p["readOnly"] == true {
			continue
		}
		req = append(req, r)
	}
	return props, req, true
}

// resolveComponent follows a $defs reference to the component's schema.
func resolveComponent(s any, set *schemaSet) any {
	for range 8 {
		m, ok := s.(map[string]any)
		if !ok {
			return s
		}
		ref, ok := m["$ref"].(string)
		name, isDef := strings.CutPrefix(ref, "#/$defs/")
		if !ok || !isDef {
			return s
		}
		c, ok := set.comps[unescapePointer(name)]
		if !ok {
			return s
		}
		s = c.schema
	}
	return s
}

// isObject reports whether a result schema describes an object: only such
// a result is an output schema, as MCP requires (a list of issues is
// returned all the same, undeclared).
func isObject(s any, set *schemaSet) bool {
	m, ok := resolveComponent(s, set).(map[string]any)
	if !ok {
		return false
	}
	return m["type"] == "object" || (m["type"] == nil && m["properties"] != nil)
}

// described is a parameter's or body's schema with its description, when
// the schema has none of its own.
func described(s any, desc string) any {
	m, ok := s.(map[string]any)
	if !ok || desc == "" || m["description"] != nil {
		return s
	}
	out := maps.Clone(m)
	out["description"] = desc
	return out
}

// withDefs marshals a schema with the $defs of the components it leads to.
func withDefs(s any, set *schemaSet) (json.RawMessage, error) {
	refs := map[string]bool{}
	walkRefs(s, refs)
	defs := set.defs(refs)
	if len(defs) == 0 {
		return json.Marshal(s)
	}
	m, ok := s.(map[string]any)
	if !ok {
		return json.Marshal(s)
	}
	m = maps.Clone(m)
	m["$defs"] = defs
	return json.Marshal(m)
}

// walkRefs notes the components a converted schema refers to, without
// following them (schemaSet.defs does).
func walkRefs(v any, refs map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			if name, ok := strings.CutPrefix(ref, "#/$defs/"); ok {
				refs[unescapePointer(name)] = true
			}
		}
		for _, e := range v {
			walkRefs(e, refs)
		}
	case []any:
		for _, e := range v {
			walkRefs(e, refs)
		}
	}
}

// maxDescriptionRunes bounds the document's description that a tool's
// description carries: GitHub's run to pages of media-type notes, which a
// model would read on every turn it is shown every tool.
const maxDescriptionRunes = 600

// description is what a model reads about an operation: its summary, the
// start of its description, and its method and path.
func description(op *Operation) string {
	var parts []string
	if op.Summary != "" {
		parts = append(parts, strings.TrimSpace(op.Summary))
	}
	if d := strings.TrimSpace(op.Description); d != "" && d != strings.TrimSpace(op.Summary) {
		parts = append(parts, cut(d, maxDescriptionRunes))
	}
	if op.Deprecated {
		parts = append(parts, "Deprecated.")
	}
	parts = append(parts, op.Method+" "+op.Path)
	return strings.Join(parts, "\n\n")
}

// cut shortens s to about n runes, at the end of a paragraph or sentence
// when one is near.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	t := string(r)
	for _, sep := range []string{"\n\n", ". "} {
		if i := strings.LastIndex(t, sep); i > n/2 {
			return t[:i+len(sep)-1] + " …"
		}
	}
	return t + "…"
}

// annotations are an operation's hints: GET and HEAD read, the others
// write (so the default approval policy asks); PUT and DELETE are
// idempotent, DELETE destructive; every call reaches outside.
func annotations(op *Operation) engine.Annotations {
	a := engine.Annotations{Title: op.Summary, OpenWorldHint: engine.Bool(true)}
	switch op.Method {
	case http.MethodGet, http.MethodHead:
		a.ReadOnlyHint, a.IdempotentHint, a.DestructiveHint = true, true, engine.Bool(false)
	case http.MethodPut:
		a.IdempotentHint = true
	case http.MethodDelete:
		a.IdempotentHint, a.DestructiveHint = true, engine.Bool(true)
	}
	return a
}

// baseURL is where calls go: opts.BaseURL, else the document's server.
func baseURL(spec *Spec, opts Options) (*url.URL, error) {
	raw := opts.BaseURL
	if raw == "" {
		raw = spec.ServerURL
	}
	if raw == "" {
		return nil, engine.Errorf(engine.CodeBadRequest, "no base URL: the document names no server; configure baseUrl")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, engine.Errorf(engine.CodeBadRequest, "base URL %q: want an absolute http or https URL", redactURL(raw))
	}
	return u, nil
}

// redactURL hides a URL's password, should one be written in it.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		return u.Redacted()
	}
	return raw
}
