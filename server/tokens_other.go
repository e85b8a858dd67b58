//go:build !unix

package server

import "os"

// lockFile locks nothing outside Unix: writes of the token file from
// several processes at once may race (the last rename wins).
func lockFile(string) (func(), error) { return func() {}, nil }

// checkTokenFileMode checks nothing outside Unix, whose file modes say
// nothing of who may write a file.
func checkTokenFileMode(string, os.FileInfo) error { return nil }
