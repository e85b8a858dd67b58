//go:build !unix

package main

import "os/exec"

// ownProcessGroup leaves cmd as it is: cancellation kills sh only, and
// WaitDelay bounds the wait for what it started.
func ownProcessGroup(cmd *exec.Cmd) {}
