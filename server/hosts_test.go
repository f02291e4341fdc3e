package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hostStatuses sends GET path with each Host to h's live server (with the
// header, if any) and returns the statuses by Host.
func hostStatuses(t *testing.T, h http.Handler, path string, hosts []string, header ...string) map[string]int {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	c := ts.Client()
	got := make(map[string]int)
	for _, host := range hosts {
		req, err := http.NewRequest("GET", ts.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := c.Do(req)
		if err != nil {
			t.Fatalf("Host %s: %v", host, err)
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode == http.StatusBadRequest {
			if code, msg := errorOf(t, data); code != "bad_request" || !strings.Contains(msg, host) {
				t.Errorf("Host %s: 400 with %s %q", host, code, msg)
			}
		}
		got[host] = res.StatusCode
	}
	return got
}

// TestHostileRebindingEmbedded: a Go program that mounts the handler under
// its own mux, without a token, is guarded against DNS rebinding as
// `codemode serve` is: a request naming another Host (a page of
// evil.example whose name was made to resolve to 127.0.0.1) gets 400 on
// every path of the server, and this machine's names are served. Before,
// only the serve command checked Host, so an embedding program's boards
// were open to any page its user visited.
func TestHostileRebindingEmbedded(t *testing.T) {
	s := newTestServer(t, Options{})
	mux := http.NewServeMux()
	mux.Handle("/v1/", s)
	mux.Handle("/healthz", s)
	mux.Handle("/", s)
	hosts := []string{"localhost:8080", "localhost", "127.0.0.1:9", "127.1.2.3", "[::1]:8080", "::1", "app.localhost:8080", "LOCALHOST:1",
		"evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.1.evil.example", "evillocalhost", "[::2]:80"}
	for _, path := range []string{"/v1/boards", "/healthz", "/", "/v1/nope"} {
		want := map[string]int{}
		for i, h := range hosts {
			want[h] = http.StatusBadRequest
			if i < 8 {
				want[h] = http.StatusOK
				if path == "/v1/nope" {
					want[h] = http.StatusNotFound
				}
			}
		}
		got := hostStatuses(t, mux, path, hosts)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("GET %s, statuses by Host (-want +got):\n%s", path, diff)
		}
	}
	// An HTTP/1.0 request may name no Host at all: not this machine's.
	if res, data := do(t, mux, "GET", "/v1/boards", "", "Host", ""); res.StatusCode != http.StatusBadRequest {
		t.Errorf("no Host: %d\n%s", res.StatusCode, data)
	}
}

// With a token, any Host is served to a client that has it (the page of
// a rebound name does not): the token is the guard, and a reverse proxy may
// pass its own name on. Without it, 401 as for every name.
func TestHostsWithToken(t *testing.T) {
	const token = "a-token-of-16-chars"
	s := newTestServer(t, Options{Token: token})
	hosts := []string{"evil.example", "codemode.example:443", "localhost:8080"}
	got := hostStatuses(t, s, "/v1/boards", hosts, "Authorization", "Bearer "+token)
	want := map[string]int{"evil.example": 200, "codemode.example:443": 200, "localhost:8080": 200}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("with the token, statuses by Host (-want +got):\n%s", diff)
	}
	got = hostStatuses(t, s, "/v1/boards", hosts)
	want = map[string]int{"evil.example": 401, "codemode.example:443": 401, "localhost:8080": 401}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("without the token, statuses by Host (-want +got):\n%s", diff)
	}
}

// AllowedHosts replaces the default: the names listed (any case, any
// port), the names under a *. domain (not the domain itself), and nothing
// else, loopback names included, with a token or without; * turns the
// check off.
func TestAllowedHosts(t *testing.T) {
	hosts := []string{"app.example.com", "APP.example.com:443", "a.corp.example", "b.a.corp.example:8080", "10.0.0.5:80", "[fd00::1]:80",
		"corp.example", "localhost:8080", "127.0.0.1", "evil.example", "app.example.com.evil.example"}
	for _, token := range []string{"", "a-token-of-16-chars"} {
		s := newTestServer(t, Options{Token: token, AllowedHosts: []string{"app.example.com", "*.corp.example", "10.0.0.5", "FD00::1"}})
		got := hostStatuses(t, s, "/healthz", hosts)
		want := map[string]int{}
		for i, h := range hosts {
			want[h] = http.StatusBadRequest
			if i < 6 {
				want[h] = http.StatusOK
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("token %v: statuses by Host (-want +got):\n%s", token != "", diff)
		}
	}
	s := newTestServer(t, Options{AllowedHosts: []string{"*"}})
	got := hostStatuses(t, s, "/v1/boards", []string{"evil.example", "localhost"})
	if diff := cmp.Diff(map[string]int{"evil.example": 200, "localhost": 200}, got); diff != "" {
		t.Errorf("AllowedHosts [*]: statuses by Host (-want +got):\n%s", diff)
	}
}

// Entries that could never match a Host name — a port, a scheme, a path,
// a wildcard elsewhere than at the front — are refused by New, all named.
func TestAllowedHostsInvalid(t *testing.T) {
	_, err := New(Options{Store: NewMemoryStore(), AllowedHosts: []string{"ok.example", "localhost:8080", "http://a.example", "", "a.example/x", "a.*.example", "*.", "[::1]"}})
	want := `server: Options.AllowedHosts "localhost:8080", "http://a.example", "", "a.example/x", "a.*.example", "*.", "[::1]": want a host name or IP without a port (app.example.com, 127.0.0.1, ::1), *.example.com for the names under a domain, or * for any`
	if err == nil || err.Error() != want {
		t.Errorf("New: %v\nwant %s", err, want)
	}
}

// The answer to a request for another Host is the error object indented
// like every other answer of the server, and says what to do.
func TestHostAnswer(t *testing.T) {
	s := newTestServer(t, Options{})
	res, data := do(t, s, "GET", "/v1/boards", "", "Host", "evil.example:8080")
	want := `{
  "error": {
    "code": "bad_request",
    "message": "Host \"evil.example:8080\" is not this server's: without a token it answers only to localhost and loopback addresses; to serve other names, give it a token (codemode serve --token) or list them in its AllowedHosts"
  }
}
`
	if res.StatusCode != 400 || string(data) != want || res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("%d %q:\n%s", res.StatusCode, res.Header.Get("Content-Type"), data)
	}
}
