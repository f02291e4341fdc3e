package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// plan is a checked batch: every operation with the references in its args
// resolved to producer indices. Building a plan rejects unknown labels,
// forward references in sequential mode and cycles before anything runs.
type plan struct {
	req  *BatchRequest
	mode ExecutionMode
	ops  []plannedOp
	// dependents[i] lists the operations that reference operation i.
	dependents [][]int
}

type plannedOp struct {
	Operation
	tree any   // args decoded, only when they hold references
	deps []int // distinct producers, in first-reference order
}

// reference is one {"$ref": "label.path"} placeholder.
type reference struct {
	label string
	path  []string
}

func parseReference(s string) reference {
	parts := strings.Split(s, ".")
	return reference{label: parts[0], path: parts[1:]}
}

// isRef reports whether v is a reference placeholder: an object whose only
// key is "$ref", with a string value.
func isRef(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return "", false
	}
	s, ok := m["$ref"].(string)
	return s, ok
}

// newPlan checks the request and finds its references.
func newPlan(req *BatchRequest) (*plan, *Error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	p := &plan{req: req, mode: req.ExecutionMode.orDefault(), ops: make([]plannedOp, len(req.Operations))}
	labels := make(map[string]int)
	for i, op := range req.Operations {
		if op.Label != "" {
			labels[op.Label] = i
		}
	}
	p.dependents = make([][]int, len(req.Operations))
	for i, op := range req.Operations {
		p.ops[i].Operation = op
		if !bytes.Contains(op.Args, []byte(`"$ref"`)) && !bytes.Contains(op.Args, []byte(`\u`)) {
			continue // the common case costs a scan or two, no decoding; \u may spell "$ref" escaped
		}
		tree, err := decodeJSON(op.Args)
		if err != nil {
			continue // not JSON: validation reports it as invalid_args when the op runs
		}
		var refErr *Error
		walkRefs(tree, func(s string) {
			if refErr != nil {
				return
			}
			ref := parseReference(s)
			j, ok := labels[ref.label]
			switch {
			case !ok:
				refErr = Errorf(CodeBadRequest, "operation %d: $ref %s names no labelled operation%s", i, quote(s), knownLabels(labels))
			case j == i:
				refErr = Errorf(CodeBadRequest, "operation %d: $ref %s refers to the operation itself", i, quote(s))
			case j > i && p.mode == Sequential:
				refErr = Errorf(CodeBadRequest, "operation %d: $ref %s refers forward to operation %d; in sequential mode an operation can only use earlier results", i, quote(s), j)
			default:
				if !contains(p.ops[i].deps, j) {
					p.ops[i].deps = append(p.ops[i].deps, j)
					p.dependents[j] = append(p.dependents[j], i)
				}
			}
		})
		if refErr != nil {
			return nil, refErr
		}
		if len(p.ops[i].deps) > 0 {
			p.ops[i].tree = tree
		}
	}
	if cycle := p.findCycle(); cycle != nil {
		return nil, Errorf(CodeBadRequest, "$ref cycle: operations %s", cycleText(cycle, req.Operations))
	}
	return p, nil
}

// maxListed bounds the labels, fields or cycle steps a message lists, and
// maxListedChars each of them, so a whole list fits in an error message.
const (
	maxListed      = 20
	maxListedChars = 60
)

// knownLabels lists the first maxListed labels.
func knownLabels(labels map[string]int) string {
	if len(labels) == 0 {
		return " (no operation has a label)"
	}
	names := make([]string, 0, len(labels))
	for l := range labels {
		names = append(names, l)
	}
	slices.Sort(names)
	return " (labels: " + listed(names) + ")"
}

// listed joins the first maxListed items, each cut to maxListedChars, and
// says how many more there were.
func listed(items []string) string {
	shown := make([]string, min(len(items), maxListed))
	for i := range shown {
		shown[i] = clip(items[i], maxListedChars)
	}
	s := strings.Join(shown, ", ")
	if more := len(items) - len(shown); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// cycleText is a cycle as "0 (a) → 1 (b) → 0 (a)", at most maxListed steps.
func cycleText(cycle []int, ops []Operation) string {
	steps := make([]string, 0, min(len(cycle), maxListed+1))
	for k, i := range cycle {
		if k == maxListed && len(cycle) > maxListed+1 {
			steps = append(steps, fmt.Sprintf("… (%d more)", len(cycle)-maxListed))
			break
		}
		steps = append(steps, fmt.Sprintf("%d (%s)", i, clip(ops[i].Label, maxListedChars)))
	}
	return strings.Join(steps, " → ")
}

// findCycle returns one dependency cycle as a path that starts and ends at
// the same operation, or nil.
func (p *plan) findCycle() []int {
	const (
		unseen = iota
		active
		done
	)
	state := make([]int8, len(p.ops))
	var stack []int
	var cycle []int
	var visit func(i int) bool
	visit = func(i int) bool {
		state[i] = active
		stack = append(stack, i)
		for _, d := range p.ops[i].deps {
			switch state[d] {
			case active:
				k := len(stack) - 1
				for stack[k] != d {
					k--
				}
				cycle = append(append([]int{}, stack[k:]...), d)
				return true
			case unseen:
				if visit(d) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[i] = done
		return false
	}
	for i := range p.ops {
		if state[i] == unseen && len(p.ops[i].deps) > 0 && visit(i) {
			return cycle
		}
	}
	return nil
}

// walkRefs calls fn for every reference placeholder inside v.
func walkRefs(v any, fn func(string)) {
	if s, ok := isRef(v); ok {
		fn(s)
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for _, c := range x {
			walkRefs(c, fn)
		}
	case []any:
		for _, c := range x {
			walkRefs(c, fn)
		}
	}
}

// substitute returns a copy of v with every placeholder replaced by resolve's value.
func substitute(v any, resolve func(string) (any, *Error)) (any, *Error) {
	if s, ok := isRef(v); ok {
		return resolve(s)
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, c := range x {
			r, err := substitute(c, resolve)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for k, c := range x {
			r, err := substitute(c, resolve)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	}
	return v, nil
}

// lookupPath follows a reference path (object keys, array indices) into a
// decoded result. Where it stopped is worded only on failure: joining the
// path at every step would cost time in the square of its length.
func lookupPath(v any, ref reference, raw string) (any, *Error) {
	cur := v
	for k, seg := range ref.path {
		switch x := cur.(type) {
		case map[string]any:
			next, ok := x[seg]
			if !ok {
				return nil, Errorf(CodeInvalidArgs, "$ref %s: %s has no field %s%s", quote(raw), ref.where(k), quote(seg), fieldList(x))
			}
			cur = next
		case []any:
			idx, ok := arrayIndex(seg)
			if !ok || idx >= len(x) {
				return nil, Errorf(CodeInvalidArgs, "$ref %s: %s is an array of %d; %s is not an index in it", quote(raw), ref.where(k), len(x), quote(seg))
			}
			cur = x[idx]
		default:
			return nil, Errorf(CodeInvalidArgs, "$ref %s: %s is %s, which has no field %s", quote(raw), ref.where(k), jsonKind(cur), quote(seg))
		}
	}
	return cur, nil
}

// where words the first k steps of the path, for a message.
func (ref reference) where(k int) string {
	return clip(strings.Join(append([]string{ref.label}, ref.path[:k]...), "."), maxQuoteChars)
}

func arrayIndex(s string) (int, bool) {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

func fieldList(m map[string]any) string {
	if len(m) == 0 || len(m) > 12 {
		return ""
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return " (fields: " + listed(names) + ")"
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case []any:
		return "an array"
	}
	return "an object"
}

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
