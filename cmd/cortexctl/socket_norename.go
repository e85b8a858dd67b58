//go:build unix && !linux

package main

import (
	"errors"
	"os"
)

// renameNoReplace would rename oldname to newname unless newname exists;
// only Linux's is used (renameat2): here it is an error matching
// errors.ErrUnsupported (notSupported).
func renameNoReplace(oldname, newname string) error {
	return &os.LinkError{Op: "rename without replacing", Old: oldname, New: newname, Err: errors.ErrUnsupported}
}
