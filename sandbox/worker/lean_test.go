package worker

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/sandbox/js"
)

// A lean worker's regular expressions keep their answers however long a
// match takes: nothing in a lean run tells a match that regexp2 stopped at
// its timeout from "no match", so the process must never get one. Compiling
// used to set the hardened profile's 1 s for the whole process, and this
// match, true at every length, answered false as soon as it took a second
// (at 23 a's on the project's machine). The loop grows the input until a
// match takes 1.2 s, so the test holds on a faster machine too.
func TestLeanRegexpKeepsItsAnswer(t *testing.T) {
	if RaceDetector {
		t.Skip("workers are hardened under the race detector (Pool.Profile)")
	}
	p := newPool(t, Config{Warm: 1, Max: 1})
	res := run(t, p, `const re = /^(?:(?=a)(a+)+b|a+!)$/;
		for (let n = 14; ; n++) {
			const t = Date.now(), ok = re.test("a".repeat(n) + "!"), ms = Date.now() - t;
			if (!ok || ms > 1200) return {n, ok, ms};
		}`, js.Limits{Timeout: 40 * time.Second})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var got struct {
		N, MS int
		OK    bool
	}
	if err := json.Unmarshal(res.Value, &got); err != nil || !got.OK {
		t.Errorf("the match of %d a's answered %s; it matches", got.N, res.Value)
	}
}

// Each run in a reused worker has a fresh runtime, though the worker
// builds the next one ahead, right after answering a run: what one run
// changes (its globals, the builtins, their prototypes) the next never
// sees, and the runs take turns on one worker process.
func TestRunsInAReusedWorkerAreFresh(t *testing.T) {
	p := newPool(t, Config{Warm: 1, Max: 1})
	const taint = `globalThis.left = 1; Array.prototype.push = () => "tainted"; Object.prototype.polluted = true;
		JSON.stringify = () => "tainted"; Math.max = () => 0; delete String.prototype.repeat; return 1`
	const look = `const a = []; a.push(1);
		return [typeof left, a.length, ({}).polluted === undefined, JSON.stringify({a: 1}), Math.max(1, 2), typeof "".repeat]`
	for i := range 3 {
		if res := run(t, p, taint, js.Limits{}); res.Err != nil {
			t.Fatal(res.Err)
		}
		res := run(t, p, look, js.Limits{})
		if want := `["undefined",1,true,"{\"a\":1}",2,"function"]`; res.Err != nil || string(res.Value) != want {
			t.Errorf("round %d: the run after one that changed the builtins saw %s %v, want %s", i, res.Value, res.Err, want)
		}
	}
	if s := p.Stats(); s.Started != 1 || s.Replaced != 0 {
		t.Errorf("want every run on one worker: %+v", s)
	}
}
