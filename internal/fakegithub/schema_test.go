package fakegithub

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// spec is GitHub's description decoded as plain JSON values.
type spec map[string]any

// loadSpec reads the description, skipping the test when it is not installed.
func loadSpec(t *testing.T) spec {
	t.Helper()
	var s spec
	if err := json.Unmarshal(specBytes(t), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// resolve follows $refs ("#/components/schemas/issue").
func (s spec) resolve(v any) map[string]any {
	m, _ := v.(map[string]any)
	for m != nil {
		ref, ok := m["$ref"].(string)
		if !ok {
			break
		}
		var cur any = map[string]any(s)
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			cur = cur.(map[string]any)[part]
		}
		m, _ = cur.(map[string]any)
	}
	return m
}

// response is the JSON schema of an operation's answer with status.
func (s spec) response(method, path string, status int) map[string]any {
	op := s.resolve(s.resolve(s["paths"])[path])[strings.ToLower(method)]
	r := s.resolve(s.resolve(op)["responses"].(map[string]any)[strconv.Itoa(status)])
	if r == nil {
		return nil
	}
	content, _ := r["content"].(map[string]any)
	return s.resolve(s.resolve(content["application/json"])["schema"])
}

// jsonType names v's type as a schema does.
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		if v == math.Trunc(v) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	}
	return "object"
}

// check reports where v does not fit schema: a required field missing, a
// value of another type, a null where none is allowed, a string outside an
// enum; through objects' properties, arrays' items and alternatives.
func (s spec) check(schema map[string]any, v any, at string) []string {
	schema = s.resolve(schema)
	if schema == nil {
		return nil
	}
	var errs []string
	if all, ok := schema["allOf"].([]any); ok {
		for _, sub := range all {
			errs = append(errs, s.check(s.resolve(sub), v, at)...)
		}
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		alts, ok := schema[key].([]any)
		if !ok {
			continue
		}
		var fit []string
		for _, alt := range alts {
			if e := s.check(s.resolve(alt), v, at); len(e) == 0 {
				fit = nil
				break
			} else if fit == nil {
				fit = e
			}
		}
		errs = append(errs, fit...)
	}
	typ, _ := schema["type"].(string)
	got := jsonType(v)
	switch {
	case got == "null":
		if nullable, _ := schema["nullable"].(bool); !nullable && typ != "" {
			errs = append(errs, fmt.Sprintf("%s: null, but the description says %s and not nullable", at, typ))
		}
		return errs
	case typ == "" || typ == got || (typ == "number" && got == "integer"):
	default:
		return append(errs, fmt.Sprintf("%s: %s %v, the description says %s", at, got, v, typ))
	}
	if enum, ok := schema["enum"].([]any); ok && !slices.Contains(enum, v) {
		errs = append(errs, fmt.Sprintf("%s: %v is not one of %v", at, v, enum))
	}
	switch v := v.(type) {
	case []any:
		items := s.resolve(schema["items"])
		for k, it := range v {
			errs = append(errs, s.check(items, it, fmt.Sprintf("%s[%d]", at, k))...)
		}
	case map[string]any:
		req, _ := schema["required"].([]any)
		for _, r := range req {
			if _, ok := v[r.(string)]; !ok {
				errs = append(errs, fmt.Sprintf("%s: %s missing", at, r))
			}
		}
		props, _ := schema["properties"].(map[string]any)
		for k, pv := range v {
			if p, ok := props[k]; ok {
				errs = append(errs, s.check(s.resolve(p), pv, at+"."+k)...)
			}
		}
	}
	return errs
}

// TestAnswersMatchSpec: every answer of the fake, successes and errors, fits
// the schema GitHub's description gives for its operation and status, so
// that a client generated from the description reads it.
func TestAnswersMatchSpec(t *testing.T) {
	sp := loadSpec(t)
	s := Default()
	for _, c := range []struct {
		method, target, body string
		status               int
	}{
		{"GET", engine, "", 200},
		{"GET", engine + "/issues?state=all&per_page=100", "", 200},
		{"GET", engine + "/issues/52", "", 200},
		{"GET", engine + "/issues/15", "", 200},
		{"PATCH", engine + "/issues/1", `{"state":"closed","labels":["bug","crash"],"assignees":["ada"]}`, 200},
		{"GET", engine + "/issues/9/comments", "", 200},
		{"POST", engine + "/issues/9/comments", `{"body":"Labelled as a crash."}`, 201},
		{"GET", engine + "/issues/9/labels", "", 200},
		{"POST", engine + "/issues/9/labels", `{"labels":["crash"]}`, 200},
		{"PUT", engine + "/issues/9/labels", `{"labels":["crash","bug"]}`, 200},
		{"DELETE", engine + "/issues/9/labels/bug", "", 200},
		{"DELETE", engine + "/issues/9/labels", "", 204},
		{"GET", engine + "/labels?per_page=100", "", 200},
		{"POST", engine + "/labels", `{"name":"triage","color":"cccccc","description":"To sort"}`, 201},
		{"GET", engine + "/labels/triage", "", 200},
		{"PATCH", engine + "/labels/triage", `{"new_name":"needs triage"}`, 200},
		{"DELETE", engine + "/labels/needs%20triage", "", 204},
		{"GET", engine + "/pulls?state=all", "", 200},
		{"GET", engine + "/issues/99", "", 404},
		{"GET", engine + "/labels/nothing", "", 404},
		{"POST", engine + "/issues/1/comments", `{}`, 422},
		{"POST", engine + "/labels", `{"name":"BUG"}`, 422},
		{"PATCH", engine + "/issues/1", `{"state":"shut"}`, 422},
		{"GET", engine + "/issues?state=shut", "", 422},
	} {
		a := must(t, s, c.status, c.method, c.target, c.body)
		u, _ := url.Parse(c.target)
		rt, _ := match(c.method, u.EscapedPath())
		schema := sp.response(c.method, rt.path, c.status)
		if c.status == 204 {
			if a.raw != "" {
				t.Errorf("%s %s: 204 with a body %q", c.method, c.target, a.raw)
			}
			continue
		}
		if schema == nil {
			t.Errorf("%s %s: the description gives no JSON answer for %d", c.method, rt.path, c.status)
			continue
		}
		var v any
		a.decode(t, &v)
		for _, e := range sp.check(schema, v, fmt.Sprintf("%s %s", c.method, c.target)) {
			t.Error(e)
		}
	}
}
