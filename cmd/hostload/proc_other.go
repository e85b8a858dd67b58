//go:build !unix

package main

import "io/fs"

// cpuSeconds returns -1: the CPU time is not measured on this system.
func cpuSeconds() float64 { return -1 }

// allocated returns the size of a file.
func allocated(info fs.FileInfo) int64 { return info.Size() }
