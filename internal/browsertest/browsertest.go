// Package browsertest finds the Chromium that the browser tests (the web
// app's, the bench report's) drive with chromedp, and starts it alike for
// all of them.
package browsertest

import (
	"os"
	"os/exec"
	"testing"

	"github.com/chromedp/chromedp"
)

// Chromium returns the browser's path: $CODEMODE_CHROMIUM, or the first of
// chromium, chromium-browser, google-chrome, google-chrome-stable and
// headless-shell on PATH. Without one the test is skipped, unless
// CODEMODE_BROWSER_TESTS=1 (.ci/run sets it, after installing Debian's
// chromium), when a missing browser is an error.
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("CODEMODE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no chromium on PATH (nor $CODEMODE_CHROMIUM): the browser tests need Debian's chromium (sudo apt-get install chromium)"
	if os.Getenv("CODEMODE_BROWSER_TESTS") == "1" {
		t.Fatal(msg + "; CODEMODE_BROWSER_TESTS=1 makes this an error")
	}
	t.Skip(msg + "; skipped (CODEMODE_BROWSER_TESTS=1 makes this an error)")
	return ""
}

// AllocatorOptions are chromedp's options for the browser at exe: headless
// defaults, a 1440×900 window without scroll bars, the same text rendering
// for every screenshot, and no sandbox when run as root (as in containers).
func AllocatorOptions(exe string) []chromedp.ExecAllocatorOption {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.WindowSize(1440, 900),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("font-render-hinting", "none"),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	return opts
}
