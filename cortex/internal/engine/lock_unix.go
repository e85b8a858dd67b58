//go:build unix

package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/cortexgraph/cortex/internal/pathtext"
	"github.com/cortexgraph/cortex/internal/proc"
)

// dirLock is an advisory lock (flock) on a file in the store directory. It is
// released by the kernel when the process dies, so a killed writer never leaves
// the store locked.
type dirLock struct{ f *os.File }

// lockDir locks dir: exclusively for a read-write Open, shared for a
// read-only one. A shared lock writes nothing: it opens the file
// read-only, so that a store nobody may write can be read, and without a
// file (a store copied without it) it takes none and creates none
// (Badger's directory lock, shared too, still refuses a writer).
func lockDir(dir string, shared bool) (*dirLock, error) {
	flag := os.O_RDWR | os.O_CREATE
	if shared {
		flag = os.O_RDONLY
	}
	f, err := os.OpenFile(filepath.Join(dir, "cortex.lock"), flag, 0o644)
	if shared && errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &LockedError{Dir: dir, PID: lockHolder(f, shared), Err: err}
		}
		return nil, fmt.Errorf("lock %s: %w", pathtext.Quote(dir), err)
	}
	if !shared {
		_ = f.Truncate(0)
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dirLock{f: f}, nil
}

// lockHolder returns the pid of the process that holds the lock file f
// exclusively (a read-write Open: it wrote its pid into the file), or 0
// if none does (readers hold it, shared: they write nothing) or the file
// names no live process (the holder has not written its pid yet). f is
// the lock file a lock of the kind shared could not be taken on.
func lockHolder(f *os.File, shared bool) int {
	if !shared {
		// Refused an exclusive lock: by readers only if a shared one
		// can be taken (given back at once).
		if syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB) == nil {
			_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			return 0
		}
	}
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil || !proc.Alive(pid) {
		return 0
	}
	return pid
}

func (l *dirLock) release() error {
	if l == nil {
		return nil
	}
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	return l.f.Close()
}
