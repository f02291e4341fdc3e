// Package githubspec finds GitHub's REST API description, the catalog that
// bindings/openapi's tests and codemode bench's catalog scenarios bind: npm
// @octokit/openapi (pinned in testdata/openapi-github/package.json, where
// .ci/run installs it), generated/api.github.com.json.
package githubspec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Env names a file to use instead of the installed one.
const Env = "CODEMODE_GITHUB_SPEC"

// RequireEnv, set (as .ci/run sets it), makes a missing description a
// test's failure instead of its skip.
const RequireEnv = "CODEMODE_OPENAPI_TESTS"

// Rel is the description's path from the repository's root.
const Rel = "testdata/openapi-github/node_modules/@octokit/openapi/generated/api.github.com.json"

// Install is the command that installs it, from the repository's root.
const Install = "npm ci --prefix testdata/openapi-github"

// Path returns the description's file: $CODEMODE_GITHUB_SPEC, or Rel under
// the repository that holds the working directory.
func Path() (string, error) {
	if p := os.Getenv(Env); p != "" {
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, Rel)
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("GitHub's REST API description is not installed (%s; install it with %s)", Rel, Install)
			}
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("GitHub's REST API description: no go.mod above the working directory; set " + Env)
		}
		dir = parent
	}
}

// TB is the part of testing.TB ForTest uses (so that the codemode binary,
// which finds the description too, does not link package testing).
type TB interface {
	Helper()
	Fatal(args ...any)
	Skip(args ...any)
}

// ForTest returns the description's path, or skips the test when it is
// not installed (fails it when $CODEMODE_OPENAPI_TESTS is set).
func ForTest(tb TB) string {
	tb.Helper()
	p, err := Path()
	if err != nil {
		if os.Getenv(RequireEnv) != "" {
			tb.Fatal(err)
		}
		tb.Skip(err)
	}
	return p
}
