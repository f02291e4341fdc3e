package web_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that the tests leave no goroutine behind: the server's
// runs and streams, and chromedp's connection to the browser, end with the
// tests.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
