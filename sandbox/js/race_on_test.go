//go:build race

package js

// raceSlowdown scales the tests' bounds on how long the sandbox takes to
// stop something: the race detector runs goja several times slower, and a
// builtin call that takes 60 ms alone takes seconds beside other packages'
// race tests on two cores.
const raceSlowdown = 4
