package fakegithub

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that the tests leave no goroutine behind: the concurrency
// test's writers and the httptest servers end with their tests.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
