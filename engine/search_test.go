package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
)

// searchEngine has tools whose names, descriptions and parameters share
// words in different places, to rank.
func searchEngine(t *testing.T, opts ...func(*engine.Builder)) *engine.Engine {
	t.Helper()
	noop := func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{}`), nil }
	tool := func(name, desc string, params ...string) engine.Tool {
		props := map[string]any{}
		for _, p := range params {
			props[p] = map[string]any{"type": "string"}
		}
		schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
		return engine.Tool{Name: name, Description: desc, InputSchema: schema, Handler: noop}
	}
	b := engine.NewBuilder().Add(
		tool("github.create_issue", "Open a new issue in a repository.", "title", "body", "repo"),
		tool("github.list_issues", "List the issues of a repository.", "repo", "state"),
		tool("tracker.comment", "Add a comment to an issue.", "issueId", "text"),
		tool("tracker.link", "Link two tickets.", "fromTicket", "toTicket"),
		tool("notes.createNote", "Create a note.", "text"),
		tool("board.pin", "Pin a note to the board.", "x", "y"),
	)
	for _, o := range opts {
		o(b)
	}
	e, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// searchNames calls search_tools as a native tool call and returns the
// names found, or the error's code.
func searchNames(t *testing.T, e *engine.Engine, args string) []string {
	t.Helper()
	res := e.HandleToolCalls(context.Background(), []engine.ToolCall{{ID: "s", Name: "search_tools", Arguments: json.RawMessage(args)}})
	if res[0].IsError {
		return []string{"error:" + string(res[0].Error.Code)}
	}
	var out engine.SearchResult
	if err := json.Unmarshal(res[0].Content, &out); err != nil {
		t.Fatalf("%s: %v", res[0].Content, err)
	}
	names := []string{}
	for _, h := range out.Tools {
		names = append(names, h.Name)
	}
	return names
}

func TestSearchToolsRanking(t *testing.T) {
	e := searchEngine(t)
	for _, tc := range []struct {
		name, args string
		want       []string
	}{
		// Both words in the name, one in the name (createNote; issues,
		// the same word as issue once stemmed), one in a parameter (issueId).
		{"name hits first", `{"query":"create issue"}`, []string{"github.create_issue", "notes.createNote", "github.list_issues", "tracker.comment"}},
		{"name beats description", `{"query":"note"}`, []string{"notes.createNote", "board.pin"}},
		{"exact name beats everything", `{"query":"github.list_issues"}`, []string{"github.list_issues", "github.create_issue", "tracker.comment"}},
		{"wire name", `{"query":"tracker-link"}`, []string{"tracker.link", "tracker.comment"}},
		{"parameter names", `{"query":"ticket"}`, []string{"tracker.link"}},
		// The namespace's tools tie; the shorter name goes first.
		{"namespace", `{"query":"tracker"}`, []string{"tracker.link", "tracker.comment"}},
		// Both descriptions say repository; list is the rarer, more
		// specific name word, which the query does not ask for.
		{"the less specific name first", `{"query":"repository"}`, []string{"github.create_issue", "github.list_issues"}},
		{"camelCase and snake_case query", `{"query":"createIssue"}`, []string{"github.create_issue", "notes.createNote", "github.list_issues", "tracker.comment"}},
		{"limit", `{"query":"issues","limit":2}`, []string{"github.create_issue", "github.list_issues"}},
		{"no match", `{"query":"weather"}`, []string{}},
		{"empty query", `{"query":""}`, []string{"error:bad_request"}},
		{"only stop words", `{"query":" the an "}`, []string{"error:bad_request"}},
		{"no query", `{}`, []string{"error:invalid_args"}},
		{"limit out of range", `{"query":"issue","limit":1000}`, []string{"error:invalid_args"}},
	} {
		if diff := cmp.Diff(tc.want, searchNames(t, e, tc.args)); diff != "" {
			t.Errorf("%s: %s (-want +got):\n%s", tc.name, tc.args, diff)
		}
	}
}

// TestSearchToolsRankingSignals: what else than a name word ranks a
// tool, on a catalog shaped like an OpenAPI one (a tag before the verb,
// titles, an enum), where names share most words. The tools have no
// description, so that a title's words count as the title's.
func TestSearchToolsRankingSignals(t *testing.T) {
	noop := func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{}`), nil }
	tool := func(name, title, params string) engine.Tool {
		return engine.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object","properties":{` + params + `}}`),
			Annotations: engine.Annotations{Title: title}, Handler: noop}
	}
	ownerRepo := `"owner":{"type":"string","description":"The account owner of the repository."},"repo":{"type":"string"}`
	e, err := engine.NewBuilder().Add(
		tool("vcs.issues_get", "Get an issue", ownerRepo),
		tool("vcs.issues_update", "Update an issue", ownerRepo+`,"state":{"type":"string","enum":["open","closed"]}`),
		tool("vcs.issues_create_comment", "Create an issue comment", ownerRepo+`,"body":{"type":"string"}`),
		tool("vcs.reactions_create_for_issue_comment", "Create reaction for an issue comment", ownerRepo+`,"content":{"type":"string"}`),
		tool("vcs.repos_get", "Get a repository", ownerRepo),
		tool("vcs.repos_get_webhook", "Get a repository webhook", ownerRepo+`,"hook_id":{"type":"integer"}`),
		tool("vcs.pulls_list", "List pull requests", ownerRepo),
		tool("vcs.pulls_list_files", "List pull request files", ownerRepo),
		tool("vcs.orgs_list_members", "List organization members", `"org":{"type":"string"}`),
		tool("vcs.users_list_my_keys", "List all my keys", ""),
		tool("vcs.refs_fetch", "", ""),
		tool("vcs.fetch", "", `"reference":{"type":"string"}`),
	).Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, query string
		want        []string
	}{
		// Every tool but one has the query's words; the one with no other
		// word first, the one with a rare other word (reaction) after the
		// one with a common one (get).
		{"fewest other words", "create issue comment", []string{"vcs.issues_create_comment", "vcs.reactions_create_for_issue_comment", "vcs.issues_get"}},
		// The title has repository, the names repo, a word that begins it.
		{"title and a name word the query word begins with", "get a repository", []string{"vcs.repos_get", "vcs.repos_get_webhook", "vcs.issues_get"}},
		// Plural or singular, the same word.
		{"plurals", "list pull requests", []string{"vcs.pulls_list", "vcs.pulls_list_files"}},
		{"title words", "request", []string{"vcs.pulls_list", "vcs.pulls_list_files"}},
		// closed is a value of issues_update's state.
		{"enum values", "close issue", []string{"vcs.issues_update", "vcs.issues_get", "vcs.issues_create_comment"}},
		// Query words that begin name words: org of organization.
		{"prefixes both ways", "org members", []string{"vcs.orgs_list_members"}},
		{"prefixes both ways", "organizations", []string{"vcs.orgs_list_members"}},
		// my and all are stop words, in queries and in titles.
		{"stop words", "all my members", []string{"vcs.orgs_list_members"}},
		// webhook is in one tool, issue in five.
		{"a rare word outweighs a common one", "issue webhook", []string{"vcs.repos_get_webhook", "vcs.issues_get"}},
		// Without a title, a name that has every word (ref begins
		// reference) beats one that has fetch and a parameter reference.
		{"every word in the name", "fetch reference", []string{"vcs.refs_fetch", "vcs.fetch"}},
	} {
		got := searchNames(t, e, `{"query":"`+tc.query+`","limit":`+strconv.Itoa(max(2, len(tc.want)))+`}`)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: %q (-want +got):\n%s", tc.name, tc.query, diff)
		}
	}
}

// TestSearchToolsDeclaration: each hit carries the tool's TypeScript
// declaration, nested under its namespace as a script calls it.
func TestSearchToolsDeclaration(t *testing.T) {
	e := searchEngine(t)
	res := e.HandleToolCalls(context.Background(), []engine.ToolCall{{ID: "s", Name: "search_tools", Arguments: json.RawMessage(`{"query":"create_issue","limit":1}`)}})
	var out engine.SearchResult
	if err := json.Unmarshal(res[0].Content, &out); err != nil || len(out.Tools) != 1 {
		t.Fatalf("%s: %v", res[0].Content, err)
	}
	h := out.Tools[0]
	if h.Name != "github.create_issue" || h.Description != "Open a new issue in a repository." {
		t.Errorf("hit = %+v", h)
	}
	for _, want := range []string{"declare const tools: {", "  github: {", "create_issue(args?: {", "repo?: string"} {
		if !strings.Contains(h.Declaration, want) {
			t.Errorf("declaration lacks %q:\n%s", want, h.Declaration)
		}
	}
	if strings.Contains(h.Declaration, "list_issues") || strings.Contains(h.Declaration, "declare const console") {
		t.Errorf("declaration holds more than the tool:\n%s", h.Declaration)
	}
}

// TestSearchToolsFromScript: scripts call tools.search_tools like a tool; the
// call is in the trace and counts against maxToolCalls.
func TestSearchToolsFromScript(t *testing.T) {
	e := searchEngine(t)
	res := script(t, e, `const r = await tools.search_tools({query: "ticket"}); return r.tools.map(t => t.name);`)
	if !res.Success {
		t.Fatalf("failed: %+v", res.Error)
	}
	if diff := cmp.Diff(`["tracker.link"]`, string(res.Result)); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if len(res.Calls) != 1 || res.Calls[0].Tool != "search_tools" || !res.Calls[0].Success {
		t.Errorf("calls = %+v", res.Calls)
	}
	one := execute(t, e, engine.ExecuteRequest{Code: `await tools.search_tools({query: "a b"}); await tools.search_tools({query: "issue"});`,
		Limits: &engine.ScriptLimits{MaxToolCalls: 1}})
	if one.Success || one.Error.Code != engine.CodeLimitExceeded {
		t.Errorf("two searches under maxToolCalls 1: %+v", one.Error)
	}
	if !strings.Contains(e.Declarations(), "search_tools(args: {") {
		t.Errorf("declarations lack search_tools:\n%s", e.Declarations())
	}
}

// TestHostileSearchToolsNeedsNoApproval: a policy gating every call does not
// put search_tools, which reads only the engine's tool list, to the Approver.
func TestHostileSearchToolsNeedsNoApproval(t *testing.T) {
	asked := 0
	e := searchEngine(t, func(b *engine.Builder) {
		b.WithApprovalPolicy(func(*engine.Tool) bool { return true })
		b.WithApprover(engine.ApproverFunc(func(_ context.Context, reqs []engine.ApprovalRequest) ([]engine.Decision, error) {
			asked += len(reqs)
			return make([]engine.Decision, len(reqs)), nil // deny
		}))
	})
	if diff := cmp.Diff([]string{"tracker.link"}, searchNames(t, e, `{"query":"ticket"}`)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if res := script(t, e, `return (await tools.search_tools({query: "ticket"})).tools.length`); !res.Success || string(res.Result) != "1" {
		t.Errorf("from a script: %+v %s", res.Error, res.Result)
	}
	if asked != 0 {
		t.Errorf("the Approver was asked about %d calls", asked)
	}
}

// TestHostileSearchToolsHugeQuery: a query of a megabyte of words is cut,
// not searched word by word.
func TestHostileSearchToolsHugeQuery(t *testing.T) {
	e := searchEngine(t)
	q, _ := json.Marshal(map[string]any{"query": strings.Repeat("issueX ", 150_000) + "ticket"})
	got := searchNames(t, e, string(q))
	if len(got) == 0 || strings.HasPrefix(got[0], "error:") || slices.Contains(got, "tracker.link") {
		t.Errorf("want the hits of the query's first words only: %v", got)
	}
}

// TestSearchToolsInBatch: search_tools reads only the tool list, so a batch
// may run it like a tool, while batch and execute_code stay recursion.
func TestSearchToolsInBatch(t *testing.T) {
	e := searchEngine(t)
	res := e.HandleToolCalls(context.Background(), []engine.ToolCall{{ID: "b", Name: "batch", Arguments: json.RawMessage(
		`{"operations":[{"tool":"search_tools","args":{"query":"ticket"}},{"tool":"execute_code","args":{"code":"1"}}]}`)}})
	var br engine.BatchResult
	if err := json.Unmarshal(res[0].Content, &br); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ok", "recursion"}, codes(&br)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestSearchToolsNotOnAnEngineWithoutTools: an engine without tools has no
// meta-tools, search_tools included.
func TestSearchToolsNotOnAnEngineWithoutTools(t *testing.T) {
	e, err := engine.NewBuilder().Build()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"error:unknown_tool"}, searchNames(t, e, `{"query":"x"}`)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// executeCodeDescription is the execute_code meta-tool's description.
func executeCodeDescription(t *testing.T, e *engine.Engine) string {
	t.Helper()
	for _, d := range e.ToolDefinitions().Tools {
		if d.Name == engine.MetaExecuteCode {
			return d.Description
		}
	}
	t.Fatal("no execute_code definition")
	return ""
}

// TestExecuteCodeDescriptionBudget: under script.maxDeclarationChars the
// execute_code description declares every tool; over it, it names the
// namespaces (with counts) and the other tools, and declares search_tools.
func TestExecuteCodeDescriptionBudget(t *testing.T) {
	under := executeCodeDescription(t, whiteboardEngine(t))
	if !strings.Contains(under, "createStickyNote(args: {") || strings.Contains(under, "too many to declare") {
		t.Errorf("the whiteboard's tools are not declared under the default budget:\n%s", under)
	}
	over := executeCodeDescription(t, searchEngine(t, func(b *engine.Builder) {
		b.WithConfig(engine.Config{Script: engine.ScriptLimits{MaxDeclarationChars: 200}})
	}))
	for _, want := range []string{
		"Tools: 6, too many to declare here.",
		`await tools.search_tools({query: "keywords"})`,
		"search_tools(args: {",
		"Namespaces (tools.NAMESPACE.tool): board (1), github (2), notes (1), tracker (2)",
		"Promise.all", // the rules stay
	} {
		if !strings.Contains(over, want) {
			t.Errorf("over the budget, the description lacks %q:\n%s", want, over)
		}
	}
	if strings.Contains(over, "create_issue(args") {
		t.Errorf("over the budget, the description still declares the tools:\n%s", over)
	}
}

// TestHostileExecuteCodeDescriptionManyTools: the list that replaces the
// declarations keeps to the budget too, ending in "and N more".
func TestHostileExecuteCodeDescriptionManyTools(t *testing.T) {
	noop := func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }
	b := engine.NewBuilder().WithConfig(engine.Config{Script: engine.ScriptLimits{MaxDeclarationChars: 1000}})
	for i := range 2000 {
		b.Add(engine.Tool{Name: fmt.Sprintf("tool_%04d", i), InputSchema: json.RawMessage(`{"type":"object"}`), Handler: noop})
	}
	e, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	d := executeCodeDescription(t, e)
	if !strings.Contains(d, "Other tools: tool_0000, tool_0001") || !strings.Contains(d, " more") || len(d) > 5000 {
		t.Errorf("description of %d characters:\n%s", len(d), d)
	}
}

// TestMaxDeclarationCharsIsNoRequestLimit: a script request cannot give the
// definitions' budget; a config cannot set it to 0.
func TestMaxDeclarationCharsIsNoRequestLimit(t *testing.T) {
	e := searchEngine(t)
	_, err := e.Execute(context.Background(), engine.ExecuteRequest{Code: "return 1", Limits: &engine.ScriptLimits{MaxDeclarationChars: 10}})
	if !errors.Is(err, engine.ErrBadRequest) || !strings.Contains(err.Error(), "limits.maxDeclarationChars") {
		t.Errorf("err = %v", err)
	}
	if _, err := engine.ParseConfig([]byte(`{"script":{"maxDeclarationChars":0}}`)); err == nil || !strings.Contains(err.Error(), "script.maxDeclarationChars") {
		t.Errorf("maxDeclarationChars 0: err = %v", err)
	}
}
