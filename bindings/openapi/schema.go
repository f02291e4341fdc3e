package openapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/codemode-dev/codemode/internal/strictjson"
)

// A tool's schema is JSON Schema 2020-12, which the engine validates
// arguments against and renders as TypeScript. OpenAPI 3.1's schemas are
// that already; 3.0's are a dialect of draft 4 that differs in a few
// keywords (nullable, boolean exclusiveMinimum), converted here. Component
// schemas ($ref "#/components/schemas/NAME") become the tool schema's
// $defs, so that each is written once per tool and a recursive one (a
// comment's replies are comments) stays finite; any other local $ref is
// inlined. What only documents (example, externalDocs, x-…) is dropped:
// it costs a model tokens on every turn and constrains nothing.

// componentPrefix starts the $refs that become $defs.
const componentPrefix = "#/components/schemas/"

// schemaSet converts a document's component schemas once, for every
// operation that uses them.
type schemaSet struct {
	doc map[string]any
	v30 bool // OpenAPI 3.0's dialect, converted
	raw map[string]any

	// Filled while the document is read, read-only after.
	comps map[string]*component
	probs []strictjson.Problem
	// nodes counts the schema objects made, against maxNodes: a local
	// $ref outside the components is copied where it is used, and refs to
	// refs could otherwise double the copies at every level.
	nodes int
}

// maxNodes bounds the schema objects made from one document: GitHub's
// description makes 47,000.
const maxNodes = 500_000

// component is one converted component schema.
type component struct {
	schema any
	json   json.RawMessage // schema, marshalled once
	refs   []string        // the components it refers to directly
}

func newSchemaSet(doc map[string]any, v30 bool) *schemaSet {
	s := &schemaSet{doc: doc, v30: v30, comps: map[string]*component{}}
	if c, ok := doc["components"].(map[string]any); ok {
		s.raw, _ = c["schemas"].(map[string]any)
	}
	for _, name := range slices.Sorted(maps.Keys(s.raw)) {
		refs := map[string]bool{}
		at := strictjson.Member(strictjson.Member("components", "schemas"), name)
		v := s.converter(refs, s.addProblem).convert(s.raw[name], at, 0)
		b, err := json.Marshal(v)
		if err != nil {
			s.probs = append(s.probs, strictjson.Problem{Path: at, Message: err.Error()})
			continue
		}
		s.comps[name] = &component{schema: v, json: b, refs: slices.Sorted(maps.Keys(refs))}
	}
	s.refCycles()
	return s
}

// refCycles reports components that are only a $ref to one another round
// a cycle (A is B, B is A): they describe no value, and a validator finds
// that out at every call. Each component is walked once (white, grey while
// on the current walk, black once done), so that a chain of 100,000
// components costs 100,000 steps, not one walk from each.
func (s *schemaSet) refCycles() {
	const (
		white = iota
		grey
		black
	)
	colour := make(map[string]int, len(s.comps))
	for _, name := range slices.Sorted(maps.Keys(s.comps)) {
		var walk []string
		cur := name
		for colour[cur] == white {
			colour[cur] = grey
			walk = append(walk, cur)
			next, ok := onlyRef(s.comps[cur])
			if !ok {
				break
			}
			if colour[next] == grey { // a cycle: the walk from next on
				s.refCycle(walk[slices.Index(walk, next):])
				break
			}
			cur = next
		}
		for _, n := range walk {
			colour[n] = black
		}
	}
}

// refCycle reports a cycle of components once, at its first member by
// name, naming at most the first few of a long one.
func (s *schemaSet) refCycle(cycle []string) {
	first := slices.Index(cycle, slices.Min(cycle))
	cycle = append(cycle[first:len(cycle):len(cycle)], cycle[:first]...)
	const shown = 8
	names := cycle
	if len(cycle) > shown {
		names = append(cycle[:shown:shown], fmt.Sprintf("… (%d components)", len(cycle)))
	}
	at := strictjson.Member(strictjson.Member("components", "schemas"), cycle[0])
	s.addProblem(at, "a cycle of $refs that describes nothing: "+strings.Join(append(names, cycle[0]), " → "))
}

// onlyRef is the component a component is nothing but a $ref to.
func onlyRef(c *component) (string, bool) {
	if c == nil {
		return "", false
	}
	m, ok := c.schema.(map[string]any)
	if !ok {
		return "", false
	}
	ref, ok := m["$ref"].(string)
	for k := range m {
		if k != "$ref" && k != "description" {
			return "", false
		}
	}
	name, isDef := strings.CutPrefix(ref, "#/$defs/")
	return unescapePointer(name), ok && isDef
}

// problems adds the problems found converting the components to p.
func (s *schemaSet) problems(p *strictjson.Problems) {
	for _, q := range s.probs {
		p.Addf(q.Path, "%s", q.Message)
	}
}

// defs returns the $defs of a schema that refers to refs directly: those
// components and every one they lead to, marshalled.
func (s *schemaSet) defs(refs map[string]bool) map[string]json.RawMessage {
	if len(refs) == 0 {
		return nil
	}
	out := map[string]json.RawMessage{}
	queue := slices.Sorted(maps.Keys(refs))
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if _, done := out[name]; done {
			continue
		}
		c, ok := s.comps[name]
		if !ok {
			continue // reported where the $ref is
		}
		out[name] = c.json
		queue = append(queue, c.refs...)
	}
	return out
}

// converter converts one schema (a component's, or an operation's part),
// noting the components it refers to in refs and its problems in the set's
// list or an operation's.
type converter struct {
	set      *schemaSet
	refs     map[string]bool
	add      func(path, msg string)
	visiting map[string]bool // local $refs being inlined, against cycles
}

func (s *schemaSet) converter(refs map[string]bool, add func(path, msg string)) *converter {
	return &converter{set: s, refs: refs, visiting: map[string]bool{}, add: add}
}

func (s *schemaSet) addProblem(path, msg string) {
	s.probs = append(s.probs, strictjson.Problem{Path: path, Message: msg})
}

// The keywords a converted schema keeps are JSON Schema 2020-12's, each
// checked for the shape its metaschema wants; any other is left out. The
// engine compiles a tool's schema against that metaschema, and a component
// reaches every tool that uses it: one "dependentRequired": 5 kept would
// fail all of them at Build. Left out without a look, as every keyword
// object's switch does not name: what documents and constrains nothing a
// model needs (example, xml, x-…); $defs and definitions, which no
// converted $ref points into (each is resolved against the document); what
// the converter cannot follow ($anchor, $dynamicRef) or 2020-12 does not
// read (3.0's discriminator, additionalItems but after a list of items).
//
// schemaKeys are the keywords whose value is a schema; schemaListKeys hold
// a non-empty list of schemas; schemaMapKeys a map of them.
var (
	schemaKeys = map[string]bool{"items": true, "additionalProperties": true, "not": true, "contains": true,
		"propertyNames": true, "if": true, "then": true, "else": true, "unevaluatedProperties": true,
		"unevaluatedItems": true, "contentSchema": true}
	schemaListKeys = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}
	schemaMapKeys  = map[string]bool{"properties": true, "dependentSchemas": true}
	// stringKeys annotate with a string.
	stringKeys = map[string]bool{"format": true, "title": true, "description": true,
		"contentMediaType": true, "contentEncoding": true}
	// boolKeys take true or false.
	boolKeys  = map[string]bool{"uniqueItems": true, "readOnly": true, "writeOnly": true, "deprecated": true}
	jsonTypes = map[string]bool{"object": true, "array": true, "string": true, "number": true,
		"integer": true, "boolean": true, "null": true}
)

// convert returns v converted to JSON Schema 2020-12.
func (c *converter) convert(v any, at string, depth int) any {
	if depth > maxDepth {
		c.add(at, "schema nested over 200 deep")
		return map[string]any{}
	}
	if c.set.nodes++; c.set.nodes > maxNodes {
		if c.set.nodes == maxNodes+1 {
			c.add(at, fmt.Sprintf("the document's schemas expand past %d objects here: a $ref outside components.schemas is copied wherever it is used", maxNodes))
		}
		return map[string]any{}
	}
	switch v := v.(type) {
	case bool: // 3.1's boolean schemas
		return v
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			return c.ref(ref, v, at, depth)
		}
		return c.object(v, at, depth)
	default:
		c.add(at, "want a schema (an object), got "+describe(v))
		return map[string]any{}
	}
}

// ref converts a $ref: a component's becomes a $defs reference, another
// local one is inlined, any other is a problem.
func (c *converter) ref(ref string, v map[string]any, at string, depth int) any {
	if name, ok := strings.CutPrefix(ref, componentPrefix); ok && !strings.Contains(name, "/") {
		name = unescapePointer(name)
		if _, ok := c.set.raw[name]; !ok {
			c.add(strictjson.Member(at, "$ref"), "no component schema "+strictjson.Quote(name))
			return map[string]any{}
		}
		c.refs[name] = true
		out := map[string]any{"$ref": "#/$defs/" + escapePointer(name)}
		if d, ok := v["description"].(string); ok && !c.set.v30 { // 3.1 lets a $ref have siblings
			out["description"] = d
		}
		return out
	}
	if !strings.HasPrefix(ref, "#") {
		c.add(strictjson.Member(at, "$ref"), "external reference "+strictjson.Quote(ref)+": only references within the document are read")
		return map[string]any{}
	}
	if c.visiting[ref] {
		return map[string]any{} // a cycle outside components: any value
	}
	target, _, ok := resolvePointer(c.set.doc, ref)
	if !ok {
		c.add(strictjson.Member(at, "$ref"), "nothing at "+strictjson.Quote(ref))
		return map[string]any{}
	}
	c.visiting[ref] = true
	defer delete(c.visiting, ref)
	return c.convert(target, at, depth+1)
}

// object converts a schema object keyword by keyword.
func (c *converter) object(v map[string]any, at string, depth int) any {
	out := make(map[string]any, len(v))
	for k, val := range v {
		switch {
		case k == "items" && isList(val): // draft 4's tuple form
			// 3.1's own prefixItems, when it has one too, wins.
			if list := c.list(val.([]any), strictjson.Member(at, k), depth); len(list) > 0 && !isList(v["prefixItems"]) {
				out["prefixItems"] = list
			}
			if ai, ok := v["additionalItems"]; ok { // what follows the tuple
				out["items"] = c.subschema(ai, strictjson.Member(at, "additionalItems"), depth)
			}
		case schemaKeys[k]:
			out[k] = c.subschema(val, strictjson.Member(at, k), depth)
		case k == "patternProperties":
			// Keys the engine's regular expressions cannot compile are left
			// out, as patterns are.
			m, _ := val.(map[string]any)
			conv := make(map[string]any, len(m))
			for re, e := range m {
				if _, err := regexp.Compile(re); err == nil {
					conv[re] = c.convert(e, strictjson.Member(strictjson.Member(at, k), re), depth+1)
				}
			}
			out[k] = conv
		case schemaListKeys[k]:
			list, ok := val.([]any)
			if !ok {
				c.add(strictjson.Member(at, k), "want a list of schemas, got "+describe(val))
				continue
			}
			if len(list) > 0 { // 2020-12 wants one at least
				out[k] = c.list(list, strictjson.Member(at, k), depth)
			}
		case schemaMapKeys[k]:
			m, ok := val.(map[string]any)
			if !ok {
				c.add(strictjson.Member(at, k), "want an object of schemas, got "+describe(val))
				continue
			}
			conv := make(map[string]any, len(m))
			for name, e := range m {
				conv[name] = c.convert(e, strictjson.Member(strictjson.Member(at, k), name), depth+1)
			}
			out[k] = conv
		case k == "pattern":
			// The engine validates with Go's regexp (RE2): a pattern it
			// cannot compile (a lookahead) is left to the API to check.
			if s, ok := val.(string); ok {
				if _, err := regexp.Compile(s); err == nil {
					out[k] = s
				}
			}
		case k == "type":
			c.typeOf(out, val)
		case k == "required":
			// 3.0 lets a property say "required": true, which means
			// nothing; 2020-12 wants distinct names.
			if names := names(val); names != nil {
				out[k] = names
			}
		case k == "dependentRequired":
			if m, ok := val.(map[string]any); ok {
				for name, list := range m {
					addDependent(out, name, list)
				}
			}
		case counts[k]:
			if n, ok := val.(json.Number); ok && isCount(n) {
				out[k] = n
			}
		case k == "minimum", k == "maximum":
			if n, ok := val.(json.Number); ok {
				out[k] = n
			}
		case k == "multipleOf":
			if n, ok := val.(json.Number); ok && isPositive(n) {
				out[k] = n
			}
		case k == "enum":
			if list, ok := val.([]any); ok {
				out[k] = list
			}
		case k == "const", k == "default":
			out[k] = val
		case boolKeys[k]:
			if b, ok := val.(bool); ok {
				out[k] = b
			}
		case stringKeys[k]:
			if str, ok := val.(string); ok {
				out[k] = str
			}
		}
	}
	// A keyword of the wrong type (a "minLength": -1, a "required" of
	// numbers) is left out rather than failing the API's every tool at
	// Build: it constrains what the API checks anyway.
	exclusive(out, v, "exclusiveMinimum", "minimum")
	exclusive(out, v, "exclusiveMaximum", "maximum")
	c.dependencies(out, v["dependencies"], strictjson.Member(at, "dependencies"), depth)
	if c.set.v30 && v["nullable"] == true {
		return nullable(out)
	}
	return out
}

// subschema converts the value of a keyword that holds one schema, which
// may be a boolean.
func (c *converter) subschema(v any, at string, depth int) any {
	if b, ok := v.(bool); ok {
		return b
	}
	return c.convert(v, at, depth+1)
}

// names is a list's distinct strings, nil when it has none.
func names(v any) []any {
	var out []any
	list, _ := v.([]any)
	for _, n := range list {
		if _, ok := n.(string); ok && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// addDependent adds a dependentRequired entry of the distinct names a
// list holds, unless it holds none (which requires nothing) or the schema
// has an entry for the name already.
func addDependent(out map[string]any, name string, list any) {
	req, _ := out["dependentRequired"].(map[string]any)
	n := names(list)
	if _, dup := req[name]; dup || n == nil {
		return
	}
	if req == nil {
		req = map[string]any{}
		out["dependentRequired"] = req
	}
	req[name] = n
}

// dependencies turns draft 4's dependencies into 2020-12's keywords: a
// list of names into dependentRequired, a schema into dependentSchemas.
func (c *converter) dependencies(out map[string]any, v any, at string, depth int) {
	m, _ := v.(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(m)) {
		switch e := m[name].(type) {
		case []any:
			addDependent(out, name, e)
		case map[string]any, bool:
			ds, _ := out["dependentSchemas"].(map[string]any)
			if _, dup := ds[name]; dup {
				continue
			}
			if ds == nil {
				ds = map[string]any{}
				out["dependentSchemas"] = ds
			}
			ds[name] = c.subschema(e, strictjson.Member(at, name), depth)
		}
	}
}

// counts are the keywords whose value is a count: a non-negative integer.
var counts = map[string]bool{"minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
	"minProperties": true, "maxProperties": true, "minContains": true, "maxContains": true}

func isCount(n json.Number) bool {
	f, err := n.Float64()
	return err == nil && f >= 0 && f == math.Trunc(f)
}

func isPositive(n json.Number) bool {
	f, err := n.Float64()
	return err == nil && f > 0
}

func isList(v any) bool {
	_, ok := v.([]any)
	return ok
}

// list converts a list of schemas.
func (c *converter) list(list []any, at string, depth int) []any {
	conv := make([]any, len(list))
	for i, e := range list {
		conv[i] = c.convert(e, strictjson.Index(at, i), depth+1)
	}
	return conv
}

// typeOf keeps a type keyword the engine's validator accepts: one of JSON
// Schema's seven types, or a list of them (3.1).
func (c *converter) typeOf(out map[string]any, val any) {
	switch t := val.(type) {
	case string:
		if jsonTypes[t] {
			out["type"] = t
		}
	case []any:
		var keep []any
		for _, e := range t {
			if s, ok := e.(string); ok && jsonTypes[s] && !slices.Contains(keep, e) {
				keep = append(keep, s)
			}
		}
		if len(keep) > 0 {
			out["type"] = keep
		}
	}
}

// exclusive turns 3.0's boolean exclusiveMinimum (with minimum) into
// 2020-12's numeric one; 3.1's is numeric already.
func exclusive(out, v map[string]any, key, bound string) {
	switch x := v[key].(type) {
	case bool:
		if b, ok := out[bound]; ok && x {
			out[key] = b
			delete(out, bound)
		}
	case json.Number:
		out[key] = x
	}
}

// nullable lets a 3.0 schema marked nullable take null: its type gets
// "null" (and its enum null), or, typeless (an allOf of a $ref, as GitHub
// writes a nullable object), it becomes one of itself or null.
func nullable(out map[string]any) any {
	t, ok := out["type"].(string)
	if !ok {
		return map[string]any{"anyOf": []any{out, map[string]any{"type": "null"}}}
	}
	out["type"] = []any{t, "null"}
	if enum, ok := out["enum"].([]any); ok && !slices.Contains(enum, nil) {
		out["enum"] = append(slices.Clip(enum), nil)
	}
	return out
}

// resolvePointer finds the value a local $ref ("#/a/b~1c") points at, and
// its path (a["b/c"]), where the problems found in it are reported.
func resolvePointer(doc map[string]any, ref string) (any, string, bool) {
	frag := strings.TrimPrefix(ref, "#")
	if frag == "" {
		return doc, "", true
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, "", false
	}
	var cur any = doc
	path := ""
	for _, seg := range strings.Split(frag[1:], "/") {
		seg = unescapePointer(seg)
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[seg]
			if !ok {
				return nil, "", false
			}
			cur, path = next, strictjson.Member(path, seg)
		case []any:
			i, ok := index(seg, len(v))
			if !ok {
				return nil, "", false
			}
			cur, path = v[i], strictjson.Index(path, i)
		default:
			return nil, "", false
		}
	}
	return cur, path, true
}

func index(seg string, n int) (int, bool) {
	i := 0
	if seg == "" || len(seg) > 9 {
		return 0, false
	}
	for _, r := range seg {
		if r < '0' || r > '9' {
			return 0, false
		}
		i = i*10 + int(r-'0')
	}
	return i, i < n
}

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// describe names a JSON value's kind for a problem's message.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "the string " + strictjson.Quote(v)
	case bool:
		return "a boolean"
	case json.Number:
		return "the number " + string(v)
	case []any:
		return "a list"
	default:
		return "an object"
	}
}
