//go:build !unix

package main

import (
	"io"
	"net"
)

// listenPrivate listens on the Unix socket path, which does not exist,
// bound at path and then chmodded 0600 (listenInPlace): the private
// directory of socket_unix.go keeps the umask's mode from showing, and
// there is no umask here. It writes nothing on stderr.
func listenPrivate(path string, _ io.Writer) (net.Listener, error) {
	return listenInPlace(path)
}
