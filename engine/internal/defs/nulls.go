package defs

import (
	"bytes"
	"encoding/json"
)

// Nulls is where a strict form made optional members nullable. A model
// decoding under the strict form must send every member, and sends null for
// one it means to leave out; the original schema rejects that null. Drop
// takes those nulls out again, so the tool gets the arguments it declared.
//
// A plan node describes one subschema: the members of an object (each
// marked drop when it was optional, with the plan of its value), the items
// of an array, the branches of an anyOf, or a ref to another node (a
// definition, or the root).
type Nulls struct {
	members map[string]*nullMember
	consts  map[string]string // members with a const, as compact JSON: they pick an anyOf branch
	items   *Nulls
	anyOf   []*Nulls
	ref     *Nulls
}

type nullMember struct {
	drop bool // optional in the original: a null here means "left out"
	sub  *Nulls
}

// drops reports whether any node reachable from n drops a member.
func (n *Nulls) drops(seen map[*Nulls]bool) bool {
	if n == nil || seen[n] {
		return false
	}
	seen[n] = true
	for _, m := range n.members {
		if m.drop || m.sub.drops(seen) {
			return true
		}
	}
	if n.items.drops(seen) || n.ref.drops(seen) {
		return true
	}
	for _, b := range n.anyOf {
		if b.drops(seen) {
			return true
		}
	}
	return false
}

// maxRefHops bounds a chain of refs that descends into no value (a
// definition that is only a ref to itself).
const maxRefHops = 64

// Drop returns args without the null members the plan marks as optional,
// and whether it removed any. Everything else is kept as sent, member order
// and number spelling included. Args that are not a JSON object, or hold no
// null at all, come back unchanged without being parsed.
func (n *Nulls) Drop(args json.RawMessage) (json.RawMessage, bool) {
	if n == nil || !bytes.Contains(args, []byte("null")) {
		return args, false
	}
	v, err := parse(args)
	if err != nil {
		return args, false
	}
	if !n.walk(v) {
		return args, false
	}
	out, err := marshal(v)
	if err != nil {
		return args, false
	}
	return out, true
}

// resolve follows refs to the node that describes a value.
func (n *Nulls) resolve() *Nulls {
	for i := 0; n != nil && n.ref != nil; i++ {
		if i == maxRefHops {
			return nil
		}
		n = n.ref
	}
	return n
}

func (n *Nulls) walk(v any) bool {
	n = n.resolve()
	if n == nil {
		return false
	}
	if len(n.anyOf) > 0 {
		return n.branch(v).walk(v)
	}
	changed := false
	switch v := v.(type) {
	case *object:
		if n.members == nil {
			return false
		}
		kept := v.members[:0]
		for _, m := range v.members {
			p := n.members[m.key]
			if p != nil && p.drop && m.val == nil {
				changed = true
				continue
			}
			if p != nil && p.sub.walk(m.val) {
				changed = true
			}
			kept = append(kept, m)
		}
		v.members = kept
	case []any:
		if n.items == nil {
			return false
		}
		for _, e := range v {
			if n.items.walk(e) {
				changed = true
			}
		}
	}
	return changed
}

// branch picks the anyOf branch a value was written under: for an object,
// the first branch whose const members match it and whose members include
// all of its own; for an array, the first array branch. nil when none fits.
func (n *Nulls) branch(v any) *Nulls {
	for _, b := range n.anyOf {
		if b.fits(v) {
			return b
		}
	}
	return nil
}

func (n *Nulls) fits(v any) bool {
	n = n.resolve()
	if n == nil {
		return false
	}
	if len(n.anyOf) > 0 {
		return n.branch(v) != nil
	}
	switch v := v.(type) {
	case *object:
		if n.members == nil {
			return false
		}
		for k, want := range n.consts {
			got, ok := v.get(k)
			if !ok || jsonText(got) != want {
				return false
			}
		}
		for _, m := range v.members {
			if _, ok := n.members[m.key]; !ok {
				return false
			}
		}
		return true
	case []any:
		return n.items != nil
	}
	return false
}
