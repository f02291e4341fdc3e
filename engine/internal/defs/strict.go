package defs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// OpenAI's strict mode (Structured Outputs for function calling) decodes a
// call under the function's parameters schema exactly, but accepts only a
// subset of JSON Schema. The rules, from OpenAI's Structured Outputs guide
// ("Supported schemas"):
//
//   - The root is an object schema, not an anyOf.
//   - Every object lists every one of its properties in "required" and has
//     "additionalProperties": false. An optional property is expressed as a
//     required one that may be null: "type": ["string", "null"], or an anyOf
//     with {"type": "null"}.
//   - Types: string, number, integer, boolean, object, array, null; enum,
//     const, anyOf (nested), $ref to the root ("#") or to a definition
//     ($defs / definitions), recursion included.
//   - Keywords beyond those: for strings pattern and format (date-time, time,
//     date, duration, email, hostname, ipv4, ipv6, uuid); for numbers
//     multipleOf, minimum, maximum, exclusiveMinimum, exclusiveMaximum; for
//     arrays items, minItems, maxItems; and description. allOf, not, if/then/
//     else, dependentRequired, dependentSchemas, patternProperties and the
//     rest are not supported.
//   - Limits: at most 5,000 object properties in all, 10 levels of object
//     nesting, 1,000 enum values in all, 120,000 characters of property
//     names, definition names, enum values and const values together, and
//     15,000 characters for the values of any enum of more than 250 values.
//
// Two more rules concern the request, not the schema, so the export cannot
// keep them: Structured Outputs is not compatible with parallel function
// calls (the host sends parallel_tool_calls: false for the schemas to hold),
// and fine-tuned models support none of pattern, format, the numeric
// constraints or minItems/maxItems, which the strict form keeps.
//
// Strict rewrites a tool's input schema into that form where it can, and
// says why where it cannot. The rewritten schema may be looser than the
// original (a constraint strict mode lacks is dropped and named in the
// description; oneOf becomes anyOf): the engine still validates every call
// against the original schema, so nothing the original rejects reaches a
// tool. It is narrower in one way only: an object that declares properties
// but leaves additionalProperties open gets "additionalProperties": false,
// so a model cannot send members the schema does not name.

// StrictForm is a tool's input schema as OpenAI's strict mode takes it.
type StrictForm struct {
	// Schema is the strict form; nil when Reason is set.
	Schema json.RawMessage
	// Reason says why the schema has no strict form, naming each place
	// (a JSON pointer into the schema) and what is wrong there.
	Reason string
	// Nulls marks the members Schema made nullable because they were
	// optional; nil when there are none. See [Nulls.Drop].
	Nulls *Nulls
}

// Strict returns the strict form of a tool's input schema.
func Strict(inputSchema json.RawMessage) StrictForm {
	v, err := parse(inputSchema)
	if err != nil {
		return StrictForm{Reason: fmt.Sprintf("the input schema is not valid JSON: %v", err)}
	}
	root, ok := v.(*object)
	if !ok {
		return StrictForm{Reason: "the input schema is not a JSON object"}
	}
	c := &strictConv{root: root, defs: map[string]*strictDef{}, rootPlan: &Nulls{}}
	out := c.convertRoot()
	if len(c.problems) == 0 {
		c.problems = strictLimits(out)
	}
	if len(c.problems) > 0 {
		return StrictForm{Reason: strings.Join(c.problems, "; ")}
	}
	doc, err := marshal(out)
	if err != nil {
		return StrictForm{Reason: fmt.Sprintf("cannot encode the strict form: %v", err)}
	}
	f := StrictForm{Schema: doc}
	if c.rootPlan.drops(map[*Nulls]bool{}) {
		f.Nulls = c.rootPlan
	}
	return f
}

type strictConv struct {
	root     *object
	defs     map[string]*strictDef // by "$defs/NAME" or "definitions/NAME", as refs reach them; nil for none
	rootPlan *Nulls
	problems []string
}

type strictDef struct {
	src   any
	out   any
	plan  *Nulls // allocated up front: refs point at it before it is filled
	state int    // 0 not converted, 1 converting, 2 done
}

func (c *strictConv) fail(path, format string, args ...any) {
	where := path
	if where == "" {
		where = "the root"
	}
	c.problems = append(c.problems, where+": "+fmt.Sprintf(format, args...))
}

// Keywords by what Strict does with them.
var (
	// Annotations strict mode has no use for: dropped.
	strictDropped = setOf("$schema", "$comment", "title", "examples", "deprecated", "readOnly", "writeOnly",
		"$anchor", "nullable", "contentMediaType", "contentEncoding", "contentSchema")
	// Keywords that shape or constrain values in ways strict mode cannot
	// express: the tool is exported non-strict.
	strictImpossible = setOf("allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",
		"dependencies", "patternProperties", "propertyNames", "unevaluatedProperties", "unevaluatedItems",
		"prefixItems", "additionalItems", "contains", "minContains", "maxContains", "$dynamicRef",
		"$dynamicAnchor", "$recursiveRef", "$recursiveAnchor")
	// Constraints strict mode lacks: dropped and named in the description
	// (the engine still checks them).
	strictNoted = []string{"minLength", "maxLength", "minProperties", "maxProperties", "uniqueItems"}

	strictTypes   = setOf("string", "number", "integer", "boolean", "object", "array", "null")
	strictFormats = setOf("date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid")
)

func setOf(s ...string) map[string]bool {
	m := make(map[string]bool, len(s))
	for _, k := range s {
		m[k] = true
	}
	return m
}

// convertRoot converts the root schema, then its definitions: each one is
// converted the first time a ref reaches it, and every one is exported,
// whether a ref reached it or not.
func (c *strictConv) convertRoot() *object {
	o := &object{}
	if _, ok := c.root.get("$ref"); ok {
		c.fail("", "is a $ref; strict mode wants an object schema there")
	} else {
		if _, ok := c.root.get("anyOf"); ok {
			c.fail("", "is an anyOf; strict mode wants an object schema there")
		}
		if _, ok := c.root.get("oneOf"); ok {
			c.fail("", "is a oneOf; strict mode wants an object schema there")
		}
		out, plan := c.node(c.root, "")
		*c.rootPlan = *plan
		if r, _ := out.(*object); r != nil {
			o = r
			if t, _ := o.get("type"); t != "object" {
				c.fail("", "is not an object schema")
			}
		}
	}
	for _, kw := range []string{"$defs", "definitions"} {
		d, ok := c.root.get(kw)
		if !ok {
			continue
		}
		do, ok := d.(*object)
		if !ok {
			c.fail("/"+kw, "is not an object")
			continue
		}
		conv := &object{members: make([]member, len(do.members))}
		for i, m := range do.members {
			conv.members[i] = member{m.key, c.def(kw, m.key).out}
		}
		o.set(kw, conv)
	}
	return o
}

// def converts a definition once and returns it; nil when the schema has
// no such definition.
func (c *strictConv) def(kw, name string) *strictDef {
	key := kw + "/" + name
	d, ok := c.defs[key]
	if !ok {
		if src, found := definition(c.root, kw, name); found {
			d = &strictDef{src: src, plan: &Nulls{}}
		}
		c.defs[key] = d
	}
	if d == nil || d.state != 0 {
		return d
	}
	d.state = 1
	out, plan := c.node(d.src, "/"+kw+"/"+escapeToken(name))
	d.out, d.state = out, 2
	*d.plan = *plan
	return d
}

// node converts one subschema and returns it with its plan.
func (c *strictConv) node(v any, path string) (any, *Nulls) {
	o, ok := v.(*object)
	if !ok {
		if b, isBool := v.(bool); isBool && b {
			c.fail(path, "accepts any JSON value, which strict mode cannot express")
		} else if isBool {
			c.fail(path, "accepts no value")
		} else {
			c.fail(path, "is not a schema")
		}
		return v, &Nulls{}
	}
	if _, ok := o.get("$ref"); ok {
		return c.ref(o, path)
	}
	out, plan := &object{}, &Nulls{}
	var notes []string
	for _, m := range o.members {
		switch {
		case strictImpossible[m.key]:
			c.fail(path, "%s has no strict form", m.key)
		case m.key == "$id" && path != "":
			c.fail(path, "a subschema with its own $id has no strict form")
		case (m.key == "$defs" || m.key == "definitions") && path != "":
			c.fail(path, "%s below the root has no strict form", m.key)
		}
	}
	for _, k := range strictNoted {
		if x, ok := o.get(k); ok {
			notes = append(notes, k+" "+jsonText(x))
		}
	}

	types, ok := c.types(o, path)
	if !ok {
		return out, plan
	}
	has := func(k string) bool { _, ok := o.get(k); return ok }
	isObj := types["object"] || (len(types) == 0 && (has("properties") || has("additionalProperties") || has("required")))
	isArr := types["array"] || (len(types) == 0 && has("items"))
	_, anyOf := o.get("anyOf")
	_, oneOf := o.get("oneOf")
	switch {
	case anyOf && oneOf:
		c.fail(path, "anyOf beside oneOf has no strict form")
	case (anyOf || oneOf) && (len(types) > 0 || isObj || isArr):
		c.fail(path, "anyOf or oneOf beside type has no strict form")
	case len(types) == 0 && !isObj && !isArr && !anyOf && !oneOf && !has("enum") && !has("const"):
		c.fail(path, "accepts any JSON value, which strict mode cannot express")
	}

	if t, ok := o.get("type"); ok {
		out.set("type", t)
	} else if isObj {
		out.set("type", "object")
	} else if isArr {
		out.set("type", "array")
	}
	if d, ok := o.get("description"); ok {
		out.set("description", d)
	}
	if types["string"] {
		if p, ok := o.get("pattern"); ok {
			out.set("pattern", p)
		}
		if f, ok := o.get("format"); ok {
			if s, _ := f.(string); strictFormats[s] {
				out.set("format", f)
			} else {
				notes = append(notes, "format "+jsonText(f))
			}
		}
	}
	if types["number"] || types["integer"] {
		for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
			x, ok := o.get(k)
			if !ok {
				continue
			}
			if _, isNum := x.(json.Number); !isNum {
				c.fail(path, "%s is not a number", k)
				continue
			}
			out.set(k, x)
		}
	}
	for _, k := range []string{"enum", "const"} {
		if x, ok := o.get(k); ok {
			out.set(k, x)
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		x, ok := o.get(k)
		if !ok {
			continue
		}
		list, ok := x.([]any)
		if !ok || len(list) == 0 {
			c.fail(path, "%s is not a list of schemas", k)
			continue
		}
		branches := make([]any, len(list))
		plan.anyOf = make([]*Nulls, len(list))
		for i, b := range list {
			branches[i], plan.anyOf[i] = c.node(b, fmt.Sprintf("%s/%s/%d", path, k, i))
		}
		out.set("anyOf", branches) // oneOf too: looser, and the engine checks the original
	}
	if isArr {
		items, ok := o.get("items")
		switch {
		case !ok:
			c.fail(path, "an array without items accepts any elements, which strict mode cannot express")
		default:
			if _, tuple := items.([]any); tuple {
				c.fail(path, "a tuple (items as a list) has no strict form")
				break
			}
			var it any
			it, plan.items = c.node(items, path+"/items")
			out.set("items", it)
		}
		for _, k := range []string{"minItems", "maxItems"} {
			if x, ok := o.get(k); ok {
				out.set(k, x)
			}
		}
	}
	if isObj {
		c.object(o, out, plan, path)
	}
	if len(notes) > 0 {
		addNote(out, "Constraints: "+strings.Join(notes, ", ")+".")
	}
	return out, plan
}

// types reads "type": the set of types named, empty when absent.
func (c *strictConv) types(o *object, path string) (map[string]bool, bool) {
	t, ok := o.get("type")
	if !ok {
		return map[string]bool{}, true
	}
	var list []any
	switch t := t.(type) {
	case string:
		list = []any{t}
	case []any:
		list = t
	default:
		c.fail(path, "type is neither a name nor a list of names")
		return nil, false
	}
	set := map[string]bool{}
	nonNull := 0
	for _, x := range list {
		s, _ := x.(string)
		if !strictTypes[s] {
			c.fail(path, "type %s is not a JSON type", jsonText(x))
			return nil, false
		}
		set[s] = true
		if s != "null" {
			nonNull++
		}
	}
	if nonNull > 1 {
		c.fail(path, "a type list of several types has no strict form")
		return nil, false
	}
	return set, true
}

// object converts properties, required and additionalProperties: every
// property required, the optional ones nullable, no other members.
func (c *strictConv) object(o, out *object, plan *Nulls, path string) {
	props := &object{}
	if p, ok := o.get("properties"); ok {
		if props, ok = p.(*object); !ok {
			c.fail(path, "properties is not an object")
			return
		}
	}
	required := map[string]bool{}
	if r, ok := o.get("required"); ok {
		list, _ := r.([]any)
		for _, x := range list {
			s, ok := x.(string)
			if !ok {
				c.fail(path, "required holds a non-string")
				continue
			}
			required[s] = true
			if _, ok := props.get(s); !ok {
				c.fail(path, "required names %q, which is not among the properties", s)
			}
		}
	}
	ap, hasAP := o.get("additionalProperties")
	_, hasProps := o.get("properties")
	switch {
	case hasAP && ap == false:
	case hasAP:
		c.fail(path, "additionalProperties admits members the schema does not name, which strict mode cannot express")
	case !hasProps:
		c.fail(path, "an object without properties admits any members, which strict mode cannot express")
	}

	outProps := &object{}
	names := make([]any, 0, len(props.members))
	plan.members = make(map[string]*nullMember, len(props.members))
	for _, m := range props.members {
		p := path + "/properties/" + escapeToken(m.key)
		optional := !required[m.key]
		src := m.val
		var desc any
		// An optional $ref with a description: the description goes on the
		// nullable anyOf around the bare $ref (strict mode wants $ref alone).
		if so, ok := src.(*object); ok && optional {
			if _, isRef := so.get("$ref"); isRef {
				desc, _ = so.get("description")
				bare := clone(so).(*object)
				bare.del("description")
				src = bare
			}
		}
		cs, cp := c.node(src, p)
		if optional {
			if acceptsNull(m.val, c.root, map[any]bool{}) {
				c.fail(p, "is optional and accepts null, so a null cannot stand for leaving it out")
			}
			cs = nullable(cs, desc, optionalNote(m.val))
		}
		outProps.set(m.key, cs)
		names = append(names, m.key)
		nm := &nullMember{drop: optional, sub: cp}
		plan.members[m.key] = nm
		if so, ok := m.val.(*object); ok {
			if k, ok := so.get("const"); ok {
				if plan.consts == nil {
					plan.consts = map[string]string{}
				}
				plan.consts[m.key] = jsonText(k)
			}
		}
	}
	out.set("properties", outProps)
	out.set("required", names)
	out.set("additionalProperties", false)
}

// ref converts a {"$ref": ...} schema. Strict mode wants $ref alone, so a
// description beside it is kept by inlining the definition.
func (c *strictConv) ref(o *object, path string) (any, *Nulls) {
	r, _ := o.get("$ref")
	s, _ := r.(string)
	var desc any
	for _, m := range o.members {
		switch {
		case m.key == "$ref" || strictDropped[m.key]:
		case m.key == "description":
			desc = m.val
		default:
			c.fail(path, "$ref beside %s has no strict form", m.key)
		}
	}
	if s == "#" {
		return obj("$ref", "#"), &Nulls{ref: c.rootPlan}
	}
	kw, name, ok := parseDefRef(s)
	if !ok {
		c.fail(path, "$ref %q: only refs to the root (#) or to a definition (#/$defs/NAME) have a strict form", s)
		return obj("$ref", s), &Nulls{}
	}
	d := c.def(kw, name)
	if d == nil {
		c.fail(path, "$ref %q: no such definition", s)
		return obj("$ref", s), &Nulls{}
	}
	if desc != nil && d.state == 2 {
		if do, ok := d.out.(*object); ok && !hasKey(do, "$ref") {
			in := clone(do).(*object)
			in.set("description", desc)
			return in, &Nulls{ref: d.plan}
		}
	}
	return obj("$ref", s), &Nulls{ref: d.plan}
}

// definition finds root's definition kw/name (kw is "$defs" or
// "definitions").
func definition(root *object, kw, name string) (any, bool) {
	d, _ := root.get(kw)
	do, ok := d.(*object)
	if !ok {
		return nil, false
	}
	return do.get(name)
}

// parseDefRef splits "#/$defs/NAME" (or "#/definitions/NAME"), percent- and
// ~-escaped, into the keyword and the name.
func parseDefRef(ref string) (kw, name string, ok bool) {
	frag, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return "", "", false
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return "", "", false
	}
	toks := strings.Split(frag, "/")
	if len(toks) != 2 || (toks[0] != "$defs" && toks[0] != "definitions") {
		return "", "", false
	}
	return toks[0], unescapeToken(toks[1]), true
}

// nullable makes a converted schema accept null too: ["T", "null"] for a
// plain type, else an anyOf with {"type": "null"}. desc, when set, is a
// description that belongs on the result; note is appended to it.
func nullable(s any, desc any, note string) any {
	o, ok := s.(*object)
	if !ok {
		return s
	}
	has := func(k string) bool { _, ok := o.get(k); return ok }
	t, hasType := o.get("type")
	if name, plain := t.(string); hasType && plain && scalarTypes[name] && !has("enum") && !has("const") {
		o.set("type", []any{name, "null"})
		addNote(o, note)
		return o
	}
	if list, ok := o.get("anyOf"); ok && len(o.members) <= 2 && (len(o.members) == 1 || has("description")) {
		o.set("anyOf", append(list.([]any), obj("type", "null")))
		addNote(o, note)
		return o
	}
	w := &object{}
	if desc == nil {
		desc, _ = o.get("description")
		o.del("description")
	}
	if desc != nil {
		w.set("description", desc)
	}
	w.set("anyOf", []any{o, obj("type", "null")})
	addNote(w, note)
	return w
}

// scalarTypes take the ["T", "null"] form of nullable; objects and arrays
// get an anyOf with {"type": "null"}, the form strict mode's own examples use.
var scalarTypes = setOf("string", "number", "integer", "boolean")

// optionalNote tells a model what null means for an optional member, and
// the default it stands for: the member's own, or that of a branch of its
// anyOf (the batch schema wraps each argument in one).
func optionalNote(src any) string {
	if o, ok := src.(*object); ok {
		d, ok := o.get("default")
		if l, isList := o.get("anyOf"); !ok && isList {
			list, _ := l.([]any)
			for _, b := range list {
				if bo, isObj := b.(*object); isObj && !ok {
					d, ok = bo.get("default")
				}
			}
		}
		if ok {
			return "Optional: null leaves it out (default " + jsonText(d) + ")."
		}
	}
	return "Optional: null leaves it out."
}

func addNote(o *object, note string) {
	if d, ok := o.get("description"); ok {
		if s, ok := d.(string); ok && s != "" {
			sep := " "
			if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "!") && !strings.HasSuffix(s, "?") {
				sep = ". "
			}
			o.set("description", s+sep+note)
			return
		}
	}
	// A new description goes after the type, where a reader looks for it.
	at := 0
	if len(o.members) > 0 && o.members[0].key == "type" {
		at = 1
	}
	o.members = append(o.members[:at], append([]member{{"description", note}}, o.members[at:]...)...)
}

// acceptsNull reports whether an original subschema says that null is a
// value it takes: a type, enum or const naming null, a branch of anyOf/oneOf
// or a definition that does. A schema that leaves the type open (say, only
// "properties") lets null through by omission; that is not counted, and
// Strict closes the type anyway.
func acceptsNull(v any, root *object, seen map[any]bool) bool {
	if b, ok := v.(bool); ok {
		return b
	}
	o, ok := v.(*object)
	if !ok || seen[o] {
		return false
	}
	seen[o] = true
	if r, ok := o.get("$ref"); ok {
		s, _ := r.(string)
		if s == "#" {
			return acceptsNull(root, root, seen)
		}
		if kw, name, ok := parseDefRef(s); ok {
			if t, ok := definition(root, kw, name); ok {
				return acceptsNull(t, root, seen)
			}
		}
		return false
	}
	switch t, _ := o.get("type"); t := t.(type) {
	case string:
		if t == "null" {
			return true
		}
	case []any:
		for _, x := range t {
			if x == "null" {
				return true
			}
		}
	}
	if e, ok := o.get("enum"); ok {
		list, _ := e.([]any)
		for _, x := range list {
			if x == nil {
				return true
			}
		}
	}
	if k, ok := o.get("const"); ok && k == nil {
		return true
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if l, ok := o.get(kw); ok {
			list, _ := l.([]any)
			for _, b := range list {
				if acceptsNull(b, root, seen) {
					return true
				}
			}
		}
	}
	return false
}

// strictLimits checks a converted schema against strict mode's size limits.
func strictLimits(root *object) []string {
	var problems []string
	props, enumValues, chars := 0, 0, 0
	for _, kw := range []string{"$defs", "definitions"} {
		if d, ok := root.get(kw); ok {
			for _, m := range d.(*object).members {
				chars += len([]rune(m.key))
			}
		}
	}
	_ = walkSchema(root, func(o *object) error {
		if p, ok := o.get("properties"); ok {
			for _, m := range p.(*object).members {
				props++
				chars += len([]rune(m.key))
			}
		}
		if e, ok := o.get("enum"); ok {
			list, _ := e.([]any)
			enumValues += len(list)
			n := 0
			for _, x := range list {
				if s, ok := x.(string); ok {
					n += len([]rune(s))
				}
			}
			chars += n
			if len(list) > 250 && n > 15000 {
				problems = append(problems, fmt.Sprintf("an enum of %d values holds %d characters; strict mode allows 15,000 in an enum of more than 250 values", len(list), n))
			}
		}
		if k, ok := o.get("const"); ok {
			if s, ok := k.(string); ok {
				chars += len([]rune(s))
			}
		}
		return nil
	})
	if props > 5000 {
		problems = append(problems, fmt.Sprintf("%d object properties; strict mode allows 5,000", props))
	}
	if enumValues > 1000 {
		problems = append(problems, fmt.Sprintf("%d enum values; strict mode allows 1,000", enumValues))
	}
	if chars > 120000 {
		problems = append(problems, fmt.Sprintf("%d characters of property names, definition names, enum and const values; strict mode allows 120,000", chars))
	}
	if d := (&depthCounter{root: root, memo: map[*object]int{}}).depth(root); d > 10 {
		problems = append(problems, fmt.Sprintf("objects nest %d levels deep; strict mode allows 10", d))
	}
	return problems
}

// depthCounter measures the deepest nesting of object schemas, following
// refs; a ref back into a definition being measured counts nothing more.
type depthCounter struct {
	root *object
	memo map[*object]int
	busy map[*object]bool
}

func (d *depthCounter) depth(v any) int {
	o, ok := v.(*object)
	if !ok {
		return 0
	}
	if n, ok := d.memo[o]; ok {
		return n
	}
	if d.busy == nil {
		d.busy = map[*object]bool{}
	}
	if d.busy[o] {
		return 0
	}
	d.busy[o] = true
	defer delete(d.busy, o)
	deepest := 0
	sub := func(x any) { deepest = max(deepest, d.depth(x)) }
	if r, ok := o.get("$ref"); ok {
		s, _ := r.(string)
		if s == "#" {
			sub(d.root)
		} else if kw, name, ok := parseDefRef(s); ok {
			if defs, ok := d.root.get(kw); ok {
				if t, ok := defs.(*object).get(name); ok {
					sub(t)
				}
			}
		}
	}
	if p, ok := o.get("properties"); ok {
		for _, m := range p.(*object).members {
			sub(m.val)
		}
	}
	if it, ok := o.get("items"); ok {
		sub(it)
	}
	if l, ok := o.get("anyOf"); ok {
		for _, b := range l.([]any) {
			sub(b)
		}
	}
	n := deepest
	if isObjectType(o) {
		n++
	}
	d.memo[o] = n
	return n
}

func isObjectType(o *object) bool {
	switch t, _ := o.get("type"); t := t.(type) {
	case string:
		return t == "object"
	case []any:
		for _, x := range t {
			if x == "object" {
				return true
			}
		}
	}
	return false
}

// jsonText is a tree value as compact JSON, for messages and notes.
func jsonText(v any) string {
	var buf bytes.Buffer
	if err := encode(&buf, v); err != nil {
		return fmt.Sprint(v)
	}
	return buf.String()
}

func hasKey(o *object, k string) bool {
	_, ok := o.get(k)
	return ok
}
