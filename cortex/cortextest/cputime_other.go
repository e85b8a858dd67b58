//go:build !unix

package cortextest

import "time"

// CPUTime returns 0: the process's CPU time is read on Unix systems only
// (cputime_unix.go), so benchmarks report a CPU time of 0 elsewhere.
func CPUTime() time.Duration { return 0 }
