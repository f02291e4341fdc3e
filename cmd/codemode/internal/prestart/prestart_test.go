package prestart

import (
	"testing"

	"github.com/codemode-dev/codemode/sandbox/worker/spawn"
)

func TestWantsWorker(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"run", "one.js"}, true},
		{[]string{"run"}, true},
		{[]string{"run", "-"}, true},
		{[]string{"run", "--runner", "worker", "one.js"}, true},
		{[]string{"run", "--runner=worker", "one.js"}, true},
		{[]string{"run", "--runner", "inprocess", "one.js"}, false},
		{[]string{"run", "one.js", "--runner", "inprocess"}, false},
		{[]string{"run", "--runner=inprocess", "one.js"}, false},
		{[]string{"run", "-runner", "inprocess", "one.js"}, false},
		{[]string{"run", "-runner=inprocess", "one.js"}, false},
		{[]string{"run", "--runner", "inprocess", "--runner", "worker", "one.js"}, true}, // the last one counts
		{[]string{"run", "--runner=worker", "-runner=inprocess", "one.js"}, false},
		{[]string{"run", "--runner"}, true}, // a usage error: a wrong guess costs only time
		{[]string{"run", "--help"}, false},
		{[]string{"run", "one.js", "-h"}, false},
		{[]string{"run", "-help"}, false},
		{[]string{"batch", "one.json"}, false},
		{[]string{"serve"}, false},
		{[]string{"help", "run"}, false},
		{[]string{"--runner", "worker", "run"}, false},
		{[]string{spawn.Arg}, false}, // a worker never starts one
		{nil, false},
	} {
		if got := wantsWorker(tc.args); got != tc.want {
			t.Errorf("wantsWorker(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
