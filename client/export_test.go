package client

import "time"

// SetStreamBusyWait sets how long a client refused a stream busy sends
// HTTP requests instead, until the returned function restores it.
func SetStreamBusyWait(d time.Duration) (restore func()) {
	old := streamBusyWait
	streamBusyWait = d
	return func() { streamBusyWait = old }
}
