package engine

import (
	"maps"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/codemode-dev/codemode/engine/internal/defs"
	"github.com/codemode-dev/codemode/internal/strictjson"
)

// OpenAPI is one entry of a config file's "openapi": an HTTP API described
// by an OpenAPI 3.x document, whose operations the host binds as tools
// (package bindings/openapi does, and the CLI with it). The engine only
// reads and checks it, so that a config file's problems are reported all
// at once.
type OpenAPI struct {
	// Spec is the document's file, JSON or YAML. LoadConfig resolves a
	// relative path against the config file's directory.
	Spec string `json:"spec"`
	// BaseURL is where calls go; left out, the document's first server.
	BaseURL string `json:"baseUrl,omitempty"`
	// Headers are sent with every call. A value may name environment
	// variables as ${NAME} ("Bearer ${GITHUB_TOKEN}"), so that a secret
	// need not be written in the file; the host expands them.
	Headers map[string]string `json:"headers,omitempty"`
	// Timeout bounds one call (the engine's per-call timeout still
	// applies: the shorter one wins).
	Timeout Duration `json:"timeout,omitempty"`
	// MaxResponseBytes bounds a response's body; a larger one is the
	// call's error.
	MaxResponseBytes int64 `json:"maxResponseBytes,omitempty"`
}

// MaxOpenAPINamespaceChars bounds an API's name, its tools' namespace:
// a tool's name must fit OpenAI's 64 characters, and this leaves the
// operation's part at least 31. bindings/openapi's MaxNamespaceChars is
// this one, so that a config entry and Go's Tools refuse the same names.
const MaxOpenAPINamespaceChars = 32

// envRef finds the ${NAME}s of a header value; badEnvRef a "${" that does
// not start one.
var (
	envRef    = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)
	badEnvRef = regexp.MustCompile(`\$\{`)
)

// ExpandEnv replaces every ${NAME} of a header value with lookup(NAME),
// in one pass: a value that holds a "${…}" of its own is sent as it is,
// not expanded in turn (as one replacement per name would). It returns
// the names lookup did not find, in order, each once; their ${NAME}s stay.
func ExpandEnv(value string, lookup func(string) (string, bool)) (string, []string) {
	var unset []string
	out := envRef.ReplaceAllStringFunc(value, func(ref string) string {
		name := ref[2 : len(ref)-1]
		v, ok := lookup(name)
		if !ok {
			if !slices.Contains(unset, name) {
				unset = append(unset, name)
			}
			return ref
		}
		return v
	})
	return out, unset
}

// Check reports everything wrong with a as the API called name, in one
// bad_request *Error, or nil: what a config file's entry is checked for,
// for APIs configured in Go.
func (a OpenAPI) Check(name string) error {
	var p strictjson.Problems
	a.problems(&p, name, strictjson.Member("openapi", name))
	if err := problemsError("", &p); err != nil {
		return err
	}
	return nil // not a nil *Error in a non-nil error
}

// openAPIProblems adds the problems of every "openapi" entry to p.
func (c *Config) openAPIProblems(p *strictjson.Problems) {
	for _, name := range slices.Sorted(maps.Keys(c.OpenAPI)) {
		a, at := c.OpenAPI[name], strictjson.Member("openapi", name)
		a.problems(p, name, at)
		if _, taken := c.MCPServers[name]; taken {
			p.Addf(at, "mcpServers has a server of this name: a namespace is one source's")
		}
	}
}

func (a *OpenAPI) problems(p *strictjson.Problems, name, at string) {
	switch {
	case !defs.ValidName(name) || strings.Contains(name, "."):
		p.Addf(at, "the API's name is its tools' namespace: want an identifier ([A-Za-z_][A-Za-z0-9_]*)")
	case len(name) > MaxOpenAPINamespaceChars:
		p.Addf(at, "the API's name is its tools' namespace: at most %d characters, so that a tool's name has room for its operation's", MaxOpenAPINamespaceChars)
	}
	if a.Spec == "" {
		p.Addf(strictjson.Member(at, "spec"), "missing: want the OpenAPI document's file (JSON or YAML)")
	}
	if a.BaseURL != "" {
		httpURL(p, strictjson.Member(at, "baseUrl"), a.BaseURL)
	}
	for _, h := range slices.Sorted(maps.Keys(a.Headers)) {
		hat := strictjson.Member(strictjson.Member(at, "headers"), h)
		if !validHeaderName(h) {
			p.Addf(hat, "not a header name")
		}
		v := a.Headers[h]
		if len(badEnvRef.FindAllString(v, -1)) != len(envRef.FindAllString(v, -1)) {
			p.Addf(hat, "a ${ that does not name an environment variable: write ${NAME}, NAME an identifier")
		}
		if strings.ContainsAny(v, "\r\n") {
			p.Addf(hat, "a header value is one line")
		}
	}
	positive(p, strictjson.Member(at, "timeout"), a.Timeout)
	positive(p, strictjson.Member(at, "maxResponseBytes"), a.MaxResponseBytes)
}

// httpURL adds a problem at at unless raw is an absolute http or https
// URL: what an "openapi" entry's baseUrl and an "mcpServers" entry's url
// must be. The value is quoted with its password, should it have one,
// hidden.
func httpURL(p *strictjson.Problems, at, raw string) {
	u, err := url.Parse(raw)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return
	}
	if err == nil && u.User != nil {
		raw = u.Redacted()
	}
	p.Addf(at, "want an absolute http or https URL, got %s", strictjson.Quote(raw))
}

// validHeaderName reports whether s is an HTTP header name (RFC 9110's token).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 126 || r <= 32 || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}

// resolveSpecPaths makes the relative spec paths of c's "openapi" entries
// relative to dir, the config file's directory.
func (c *Config) resolveSpecPaths(dir string) {
	for name, a := range c.OpenAPI {
		if a.Spec != "" && !filepath.IsAbs(a.Spec) {
			a.Spec = filepath.Join(dir, a.Spec)
			c.OpenAPI[name] = a
		}
	}
}
