//go:build unix

package client_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user + system) the process has used, all
// goroutines (Badger's included): steadier than wall time on a shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
