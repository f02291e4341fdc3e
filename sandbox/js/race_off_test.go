//go:build !race

package js

// raceSlowdown: see race_on_test.go.
const raceSlowdown = 1
