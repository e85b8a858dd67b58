//go:build unix

package main

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cortexgraph/cortex/api"
)

// listenPrivate listens on the Unix socket path, which does not exist, so
// that no other user can connect to it at any time: the socket is bound
// and made 0600 in a private directory beside path (bindPrivate), then put
// in place (publish). Bound at path and then chmodded, it would have the
// umask's mode in between; the umask is the process's, not to be changed
// by one of its goroutines. Another socket or file that appears at path
// meanwhile is kept: an error matching api.ErrUnavailable. Private
// directories that servers killed while binding left in path's directory
// are removed first (sweepPrivate).
//
// Where no private directory can be used, the socket is bound at path and
// chmodded 0600 right after (listenInPlace), and one line on stderr says
// so: path's directory is longer than maxPrivateDir, or its filesystem
// refuses hard links and a rename that does not replace (Linux's
// renameat2 RENAME_NOREPLACE; no other system is asked).
func listenPrivate(path string, stderr io.Writer) (net.Listener, error) {
	return systemPlacer.listen(path, stderr)
}

// placer puts a socket bound in a private directory at its path: by hard
// link, else by a rename that does not replace. Tests make them fail as
// a filesystem without hard links does.
type placer struct {
	link   func(oldname, newname string) error
	rename func(oldname, newname string) error
}

// systemPlacer is the placer of the system: os.Link, renameNoReplace.
var systemPlacer = placer{link: os.Link, rename: renameNoReplace}

// The lines listenPrivate writes on stderr when it binds the socket in
// place.
const (
	noteNoLinks = "cortexctl: the socket's directory does not support hard links: the socket was created in place, then made 0600"
	noteTooLong = "cortexctl: the socket's directory is too long for a private directory in it: the socket was created in place, then made 0600"
)

// listen is listenPrivate with p.
func (p placer) listen(path string, stderr io.Writer) (net.Listener, error) {
	dir := filepath.Dir(path)
	if len(dir) > maxPrivateDir {
		return listenInPlaceNote(path, stderr, noteTooLong)
	}
	sweepPrivate(dir)
	ps, err := bindPrivate(path)
	if err != nil {
		return nil, fmt.Errorf("%w: serve: %v", api.ErrUnavailable, err)
	}
	err = p.publish(ps, path)
	if err == nil {
		return publishedListener{ps.l, &net.UnixAddr{Name: path, Net: "unix"}}, nil
	}
	ps.l.Close()
	ps.remove()
	switch {
	case errors.Is(err, os.ErrExist):
		return nil, fmt.Errorf("%w: serve: socket %s appeared while this one was bound: in use by another process", api.ErrUnavailable, pathText(path))
	case notSupported(err):
		return listenInPlaceNote(path, stderr, noteNoLinks)
	}
	return nil, fmt.Errorf("serve: %w", err)
}

// listenInPlaceNote is listenInPlace, and writes note on stderr once the
// socket is there.
func listenInPlaceNote(path string, stderr io.Writer, note string) (net.Listener, error) {
	l, err := listenInPlace(path)
	if err == nil {
		fmt.Fprintln(stderr, note)
	}
	return l, err
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

// privateMark begins the name of a private directory where the socket
// address leaves room for it: ".cortex-" and 8 to 12 random letters and
// digits. Where it does not, the name is "." and as many random letters
// and digits as fit (1 to 14).
const privateMark = "cortex-"

// privateName returns a new name for a private directory (without its
// "."), at most room bytes long, room at least 1.
func privateName(room int) string {
	if room >= len(privateMark)+8 {
		return privateMark + randomName(min(room-len(privateMark), 12))
	}
	return randomName(room)
}

// privateKind tells whether name (of an entry of a directory) is one that
// privateName gives, with its "."; marked: it has privateMark.
func privateKind(name string) (marked, ok bool) {
	rest, ok := strings.CutPrefix(name, ".")
	if !ok {
		return false, false
	}
	if r, ok := strings.CutPrefix(rest, privateMark); ok && len(r) >= 8 && len(r) <= 12 && isRandomName(r) {
		return true, true
	}
	return false, len(rest) >= 1 && len(rest) < len(privateMark)+8 && isRandomName(rest)
}

// privateSocket is a socket bound in a private directory (bindPrivate).
type privateSocket struct {
	l      *net.UnixListener // does not unlink the socket when closed
	socket string            // DIR/.NAME/s
	lock   *os.File          // the private directory, flocked; nil where flock fails
}

// remove removes the socket file and its private directory, then
// releases the directory's lock; best effort: a leftover private
// directory holds nothing another user can reach, and the next server to
// bind in DIR removes it (sweepPrivate).
func (ps *privateSocket) remove() {
	os.Remove(ps.socket)
	os.Remove(filepath.Dir(ps.socket))
	if ps.lock != nil {
		ps.lock.Close() // releases the flock
	}
}

// bindPrivate binds a Unix socket for path, which it does not touch, in a
// new directory beside it that only this user may enter (mode 0700,
// whatever the umask), and sets the socket's mode to 0600 there. The
// directory is locked (flock) until ps.remove, so that no other server's
// sweepPrivate removes it. The socket is DIR/.NAME/s, NAME random and as
// long as the socket address allows (privateName). A directory longer
// than maxPrivateDir is an error.
func bindPrivate(path string) (*privateSocket, error) {
	dir := filepath.Dir(path)
	room := maxPrivateDir + 1 - len(dir) // DIR/.NAME/s fits in maxSocketPath
	if room < 1 {
		return nil, fmt.Errorf("socket %s: directory longer than %d bytes, too long for a private directory in it", pathText(path), maxPrivateDir)
	}
	var err error
	for tries := 0; tries <= 100; tries++ {
		private := filepath.Join(dir, "."+privateName(room))
		if err = os.Mkdir(private, 0o700); errors.Is(err, os.ErrExist) {
			continue
		} else if err != nil {
			break
		}
		var lock *os.File
		if lock, err = lockPrivate(private); errors.Is(err, errSwept) {
			continue
		} else if err != nil {
			os.Remove(private)
			return nil, fmt.Errorf("socket %s: private directory: %w", pathText(path), quotePath(err))
		}
		ps := &privateSocket{socket: filepath.Join(private, privateSocketName), lock: lock}
		if ps.l, err = bindChmod(private, ps.socket); err != nil {
			ps.remove()
			return nil, fmt.Errorf("socket %s: %w", pathText(path), quotePath(err))
		}
		return ps, nil
	}
	return nil, fmt.Errorf("socket %s: private directory: %w", pathText(path), quotePath(err))
}

// errSwept: a private directory just made was removed before it was
// locked (lockPrivate).
var errSwept = errors.New("private directory removed by another server's sweep")

// lockPrivate opens private, a directory just made, and locks it
// (lockAt).
func lockPrivate(private string) (*os.File, error) {
	f, err := os.Open(private)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errSwept
	} else if err != nil {
		return nil, err
	}
	return lockAt(f, private)
}

// lockAt locks f, a directory opened as private (flock, exclusive;
// another server's sweepPrivate holds it only while it looks), then
// checks that it is still there: that sweep may have removed it, empty,
// between its Mkdir and the lock (an error matching errSwept). Where
// flock fails, the directory is not locked (nil, nil): no sweep can lock,
// and so remove, it either. f is closed unless it is returned.
func lockAt(f *os.File, private string) (*os.File, error) {
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX) != nil {
		f.Close()
		return nil, nil
	}
	locked, err := f.Stat()
	if err == nil {
		var now os.FileInfo
		if now, err = os.Lstat(private); err == nil && !os.SameFile(locked, now) {
			err = errSwept
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, os.ErrNotExist) {
			err = errSwept
		}
		return nil, err
	}
	return f, nil
}

// sweepPrivate removes, best effort, the private directories that
// servers killed while they bound their socket left in dir: a directory
// named as privateName names them, this user's, of mode 0700, that no
// live server holds (its flock is free) and that holds nothing but a
// socket named s on which nothing listens (a connection is refused) or,
// if its name has privateMark, nothing at all. Anything else is left
// alone.
func sweepPrivate(dir string) {
	es, _ := os.ReadDir(dir) // what could be read
	for _, e := range es {
		if marked, ok := privateKind(e.Name()); ok && e.IsDir() {
			sweepOne(filepath.Join(dir, e.Name()), marked)
		}
	}
}

// sweepOne removes private if it is a leftover (sweepPrivate).
func sweepOne(private string, marked bool) {
	f, err := os.OpenFile(private, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return
	}
	defer f.Close() // releases the flock
	fi, err := f.Stat()
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 || !ownFile(fi) {
		return
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return // a live server's, or no flock here
	}
	// Still at its name: the lock is the one of the directory there.
	if now, err := os.Lstat(private); err != nil || !os.SameFile(fi, now) {
		return
	}
	names, err := f.Readdirnames(-1)
	switch {
	case err != nil:
		return
	case len(names) == 0 && marked:
	case len(names) == 1 && names[0] == privateSocketName:
		sock := filepath.Join(private, privateSocketName)
		si, err := os.Lstat(sock)
		if err != nil || si.Mode()&os.ModeSocket == 0 || !ownFile(si) {
			return
		}
		c, err := net.DialTimeout("unix", sock, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if !errors.Is(err, syscall.ECONNREFUSED) || os.Remove(sock) != nil {
			return
		}
	default:
		return
	}
	os.Remove(private) // fails if anything appeared in it meanwhile
}

// ownFile tells whether fi's file is this user's.
func ownFile(fi os.FileInfo) bool {
	uid, known := fileOwner(fi)
	return known && uid == os.Getuid()
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

// publish makes the socket ps bound reachable at path, then removes ps
// (the socket's private name and directory): a hard link to the socket
// file (a client connects to the socket whose file a path names) or,
// where the filesystem refuses hard links (notSupported), a rename that
// does not replace (renameNoReplace). Either fails with an error matching
// os.ErrExist if path exists, where a plain rename would replace it; an
// error matching notSupported: neither can be done here. On an error ps
// is left for the caller.
func (p placer) publish(ps *privateSocket, path string) error {
	err := p.link(ps.socket, path)
	if notSupported(err) {
		err = p.rename(ps.socket, path)
	}
	if err != nil {
		return err
	}
	ps.remove()
	return nil
}

// notSupported tells whether err, of a link or a rename that does not
// replace, says that the filesystem (or system) cannot do it: EPERM (as
// some FUSE filesystems answer a link), ENOTSUP, EOPNOTSUPP, ENOSYS,
// EXDEV (another filesystem), EINVAL (a flag the filesystem does not
// know), errors.ErrUnsupported.
func notSupported(err error) bool {
	for _, target := range []error{errors.ErrUnsupported, syscall.EPERM, syscall.ENOTSUP, syscall.EOPNOTSUPP, syscall.ENOSYS, syscall.EXDEV, syscall.EINVAL} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// randomName returns n random lower-case letters and digits.
func randomName(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = randomChars[rand.IntN(len(randomChars))]
	}
	return string(b)
}

// randomChars are the bytes of randomName.
const randomChars = "abcdefghijklmnopqrstuvwxyz0123456789"

// isRandomName tells whether s holds only bytes randomName gives.
func isRandomName(s string) bool {
	return strings.Trim(s, randomChars) == ""
}
