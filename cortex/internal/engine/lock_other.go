//go:build !unix

package engine

// dirLock is a no-op where flock is unavailable; Badger's own directory lock
// still refuses a second process (reported as a LockedError by Open).
type dirLock struct{}

func lockDir(dir string, shared bool) (*dirLock, error) { return &dirLock{}, nil }

func (l *dirLock) release() error { return nil }
