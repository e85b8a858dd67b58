//go:build !linux && !darwin && !freebsd

package server

import "net"

// otherUser tells nothing on systems other than Linux, macOS and FreeBSD
// (no peer credentials are read): there a connection on a Unix socket is
// trusted as the owner's, and the socket's mode (0600) alone keeps other
// users out; a socket a host made with a looser mode lets them in without
// a token.
func otherUser(net.Conn) bool { return false }
