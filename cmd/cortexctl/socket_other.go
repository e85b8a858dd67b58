//go:build !unix

package main

import (
	"fmt"
	"net"
	"os"

	"github.com/cortexgraph/cortex/api"
)

// maxPrivateDir: no private directory is made here (listenPrivate).
var maxPrivateDir = maxSocketPath

// listenPrivate listens on the Unix socket path, which does not exist,
// bound at path and then chmodded 0600: the private directory of
// socket_unix.go keeps the umask's mode from showing, and there is no
// umask here.
func listenPrivate(path string) (net.Listener, error) {
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("%w: serve: %v", api.ErrUnavailable, err)
	}
	// Not unlinked by Close: serve removes it once every request is done.
	l.SetUnlinkOnClose(false)
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("serve: %w", err)
	}
	return l, nil
}
