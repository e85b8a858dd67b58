//go:build !linux

package proc

// StartID returns an identity of process pid's start that differs between
// two processes that had the same pid. Only Linux tells it (see
// start_linux.go): elsewhere it is "", unknown.
func StartID(pid int) string { return "" }
