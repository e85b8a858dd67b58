//go:build unix

package server

import (
	"errors"
	"syscall"
)

// processAlive reports whether process pid exists (signal 0: EPERM means
// it exists under another user).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
