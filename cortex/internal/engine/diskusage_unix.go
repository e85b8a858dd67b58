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
