//go:build unix

package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"

	"github.com/cortexgraph/cortex/api"
)

// listenPrivate listens on the Unix socket path, which does not exist, so
// that no other user can connect to it at any time: the socket is bound
// and made 0600 in a private directory beside path (bindPrivate), then
// linked into place (publishSocket). Bound at path and then chmodded, it
// would have the umask's mode in between; the umask is the process's, not
// to be changed by one of its goroutines. Another socket or file that
// appears at path meanwhile is kept: an error matching api.ErrUnavailable.
func listenPrivate(path string) (net.Listener, error) {
	l, tmp, err := bindPrivate(path)
	if err != nil {
		return nil, fmt.Errorf("%w: serve: %v", api.ErrUnavailable, err)
	}
	if err := publishSocket(tmp, path); err != nil {
		l.Close()
		removePrivate(tmp)
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("%w: serve: socket %s appeared while this one was bound: in use by another process", api.ErrUnavailable, path)
		}
		return nil, fmt.Errorf("serve: %w", err)
	}
	return publishedListener{l, &net.UnixAddr{Name: path, Net: "unix"}}, nil
}

// publishedListener is a Unix socket listener bound at a private path and
// published at addr (listenPrivate): its Addr is addr.
type publishedListener struct {
	*net.UnixListener
	addr *net.UnixAddr
}

func (l publishedListener) Addr() net.Addr { return l.addr }

// privateSocketName is the name of a socket in its private directory
// (bindPrivate): one byte, so that DIR/.NAME/s fits in a socket address
// wherever DIR/cortex.sock does.
const privateSocketName = "s"

// maxPrivateDir is the longest directory that a socket can be bound in a
// private directory of (DIR/.N/s: a one-byte name).
var maxPrivateDir = maxSocketPath - len("/.N/") - len(privateSocketName)

// bindPrivate binds a Unix socket for path, which it does not touch, in a
// new directory beside it that only this user may enter (mode 0700,
// whatever the umask), and sets the socket's mode to 0600 there. It returns
// the listener, which does not unlink the socket when closed, and the
// socket's path, DIR/.NAME/s. NAME is random, as long as the socket
// address allows (at most 8 bytes); a directory longer than maxPrivateDir
// is an error.
func bindPrivate(path string) (*net.UnixListener, string, error) {
	dir := filepath.Dir(path)
	if len(dir) > maxPrivateDir {
		return nil, "", fmt.Errorf("socket %s: directory longer than %d bytes, too long for a private directory in it", path, maxPrivateDir)
	}
	n := min(8, maxPrivateDir+1-len(dir)) // DIR/.NAME/s fits in maxSocketPath
	var private string
	for tries := 0; ; tries++ {
		private = filepath.Join(dir, "."+randomName(n))
		err := os.Mkdir(private, 0o700)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || tries == 100 {
			return nil, "", fmt.Errorf("socket %s: private directory: %w", path, err)
		}
	}
	tmp := filepath.Join(private, privateSocketName)
	l, err := bindChmod(private, tmp)
	if err != nil {
		os.Remove(private)
		return nil, "", fmt.Errorf("socket %s: %w", path, err)
	}
	return l, tmp, nil
}

// bindChmod makes private, a directory just made, 0700 (Mkdir's mode
// passed through the umask), binds the socket tmp in it and sets its mode
// to 0600.
func bindChmod(private, tmp string) (*net.UnixListener, error) {
	if err := os.Chmod(private, 0o700); err != nil {
		return nil, err
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	if err != nil {
		return nil, err
	}
	// Not unlinked by Close: the socket moves to its path, which serve
	// removes once every request is done.
	l.SetUnlinkOnClose(false)
	if err := os.Chmod(tmp, 0o600); err != nil {
		l.Close()
		os.Remove(tmp)
		return nil, err
	}
	return l, nil
}

// publishSocket makes the socket tmp, bound by bindPrivate, reachable at
// path: a hard link to the socket file (a client connects to the socket
// whose file a path names), which, unlike a rename, fails with an error
// matching os.ErrExist if path exists; then tmp and its private directory
// are removed. On an error tmp is left for the caller (removePrivate).
func publishSocket(tmp, path string) error {
	if err := os.Link(tmp, path); err != nil {
		return err
	}
	removePrivate(tmp)
	return nil
}

// removePrivate removes tmp, a socket bindPrivate bound, and its private
// directory; best effort: a leftover private directory holds nothing
// another user can reach.
func removePrivate(tmp string) {
	os.Remove(tmp)
	os.Remove(filepath.Dir(tmp))
}

// randomName returns n random lower-case letters and digits.
func randomName(n int) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[rand.IntN(len(chars))]
	}
	return string(b)
}
