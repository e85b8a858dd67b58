//go:build unix

package proc

import (
	"errors"
	"syscall"
)

// Alive reports whether process pid exists on this machine (signal 0:
// EPERM means it exists under another user). A pid of 0 or less is not a
// process.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
