// Package tsgen turns tool JSON Schemas into TypeScript declarations, so that
// a model writing code mode JavaScript or TypeScript knows every tool's
// arguments and result: tools.createStickyNote({...}) and, for dotted names,
// tools.board.getState().
//
// It imports nothing of codemode; callers map their tools to [Tool].
package tsgen

import (
	"encoding/json"
	"sort"
	"strings"
)

// Tool is what tsgen needs of a tool.
type Tool struct {
	// Name is identifier segments joined by dots: "createStickyNote",
	// "board.getState". Other names are still declared, as quoted members
	// of tools.
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// InputSchema is the arguments' JSON Schema, normally with root
	// "type": "object". Invalid JSON gives args of type unknown.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// OutputSchema is the result's JSON Schema; without one the result is
	// Promise<unknown>.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// Declarations returns a TypeScript declaration file for code that calls the
// tools: `declare const tools: {...}` with one method per tool (dotted names
// nest), type aliases for the schemas' $refs, and the other globals code mode
// provides, input and console. The output is deterministic, and any input,
// however malformed, gives declarations that parse.
func Declarations(tools []Tool) string {
	var b strings.Builder
	b.WriteString(toolsDeclaration(tools))
	b.WriteString("declare const input: unknown;\n")
	b.WriteString("declare const console: {")
	for i, m := range []string{"log", "info", "warn", "error", "debug"} {
		if i > 0 {
			b.WriteString(";")
		}
		b.WriteString(" " + m + "(...args: unknown[]): void")
	}
	b.WriteString(" };\n")
	return b.String()
}

// Declaration returns the declaration of one tool, as Declarations writes it
// but without the other globals: the type aliases it needs, then `declare
// const tools` holding only t, so the path a script calls it by is visible.
func Declaration(t Tool) string { return toolsDeclaration([]Tool{t}) }

// toolsDeclaration is the type aliases and the `tools` global of tools.
func toolsDeclaration(tools []Tool) string {
	sorted := append([]Tool(nil), tools...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })

	root := &node{}
	seen := map[string]bool{}
	for i := range sorted {
		t := &sorted[i]
		if seen[t.Name] {
			continue // one declaration per name
		}
		seen[t.Name] = true
		root.insert(t)
	}

	g := newGen()
	var body strings.Builder
	root.write(&body, g, "  ")

	var b strings.Builder
	for _, a := range g.aliases {
		b.WriteString(a)
		b.WriteString("\n")
	}
	if body.Len() == 0 {
		b.WriteString("declare const tools: {};\n")
	} else {
		b.WriteString("declare const tools: {\n")
		b.WriteString(body.String())
		b.WriteString("};\n")
	}
	return b.String()
}

// node is one level of the tools object: a tool's method, or a namespace of
// dotted names' next segments, and at the root also quoted members.
type node struct {
	tool   *Tool
	kids   map[string]*node
	quoted []*Tool // root only: tools declared by their whole name
}

// insert places t by its name's segments. A tool whose name is not
// identifier segments, or would nest under another tool's method (tool "a"
// and tool "a.b"), is declared at the root by its whole, quoted name, which
// tools["a.b"] reaches.
func (root *node) insert(t *Tool) {
	segs := strings.Split(t.Name, ".")
	for _, s := range segs {
		if !isIdent(s) || strings.Contains(s, "$") {
			root.quoted = append(root.quoted, t)
			return
		}
	}
	n := root
	for _, s := range segs {
		if n.tool != nil {
			root.quoted = append(root.quoted, t)
			return
		}
		if n.kids == nil {
			n.kids = map[string]*node{}
		}
		k := n.kids[s]
		if k == nil {
			k = &node{}
			n.kids[s] = k
		}
		n = k
	}
	if n.tool != nil || n.kids != nil {
		root.quoted = append(root.quoted, t)
		return
	}
	n.tool = t
}

// write writes n's members, sorted by name, one a line.
func (n *node) write(b *strings.Builder, g *gen, indent string) {
	type entry struct {
		key  string
		kid  *node
		tool *Tool
	}
	var es []entry
	for k, kid := range n.kids {
		es = append(es, entry{propKey(k), kid, kid.tool})
	}
	for _, t := range n.quoted {
		es = append(es, entry{jsString(t.Name), nil, t})
	}
	sort.Slice(es, func(i, j int) bool {
		ki, kj := strings.Trim(es[i].key, `"`), strings.Trim(es[j].key, `"`)
		if ki != kj {
			return ki < kj
		}
		return es[i].key < es[j].key
	})
	for _, e := range es {
		if e.tool != nil {
			writeMethod(b, g, e.key, e.tool, indent)
			continue
		}
		b.WriteString(indent + e.key + ": {\n")
		e.kid.write(b, g, indent+"  ")
		b.WriteString(indent + "};\n")
	}
}

// writeMethod writes one tool as `key(args: In): Promise<Out>;` under its
// description.
func writeMethod(b *strings.Builder, g *gen, key string, t *Tool, indent string) {
	prefix := pascal(t.Name)
	in, _ := parse(t.InputSchema)
	inScope := newScope(g, in, prefix, "Args")
	args := inScope.typeOf(in, 0, indent)
	out := tUnknown
	if len(t.OutputSchema) > 0 {
		if v, err := parse(t.OutputSchema); err == nil {
			outScope := newScope(g, v, prefix, "Result")
			outScope.shared = inScope
			out = outScope.typeOf(v, 0, indent)
		}
	}
	desc := strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(t.Description, "\r\n", "\n"), "\r", "\n"))
	writeDoc(b, desc, indent)
	opt := ""
	if argsOptional(in) {
		opt = "?"
	}
	b.WriteString(indent + key + "(args" + opt + ": " + args.s + "): Promise<" + out.s + ">;\n")
}

// argsOptional reports whether a call may leave out the arguments: the
// schema requires no property and does not demand a non-object.
func argsOptional(schema any) bool {
	o, ok := schema.(*object)
	if !ok {
		return schema != false
	}
	if req, ok := o.vals["required"].([]any); ok && len(req) > 0 {
		return false
	}
	switch t := o.vals["type"].(type) {
	case string:
		return t == "object"
	case []any:
		for _, x := range t {
			if x == "object" {
				return true
			}
		}
		return false
	}
	return true
}

// pascal turns a tool name into an alias name prefix: "board.getState"
// becomes "BoardGetState".
func pascal(name string) string {
	var b strings.Builder
	for _, seg := range strings.Split(name, ".") {
		if seg != "" && seg[0] >= 'a' && seg[0] <= 'z' {
			seg = string(seg[0]-'a'+'A') + seg[1:]
		}
		b.WriteString(ident(seg))
	}
	p := b.String()
	if p == "" || p[0] >= '0' && p[0] <= '9' {
		p = "T" + p
	}
	return p
}
