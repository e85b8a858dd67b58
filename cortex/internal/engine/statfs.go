//go:build linux || darwin || freebsd

package engine

import "syscall"

// statfsFree returns the bytes available to unprivileged users in the file
// system of dir.
func statfsFree(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}
