//go:build !linux && !darwin && !freebsd

package engine

import "errors"

// statfsFree is not implemented here (the fields of statfs differ from
// system to system): the free-space guard is off.
func statfsFree(string) (int64, error) { return 0, errors.ErrUnsupported }
