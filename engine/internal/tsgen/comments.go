package tsgen

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// notes are the constraints a doc comment mentions because TypeScript types
// cannot say them.
var notes = []string{"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum",
	"minLength", "maxLength", "minItems", "maxItems", "format", "pattern"}

// docOf returns a schema's doc comment text: its description, then its
// constraints as JSDoc-style tags.
func docOf(v any) string {
	o, ok := v.(*object)
	if !ok {
		return ""
	}
	desc, _ := o.str("description")
	desc = strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(desc, "\r\n", "\n"), "\r", "\n"))
	var tags []string
	for _, k := range notes {
		switch x := o.vals[k].(type) {
		case json.Number:
			tags = append(tags, "@"+k+" "+x.String())
		case string:
			tags = append(tags, "@"+k+" "+short(x))
		}
	}
	if d, ok := o.get("default"); ok {
		var b strings.Builder
		canon(&b, d)
		tags = append(tags, "@default "+short(b.String()))
	}
	if o.vals["deprecated"] == true {
		tags = append(tags, "@deprecated")
	}
	if len(tags) == 0 {
		return desc
	}
	sep := " "
	if strings.Contains(desc, "\n") {
		sep = "\n"
	}
	if desc == "" {
		return strings.Join(tags, sep)
	}
	return desc + sep + strings.Join(tags, sep)
}

// short keeps a tag's value to one line of at most 80 characters.
func short(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }), " ")
	if utf8.RuneCountInString(s) <= 80 {
		return s
	}
	return string([]rune(s)[:79]) + "…"
}

// writeDoc writes text as a JSDoc comment, on one line if it is one line.
// "*/" in the text would end the comment early and is written as "*\/".
func writeDoc(b *strings.Builder, text, indent string) {
	if text == "" {
		return
	}
	text = strings.ReplaceAll(text, "*/", `*\/`)
	lines := strings.Split(text, "\n")
	if len(lines) == 1 {
		b.WriteString(indent + "/** " + text + " */\n")
		return
	}
	b.WriteString(indent + "/**\n")
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			b.WriteString(indent + " *\n")
		} else {
			b.WriteString(indent + " * " + l + "\n")
		}
	}
	b.WriteString(indent + " */\n")
}
