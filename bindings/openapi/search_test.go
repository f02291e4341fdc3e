package openapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/githubspec"
)

// githubQueries are words a model sends search_tools for a task on
// GitHub, the operation the task needs, and the rank it must be found
// within. A rank above 1 is a query that does not say which of a few
// operations it means: "comment on an issue" names no verb, and the seven
// issue-comment operations differ only by theirs.
var githubQueries = []struct {
	query string
	want  string
	rank  int // found within the first rank results
}{
	{"list repository issues", "github.issues_list_for_repo", 1},
	{"list issues in a repository", "github.issues_list_for_repo", 1},
	{"issues_list_for_repo", "github.issues_list_for_repo", 1},
	{"add labels to an issue", "github.issues_add_labels", 1},
	{"create issue comment", "github.issues_create_comment", 1},
	{"comment on an issue", "github.issues_create_comment", 3},
	{"list comments on an issue", "github.issues_list_comments", 1},
	{"update an issue", "github.issues_update", 1},
	{"close issue", "github.issues_update", 1},
	{"lock an issue", "github.issues_lock", 1},
	{"assign issue", "github.issues_add_assignees", 3},
	{"search issues", "github.search_issues_and_pull_requests", 1},
	{"list labels for a repository", "github.issues_list_labels_for_repo", 1},
	{"create a label", "github.issues_create_label", 1},
	{"update a label", "github.issues_update_label", 1},
	{"remove a label from an issue", "github.issues_remove_label", 1},
	{"list milestones", "github.issues_list_milestones", 1},
	{"list pull requests", "github.pulls_list", 1},
	{"get a pull request", "github.pulls_get", 1},
	{"create a pull request", "github.pulls_create", 1},
	{"merge a pull request", "github.pulls_merge", 1},
	{"request reviewers for a pull request", "github.pulls_request_reviewers", 1},
	{"get a repository", "github.repos_get", 1},
	{"create a repository", "github.repos_create_for_authenticated_user", 3},
	{"delete a repository", "github.repos_delete", 1},
	{"fork a repository", "github.repos_create_fork", 2},
	{"star a repository", "github.activity_star_repo_for_authenticated_user", 1},
	{"list repositories for a user", "github.repos_list_for_user", 1},
	{"list repositories for the authenticated user", "github.repos_list_for_authenticated_user", 1},
	{"list org repos", "github.repos_list_for_org", 1},
	{"get file contents", "github.repos_get_content", 2},
	{"get the readme", "github.repos_get_readme", 1},
	{"list branches", "github.repos_list_branches", 1},
	{"list commits", "github.repos_list_commits", 1},
	{"list tags", "github.repos_list_tags", 1},
	{"list releases", "github.repos_list_releases", 1},
	{"create a release", "github.repos_create_release", 1},
	{"create a webhook", "github.repos_create_webhook", 1},
	{"add a collaborator", "github.repos_add_collaborator", 1},
	{"get the authenticated user", "github.users_get_authenticated", 1},
	{"get a user", "github.users_get_by_username", 1},
	{"list organization members", "github.orgs_list_members", 1},
	{"list teams", "github.teams_list", 1},
	{"list notifications", "github.activity_list_notifications_for_authenticated_user", 1},
	{"create a gist", "github.gists_create", 1},
	{"list workflow runs for a repository", "github.actions_list_workflow_runs_for_repo", 1},
	{"rerun a workflow", "github.actions_re_run_workflow", 1},
	{"download an artifact", "github.actions_download_artifact", 1},
	{"create a check run", "github.checks_create", 1},
}

// githubEngine is an engine over GitHub's REST API, search_tools included.
func githubEngine(tb testing.TB) *engine.Engine {
	tb.Helper()
	githubspec.ForTest(tb)
	tools, err := githubTools()
	if err != nil {
		tb.Fatal(err)
	}
	eng, err := engine.NewBuilder().Add(tools...).Build()
	if err != nil {
		tb.Fatal(err)
	}
	return eng
}

// searchGitHub returns the names search_tools finds for query, at most limit.
func searchGitHub(tb testing.TB, eng *engine.Engine, query string, limit int) []string {
	args, _ := json.Marshal(map[string]any{"query": query, "limit": limit})
	res, err := eng.Call(context.Background(), engine.MetaSearchTools, args)
	if err != nil {
		tb.Fatal(err)
	}
	var found engine.SearchResult
	if err := json.Unmarshal(res, &found); err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, h := range found.Tools {
		names = append(names, h.Name)
	}
	return names
}

// TestGitHubSearch: search_tools finds the operation a task needs among
// GitHub's 1,223 from the words a model would send, first or nearly.
func TestGitHubSearch(t *testing.T) {
	eng := githubEngine(t)
	for _, c := range githubQueries {
		names := searchGitHub(t, eng, c.query, 10)
		rank := -1
		for i, n := range names {
			if n == c.want {
				rank = i + 1
				break
			}
		}
		t.Logf("%-46q #%-2d %v", c.query, rank, names[:min(3, len(names))])
		if rank < 1 || rank > c.rank {
			t.Errorf("%q: %s is #%d, want within %d; found %v", c.query, c.want, rank, c.rank, names)
		}
	}
}

// BenchmarkSearchGitHub is a search over GitHub's 1,223 tools: the first
// one, which makes the index (the engine is built outside the timer), and
// the next ones, each of githubQueries' queries in turn, returning 1 tool
// (mostly the ranking) and the default 5 (mostly their declarations).
func BenchmarkSearchGitHub(b *testing.B) {
	githubEngine(b) // skips when the description is not installed
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			eng := githubEngine(b)
			b.StartTimer()
			searchGitHub(b, eng, "list repository issues", 5)
		}
	})
	for _, limit := range []int{1, 5} {
		b.Run(fmt.Sprintf("next/limit=%d", limit), func(b *testing.B) {
			eng := githubEngine(b)
			searchGitHub(b, eng, "list repository issues", limit)
			i := 0
			for b.Loop() {
				searchGitHub(b, eng, githubQueries[i%len(githubQueries)].query, limit)
				i++
			}
		})
	}
}
