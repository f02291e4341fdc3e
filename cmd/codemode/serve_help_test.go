package main

import (
	"strings"
	"testing"
)

// serve --help says how long a call waits for approval and where that is
// set: the approvalTimeout key of --config.
func TestServeHelpApprovalTimeout(t *testing.T) {
	out, errs, code := cli(t, "", "serve", "--help")
	if code != exitOK || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{`"approvalTimeout" in the --config file (default`, "5m), then it is denied; its run holds its board"} {
		if !strings.Contains(out, want) {
			t.Errorf("serve --help does not say %q:\n%s", want, out)
		}
	}
}
