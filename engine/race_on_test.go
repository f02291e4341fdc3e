//go:build race

package engine_test

// raceSlowdown scales the time budgets of tests that run CPU-heavy scripts:
// the race detector makes JavaScript several times slower.
const raceSlowdown = 4
