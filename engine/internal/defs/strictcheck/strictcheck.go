// Package strictcheck checks a JSON Schema against the rules OpenAI's
// Structured Outputs guide ("Supported schemas") sets for strict function
// calling. The tests hold the definitions codemode exports to it; it is
// written from the rules, apart from the code that rewrites schemas into
// the strict form, so that the two cannot share a mistake.
package strictcheck

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// The documented rules.
var (
	types = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true,
		"object": true, "array": true, "null": true}
	formats = map[string]bool{"date-time": true, "time": true, "date": true, "duration": true, "email": true,
		"hostname": true, "ipv4": true, "ipv6": true, "uuid": true}
	// Keywords any schema may carry, and those a type adds.
	common = []string{"type", "description", "enum", "const", "anyOf", "$ref"}
	byType = map[string][]string{
		"string":  {"pattern", "format"},
		"number":  {"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"},
		"integer": {"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"},
		"array":   {"items", "minItems", "maxItems"},
		"object":  {"properties", "required", "additionalProperties"},
	}
)

const (
	maxProperties   = 5000
	maxNesting      = 10
	maxEnumValues   = 1000
	maxChars        = 120000
	bigEnum         = 250
	maxBigEnumChars = 15000
)

// Check returns every rule the schema breaks, each with the JSON pointer
// of the subschema; none means strict mode accepts it.
func Check(schema json.RawMessage) []string {
	var root any
	if err := json.Unmarshal(schema, &root); err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	c := &checker{}
	r, ok := root.(map[string]any)
	switch {
	case !ok:
		c.add("", "the root is not an object schema")
		return c.problems
	case r["type"] != "object":
		c.add("", "the root's type is not object")
	}
	for _, k := range []string{"anyOf", "oneOf", "$ref"} {
		if _, ok := r[k]; ok {
			c.add("", "the root has "+k)
		}
	}
	c.root = r
	c.schema(r, "")
	for _, kw := range []string{"$defs", "definitions"} {
		if d, ok := r[kw].(map[string]any); ok {
			for name, s := range d {
				c.chars += utf8.RuneCountInString(name)
				c.schema(s, "/"+kw+"/"+name)
			}
		}
	}
	if c.props > maxProperties {
		c.add("", fmt.Sprintf("%d object properties, over %d", c.props, maxProperties))
	}
	if c.enums > maxEnumValues {
		c.add("", fmt.Sprintf("%d enum values, over %d", c.enums, maxEnumValues))
	}
	if c.chars > maxChars {
		c.add("", fmt.Sprintf("%d characters of names and values, over %d", c.chars, maxChars))
	}
	if d := c.depth(r, map[string]bool{}); d > maxNesting {
		c.add("", fmt.Sprintf("%d levels of nesting, over %d", d, maxNesting))
	}
	sort.Strings(c.problems)
	return c.problems
}

type checker struct {
	root                map[string]any
	problems            []string
	props, enums, chars int
}

func (c *checker) add(path, msg string) { c.problems = append(c.problems, path+": "+msg) }

func (c *checker) schema(v any, path string) {
	s, ok := v.(map[string]any)
	if !ok {
		c.add(path, "not a schema object")
		return
	}
	if ref, ok := s["$ref"]; ok {
		if len(s) != 1 {
			c.add(path, "$ref beside other keywords")
		}
		c.ref(ref, path)
		return
	}
	ts := c.types(s, path)
	allowed := slices.Clone(common)
	if path == "" {
		allowed = append(allowed, "$defs", "definitions")
	}
	for _, t := range ts {
		allowed = append(allowed, byType[t]...)
	}
	for k := range s {
		if !slices.Contains(allowed, k) {
			c.add(path, fmt.Sprintf("keyword %q is not supported here", k))
		}
	}
	_, hasAnyOf := s["anyOf"]
	_, hasEnum := s["enum"]
	_, hasConst := s["const"]
	if len(ts) == 0 && !hasAnyOf && !hasEnum && !hasConst {
		c.add(path, "no type, enum, const, anyOf or $ref")
	}
	if f, ok := s["format"]; ok && slices.Contains(ts, "string") {
		if name, _ := f.(string); !formats[name] {
			c.add(path, fmt.Sprintf("format %v is not supported", f))
		}
	}
	if e, ok := s["enum"]; ok {
		list, ok := e.([]any)
		if !ok || len(list) == 0 {
			c.add(path, "enum is not a non-empty list")
		}
		c.enums += len(list)
		n := 0
		for _, x := range list {
			if str, ok := x.(string); ok {
				n += utf8.RuneCountInString(str)
			}
		}
		c.chars += n
		if len(list) > bigEnum && n > maxBigEnumChars {
			c.add(path, fmt.Sprintf("an enum of %d values with %d characters", len(list), n))
		}
	}
	if k, ok := s["const"].(string); ok {
		c.chars += utf8.RuneCountInString(k)
	}
	if hasAnyOf {
		list, ok := s["anyOf"].([]any)
		if !ok || len(list) == 0 {
			c.add(path, "anyOf is not a non-empty list")
		}
		for i, b := range list {
			c.schema(b, fmt.Sprintf("%s/anyOf/%d", path, i))
		}
	}
	if slices.Contains(ts, "array") {
		if items, ok := s["items"]; ok {
			c.schema(items, path+"/items")
		} else {
			c.add(path, "an array without items")
		}
	}
	if slices.Contains(ts, "object") {
		c.object(s, path)
	}
}

func (c *checker) types(s map[string]any, path string) []string {
	var ts []string
	switch t := s["type"].(type) {
	case nil:
		if _, ok := s["type"]; ok {
			c.add(path, "type is null")
		}
	case string:
		ts = []string{t}
	case []any:
		for _, x := range t {
			name, _ := x.(string)
			ts = append(ts, name)
		}
		nonNull := 0
		for _, name := range ts {
			if name != "null" {
				nonNull++
			}
		}
		if len(ts) == 0 || nonNull > 1 || (len(ts) == 2 && !slices.Contains(ts, "null")) || len(ts) > 2 {
			c.add(path, fmt.Sprintf("type list %v is not one type, or one type and null", t))
		}
	default:
		c.add(path, "type is neither a string nor a list")
	}
	for _, name := range ts {
		if !types[name] {
			c.add(path, fmt.Sprintf("type %q is not supported", name))
		}
	}
	return ts
}

func (c *checker) object(s map[string]any, path string) {
	if s["additionalProperties"] != false {
		c.add(path, "additionalProperties is not false")
	}
	props, ok := s["properties"].(map[string]any)
	if !ok {
		c.add(path, "an object without properties")
		return
	}
	var names []string
	for name, p := range props {
		names = append(names, name)
		c.props++
		c.chars += utf8.RuneCountInString(name)
		c.schema(p, path+"/properties/"+name)
	}
	var req []string
	list, ok := s["required"].([]any)
	if !ok {
		c.add(path, "required is missing")
	}
	for _, x := range list {
		name, _ := x.(string)
		req = append(req, name)
	}
	sort.Strings(names)
	sort.Strings(req)
	if !slices.Equal(names, req) {
		c.add(path, fmt.Sprintf("required %v does not list exactly the properties %v", req, names))
	}
}

func (c *checker) ref(ref any, path string) {
	s, _ := ref.(string)
	if s == "#" {
		return
	}
	if _, ok := c.resolve(s); !ok {
		c.add(path, fmt.Sprintf("$ref %v is not # or a definition of this schema", ref))
	}
}

func (c *checker) resolve(ref string) (any, bool) {
	for _, kw := range []string{"$defs", "definitions"} {
		name, ok := strings.CutPrefix(ref, "#/"+kw+"/")
		if !ok {
			continue
		}
		name = strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~")
		d, _ := c.root[kw].(map[string]any)
		v, ok := d[name]
		return v, ok
	}
	return nil, false
}

// depth is the deepest nesting of object schemas below v, v included;
// refs are followed, a ref back into one being followed is not.
func (c *checker) depth(v any, following map[string]bool) int {
	s, ok := v.(map[string]any)
	if !ok {
		return 0
	}
	deepest := 0
	if ref, ok := s["$ref"].(string); ok && !following[ref] {
		following[ref] = true
		target := any(c.root)
		if ref != "#" {
			target, _ = c.resolve(ref)
		}
		deepest = c.depth(target, following)
		delete(following, ref)
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for _, p := range props {
			deepest = max(deepest, c.depth(p, following))
		}
	}
	deepest = max(deepest, c.depth(s["items"], following))
	if list, ok := s["anyOf"].([]any); ok {
		for _, b := range list {
			deepest = max(deepest, c.depth(b, following))
		}
	}
	isObj := s["type"] == "object"
	if list, ok := s["type"].([]any); ok {
		isObj = slices.Contains(list, any("object"))
	}
	if isObj {
		deepest++
	}
	return deepest
}
