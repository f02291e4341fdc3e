package js

import (
	"testing"
	"time"
)

// A run given a Prepared runtime runs in it and takes it; a second run
// given the same one, or a run it was not made for (another profile, or
// hardened guards sized for another budget), builds its own — and every
// one of them answers as a run without one does.
func TestPrepared(t *testing.T) {
	// The hardened profile's join is the prelude's: its frames show in
	// the stack of an error thrown inside it.
	const code = `let prelude;
		try { [{toString() { throw new Error("x") }}].join() } catch (e) { prelude = e.stack.includes("prelude.js") }
		return [prelude, typeof Function.prototype.bind, typeof BigInt, await tools.echo({n: 1})]`
	want := map[Profile]string{Hardened: `[true,"function","undefined",{"n":1}]`, Lean: `[false,"function","undefined",{"n":1}]`}
	check := func(name string, opt Options) {
		t.Helper()
		res, _ := runCode(t, code, opt)
		if res.Err != nil || string(res.Value) != want[opt.Profile] {
			t.Errorf("%s: %s %v, want %s", name, res.Value, res.Err, want[opt.Profile])
		}
	}

	lean := Prepare(Lean)
	if lean == nil {
		t.Fatal("Prepare(Lean) = nil")
	}
	check("lean, prepared", Options{Profile: Lean, Prepared: lean})
	if !lean.taken.Load() || lean.r != nil {
		t.Error("the run did not take its prepared runtime")
	}
	check("lean, prepared runtime already taken", Options{Profile: Lean, Prepared: lean})

	lean = Prepare(Lean)
	check("hardened, given a lean runtime", Options{Profile: Hardened, Prepared: lean})
	if lean.taken.Load() {
		t.Error("a hardened run took a lean runtime")
	}

	hard := Prepare(Hardened)
	check("hardened, another memory budget", Options{Profile: Hardened, Prepared: hard, Limits: Limits{MaxMemoryBytes: 64 << 20}})
	if hard.taken.Load() {
		t.Error("a hardened runtime sized for the default memory budget was taken by a run of another")
	}
	check("hardened, prepared", Options{Profile: Hardened, Prepared: hard})
	if !hard.taken.Load() {
		t.Error("the hardened run did not take its prepared runtime")
	}
}

// A prepared runtime keeps every budget of the run that takes it: the
// run's call-stack cap and deadline, not the defaults it was built with.
func TestPreparedKeepsTheRunsBudgets(t *testing.T) {
	for name, c := range map[string]struct {
		code string
		lim  Limits
		want Code
	}{
		"timeout":    {`for (;;) {}`, Limits{Timeout: 100 * time.Millisecond}, CodeTimeout},
		"call stack": {`const f = (n) => n === 0 ? 0 : f(n - 1) + 1; return f(200)`, Limits{MaxCallDepth: 100}, CodeLimitExceeded},
		"tool calls": {`for (;;) await tools.echo({})`, Limits{MaxToolCalls: 5}, CodeLimitExceeded},
	} {
		t.Run(name, func(t *testing.T) {
			p := Prepare(Lean)
			res, _ := runCode(t, c.code, Options{Profile: Lean, Limits: c.lim, Prepared: p})
			if res.Err == nil || res.Err.Code != c.want {
				t.Errorf("err = %v, want %s", res.Err, c.want)
			}
			if !p.taken.Load() {
				t.Error("the run did not take its prepared runtime")
			}
		})
	}
}
