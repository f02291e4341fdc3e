package server

import (
	"flag"
	"testing"

	"go.uber.org/goleak"
)

// update rewrites the golden files under testdata/.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestMain checks that no test leaves a goroutine behind: runs, streams and
// approvals all end with what started them. (The binary is also
// TestWorkerRunner's worker: package worker's init makes it one.)
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
