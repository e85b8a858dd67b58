package server

import (
	"net"
	"os"
	"syscall"
)

// otherUser reports whether c, a connection accepted on a Unix socket, is
// of a process of another user than this one's (and root), by the
// socket's peer credentials (SO_PEERCRED). A connection whose credentials
// cannot be read (one a host's listener wraps) is not: the socket's mode
// is trusted then, as elsewhere.
func otherUser(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return false
	}
	return int(cred.Uid) != os.Getuid() && cred.Uid != 0
}
