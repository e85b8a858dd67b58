//go:build unix

package main

import (
	"os"
	"syscall"
)

// fileOwner returns the user id that owns the file fi describes.
func fileOwner(fi os.FileInfo) (uid int, known bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
