//go:build !unix

package cortex_test

import "time"

// cpuTime returns 0: the process's CPU time is read on Unix systems only
// (cputime_unix_test.go), so the benchmarks' cpu-ns/quad is 0 elsewhere.
func cpuTime() time.Duration { return 0 }
