//go:build unix

package server

import (
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on path (created 0600 if needed),
// waiting for another process that holds it, and returns its release.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) // closing releases it anyway
		f.Close()
	}, nil
}

// checkTokenFileMode returns an error matching ErrUnsafeTokenFile if fi,
// a token file's, lets its group or other users write it.
func checkTokenFileMode(fi os.FileInfo) error {
	if m := fi.Mode().Perm(); m&0o022 != 0 {
		return fmt.Errorf("%w: mode %04o", ErrUnsafeTokenFile, m)
	}
	return nil
}
