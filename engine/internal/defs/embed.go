package defs

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Embedding a tool's input schema into the batch schema: a schema's "$ref"s
// are relative to its own root, which is no longer the document root once it
// sits inside the batch schema. So its "$defs" (and draft-07 "definitions")
// move to the batch schema's root "$defs" under names prefixed with the
// tool's name, and every same-document "$ref" is rewritten to match. A ref
// to the tool's root ("#", or a pointer outside its definitions) makes the
// root itself a definition too.
//
// Limits: refs to other documents and to "$anchor"s are left as they are;
// a subschema with its own "$id" is a separate resource and is copied
// untouched; "$dynamicRef" is not rewritten.

// embedded is one tool's input schema, ready to place in the batch schema.
type embedded struct {
	args *object  // the root, refs rewritten, definitions removed
	defs []member // hoisted definitions under their batch-level names
}

// namer hands out collision-free "$defs" names. Hoisted names are
// "TOOL.DEF", so they always contain a dot and never meet the batch schema's
// own definitions, whose names have none; a clash between tools ("a.b" + "c"
// vs "a" + "b.c") gets a numeric suffix.
type namer map[string]bool

func (n namer) name(base string) string {
	s := base
	for i := 2; n[s]; i++ {
		s = base + "-" + strconv.Itoa(i)
	}
	n[s] = true
	return s
}

func embed(t Tool, names namer) (*embedded, error) {
	v, err := parse(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %v", t.Name, err)
	}
	root, ok := v.(*object)
	if !ok {
		return nil, fmt.Errorf("tool %q: input schema is not a JSON object", t.Name)
	}
	e := &embedder{tool: t.Name, names: names, local: map[string]string{}}
	if id, ok := root.get("$id"); ok {
		e.base, _ = id.(string)
	}
	root.del("$id")
	root.del("$schema")

	out := &embedded{args: root}
	for _, kw := range []string{"$defs", "definitions"} {
		d, ok := root.get(kw)
		if !ok {
			continue
		}
		do, ok := d.(*object)
		if !ok {
			return nil, fmt.Errorf("tool %q: %s is not an object", t.Name, kw)
		}
		for _, m := range do.members {
			name := names.name(t.Name + "." + m.key)
			e.local[kw+"/"+m.key] = name
			out.defs = append(out.defs, member{name, m.val})
		}
		root.del(kw)
	}
	if err := walkSchema(root, e.visit); err != nil {
		return nil, err
	}
	for _, d := range out.defs {
		if err := walkSchema(d.val, e.visit); err != nil {
			return nil, err
		}
	}
	if e.rootName != "" {
		out.defs = append(out.defs, member{e.rootName, clone(root)})
	}
	return out, nil
}

type embedder struct {
	tool     string
	base     string // the schema's own "$id", if any
	names    namer
	local    map[string]string // "$defs/X" → hoisted name
	rootName string            // set once something refers to the root
}

func (e *embedder) visit(o *object) error {
	upgradeTupleItems(o)
	r, ok := o.get("$ref")
	if !ok {
		return nil
	}
	ref, ok := r.(string)
	if !ok {
		return nil
	}
	ref2, err := e.rewrite(ref)
	if err != nil {
		return fmt.Errorf("tool %q: $ref %q: %v", e.tool, ref, err)
	}
	o.set("$ref", ref2)
	return nil
}

func (e *embedder) rewrite(ref string) (string, error) {
	r := ref
	if e.base != "" && (r == e.base || strings.HasPrefix(r, e.base+"#")) {
		r = r[len(e.base):]
	}
	if r != "" && r[0] != '#' {
		return ref, nil // another document
	}
	frag, err := url.PathUnescape(strings.TrimPrefix(r, "#"))
	if err != nil {
		return "", err
	}
	if frag != "" && frag[0] != '/' {
		return ref, nil // an $anchor
	}
	toks := strings.Split(frag, "/")[1:] // still ~-escaped
	if len(toks) >= 2 && (toks[0] == "$defs" || toks[0] == "definitions") {
		name, ok := e.local[toks[0]+"/"+unescapeToken(toks[1])]
		if !ok {
			return "", fmt.Errorf("no such definition")
		}
		return defRef(name, toks[2:]), nil
	}
	if e.rootName == "" {
		e.rootName = e.names.name(e.tool + ".root")
	}
	return defRef(e.rootName, toks), nil
}

// defRef is a ref to "#/$defs/NAME/REST...", percent-encoded as a URI
// fragment. rest holds pointer tokens, already ~-escaped.
func defRef(name string, rest []string) string {
	p := "/$defs/" + escapeToken(name)
	for _, t := range rest {
		p += "/" + t
	}
	return "#" + (&url.URL{Fragment: p}).EscapedFragment()
}

func escapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// upgradeTupleItems rewrites a pre-2020-12 tuple ("items": [...] with
// "additionalItems") to "prefixItems"/"items": the batch schema is one
// 2020-12 document, where an array-valued "items" does not compile.
func upgradeTupleItems(o *object) {
	items, ok := o.get("items")
	if _, isList := items.([]any); !ok || !isList {
		return
	}
	if _, has := o.get("prefixItems"); has {
		return
	}
	for i := range o.members {
		switch o.members[i].key {
		case "items":
			o.members[i].key = "prefixItems"
		case "additionalItems":
			o.members[i].key = "items"
		}
	}
}

// Keywords whose values are subschemas, by shape.
var (
	schemaKeywords = map[string]bool{"items": true, "additionalItems": true, "additionalProperties": true,
		"not": true, "if": true, "then": true, "else": true, "contains": true, "propertyNames": true,
		"unevaluatedItems": true, "unevaluatedProperties": true, "contentSchema": true}
	schemaListKeywords = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}
	schemaMapKeywords  = map[string]bool{"properties": true, "patternProperties": true, "$defs": true,
		"definitions": true, "dependentSchemas": true, "dependencies": true}
)

// walkSchema calls fn on v and on each of its subschemas, parents first. It
// follows keywords only, so data under "enum", "const", "default" or
// "examples", and properties that happen to be named "$ref", are not touched.
// It does not enter a subschema with its own "$id".
func walkSchema(v any, fn func(*object) error) error {
	o, ok := v.(*object)
	if !ok {
		return nil
	}
	if _, ok := o.get("$id"); ok {
		return nil
	}
	if err := fn(o); err != nil {
		return err
	}
	for _, m := range o.members {
		var subs []any
		switch {
		case schemaKeywords[m.key]:
			if l, ok := m.val.([]any); ok { // draft-07 tuple "items"
				subs = l
			} else {
				subs = []any{m.val}
			}
		case schemaListKeywords[m.key]:
			subs, _ = m.val.([]any)
		case schemaMapKeywords[m.key]:
			if mo, ok := m.val.(*object); ok {
				for _, mm := range mo.members {
					subs = append(subs, mm.val)
				}
			}
		}
		for _, s := range subs {
			if err := walkSchema(s, fn); err != nil {
				return err
			}
		}
	}
	return nil
}
