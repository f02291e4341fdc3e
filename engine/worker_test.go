package engine_test

import (
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/worker"
)

// newWorkerPool is a pool of workers (this test binary, see TestMain) that
// the test closes when it ends.
func newWorkerPool(t testing.TB, cfg worker.Config) *worker.Pool {
	t.Helper()
	p, err := worker.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// inWorkers runs f with every engine that build makes running its scripts
// in the worker processes of p.
func inWorkers(t *testing.T, p engine.ScriptRunner, f func(t *testing.T)) {
	testRunner = p
	defer func() { testRunner = nil }()
	f(t)
}

// TestExecuteInWorkers runs the tests of code mode again with the scripts
// in worker processes: the engine's contract — results, errors and their
// codes and positions, events, approvals, limits, the trace — does not
// depend on where a script runs.
func TestExecuteInWorkers(t *testing.T) {
	p := newWorkerPool(t, worker.Config{Warm: 2})
	for _, tc := range []struct {
		name string
		f    func(*testing.T)
	}{
		{"ChainsResults", TestExecuteChainsResults},
		{"UnknownToolIsCatchableWithSuggestions", TestExecuteUnknownToolIsCatchableWithSuggestions},
		{"UncaughtToolErrorKeepsItsCode", TestExecuteUncaughtToolErrorKeepsItsCode},
		{"InvalidArgsDetailsReachTheScript", TestExecuteInvalidArgsDetailsReachTheScript},
		{"EventsCarryParentID", TestExecuteEventsCarryParentID},
		{"PromiseAllRunsConcurrently", TestExecutePromiseAllRunsConcurrently},
		{"MaxConcurrency", TestExecuteMaxConcurrency},
		{"MaxToolCallsIsNotCatchable", TestExecuteMaxToolCallsIsNotCatchable},
		{"TimeoutEndsBusyLoop", TestExecuteTimeoutEndsBusyLoop},
		{"ToolTimeoutEndsTheRun", TestExecuteToolTimeoutEndsTheRun},
		{"TimeoutWhileALoneToolIsStuck", TestExecuteTimeoutWhileALoneToolIsStuck},
		{"RequestLimitsOnlyTighten", TestExecuteRequestLimitsOnlyTighten},
		{"OutputLimit", TestExecuteOutputLimit},
		{"SyntaxErrorLocated", TestExecuteSyntaxErrorLocated},
		{"RuntimeErrorLocated", TestExecuteRuntimeErrorLocated},
		{"Approvals", TestExecuteApprovals},
		{"ApprovalWaitIsNotBilled", TestExecuteApprovalWaitIsNotBilled},
		{"InputAndTypeScript", TestExecuteInputAndTypeScript},
		{"EndlessLogsEndWithOutputLimit", TestExecuteEndlessLogsEndWithOutputLimit},
		{"HandleToolCallsRunsExecuteCode", TestHandleToolCallsRunsExecuteCode},
		{"ApprovalSetsOfAMixedStep", TestApprovalSetsOfAMixedStep},
		{"ApprovalPreCheckIsOneRule", TestApprovalPreCheckIsOneRule},
	} {
		t.Run(tc.name, func(t *testing.T) { inWorkers(t, p, tc.f) })
	}
	// Two tests call a tool stuck in a handler that ignores its context as
	// the script's lone call: the host runs it inside the turn's Start, so
	// that worker's reader is written off with it and the worker replaced.
	// No other test may cost a worker.
	if s := p.Stats(); s.Replaced > 2 {
		t.Errorf("ordinary scripts replaced workers: %+v", s)
	}
}
