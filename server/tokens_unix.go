//go:build unix

package server

import (
	"fmt"
	"os"
	"syscall"

	"github.com/cortexgraph/cortex/internal/pathtext"
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
// the token file at path's, lets its group or other users write it, or
// is owned by another user than this process's (and root), who may chmod
// it and write it whatever its mode, as sshd refuses such an
// authorized_keys. The error says how to fix it.
func checkTokenFileMode(path string, fi os.FileInfo) error {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if uid := int(st.Uid); uid != os.Getuid() && uid != 0 {
			return fmt.Errorf("%w: owned by user %d, not by this process's user %d (chown %d %s)", ErrUnsafeTokenFile, uid, os.Getuid(), os.Getuid(), pathtext.Quote(path))
		}
	}
	if m := fi.Mode().Perm(); m&0o022 != 0 {
		return fmt.Errorf("%w: mode %04o (chmod 600 %s)", ErrUnsafeTokenFile, m, pathtext.Quote(path))
	}
	return nil
}
