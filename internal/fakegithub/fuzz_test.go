package fakegithub

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzServe: whatever a script sends the fake (any route, query and body),
// it answers without panicking, never with a 500 (its own bug), and with a
// JSON body — a model's mistake gets GitHub's 4xx, an operation the fake
// lacks a 501.
func FuzzServe(f *testing.F) {
	for _, seed := range []struct {
		method      byte
		path, query string
		body        string
	}{
		{0, "/repos/codemode-dev/engine/issues", "state=all&per_page=10&page=3", ""},
		{0, "/repos/codemode-dev/engine/issues", "page=9223372036854775807", ""},
		{0, "/repos/codemode-dev/engine/issues/1/comments", "per_page=100", ""},
		{0, "/repos/codemode-dev/engine/labels", "page=2&per_page=1", ""},
		{0, "/repos/codemode-dev/engine/pulls", "state=open&sort=updated&direction=asc", ""},
		{1, "/repos/codemode-dev/engine/issues/1", "", `{"state":"closed","state_reason":"not_planned","labels":["bug",{"name":"x"}]}`},
		{2, "/repos/codemode-dev/engine/issues/1/comments", "", `{"body":"Thanks"}`},
		{2, "/repos/codemode-dev/engine/issues/1/labels", "", `{"labels":["crash"]}`},
		{3, "/repos/codemode-dev/engine/issues/1/labels", "", `["a","b"]`},
		{4, "/repos/codemode-dev/engine/issues/1/labels/bug", "", ""},
		{2, "/repos/codemode-dev/engine/labels", "", `{"name":"crash","color":"ff0000","description":"d"}`},
		{1, "/repos/codemode-dev/engine/labels/bug", "", `{"new_name":"defect"}`},
		{0, "/repos/codemode-dev/nope/issues/99999999999999999999", "", ""},
	} {
		f.Add(seed.method, seed.path, seed.query, seed.body)
	}
	methods := []string{"GET", "PATCH", "POST", "PUT", "DELETE", "HEAD"}
	f.Fuzz(func(t *testing.T, m byte, path, query, body string) {
		method := methods[int(m)%len(methods)]
		r, err := http.NewRequest(method, "http://example.com"+path+"?"+query, strings.NewReader(body))
		if err != nil || r.URL.Path != path {
			return // not a request a client could send to this path
		}
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		Default().ServeHTTP(w, r)
		if w.Code >= 500 && w.Code != http.StatusNotImplemented {
			t.Fatalf("%s %s?%s %q: %d %s", method, path, query, body, w.Code, w.Body)
		}
		if w.Code != http.StatusNoContent && !json.Valid(w.Body.Bytes()) {
			t.Fatalf("%s %s?%s %q: %d, not JSON: %q", method, path, query, body, w.Code, w.Body)
		}
	})
}
