//go:build !linux

package worker

import "os"

// peakRSS is unknown here (the units of Maxrss differ between systems).
func peakRSS(*os.ProcessState) int64 { return 0 }
