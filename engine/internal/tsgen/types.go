package tsgen

import (
	"encoding/json"
	"strconv"
	"strings"
)

// maxDepth is how deep a schema is followed before the rest is typed unknown:
// declarations are for a model to read, and pathological nesting must not
// blow up their size.
const maxDepth = 32

// prec is how loosely a type expression binds, to know where parentheses are
// needed: an array of a union is (A | B)[], not A | B[].
type prec int

const (
	primary prec = iota // string, { ... }, [A, B], T[], Name
	prefix              // -1: a literal that needs parentheses before []
	inter               // A & B
	union               // A | B
)

// typ is a rendered TypeScript type expression.
type typ struct {
	s string
	p prec
}

var (
	tUnknown = typ{"unknown", primary}
	tNever   = typ{"never", primary}
)

// gen holds what all of one declaration file's schemas share: the type
// aliases made for $refs, and the alias names taken.
type gen struct {
	aliases []string
	taken   map[string]bool
}

func newGen() *gen { return &gen{taken: map[string]bool{}} }

// unique returns name, or name with a number appended if it is taken, and
// takes it.
func (g *gen) unique(name string) string {
	n := name
	for i := 2; g.taken[n]; i++ {
		n = name + "_" + strconv.Itoa(i)
	}
	g.taken[n] = true
	return n
}

// scope is one schema document (a tool's input or output schema), the root
// its $refs resolve against.
type scope struct {
	g      *gen
	root   any
	prefix string // alias name prefix: the tool's name in PascalCase
	role   string // "Args" or "Result": the alias name for a "#" reference
	// shared is the input schema's scope when this is the output schema's:
	// a definition both define alike gets one alias.
	shared *scope
	names  map[*object]string // alias made for each referenced schema
}

func newScope(g *gen, root any, prefix, role string) *scope {
	return &scope{g: g, root: root, prefix: prefix, role: role, names: map[*object]string{}}
}

// typeOf renders schema v as a type expression whose continuation lines are
// indented by indent.
func (s *scope) typeOf(v any, depth int, indent string) typ {
	o, ok := v.(*object)
	if !ok {
		if v == false {
			return tNever
		}
		return tUnknown // true, or not a schema
	}
	if depth > maxDepth {
		return tUnknown
	}
	if ref, ok := o.str("$ref"); ok {
		return s.ref(ref)
	}
	var parts []typ
	if c, ok := o.get("const"); ok {
		parts = append(parts, literal(c, 0))
	} else if e, ok := o.vals["enum"].([]any); ok {
		lits := make([]typ, len(e))
		for i, x := range e {
			lits[i] = literal(x, 0)
		}
		parts = append(parts, unionOf(lits))
	} else {
		parts = append(parts, s.typed(o, depth, indent))
	}
	if all, ok := o.vals["allOf"].([]any); ok {
		for _, x := range all {
			parts = append(parts, s.typeOf(x, depth+1, indent))
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := o.vals[k].([]any); ok {
			ts := make([]typ, len(alts))
			for i, x := range alts {
				ts[i] = s.typeOf(x, depth+1, indent)
			}
			parts = append(parts, unionOf(ts))
		}
	}
	return intersect(parts)
}

// typed renders o by its "type" keyword, or, without one, by the keywords
// only objects or arrays have.
func (s *scope) typed(o *object, depth int, indent string) typ {
	var types []string
	switch t := o.vals["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if x, ok := x.(string); ok {
				types = append(types, x)
			}
		}
		if len(types) == 0 {
			return tUnknown
		}
	default:
		if o.has("properties", "additionalProperties", "patternProperties") {
			types = []string{"object"}
		} else if o.has("items", "prefixItems") {
			types = []string{"array"}
		} else {
			return tUnknown
		}
	}
	ts := make([]typ, len(types))
	for i, t := range types {
		switch t {
		case "string", "number", "boolean", "null":
			ts[i] = typ{t, primary}
		case "integer":
			ts[i] = typ{"number", primary}
		case "array":
			ts[i] = s.array(o, depth, indent)
		case "object":
			ts[i] = s.object(o, depth, indent)
		default:
			ts[i] = tUnknown
		}
	}
	return unionOf(ts)
}

func (o *object) has(keys ...string) bool {
	for _, k := range keys {
		if _, ok := o.vals[k]; ok {
			return true
		}
	}
	return false
}

// array renders an array schema: T[], or a tuple for prefixItems (or the
// older array form of items).
func (s *scope) array(o *object, depth int, indent string) typ {
	items, hasItems := o.get("items")
	elems, tuple := o.vals["prefixItems"].([]any)
	if !tuple {
		if elems, tuple = items.([]any); tuple {
			items, hasItems = o.get("additionalItems")
		}
	}
	if !tuple {
		if !hasItems {
			return typ{"unknown[]", primary}
		}
		if items == false {
			return typ{"[]", primary}
		}
		return typ{wrap(s.typeOf(items, depth+1, indent), primary) + "[]", primary}
	}
	parts := make([]string, 0, len(elems)+1)
	for _, e := range elems {
		parts = append(parts, s.typeOf(e, depth+1, indent).s)
	}
	if hasItems && items != false {
		parts = append(parts, "..."+wrap(s.typeOf(items, depth+1, indent), primary)+"[]")
	}
	return typ{"[" + strings.Join(parts, ", ") + "]", primary}
}

// member is one line of an object type, with its doc comment.
type member struct {
	doc      string
	key      string // already quoted if need be
	optional bool
	t        string
}

// object renders an object schema: its properties in schema order, and an
// index signature where other keys are allowed.
func (s *scope) object(o *object, depth int, indent string) typ {
	required := map[string]bool{}
	if req, ok := o.vals["required"].([]any); ok {
		for _, r := range req {
			if r, ok := r.(string); ok {
				required[r] = true
			}
		}
	}
	var members []member
	props, hasProps := o.vals["properties"].(*object)
	if hasProps {
		for _, k := range props.keys {
			v := props.vals[k]
			members = append(members, member{
				doc:      docOf(v),
				key:      propKey(k),
				optional: !required[k],
				t:        s.typeOf(v, depth+1, indent+"  ").s,
			})
		}
	}
	// The types of other keys' values: additionalProperties, and
	// patternProperties (TypeScript cannot say which keys match).
	var rest []typ
	if pp, ok := o.vals["patternProperties"].(*object); ok {
		for _, k := range pp.keys {
			rest = append(rest, s.typeOf(pp.vals[k], depth+1, indent+"  "))
		}
	}
	ap, hasAP := o.get("additionalProperties")
	switch {
	case hasAP && ap != false:
		rest = append(rest, s.typeOf(ap, depth+1, indent+"  "))
	case !hasAP && !hasProps && len(rest) == 0:
		rest = append(rest, tUnknown)
	}
	if len(rest) == 0 {
		return typ{objectLit(members, indent), primary}
	}
	idx := unionOf(rest)
	sig := member{key: "[key: string]", t: idx.s}
	if idx.s == "unknown" || len(members) == 0 {
		// unknown admits every property's type, so one literal is exact.
		return typ{objectLit(append(members, sig), indent), primary}
	}
	// TypeScript wants each property's type to fit the index signature's;
	// an intersection keeps both exact.
	return typ{objectLit(members, indent) + " & " + objectLit([]member{sig}, indent), inter}
}

// objectLit formats members as { a: T; b?: U } on one line when that is
// short and needs no comments, else one member a line.
func objectLit(ms []member, indent string) string {
	if len(ms) == 0 {
		return "{}"
	}
	inline := true
	n := 4
	for _, m := range ms {
		n += len(m.key) + len(m.t) + 4
		if m.doc != "" || strings.Contains(m.t, "\n") {
			inline = false
		}
	}
	var b strings.Builder
	if inline && n <= 80 {
		b.WriteString("{ ")
		for i, m := range ms {
			if i > 0 {
				b.WriteString("; ")
			}
			writeMember(&b, m)
		}
		b.WriteString(" }")
		return b.String()
	}
	in := indent + "  "
	b.WriteString("{\n")
	for _, m := range ms {
		writeDoc(&b, m.doc, in)
		b.WriteString(in)
		writeMember(&b, m)
		b.WriteString(";\n")
	}
	b.WriteString(indent + "}")
	return b.String()
}

func writeMember(b *strings.Builder, m member) {
	b.WriteString(m.key)
	if m.optional {
		b.WriteByte('?')
	}
	b.WriteString(": ")
	b.WriteString(m.t)
}

// literal renders a JSON value (of enum or const) as a literal type.
func literal(v any, depth int) typ {
	if depth > maxDepth {
		return tUnknown
	}
	switch v := v.(type) {
	case nil:
		return typ{"null", primary}
	case bool:
		return typ{strconv.FormatBool(v), primary}
	case json.Number:
		if strings.HasPrefix(v.String(), "-") {
			return typ{v.String(), prefix}
		}
		return typ{v.String(), primary}
	case string:
		return typ{jsString(v), primary}
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = literal(e, depth+1).s
		}
		return typ{"[" + strings.Join(parts, ", ") + "]", primary}
	case *object:
		if len(v.keys) == 0 {
			return typ{"{}", primary}
		}
		parts := make([]string, len(v.keys))
		for i, k := range v.keys {
			parts[i] = propKey(k) + ": " + literal(v.vals[k], depth+1).s
		}
		return typ{"{ " + strings.Join(parts, "; ") + " }", primary}
	}
	return tUnknown
}

// unionOf joins ts with |, without duplicates or nevers; unknown absorbs the
// rest.
func unionOf(ts []typ) typ {
	var out []typ
	seen := map[string]bool{}
	for _, t := range ts {
		if t.s == "unknown" {
			return tUnknown
		}
		if t.s == "never" || seen[t.s] {
			continue
		}
		seen[t.s] = true
		out = append(out, t)
	}
	switch len(out) {
	case 0:
		return tNever
	case 1:
		return out[0]
	}
	parts := make([]string, len(out))
	for i, t := range out {
		parts[i] = t.s
	}
	return typ{strings.Join(parts, " | "), union}
}

// intersect joins ts with &, without duplicates or unknowns (which add
// nothing).
func intersect(ts []typ) typ {
	var out []string
	seen := map[string]bool{}
	for _, t := range ts {
		if t.s == "unknown" || seen[t.s] {
			continue
		}
		seen[t.s] = true
		out = append(out, wrap(t, inter))
	}
	switch len(out) {
	case 0:
		return tUnknown
	case 1:
		for _, t := range ts {
			if t.s != "unknown" {
				return t
			}
		}
	}
	return typ{strings.Join(out, " & "), inter}
}

// wrap parenthesizes t if it binds more loosely than a context allows.
func wrap(t typ, ctx prec) string {
	if t.p > ctx {
		return "(" + t.s + ")"
	}
	return t.s
}

// propKey returns k as an object type's key: bare if it is an identifier,
// else quoted. "new" is quoted too: new(...) would be a construct signature.
func propKey(k string) string {
	if isIdent(k) && k != "new" {
		return k
	}
	return jsString(k)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// ident makes s usable inside an alias name: characters other than ASCII
// letters, digits and _ become _.
func ident(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
