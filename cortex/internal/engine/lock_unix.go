//go:build unix

package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// dirLock is an advisory lock (flock) on a file in the store directory. It is
// released by the kernel when the process dies, so a killed writer never leaves
// the store locked.
type dirLock struct{ f *os.File }

func lockDir(dir string, shared bool) (*dirLock, error) {
	f, err := os.OpenFile(filepath.Join(dir, "cortex.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &LockedError{Dir: dir, Err: err}
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if !shared {
		_ = f.Truncate(0)
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dirLock{f: f}, nil
}

func (l *dirLock) release() error {
	if l == nil {
		return nil
	}
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	return l.f.Close()
}
