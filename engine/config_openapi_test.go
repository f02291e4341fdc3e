package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
)

// TestConfigOpenAPILimits: a name longer than the namespace's bound, a
// header value of two lines and a baseUrl that is no http URL (its
// password not shown) are each a problem of the entry, said at once.
func TestConfigOpenAPILimits(t *testing.T) {
	long := strings.Repeat("n", engine.MaxOpenAPINamespaceChars+1)
	_, err := engine.ParseConfig([]byte(`{"openapi": {
		"` + long + `": {"spec": "s.json"},
		"` + long[1:] + `": {"spec": "s.json"},
		"h": {"spec": "s.json", "headers": {"X-A": "one\r\nX-Evil: two", "X-B": "${A}\n"}, "baseUrl": "ftp://user:pw@host"}}}`))
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.CodeBadRequest {
		t.Fatalf("got %v, want a bad_request", err)
	}
	want := "config: " + strings.Join([]string{
		`openapi.h.baseUrl: want an absolute http or https URL, got "ftp://user:xxxxx@host"`,
		`openapi.h.headers["X-A"]: a header value is one line`,
		`openapi.h.headers["X-B"]: a header value is one line`,
		`openapi.` + long + `: the API's name is its tools' namespace: at most 32 characters, so that a tool's name has room for its operation's`,
	}, "; ")
	if e.Message != want {
		t.Errorf("message\n%s\nwant\n%s", e.Message, want)
	}
}

// TestExpandEnv: one pass over the value, so that a variable's value is
// never expanded in turn; names not set are returned once each, their
// ${NAME}s left.
func TestExpandEnv(t *testing.T) {
	env := map[string]string{"A": "${B}", "B": "b", "E": ""}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	for _, c := range []struct {
		in, want string
		unset    []string
	}{
		{"${A}-${B}", "${B}-b", nil},
		{"Bearer ${E}${U}/${U}/${V}", "Bearer ${U}/${U}/${V}", []string{"U", "V"}},
		{"$A ${ {B} ${1}", "$A ${ {B} ${1}", nil},
	} {
		got, unset := engine.ExpandEnv(c.in, lookup)
		if got != c.want || !cmp.Equal(unset, c.unset) {
			t.Errorf("ExpandEnv(%q) = %q, %q; want %q, %q", c.in, got, unset, c.want, c.unset)
		}
	}
}
