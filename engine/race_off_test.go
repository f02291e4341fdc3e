//go:build !race

package engine_test

const raceSlowdown = 1
