package server

import (
	"flag"
	"testing"

	"github.com/codemode-dev/codemode/sandbox/worker"
	"go.uber.org/goleak"
)

// update rewrites the golden files under testdata/.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestMain makes the test binary a script worker when started as one
// (TestWorkerRunner's pool), and checks that no test leaves a goroutine
// behind: runs, streams and approvals all end with what started them.
func TestMain(m *testing.M) {
	worker.Main()
	goleak.VerifyTestMain(m)
}
