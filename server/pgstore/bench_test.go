package pgstore_test

import (
	"testing"

	"github.com/codemode-dev/codemode/internal/pgtest"
	"github.com/codemode-dev/codemode/server"
	"github.com/codemode-dev/codemode/server/pgstore"
	"github.com/codemode-dev/codemode/server/storetest"
)

// BenchmarkCommit is storetest.BenchCommit, as sqlitestore's, on
// PostgreSQL (the throwaway server of package pgtest, which runs with fsync
// off: the numbers are the store's and the round trips', not a disk's),
// with the default history of 100 steps.
func BenchmarkCommit(b *testing.B) { storetest.BenchCommit(b, openBench) }

func openBench(b *testing.B) server.Store {
	return open(b, pgtest.URL(b), pgstore.Options{})
}
