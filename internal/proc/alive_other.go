//go:build !unix

package proc

import "os"

// Alive reports whether process pid exists on this machine. A pid of 0 or
// less is not a process.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
