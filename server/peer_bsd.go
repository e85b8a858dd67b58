//go:build darwin || freebsd

package server

import (
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// otherUser reports whether c, a connection accepted on a Unix socket, is
// of a process of another user than this one's (and root), by the
// socket's peer credentials (LOCAL_PEERCRED: the effective user of the
// process that connected, as getpeereid gives it). A connection whose
// credentials cannot be read (one a host's listener wraps) is not: the
// socket's mode is trusted then, as elsewhere.
func otherUser(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var cred *unix.Xucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil || cerr != nil {
		return false
	}
	return int(cred.Uid) != os.Getuid() && cred.Uid != 0
}
