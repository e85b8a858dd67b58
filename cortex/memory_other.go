//go:build !linux

package cortex

// The RSS governor runs on Linux only (memory_linux.go).
func (s *Store) startGovernor() {}
func (s *Store) stopGovernor()  {}
