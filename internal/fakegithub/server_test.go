package fakegithub

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUnimplemented: every request the fake does not serve answers 501
// naming its method and path, whether the path is another operation of
// GitHub's, a served path with another method, or no path of GitHub's.
func TestUnimplemented(t *testing.T) {
	s := Default()
	for _, c := range []struct{ method, target string }{
		{"GET", "/orgs/x/repos"},
		{"DELETE", engine},
		{"POST", engine + "/issues"},
		{"GET", engine + "/pulls/44"},
		{"HEAD", engine + "/issues"},
		{"GET", engine + "/issues/"},
		{"GET", "/"},
	} {
		a := must(t, s, 501, c.method, c.target, "")
		if c.method == "HEAD" {
			continue
		}
		want := map[string]any{
			"message": fmt.Sprintf("the fake GitHub does not implement %s %s: only the operations of codemode's catalog tests and benchmark are served (see internal/fakegithub)", c.method, c.target),
			"status":  "501",
		}
		if d := cmp.Diff(want, a.object(t)); d != "" {
			t.Errorf("%s %s (-want +got):\n%s", c.method, c.target, d)
		}
	}
	a := must(t, s, 501, "GET", engine+"/issues?milestone=3", "")
	if msg := a.object(t)["message"].(string); !strings.Contains(msg, `query parameter "milestone" of GET /repos/{owner}/{repo}/issues`) {
		t.Errorf("an unimplemented filter answers %q", msg)
	}
}

// TestNotFound: a repository, issue or label that does not exist answers
// GitHub's 404 body, with the operation's documentation URL.
func TestNotFound(t *testing.T) {
	s := Default()
	for _, c := range []struct{ method, target, doc string }{
		{"GET", "/repos/codemode-dev/nothing", "https://docs.github.com/rest/repos/repos#get-a-repository"},
		{"GET", "/repos/someone/engine/issues", "https://docs.github.com/rest/issues/issues#list-repository-issues"},
		{"GET", engine + "/issues/61", "https://docs.github.com/rest/issues/issues#get-an-issue"},
		{"GET", engine + "/issues/0", "https://docs.github.com/rest/issues/issues#get-an-issue"},
		{"GET", engine + "/issues/abc", "https://docs.github.com/rest/issues/issues#get-an-issue"},
		{"PATCH", engine + "/issues/99", "https://docs.github.com/rest/issues/issues#update-an-issue"},
		{"POST", engine + "/issues/99/comments", "https://docs.github.com/rest/issues/comments#create-an-issue-comment"},
		{"GET", engine + "/labels/crash", "https://docs.github.com/rest/issues/labels#get-a-label"},
		{"DELETE", engine + "/labels/crash", "https://docs.github.com/rest/issues/labels#delete-a-label"},
	} {
		a := must(t, s, 404, c.method, c.target, `{"body":"x"}`)
		want := map[string]any{"message": "Not Found", "documentation_url": c.doc, "status": "404"}
		if d := cmp.Diff(want, a.object(t)); d != "" {
			t.Errorf("%s %s (-want +got):\n%s", c.method, c.target, d)
		}
	}
	// Owner and repository names are compared without case, as on GitHub.
	must(t, s, 200, "GET", "/repos/CodeMode-Dev/Engine/issues/1", "")
}

// TestBadBodies: malformed JSON is a 400, a body of the wrong shape a 422
// saying what is wrong, an oversize one a 413; none changes anything.
func TestBadBodies(t *testing.T) {
	s := Default()
	before := s.Issues(Owner, "engine")
	for _, c := range []struct {
		method, target, body string
		status               int
		msg                  string
	}{
		{"PATCH", engine + "/issues/1", `{"state":`, 400, "Problems parsing JSON"},
		{"POST", engine + "/issues/1/comments", `not json`, 400, "Problems parsing JSON"},
		{"POST", engine + "/issues/1/labels", `["bug",`, 400, "Problems parsing JSON"},
		{"PATCH", engine + "/issues/1", `["closed"]`, 422, "Invalid request.\n\nThe body must be a JSON object, not an array."},
		{"PATCH", engine + "/issues/1", `{"state":"shut"}`, 422, "Invalid request.\n\nFor 'properties/state', \"shut\" is not one of [\"open\", \"closed\"]."},
		{"PATCH", engine + "/issues/1", `{"state":"closed","state_reason":"done"}`, 422, "Invalid request.\n\nFor 'properties/state_reason', \"done\" is not one of [\"completed\", \"not_planned\", \"duplicate\", \"reopened\"]."},
		{"PATCH", engine + "/issues/1", `{"title":true}`, 422, "Invalid request.\n\nFor 'properties/title', true is not a string or an integer."},
		{"PATCH", engine + "/issues/1", `{"body":5}`, 422, "Invalid request.\n\nFor 'properties/body', 5 is not a string."},
		{"PATCH", engine + "/issues/1", `{"labels":"bug"}`, 422, "Invalid request.\n\nFor 'properties/labels', \"bug\" is not an array."},
		{"PATCH", engine + "/issues/1", `{"labels":[1]}`, 422, "Invalid request.\n\nFor 'items/0' of \"labels\", 1 is neither a string nor an object with a string \"name\"."},
		{"PATCH", engine + "/issues/1", `{"state":"closed","labels":[""]}`, 422, "Validation Failed"},
		{"PATCH", engine + "/issues/1", `{"title":"` + strings.Repeat("t", 257) + `"}`, 422, "Validation Failed"},
		{"PATCH", engine + "/issues/1", `{"body":"` + strings.Repeat("b", 65537) + `"}`, 422, "Validation Failed"},
		{"POST", engine + "/issues/1/comments", `{"body":"` + strings.Repeat("b", 65537) + `"}`, 422, "Validation Failed"},
		{"POST", engine + "/issues/1/comments", `{}`, 422, "Invalid request.\n\n\"body\" wasn't supplied."},
		{"POST", engine + "/issues/1/comments", ``, 422, "Invalid request.\n\n\"body\" wasn't supplied."},
		{"POST", engine + "/issues/1/comments", `{"body":["x"]}`, 422, "Invalid request.\n\nFor 'properties/body', [\"x\"] is not a string."},
		{"POST", engine + "/issues/1/comments", `{"body":"  "}`, 422, "Validation Failed"},
		{"POST", engine + "/issues/1/labels", `{}`, 422, "Invalid request.\n\n\"labels\" wasn't supplied."},
		{"POST", engine + "/issues/1/labels", `{"labels":[]}`, 422, "Invalid request.\n\nFor 'properties/labels', [] has fewer items than the minimum of 1."},
		{"POST", engine + "/labels", `{"color":"ff0000"}`, 422, "Invalid request.\n\n\"name\" wasn't supplied."},
		{"POST", engine + "/labels", `{"name":"x","color":"#ff0000"}`, 422, "Validation Failed"},
		{"POST", engine + "/labels", `{"name":"` + strings.Repeat("é", 51) + `"}`, 422, "Validation Failed"},
		{"POST", engine + "/issues/1/labels", `{"labels":["` + strings.Repeat("n", 51) + `"]}`, 422, "Validation Failed"},
		{"POST", engine + "/labels", `{"name":"x","description":"` + strings.Repeat("d", 101) + `"}`, 422, "Validation Failed"},
		{"PATCH", engine + "/issues/1", `{"body":"` + strings.Repeat("x", maxBody) + `"}`, 413, "Request body too large: the fake GitHub accepts at most 1048576 bytes"},
		{"GET", engine + "/issues?state=shut", ``, 422, "Invalid request.\n\nFor 'query/state', \"shut\" is not one of [\"open\", \"closed\", \"all\"]."},
		{"GET", engine + "/issues?sort=votes", ``, 422, "Invalid request.\n\nFor 'query/sort', \"votes\" is not one of [\"created\", \"updated\", \"comments\"]."},
		{"GET", engine + "/issues?per_page=0", ``, 422, "Invalid request.\n\nFor 'query/per_page', \"0\" is not a positive integer."},
		{"GET", engine + "/issues?page=x", ``, 422, "Invalid request.\n\nFor 'query/page', \"x\" is not a positive integer."},
		{"GET", engine + "/issues?since=yesterday", ``, 422, "Invalid request.\n\nFor 'query/since', \"yesterday\" is not a timestamp in ISO 8601 format (YYYY-MM-DDTHH:MM:SSZ)."},
		{"GET", engine + "/pulls?direction=up", ``, 422, "Invalid request.\n\nFor 'query/direction', \"up\" is not one of [\"asc\", \"desc\"]."},
	} {
		a := must(t, s, c.status, c.method, c.target, c.body)
		o := a.object(t)
		if o["message"] != c.msg || o["status"] != fmt.Sprint(c.status) || o["documentation_url"] == "" {
			t.Errorf("%s %s %.40s: answered %s", c.method, c.target, c.body, a.raw)
		}
	}
	if d := cmp.Diff(before, s.Issues(Owner, "engine")); d != "" {
		t.Errorf("refused requests changed the issues:\n%s", d)
	}
	if n := len(s.Labels(Owner, "engine")); n != 8 {
		t.Errorf("refused requests left %d labels, want 8", n)
	}
}

// TestLongValuesAreClipped: a message shows the first 200 characters of a
// client's value, not all of it.
func TestLongValuesAreClipped(t *testing.T) {
	s := Default()
	long := strings.Repeat("x", 5000)
	for _, c := range []struct{ method, target, body string }{
		{"PATCH", engine + "/issues/1", `{"state":"` + long + `"}`},
		{"PATCH", engine + "/issues/1", `{"title":[` + strings.Repeat("1,", 2000) + `1]}`},
		{"PATCH", engine + "/issues/1", `{"labels":[[` + strings.Repeat("1,", 2000) + `1]]}`},
		{"GET", engine + "/issues?state=" + long, ""},
		{"GET", "/" + long, ""},
	} {
		a := do(t, s, c.method, c.target, c.body)
		msg, _ := a.object(t)["message"].(string)
		if len(msg) > 600 || !strings.Contains(msg, "…") {
			t.Errorf("%s %.40s: %d characters in %q", c.method, c.target, len(msg), msg)
		}
	}
}

// TestRequests: the log holds every request, answered or not, in order.
func TestRequests(t *testing.T) {
	s := Default()
	do(t, s, "GET", engine+"/issues?state=open&labels=bug", "")
	do(t, s, "PATCH", engine+"/issues/3", `{"state":"closed"}`)
	do(t, s, "GET", "/orgs/x", "")
	do(t, s, "GET", engine+"/labels/good%20first%20issue", "")
	want := []string{
		"GET /repos/codemode-dev/engine/issues?state=open&labels=bug",
		"PATCH /repos/codemode-dev/engine/issues/3",
		"GET /orgs/x",
		"GET /repos/codemode-dev/engine/labels/good%20first%20issue",
	}
	if d := cmp.Diff(want, s.Requests()); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
}

// TestOverHTTP: the Server behind a real listener, called by a client.
func TestOverHTTP(t *testing.T) {
	s := Default()
	ts := httptest.NewServer(s)
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/repos/codemode-dev/engine/issues?per_page=20")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	want := fmt.Sprintf(`<%s/repos/codemode-dev/engine/issues?page=2&per_page=20>; rel="next", <%[1]s/repos/codemode-dev/engine/issues?page=3&per_page=20>; rel="last"`, ts.URL)
	if got := resp.Header.Get("Link"); got != want {
		t.Errorf("Link %q, want %q", got, want)
	}
}

// TestTransport: the in-process transport serves with the Server of the
// request's context, and says so when there is none.
func TestTransport(t *testing.T) {
	client := &http.Client{Transport: Transport{}}
	get := func(ctx context.Context, target string) (int, http.Header, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, "GET", target, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	status, _, body := get(context.Background(), "http://github.fake/repos/codemode-dev/engine")
	if status != 502 || !strings.Contains(body, "no fake GitHub in the request's context for GET /repos/codemode-dev/engine") {
		t.Errorf("without a server: %d %s", status, body)
	}

	a, b := Default(), Default()
	ctxA, ctxB := NewContext(context.Background(), a), NewContext(context.Background(), b)
	req, _ := http.NewRequestWithContext(ctxA, "PATCH", "http://github.fake/repos/codemode-dev/engine/issues/1", strings.NewReader(`{"state":"closed"}`))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || a.Issues(Owner, "engine")[0].State != "closed" || b.Issues(Owner, "engine")[0].State != "open" {
		t.Errorf("PATCH through ctxA: status %d, a's #1 %s, b's #1 %s", resp.StatusCode, a.Issues(Owner, "engine")[0].State, b.Issues(Owner, "engine")[0].State)
	}
	status, h, _ := get(ctxB, "https://github.fake/repos/codemode-dev/engine/issues?per_page=25")
	if status != 200 || h.Get("Link") != `<https://github.fake/repos/codemode-dev/engine/issues?page=2&per_page=25>; rel="next", <https://github.fake/repos/codemode-dev/engine/issues?page=2&per_page=25>; rel="last"` {
		t.Errorf("through ctxB: %d, Link %q", status, h.Get("Link"))
	}
	if len(a.Requests()) != 1 || len(b.Requests()) != 1 {
		t.Errorf("requests logged: a %v, b %v", a.Requests(), b.Requests())
	}

	ctx, cancel := context.WithCancel(ctxA)
	cancel()
	req, _ = http.NewRequestWithContext(ctx, "GET", "http://github.fake/repos/codemode-dev/engine", nil)
	if _, err := client.Do(req); err == nil {
		t.Error("a request with a cancelled context was served")
	}
	if got, ok := FromContext(NewContext(context.Background(), nil)); ok || got != nil {
		t.Error("a nil Server counts as one")
	}
}

// TestConcurrentWrites: many clients writing at once (run with -race); every
// comment and label lands, and the clock gave each write its own second.
func TestConcurrentWrites(t *testing.T) {
	s := Default()
	const workers, each = 8, 25
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for k := range each {
				n := 1 + (w*each+k)%10
				method, target, body, want := "GET", engine+"/issues?state=all&per_page=100", "", 200
				switch k % 4 {
				case 0:
					method, target, body, want = "POST", fmt.Sprintf("%s/issues/%d/comments", engine, n), fmt.Sprintf(`{"body":"w%d k%d"}`, w, k), 201
				case 1:
					method, target, body = "POST", fmt.Sprintf("%s/issues/%d/labels", engine, n), fmt.Sprintf(`{"labels":["w%d"]}`, w)
				case 2:
					method, target, body = "PATCH", fmt.Sprintf("%s/issues/%d", engine, n), `{"state":"closed"}`
				}
				if a := do(t, s, method, target, body); a.status != want { // t.Fatal is for the test's goroutine
					t.Errorf("%s %s: %d %s", method, target, a.status, a.raw)
				}
			}
		})
	}
	wg.Wait()
	comments, stamps := 0, map[string]bool{}
	for n := 1; n <= 10; n++ {
		for _, c := range s.Comments(Owner, "engine", n) {
			if c.User == Agent {
				comments++
				stamps[c.CreatedAt.String()] = true
			}
		}
	}
	if want := workers * ((each + 3) / 4); comments != want || len(stamps) != want {
		t.Errorf("%d comments with %d distinct times, want %d", comments, len(stamps), want)
	}
	if n := len(s.Labels(Owner, "engine")); n != 8+workers {
		t.Errorf("%d labels, want %d", n, 8+workers)
	}
	if n := len(s.Requests()); n != workers*each {
		t.Errorf("%d requests logged, want %d", n, workers*each)
	}
}
