//go:build unix

package main

import (
	"os"
	"syscall"
)

// lockExportTemp locks the temporary file name, just created as f, for as
// long as the returned file is open (also a file descriptor of a process
// killed with SIGKILL is closed, and its lock released): a lock that
// sweepExportTemps cannot take is a running export's. It reports false if
// name no longer is f (a sweep removed it before it was locked: create
// another). Where flock fails, the file is not locked (nil, true): no
// sweep can lock, and so remove, it either.
func lockExportTemp(f *os.File, name string) (*os.File, bool) {
	l, err := os.Open(name)
	if err != nil {
		return nil, false
	}
	if syscall.Flock(int(l.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		l.Close()
		return nil, true
	}
	fi, err := f.Stat()
	if err != nil {
		l.Close()
		return nil, false
	}
	if now, err := os.Lstat(name); err != nil || !os.SameFile(fi, now) {
		l.Close()
		return nil, false
	}
	return l, true
}

// removeStaleExportTemp removes the file name if it is a temporary file of
// export -o left by an export that no longer runs: a regular file of this
// user that no process holds the lock of (see lockExportTemp).
func removeStaleExportTemp(name string) {
	fi, err := os.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || !ownFile(fi) {
		return
	}
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer f.Close() // releases the lock
	if got, err := f.Stat(); err != nil || !os.SameFile(fi, got) {
		return
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return // a running export's, or no flock here
	}
	// Still at its name: the lock is the one of the file there.
	if now, err := os.Lstat(name); err == nil && os.SameFile(fi, now) {
		os.Remove(name)
	}
}
