//go:build !unix

package engine

import (
	"errors"
	"os"
)

// allocated returns the length of a file (allocated blocks are not known
// here).
func allocated(info os.FileInfo) int64 { return info.Size() }

// statfsFree is not implemented here: the free-space guard is off.
func statfsFree(string) (int64, error) { return 0, errors.ErrUnsupported }
