//go:build !unix

package main

import "os"

// lockExportTemp does not lock f where there is no flock: its temporary
// files are never taken for stale ones.
func lockExportTemp(f *os.File, name string) (*os.File, bool) { return nil, true }

// removeStaleExportTemp removes nothing where a running export's temporary
// file cannot be told from a stale one.
func removeStaleExportTemp(name string) {}
