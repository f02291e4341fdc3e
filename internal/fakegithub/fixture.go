package fakegithub

import (
	"maps"
	"slices"
	"strings"
	"time"
)

// The standard fixture, which the benchmark's catalog tasks are written
// against (TestFixture checks every count stated here):
//
// Owner codemode-dev (an organization) has two repositories, engine and web.
//
// engine has issues and pull requests numbered 1 to 60 in creation order:
// 45 open issues, 8 closed issues, 5 open and 2 closed pull requests.
// Number n was created 2025-03-03T09:00Z plus 10(n-1) days and 37n minutes;
// updated_at runs from 2025-04 to 2026-11-19. The default listing (open
// issues and pull requests, newest first, 30 a page) shows 60..27 on page 1
// and 26..1 on page 2.
//
//   - Crash reports: exactly 6 open issues (not pull requests) have "crash" in
//     their title or body, compared without case: #58 (title "Crash"), #47
//     (body only, "crashes"), #39 (title "CRASH"), #30 (body only,
//     "crashed"), #21 (title "crashes"), #9 (body only, "Crash"). #21 and #9
//     are on page 2. Decoys: the closed #33 and the open pull request #52
//     mention a crash too. No label "crash" exists at the start.
//   - Stale issues: exactly 9 open issues have updated_at before 2026-06-01:
//     #1, #2, #5, #8, #11, #14, #17, #23, #31; #2 and #14 carry the label
//     "pinned". Open pull request #22 is old too (a decoy: it is no issue).
//     No open issue was updated from 2026-05-09 to 2026-06-10, so that any
//     cutoff in that gap picks the same 9: 2026-06-01, or six months or 180
//     days before Start.
//   - Open pull requests by author: ada 3 (#44, #52, #59), grace 1 (#56),
//     linus 1 (#22, a draft); the closed ones are by dependabot[bot] (#15,
//     merged) and ken (#37, closed unmerged).
//   - Labels (8): bug, docs, enhancement, good first issue, performance,
//     pinned, question, security, each with its own colour and description.
//   - Comments: 10, on #9 (2), #14 (1), #21 (1), #30 (1), #47 (2), #52 (1),
//     #60 (2).
//
// web has 3 open issues (#1..#3, no pull requests, no comments) and 3
// labels: bug (colour ee0701 and a description unlike engine's bug),
// design, and question (the same as engine's question).

// fixtureLabels are engine's and web's labels.
var fixtureLabels = map[string][]label{
	"engine": {
		{name: "bug", color: "d73a4a", description: "Something isn't working", dflt: true},
		{name: "docs", color: "0075ca", description: "Improvements or additions to documentation"},
		{name: "enhancement", color: "a2eeef", description: "New feature or request", dflt: true},
		{name: "good first issue", color: "7057ff", description: "Good for newcomers", dflt: true},
		{name: "performance", color: "fbca04", description: "Slower or heavier than it should be"},
		{name: "pinned", color: "5319e7", description: "Kept open on purpose: never closed as stale"},
		{name: "question", color: "d876e3", description: "Further information is requested", dflt: true},
		{name: "security", color: "b60205", description: "A vulnerability or a hardening"},
	},
	"web": {
		{name: "bug", color: "ee0701", description: "A defect of the web app"},
		{name: "design", color: "c5def5", description: "Layout, colours and typography"},
		{name: "question", color: "d876e3", description: "Further information is requested", dflt: true},
	},
}

// item is one issue or pull request of the fixture, number its index + 1.
type item struct {
	kind      byte   // 'o' open issue, 'c' closed issue, 'p' open pull request, 'q' closed pull request
	user      string // author
	labels    string // comma-separated names
	updated   string // the day of the last update (of closing, when closed)
	title     string
	body      string
	assignees string // comma-separated logins
	reason    string // a closed issue's state_reason; "merged" for a merged pull request
	head      string // a pull request's branch
	draft     bool
}

var engineItems = []item{
	{kind: 'o', user: "margaret", labels: "question", updated: "2025-04-02", title: "Document the engine's timeout defaults", body: "Which timeout applies when both a tool call and the script set one? The README does not say."},
	{kind: 'o', user: "dennis", labels: "pinned,docs", updated: "2026-01-15", title: "Plan: the tool sources we intend to support", body: "Tracking issue for tool sources beyond MCP and WASM: OpenAPI, GraphQL, gRPC. Please keep this open."},
	{kind: 'c', user: "alan", labels: "bug", updated: "2025-04-01", title: "Typo in the batch example", body: "`codemode batch --help` says 'paralell'.", reason: "completed"},
	{kind: 'o', user: "radia", labels: "enhancement", updated: "2026-07-02", title: "Expose per-tool latency in the run trace", body: "It would help to see how long each tool call took inside a script run."},
	{kind: 'o', user: "guido", labels: "question", updated: "2025-05-20", title: "Is goja's ES2020 support enough for async iterators?", body: "We use `for await` in our scripts; does the sandbox handle it?"},
	{kind: 'o', user: "barbara", labels: "performance", updated: "2026-08-19", title: "Schema compilation dominates cold start", body: "Profiling `codemode run` shows half of the first second spent compiling JSON Schemas.", assignees: "ada"},
	{kind: 'c', user: "ken", labels: "docs", updated: "2025-05-09", title: "Broken link to the MCP guide", body: "The README links to docs/mcp.html, which does not exist.", reason: "completed"},
	{kind: 'o', user: "linus", labels: "enhancement", updated: "2026-02-11", title: "Support YAML config files", body: "Our other tools use YAML; a config.yaml beside config.json would be welcome."},
	{kind: 'o', user: "grace", labels: "bug", updated: "2026-09-03", title: "Engine stops mid-batch when a tool returns an empty array", body: "Running a batch of 12 calls where the third returns [] makes the engine exit. Crash log attached: panic: index out of range [0] with length 0.", assignees: "ada"},
	{kind: 'o', user: "margaret", labels: "docs,good first issue", updated: "2026-06-20", title: "Explain approval policies with an example", body: "docs/security.md lists the policies but shows no configuration."},
	{kind: 'o', user: "ada", labels: "enhancement", updated: "2025-09-30", title: "Allow a per-namespace approval policy", body: "Read-only namespaces could be approved automatically."},
	{kind: 'c', user: "dennis", labels: "bug", updated: "2025-08-01", title: "Wrong exit code when the config is missing", body: "`codemode run` exits 0 when config.json is absent.", reason: "completed"},
	{kind: 'o', user: "alan", labels: "performance", updated: "2026-10-01", title: "Cache parsed tool declarations between runs", body: "Each run parses the declarations of every tool again; a cache keyed by the manifest's hash would save about 40 ms."},
	{kind: 'o', user: "radia", labels: "pinned,security", updated: "2026-04-30", title: "Security policy and how to report a vulnerability", body: "Pinned: please write to security@codemode.dev instead of opening a public issue."},
	{kind: 'q', user: "dependabot[bot]", labels: "", updated: "2025-07-24", title: "Bump golang.org/x/text from 0.39.0 to 0.40.0", body: "Bumps golang.org/x/text from 0.39.0 to 0.40.0.", reason: "merged", head: "dependabot/go_modules/golang.org/x/text-0.40.0"},
	{kind: 'o', user: "guido", labels: "question", updated: "2026-06-11", title: "How do I pass secrets to an MCP server?", body: "The config has env for stdio servers; what about headers for HTTP ones?"},
	{kind: 'o', user: "barbara", labels: "enhancement", updated: "2025-11-03", title: "Colour output for `codemode tools`", body: "A long tool list is hard to scan; colour the namespaces."},
	{kind: 'c', user: "ken", labels: "bug", updated: "2025-09-10", title: "search_tools ranks exact names below descriptions", body: "search_tools(\"whiteboard.add\") returns whiteboard.list first.", reason: "completed"},
	{kind: 'o', user: "linus", labels: "bug", updated: "2026-07-23", title: "Trace viewer shows times in the local zone", body: "Timestamps in the trace should be UTC, as in the logs."},
	{kind: 'o', user: "grace", labels: "docs", updated: "2026-08-08", title: "Add a glossary of engine terms", body: "Round trip, step, batch and run mean different things in different documents."},
	{kind: 'o', user: "ada", labels: "bug", updated: "2026-10-28", title: "Sandbox crashes when a script throws a non-Error value", body: "`throw 42` inside execute_code takes the worker down instead of reporting a tool error.", assignees: "ada,grace"},
	{kind: 'p', user: "linus", labels: "", updated: "2025-11-12", title: "WIP: experimental Lua sandbox", body: "An experiment: a second sandbox running Lua through gopher-lua. Not ready for review.", head: "lua-sandbox", draft: true},
	{kind: 'o', user: "margaret", labels: "question", updated: "2026-03-18", title: "Can tools stream partial results?", body: "Some of our tools produce output over minutes; can a script read it as it comes?"},
	{kind: 'o', user: "dennis", labels: "enhancement", updated: "2026-06-25", title: "Let scripts import shared helper modules", body: "We copy the same helpers into every script."},
	{kind: 'c', user: "alan", labels: "docs", updated: "2025-12-01", title: "Outdated install instructions", body: "The go install path in the README changed with the module rename.", reason: "completed"},
	{kind: 'o', user: "radia", labels: "bug,good first issue", updated: "2026-09-15", title: "`codemode tools --json` omits titles", body: "The JSON listing drops the title field that the text listing shows."},
	{kind: 'o', user: "guido", labels: "performance", updated: "2026-07-30", title: "Memory grows with long SSE sessions", body: "A board left open for a day grows the server's heap by 300 MB."},
	{kind: 'o', user: "barbara", labels: "enhancement", updated: "2026-11-02", title: "Undo for whiteboard bulk edits", body: "Undo reverts one element of a bulk edit instead of the whole edit."},
	{kind: 'o', user: "ken", labels: "docs", updated: "2026-06-16", title: "Document the events stream format", body: "docs/events.md lacks the field list of a step event."},
	{kind: 'o', user: "linus", labels: "bug", updated: "2026-10-09", title: "Server stops answering after a client disconnects mid-stream", body: "When a browser tab closed during a run, the server crashed with a nil pointer dereference in the SSE writer and had to be restarted.", assignees: "linus"},
	{kind: 'o', user: "grace", labels: "question", updated: "2026-05-08", title: "Which Go versions do you support?", body: "go.mod says 1.26; is 1.25 tested too?"},
	{kind: 'o', user: "ada", labels: "enhancement", updated: "2026-08-27", title: "Add a dry-run flag to batch", body: "Show the calls a batch would make without making them."},
	{kind: 'c', user: "margaret", labels: "bug", updated: "2026-02-20", title: "Crash on startup with an empty tools directory", body: "An empty --wasm-dir made codemode exit at once. Fixed in 0.9.1.", reason: "completed"},
	{kind: 'o', user: "dennis", labels: "security", updated: "2026-09-22", title: "Rate-limit the HTTP API per client", body: "One client can take every run slot of the server."},
	{kind: 'o', user: "alan", labels: "good first issue", updated: "2026-06-30", title: "Typo in `codemode serve --help`", body: "It says 'adress' for --addr."},
	{kind: 'o', user: "radia", labels: "performance", updated: "2026-10-20", title: "Batch calls run sequentially on one core", body: "Independent calls in a batch could use every core."},
	{kind: 'q', user: "ken", labels: "", updated: "2026-04-15", title: "Rewrite the CLI with cobra", body: "Moves every subcommand to cobra for shell completion.", head: "cobra-cli"},
	{kind: 'o', user: "guido", labels: "docs", updated: "2026-07-07", title: "Examples for the Go embedding API", body: "A short example of registering a Go function as a tool would help."},
	{kind: 'o', user: "barbara", labels: "bug", updated: "2026-11-10", title: "CRASH: out of memory in the JS sandbox on large arrays", body: "Building an array of 10 million numbers in a script kills the process.", assignees: "ada"},
	{kind: 'o', user: "ken", labels: "enhancement", updated: "2026-08-14", title: "Support OpenAPI specs as a tool source", body: "Bind a REST API described by OpenAPI without writing a manifest."},
	{kind: 'c', user: "linus", labels: "question", updated: "2026-05-10", title: "Is there a hosted version?", body: "We would rather not run it ourselves.", reason: "not_planned"},
	{kind: 'o', user: "grace", labels: "question", updated: "2026-09-09", title: "How are tool names sanitised for MCP?", body: "Dots in our tool names become underscores in Claude Desktop."},
	{kind: 'o', user: "margaret", labels: "bug", updated: "2026-10-15", title: "Whiteboard export loses arrow labels", body: "Exporting a board to SVG drops the text on arrows."},
	{kind: 'p', user: "ada", labels: "enhancement", updated: "2026-11-12", title: "Add OpenAPI bindings", body: "Binds an OpenAPI 3 document as tools, one per operation.", head: "openapi-bindings"},
	{kind: 'o', user: "dennis", labels: "performance", updated: "2026-09-28", title: "Token counts are computed twice per turn", body: "bench counts a request's tokens once for the report and once more for the budget."},
	{kind: 'o', user: "alan", labels: "enhancement", updated: "2026-07-19", title: "Keyboard shortcuts in the web app", body: "At least undo, redo and delete."},
	{kind: 'o', user: "radia", labels: "bug", updated: "2026-11-05", title: "Tool results over 1 MiB are cut silently", body: "A tool returning a large JSON result crashes the MCP client on the other end, because the result is cut in the middle of a string."},
	{kind: 'o', user: "guido", labels: "docs", updated: "2026-08-31", title: "Describe the SQLite store's schema", body: "For backups we need to know which tables hold what."},
	{kind: 'o', user: "barbara", labels: "question", updated: "2026-10-02", title: "Can a script call tools in parallel?", body: "Promise.all over tool calls seems to run them one by one."},
	{kind: 'c', user: "ken", labels: "bug", updated: "2026-09-18", title: "Approvals dialog shows raw JSON", body: "The arguments of a call waiting for approval are shown as one long JSON line.", reason: "completed"},
	{kind: 'o', user: "linus", labels: "enhancement", updated: "2026-10-24", title: "Export a run as a shareable HTML page", body: "For bug reports it would help to attach a self-contained page."},
	{kind: 'p', user: "ada", labels: "bug", updated: "2026-11-16", title: "Fix crash when a tool schema has a $ref cycle", body: "Resolves $refs with a visited set, so a cycle ends in an error instead of a stack overflow.", head: "fix-ref-cycle"},
	{kind: 'o', user: "grace", labels: "security", updated: "2026-11-03", title: "Secrets from the environment appear in error messages", body: "An HTTP tool's 401 error echoes the Authorization header."},
	{kind: 'o', user: "margaret", labels: "performance", updated: "2026-11-08", title: "Slow search_tools with 2,000 tools", body: "Each query takes 80 ms on a catalog of 2,000 tools."},
	{kind: 'o', user: "dennis", labels: "docs,good first issue", updated: "2026-11-11", title: "Link the benchmark report from the README", body: "The report exists, but nothing links to it."},
	{kind: 'p', user: "grace", labels: "docs", updated: "2026-11-14", title: "docs: explain search_tools ranking", body: "Describes how search_tools scores names, titles and descriptions.", head: "docs-search-ranking"},
	{kind: 'o', user: "alan", labels: "enhancement", updated: "2026-11-13", title: "Show token savings in the web app", body: "The numbers are in the trace; show them next to each run."},
	{kind: 'o', user: "radia", labels: "bug", updated: "2026-11-18", title: "Crash when the config names an MCP server twice", body: "Two entries with the same command make `codemode serve` panic at start.", assignees: "radia"},
	{kind: 'p', user: "ada", labels: "enhancement", updated: "2026-11-19", title: "Catalog-scale scenarios for bench", body: "Four tasks over GitHub's REST description, with scripted models for each strategy.", head: "bench-catalog"},
	{kind: 'o', user: "guido", labels: "question", updated: "2026-11-19", title: "Does code mode work with local models?", body: "We run a 7B model behind an OpenAI-compatible API."},
}

var webItems = []item{
	{kind: 'o', user: "barbara", labels: "design", updated: "2026-09-02", title: "Dark mode colours are too low in contrast", body: "Grey text on the dark background fails WCAG AA."},
	{kind: 'o', user: "alan", labels: "bug", updated: "2026-10-12", title: "Board list does not scroll on small screens", body: "On a phone the list of boards is cut after the fifth."},
	{kind: 'o', user: "guido", labels: "question", updated: "2026-11-06", title: "Which browsers do you support?", body: "Is Safari 17 enough?"},
}

// fixtureComments are the comments at the start, by issue number of engine,
// oldest first; the last made three hours before its issue's updated_at,
// each earlier one three hours before the next.
var fixtureComments = map[int][][2]string{ // {user, body}
	9:  {{"linus", "I can reproduce this on main with any tool that returns an empty list."}, {"ada", "The engine indexes the first result without checking the length; a fix is coming."}},
	14: {{"dennis", "Linked from the README's security section."}},
	21: {{"margaret", "Same with `throw null`."}},
	30: {{"dennis", "Seen it too, with Safari closing the tab."}},
	47: {{"ken", "Which MCP client?"}, {"radia", "Claude Desktop 0.12."}},
	52: {{"grace", "Looks good once a test covers a cycle through two schemas."}},
	60: {{"barbara", "Which model?"}, {"guido", "Qwen 2.5 7B through llama.cpp's server."}},
}

var users = []user{
	{"ada", 1001, "User", "MEMBER"}, {"grace", 1002, "User", "MEMBER"}, {"linus", 1003, "User", "MEMBER"},
	{"ken", 1004, "User", "CONTRIBUTOR"}, {"barbara", 1005, "User", "CONTRIBUTOR"}, {"margaret", 1006, "User", "CONTRIBUTOR"},
	{"dennis", 1007, "User", "CONTRIBUTOR"}, {"alan", 1008, "User", "CONTRIBUTOR"}, {"radia", 1009, "User", "CONTRIBUTOR"},
	{"guido", 1010, "User", "CONTRIBUTOR"}, {Agent, 1100, "User", "MEMBER"},
	{"dependabot[bot]", 49699333, "Bot", "NONE"}, {Owner, 9001, "Organization", "OWNER"},
}

// Default returns a fresh Server holding the standard fixture, its clock at
// Start and its request log empty.
func Default() *Server {
	s := &Server{repos: map[string]*repo{}, users: map[string]user{}, now: Start, nextID: 7_000_000_000}
	for _, u := range users {
		s.users[strings.ToLower(u.login)] = u
	}
	engine := s.addRepo(1, "engine", "The codemode engine: many tool calls in one step.", "Go",
		time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC), time.Date(2025, 3, 3, 9, 0, 0, 0, time.UTC), 10*24*time.Hour, engineItems)
	for _, n := range slices.Sorted(maps.Keys(fixtureComments)) { // ids in a fixed order
		i, cs := engine.issues[n-1], fixtureComments[n]
		for k, c := range cs {
			at := i.updated.Add(-3 * time.Hour * time.Duration(len(cs)-k))
			i.comments = append(i.comments, &comment{id: s.newID(), user: c[0], body: c[1], created: at, updated: at})
		}
	}
	s.addRepo(2, "web", "The codemode web app.", "TypeScript",
		time.Date(2026, 7, 1, 8, 0, 0, 0, time.UTC), time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC), 7*24*time.Hour, webItems)
	return s
}

// addRepo adds a repository of Owner with its fixture labels and items, item
// n created at first + (n-1)*every + 37n minutes.
func (s *Server) addRepo(k int64, name, description, language string, created, first time.Time, every time.Duration, items []item) *repo {
	r := &repo{id: 610_000_000 + k, owner: Owner, name: name, description: description, language: language, created: created}
	for _, l := range fixtureLabels[name] {
		l.id = s.newID()
		r.labels = append(r.labels, &l)
	}
	for idx, it := range items {
		n := idx + 1
		created := first.Add(time.Duration(idx)*every + time.Duration(n)*37*time.Minute)
		day, err := time.Parse(time.DateOnly, it.updated)
		if err != nil {
			panic("fakegithub: bad fixture date " + it.updated) // the fixture's own mistake, caught by its tests
		}
		body := it.body
		i := &issue{
			number: n, id: 3_000_000_000 + k*1_000_000 + int64(n), title: it.title, body: &body, user: it.user,
			state: "open", created: created, updated: day.Add(14*time.Hour + time.Duration(n)*time.Minute),
		}
		for _, name := range splitList(it.labels) {
			i.labels = append(i.labels, r.labelNamed(name))
		}
		i.assignees = splitList(it.assignees)
		if it.kind == 'p' || it.kind == 'q' {
			i.pull = &pull{id: 2_000_000_000 + k*1_000_000 + int64(n), head: it.head, base: "main", draft: it.draft}
		}
		if it.kind == 'c' || it.kind == 'q' {
			i.state, i.closed = "closed", i.updated
			if it.reason == "merged" {
				i.pull.merged = i.closed
			} else if i.pull == nil {
				i.stateReason = it.reason
			}
		}
		r.issues = append(r.issues, i)
		if i.updated.After(r.pushed) {
			r.pushed = i.updated
		}
	}
	s.repos[strings.ToLower(r.owner+"/"+r.name)] = r
	return r
}

// splitList splits a comma-separated list, dropping empty entries.
func splitList(s string) []string {
	out := []string{}
	for v := range strings.SplitSeq(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
