package server

import "syscall"

// peerUID returns the user of the process at the other end of Unix
// socket fd (SO_PEERCRED).
func peerUID(fd int) (uint32, error) {
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil {
		return 0, err
	}
	return cred.Uid, nil
}
