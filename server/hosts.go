package server

import (
	"fmt"
	"net"
	"net/http"
	"strings"
)

// hostCheck decides which Host names a server answers, against DNS
// rebinding: a page of evil.example whose name is made to resolve to
// 127.0.0.1 is, to the browser, of the same origin as a loopback server, so
// it passes the CORS and JSON-only guards; but its requests carry
// Host: evil.example. A nil hostCheck answers every name.
type hostCheck struct {
	loopback bool            // the default without a token: loopback names only
	exact    map[string]bool // lower-case names and IPs
	suffixes []string        // ".example.com" for "*.example.com"
}

// newHostCheck builds the check of Options.AllowedHosts: empty means
// loopback names without a token and any name with one (the token is the
// guard then), and ["*"] any name.
func newHostCheck(allowed []string, token string) (*hostCheck, error) {
	if len(allowed) == 0 {
		if token != "" {
			return nil, nil
		}
		return &hostCheck{loopback: true}, nil
	}
	c := &hostCheck{exact: make(map[string]bool)}
	var bad []string
	for _, h := range allowed {
		switch {
		case h == "*":
			return nil, nil
		case strings.HasPrefix(h, "*.") && validHostName(h[2:]):
			c.suffixes = append(c.suffixes, strings.ToLower(h[1:]))
		case net.ParseIP(h) != nil || validHostName(h):
			c.exact[strings.ToLower(h)] = true
		default:
			bad = append(bad, fmt.Sprintf("%q", h))
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("server: Options.AllowedHosts %s: want a host name or IP without a port (app.example.com, 127.0.0.1, ::1), *.example.com for the names under a domain, or * for any", strings.Join(bad, ", "))
	}
	return c, nil
}

// validHostName accepts the letters, digits, dots, hyphens and underscores
// of a DNS name, so that a port, a scheme or a path in an entry is caught
// when the server is made, not left to match nothing.
func validHostName(h string) bool {
	if h == "" || strings.HasPrefix(h, ".") || strings.Contains(h, "..") {
		return false
	}
	for _, r := range h {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '.' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// refuse returns the 400 for a request whose Host the check does not allow.
func (c *hostCheck) refuse(r *http.Request) *httpError {
	if c == nil {
		return nil
	}
	name := hostName(r.Host)
	if c.loopback {
		if isLoopbackName(name) {
			return nil
		}
		return badRequest("Host %s is not this server's: without a token it answers only to localhost and loopback addresses; to serve other names, give it a token (codemode serve --token) or list them in its AllowedHosts", quoteID(r.Host))
	}
	if c.exact[name] {
		return nil
	}
	for _, s := range c.suffixes {
		if strings.HasSuffix(name, s) {
			return nil
		}
	}
	return badRequest("Host %s is not one of this server's host names", quoteID(r.Host))
}

// hostName is the name of a Host header, lower case, without its port and
// an IPv6 address's brackets.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.ToLower(host)
}

// isLoopbackName reports whether a Host name is this machine's: localhost,
// a name under .localhost (RFC 6761 keeps them on the machine), or a
// loopback IP (127.0.0.0/8, ::1).
func isLoopbackName(name string) bool {
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	name, _, _ = strings.Cut(name, "%") // an IPv6 zone
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}
