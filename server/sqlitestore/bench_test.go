package sqlitestore_test

import (
	"path/filepath"
	"testing"

	"github.com/codemode-dev/codemode/server"
	"github.com/codemode-dev/codemode/server/sqlitestore"
	"github.com/codemode-dev/codemode/server/storetest"
)

// BenchmarkCommit commits 5 KB documents, one after another on one board
// (Serial) and from many goroutines on a board each (Parallel, the load
// test's shape), with the default history of 100 steps (so most commits
// also delete the oldest step). It reports commits/s.
func BenchmarkCommit(b *testing.B) { storetest.BenchCommit(b, openBench) }

func openBench(b *testing.B) server.Store {
	s, err := sqlitestore.Open(filepath.Join(b.TempDir(), "boards.db"), sqlitestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}
