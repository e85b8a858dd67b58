//go:build !unix

package client_test

import "time"

// cpuTime is not measured on this platform: cpu-ms/op reports 0.
func cpuTime() time.Duration { return 0 }
