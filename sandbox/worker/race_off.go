//go:build !race

package worker

// RaceDetector reports a build with the race detector, whose shadow memory
// counts against a data-segment limit: such workers run without
// RLIMIT_DATA (their scripts' own memory budget still holds).
const RaceDetector = false
