package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames oldname to newname unless newname exists (an
// error matching os.ErrExist then): renameat2 with RENAME_NOREPLACE. A
// filesystem or kernel without it answers EINVAL or ENOSYS (notSupported).
func renameNoReplace(oldname, newname string) error {
	if err := unix.Renameat2(unix.AT_FDCWD, oldname, unix.AT_FDCWD, newname, unix.RENAME_NOREPLACE); err != nil {
		return &os.LinkError{Op: "renameat2", Old: oldname, New: newname, Err: err}
	}
	return nil
}
