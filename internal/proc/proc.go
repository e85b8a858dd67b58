// Package proc answers questions about this machine's processes that
// Cortex asks to tell a stale record from a live one: a server's discovery
// file, a workflow driver's hold of a run.
package proc
