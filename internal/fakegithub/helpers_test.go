package fakegithub

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// answer is one response of the fake, its body decoded.
type answer struct {
	status int
	header http.Header
	raw    string
}

// decode unmarshals the body into v, failing the test when it is not JSON.
func (a answer) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(a.raw), v); err != nil {
		t.Fatalf("body %q: %v", a.raw, err)
	}
}

// object is the body as a JSON object.
func (a answer) object(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	a.decode(t, &m)
	return m
}

// list is the body as a JSON array of objects.
func (a answer) list(t *testing.T) []map[string]any {
	t.Helper()
	var l []map[string]any
	a.decode(t, &l)
	return l
}

// do serves one request with s in process.
func do(t *testing.T, s *Server, method, target, body string) answer {
	t.Helper()
	var r *http.Request
	if body == "" {
		r = httptest.NewRequest(method, target, nil)
	} else {
		r = httptest.NewRequest(method, target, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return answer{status: w.Code, header: w.Header(), raw: w.Body.String()}
}

// must serves a request and fails the test unless it answers want.
func must(t *testing.T, s *Server, want int, method, target, body string) answer {
	t.Helper()
	a := do(t, s, method, target, body)
	if a.status != want {
		t.Fatalf("%s %s: status %d, want %d; body %s", method, target, a.status, want, a.raw)
	}
	return a
}

// numbers are the number fields of a listing, in order.
func numbers(l []map[string]any) []int {
	out := []int{}
	for _, o := range l {
		out = append(out, int(o["number"].(float64)))
	}
	return out
}

const engine = "/repos/codemode-dev/engine"
