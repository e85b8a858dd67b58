//go:build linux || darwin || freebsd

package server

import (
	"net"
	"os"
	"syscall"
)

// otherUser reports whether c, a connection accepted on a Unix socket, is
// of a process of another user than this one's (and root), by the
// socket's peer credentials (peerUID: SO_PEERCRED on Linux, LOCAL_PEERCRED
// on macOS and FreeBSD, the effective user of the process that connected).
// A connection whose credentials cannot be read (one a host's listener
// wraps) is not: the socket's mode is trusted then, as elsewhere.
func otherUser(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var uid uint32
	var cerr error
	if err := raw.Control(func(fd uintptr) { uid, cerr = peerUID(int(fd)) }); err != nil || cerr != nil {
		return false
	}
	return int(uid) != os.Getuid() && uid != 0
}
