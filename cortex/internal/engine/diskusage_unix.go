//go:build unix

package engine

import (
	"os"
	"syscall"
)

// allocated returns the bytes allocated to a file (its blocks), which for a
// sparse file is less than its length.
func allocated(info os.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return info.Size()
}

// statfsFree returns the bytes available to unprivileged users in the file
// system of dir.
func statfsFree(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}
