//go:build !linux

package engine

// The RSS governor runs on Linux only (memory_linux.go).
func (s *Store) startGovernor() {}
func (s *Store) stopGovernor()  {}
