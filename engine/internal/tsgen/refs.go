package tsgen

import (
	"net/url"
	"strconv"
	"strings"
)

// ref renders a $ref as the name of a type alias for its target, making the
// alias on first use. Only references within the document ("#", "#/$defs/X",
// any JSON pointer) are followed; others are unknown.
func (s *scope) ref(ref string) typ {
	target, ok := resolve(s.root, ref)
	if !ok {
		return tUnknown
	}
	o, ok := target.(*object)
	if !ok {
		return s.typeOf(target, 0, "") // true or false: nothing to name
	}
	if name, ok := s.names[o]; ok {
		return typ{name, primary}
	}
	frag := fragment(ref)
	i := strings.LastIndexByte(frag, '/')
	if i < 0 { // "#": the whole document
		return s.alias(o, s.prefix+"_"+s.role)
	}
	seg := ident(unescapePointer(frag[i+1:]))
	if sh := s.shared; sh != nil {
		if _, ok := resolve(sh.root, ref); ok {
			if sameClosure(s.root, sh.root, ref) {
				t := sh.ref(ref)
				s.names[o] = t.s
				return t
			}
			return s.alias(o, s.prefix+"_Out_"+seg)
		}
	}
	return s.alias(o, s.prefix+"_"+seg)
}

// alias makes a type alias for o, named base or, if that is taken, base and
// a number.
func (s *scope) alias(o *object, base string) typ {
	name := s.g.unique(base)
	s.names[o] = name // before rendering, so that recursion ends here
	body := s.typeOf(o, 0, "")
	var b strings.Builder
	writeDoc(&b, docOf(o), "")
	b.WriteString("type " + name + " = " + body.s + ";\n")
	s.g.aliases = append(s.g.aliases, b.String())
	return typ{name, primary}
}

// resolve follows a same-document reference: "#" or "#" and a JSON pointer.
func resolve(root any, ref string) (any, bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	frag := fragment(ref)
	if frag == "" {
		return root, true
	}
	if frag[0] != '/' {
		return nil, false // an anchor
	}
	cur := root
	for _, seg := range strings.Split(frag[1:], "/") {
		seg = unescapePointer(seg)
		switch c := cur.(type) {
		case *object:
			v, ok := c.vals[seg]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) || strconv.Itoa(i) != seg {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// fragment returns a "#..." reference's fragment, percent-decoded.
func fragment(ref string) string {
	frag := strings.TrimPrefix(ref, "#")
	if u, err := url.PathUnescape(frag); err == nil {
		return u
	}
	return frag
}

func unescapePointer(seg string) string {
	return strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
}

// sameClosure reports whether ref means the same in both documents: its
// target and every definition it reaches are equal. Then the input and output
// schemas can share one alias.
func sameClosure(a, b any, ref string) bool {
	ca, cb := map[string]string{}, map[string]string{}
	closure(a, ref, ca)
	closure(b, ref, cb)
	if len(ca) != len(cb) {
		return false
	}
	for k, v := range ca {
		if cb[k] != v {
			return false
		}
	}
	return true
}

// closure records, for ref and every reference reachable from its target,
// the canonical JSON of the target.
func closure(root any, ref string, out map[string]string) {
	if _, ok := out[ref]; ok {
		return
	}
	t, ok := resolve(root, ref)
	if !ok {
		out[ref] = "" // unresolvable; no JSON text is empty
		return
	}
	var b strings.Builder
	canon(&b, t)
	out[ref] = b.String()
	walkRefs(t, func(r string) { closure(root, r, out) })
}

// walkRefs calls f with every "$ref" string in v.
func walkRefs(v any, f func(string)) {
	switch v := v.(type) {
	case *object:
		for _, k := range v.keys {
			if r, ok := v.vals[k].(string); ok && k == "$ref" {
				f(r)
			}
			walkRefs(v.vals[k], f)
		}
	case []any:
		for _, e := range v {
			walkRefs(e, f)
		}
	}
}
