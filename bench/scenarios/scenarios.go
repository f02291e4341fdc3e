// Package scenarios holds the whiteboard tasks of codemode's benchmark
// (bench): each a task in words, a starting board, a checker, and a scripted
// model for every strategy.
package scenarios

import "github.com/codemode-dev/codemode/bench"

// All returns every scenario, in the order reports show them.
func All() []bench.Scenario {
	return []bench.Scenario{
		retro(),
		flowchart(),
		groupByColor(),
		frameIfMissing(),
		frameIfMissingNew(),
		bugRecolor(),
		grid(),
		typoRecovery(),
		summaryCounts(),
		moveFrame(),
		graphLayout(),
	}
}
