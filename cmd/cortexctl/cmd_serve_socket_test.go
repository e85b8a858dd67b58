//go:build unix

package main

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// withUmask runs the test under umask mask (process-wide: these tests are
// not parallel), restored when it ends.
func withUmask(t *testing.T, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

// checkMode fails the test unless path is a socket (or, dir, a directory)
// of mode perm.
func checkMode(t *testing.T, path string, dir bool, perm os.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	kind := fi.Mode()&os.ModeSocket != 0
	if dir {
		kind = fi.IsDir()
	}
	if !kind || fi.Mode().Perm() != perm {
		t.Fatalf("%s: mode %v, want a %s of mode %v", path, fi.Mode(), map[bool]string{true: "directory", false: "socket"}[dir], perm)
	}
}

// roundTrip connects to path and checks that l accepts the connection.
func roundTrip(t *testing.T, l net.Listener, path string) {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	defer c.Close()
	s, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	if _, err := s.Read(b); err != nil || b[0] != 'x' {
		t.Fatalf("read %q %v", b, err)
	}
}

// TestBindPrivate_NotAtPathUntilPublished: the socket is bound and made
// 0600 in a private directory (0700) beside its path while the path does
// not exist, whatever the umask (here none, which left the socket 0777
// between a bind at its path and the chmod); publishing links it into
// place, 0600 from the start, and removes the private directory. A client
// connects by the path to the listener.
func TestBindPrivate_NotAtPathUntilPublished(t *testing.T) {
	withUmask(t, 0)
	dir := t.TempDir()
	path := filepath.Join(dir, "cortex.sock")
	ps, err := bindPrivate(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ps.l.Close()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s exists before it is published: %v", path, err)
	}
	private := filepath.Dir(ps.socket)
	if filepath.Dir(private) != dir || !strings.HasPrefix(filepath.Base(private), "."+privateMark) {
		t.Fatalf("socket bound at %s, want DIR/.%sNAME/s beside %s", ps.socket, privateMark, path)
	}
	checkMode(t, private, true, 0o700)
	checkMode(t, ps.socket, false, 0o600)

	if err := systemPlacer.publish(ps, path); err != nil {
		t.Fatal(err)
	}
	checkMode(t, path, false, 0o600)
	if got := entries(t, dir); len(got) != 1 || got[0] != "cortex.sock" {
		t.Fatalf("%s holds %v after publishing, want only cortex.sock", dir, got)
	}
	roundTrip(t, ps.l, path)
}

// TestPublishSocket_PathTaken: a file that appears at the path while the
// socket is bound (another server's) is kept: publishing fails with an
// error matching os.ErrExist, where a rename would have replaced it, both
// by a hard link and, where the filesystem refuses them, by a rename that
// does not replace (Linux).
func TestPublishSocket_PathTaken(t *testing.T) {
	placers := map[string]placer{"link": systemPlacer}
	if runtime.GOOS == "linux" {
		placers["renameat2"] = placer{link: failLink(syscall.EPERM), rename: renameNoReplace}
	}
	for name, p := range placers {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "cortex.sock")
			ps, err := bindPrivate(path)
			if err != nil {
				t.Fatal(err)
			}
			defer ps.l.Close()
			other, err := net.Listen("unix", path)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			if err := p.publish(ps, path); !errors.Is(err, os.ErrExist) {
				t.Fatalf("publish over another socket: %v, want os.ErrExist", err)
			}
			roundTrip(t, other, path)
			ps.remove()
			if got := entries(t, dir); len(got) != 1 || got[0] != "cortex.sock" {
				t.Fatalf("%s holds %v, want only cortex.sock", dir, got)
			}
		})
	}
}

// failLink returns a link that fails with errno, as a filesystem without
// hard links does.
func failLink(errno syscall.Errno) func(oldname, newname string) error {
	return func(oldname, newname string) error {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: errno}
	}
}

// TestListenPrivate_NoHardLinks: where the filesystem refuses a hard link
// (EPERM, ENOTSUP, EXDEV), the socket is renamed into place without
// replacing (Linux's renameat2; no line on stderr), or, where that is not
// supported either, bound at its path and chmodded at once, with one line
// on stderr saying so. Either way it is 0600 at its path, no private
// directory is left, and a client connects. Another error of the link is
// an error, and nothing is left.
func TestListenPrivate_NoHardLinks(t *testing.T) {
	withUmask(t, 0)
	renamed := runtime.GOOS == "linux" // else renameNoReplace is unsupported
	for _, c := range []struct {
		name    string
		p       placer
		inPlace bool
	}{
		{"link EPERM", placer{link: failLink(syscall.EPERM), rename: renameNoReplace}, !renamed},
		{"link ENOTSUP", placer{link: failLink(syscall.ENOTSUP), rename: renameNoReplace}, !renamed},
		{"link EXDEV", placer{link: failLink(syscall.EXDEV), rename: renameNoReplace}, !renamed},
		{"link EPERM, rename EINVAL", placer{link: failLink(syscall.EPERM), rename: failLink(syscall.EINVAL)}, true},
		{"link EOPNOTSUPP, rename ENOSYS", placer{link: failLink(syscall.EOPNOTSUPP), rename: failLink(syscall.ENOSYS)}, true},
		{"link EPERM, rename unsupported", placer{link: failLink(syscall.EPERM), rename: func(string, string) error { return errors.ErrUnsupported }}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "cortex.sock")
			var stderr bytes.Buffer
			l, err := c.p.listen(path, &stderr)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			want := ""
			if c.inPlace {
				want = noteNoLinks + "\n"
			}
			if stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			if l.Addr().String() != path {
				t.Errorf("Addr %s, want %s", l.Addr(), path)
			}
			checkMode(t, path, false, 0o600)
			if got := entries(t, dir); len(got) != 1 || got[0] != "cortex.sock" {
				t.Fatalf("%s holds %v, want only cortex.sock", dir, got)
			}
			roundTrip(t, l, path)
		})
	}
	t.Run("link EACCES", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "cortex.sock")
		var stderr bytes.Buffer
		p := placer{link: failLink(syscall.EACCES), rename: renameNoReplace}
		if l, err := p.listen(path, &stderr); !errors.Is(err, syscall.EACCES) {
			t.Fatalf("listen = %v, %v; want EACCES", l, err)
		}
		if got := entries(t, dir); len(got) != 0 || stderr.Len() != 0 {
			t.Fatalf("%s holds %v, stderr %q; want nothing", dir, got, stderr.String())
		}
	})
}

// abandoned binds a socket at path and closes it without removing it, as
// a server killed with its socket bound leaves it: a connection to it is
// refused.
func abandoned(t *testing.T, path string) {
	t.Helper()
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
}

// leftover makes the private directory dir/name (mode 0700) as a server
// killed while binding there leaves it: with an abandoned socket s, or
// (withSocket false) empty.
func leftover(t *testing.T, dir, name string, withSocket bool) string {
	t.Helper()
	private := filepath.Join(dir, name)
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	if withSocket {
		abandoned(t, filepath.Join(private, privateSocketName))
	}
	return private
}

// TestSweepPrivate: the private directories that servers killed while
// binding leave (this user's, mode 0700, named as privateName names them,
// holding only a socket s nobody listens on or, with the cortex- mark,
// nothing) are removed; anything else is left alone: a live server's (its
// socket accepts, or it holds the directory's lock between making it and
// binding), other modes, other contents, other names, an empty unmarked
// one (it could be anyone's), a symbolic link.
func TestSweepPrivate(t *testing.T) {
	withUmask(t, 0o022)
	dir := t.TempDir()
	leftover(t, dir, ".cortex-deadsock", true)
	leftover(t, dir, ".cortex-empty123", false)
	leftover(t, dir, ".c", true)
	leftover(t, dir, ".abcdefgh", true) // an unmarked name of 8
	keep := []string{".cortex-live1234", ".cortex-locked12", ".cortex-mode0755", ".cortex-regfile1", ".cortex-twofiles",
		".cortex-link1234", ".ssh", ".Cache", "cortex-nodot123", ".cortex-toolongname12", ".cortex-short"}

	live := leftover(t, dir, ".cortex-live1234", false)
	l, err := net.Listen("unix", filepath.Join(live, privateSocketName))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	locked := leftover(t, dir, ".cortex-locked12", false)
	lock, err := lockPrivate(locked) // a server between Mkdir and bind
	if err != nil || lock == nil {
		t.Fatalf("lockPrivate = %v, %v", lock, err)
	}
	defer lock.Close()
	if err := os.Chmod(leftover(t, dir, ".cortex-mode0755", true), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(leftover(t, dir, ".cortex-regfile1", false), privateSocketName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(leftover(t, dir, ".cortex-twofiles", true), "notes"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	target := leftover(t, t.TempDir(), ".cortex-target12", true)
	if err := os.Symlink(target, filepath.Join(dir, ".cortex-link1234")); err != nil {
		t.Fatal(err)
	}
	leftover(t, dir, ".ssh", false)
	leftover(t, dir, ".Cache", true)
	leftover(t, dir, "cortex-nodot123", true)
	leftover(t, dir, ".cortex-toolongname12", false)
	leftover(t, dir, ".cortex-short", false)

	sweepPrivate(dir)
	got := entries(t, dir)
	slices.Sort(keep)
	if !slices.Equal(got, keep) {
		t.Fatalf("%s holds %v after the sweep, want %v", dir, got, keep)
	}
	if _, err := os.Lstat(filepath.Join(target, privateSocketName)); err != nil {
		t.Fatalf("the target of a symbolic link was touched: %v", err)
	}
	c, err := net.Dial("unix", filepath.Join(live, privateSocketName))
	if err != nil {
		t.Fatalf("the live socket: %v", err)
	}
	c.Close()
}

// TestPrivateName: privateName's names fit their room and are the ones a
// sweep recognises (privateKind), with the cortex- mark where there is
// room for it and 8 random bytes; without it, as long as the room.
func TestPrivateName(t *testing.T) {
	for _, room := range []int{1, 2, 8, 14, 15, 16, 19, 20, 100} {
		name := privateName(room)
		marked, ok := privateKind("." + name)
		wantMarked := room >= len(privateMark)+8
		switch {
		case !ok || marked != wantMarked:
			t.Errorf("room %d: %q: privateKind = %v, %v; want %v, true", room, name, marked, ok, wantMarked)
		case len(name) > room:
			t.Errorf("room %d: %q is longer", room, name)
		case !wantMarked && len(name) != room:
			t.Errorf("room %d: %q, want %d random bytes", room, name, room)
		}
	}
}

// TestListenUnix_SweepsShortNames: in a directory long enough that the
// private directory's name has one byte (36 names), leftovers of killed
// servers under every name do not keep a server from listening: they are
// removed first.
func TestListenUnix_SweepsShortNames(t *testing.T) {
	withUmask(t, 0)
	base := t.TempDir()
	dir := filepath.Join(base, strings.Repeat("d", maxPrivateDir-len(base)-1))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range randomChars {
		leftover(t, dir, "."+string(c), true)
	}
	path := filepath.Join(dir, "s")
	var stderr bytes.Buffer
	l, err := listenUnix(path, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	checkMode(t, path, false, 0o600)
	if got := entries(t, dir); len(got) != 1 || got[0] != "s" || stderr.Len() != 0 {
		t.Fatalf("%s holds %v, stderr %q; want only s and nothing", dir, got, stderr.String())
	}
	roundTrip(t, l, path)
}

// TestListenUnix_LongestPaths: every socket path a socket address takes
// is served. Where the directory leaves room for a private directory (at
// most maxPrivateDir bytes), the socket is bound in one, its name
// shortened to fit, and nothing is said; in a longer directory (up to 3
// bytes longer, for a socket name of 1 to 3 bytes) it is bound in place
// and chmodded at once, and one line on stderr says so. A path longer
// than a socket address is an invalid value.
func TestListenUnix_LongestPaths(t *testing.T) {
	withUmask(t, 0)
	base := t.TempDir()
	for dirLen := maxPrivateDir - 1; dirLen <= maxSocketPath-2; dirLen++ {
		dir := filepath.Join(base, strings.Repeat("d", dirLen-len(base)-1))
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		name := strings.Repeat("s", maxSocketPath-dirLen-1) // the longest path
		path := filepath.Join(dir, name)
		if err := checkSocketPath(path, true); err != nil {
			t.Fatalf("checkSocketPath(%d bytes, directory %d) = %v", len(path), len(dir), err)
		}
		var stderr bytes.Buffer
		l, err := listenUnix(path, &stderr)
		if err != nil {
			t.Fatalf("listenUnix(%d bytes, directory %d) = %v", len(path), len(dir), err)
		}
		want := ""
		if dirLen > maxPrivateDir {
			want = noteTooLong + "\n"
		}
		if stderr.String() != want {
			t.Errorf("directory %d: stderr %q, want %q", dirLen, stderr.String(), want)
		}
		if l.Addr().String() != path || l.Addr().Network() != "unix" {
			t.Errorf("Addr %s:%s, want unix:%s", l.Addr().Network(), l.Addr(), path)
		}
		checkMode(t, path, false, 0o600)
		roundTrip(t, l, path)
		l.Close()
		if got := entries(t, dir); len(got) != 1 || got[0] != name {
			t.Fatalf("%s holds %v, want only %s", dir, got, name)
		}
	}
	dir := filepath.Join(base, strings.Repeat("e", maxSocketPath-1-len(base)-1))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := checkSocketPath(filepath.Join(dir, "s"), true); !errors.Is(err, errInvalid) || !strings.Contains(err.Error(), "longer than a Unix socket path may be") {
		t.Fatalf("checkSocketPath of %d bytes = %v, want an invalid value", len(dir)+2, err)
	}
}

// TestServe_SweepsLeftovers: a private directory that a server killed
// while binding left in the socket's directory (an abandoned socket in
// it), and an empty one, are removed when serve starts, and it serves;
// unrelated dot-directories are left alone.
func TestServe_SweepsLeftovers(t *testing.T) {
	sockDir := t.TempDir()
	leftover(t, sockDir, ".cortex-k1lled00", true)
	leftover(t, sockDir, ".cortex-k1lled01", false)
	leftover(t, sockDir, ".ssh", false)
	if err := os.WriteFile(filepath.Join(leftover(t, sockDir, ".config", false), "a"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(sockDir, "cortex.sock")
	s := startServe(t, t.TempDir(), "--listen", "", "--socket", sock)
	if got, want := entries(t, sockDir), []string{".config", ".ssh", "cortex.sock"}; !slices.Equal(got, want) || s.before != "" {
		t.Fatalf("%s holds %v while serving (printed %q), want %v", sockDir, got, s.before, want)
	}
	checkMode(t, sock, false, 0o600)
	s.healthyThenStop(t)
}

// TestServe_SocketDirTooLongForPrivate: serve takes a --socket whose
// directory is too long for a private directory in it (DIR of 103 to 105
// bytes on Linux, a 1 to 3 byte name): it binds it in place, says so
// before its serving line, and serves on it, mode 0600.
func TestServe_SocketDirTooLongForPrivate(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, strings.Repeat("d", maxSocketPath-2-len(base)-1))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s")
	s := startServe(t, t.TempDir(), "--listen", "", "--socket", sock)
	if s.before != noteTooLong+"\n" {
		t.Errorf("printed %q before serving, want %q", s.before, noteTooLong+"\n")
	}
	checkMode(t, sock, false, 0o600)
	s.healthyThenStop(t)
	if got := entries(t, dir); len(got) != 0 {
		t.Fatalf("%s holds %v after shutdown, want nothing", dir, got)
	}
}

// TestLockAt_Swept: a private directory that another server's sweep
// removed, empty, after it was made and before it was locked is not
// taken, nor one made again under its name meanwhile: errSwept (and
// bindPrivate tries another name).
func TestLockAt_Swept(t *testing.T) {
	dir := t.TempDir()
	for _, remade := range []bool{false, true} {
		private := leftover(t, dir, ".cortex-swept123", false)
		f, err := os.Open(private)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(private); err != nil {
			t.Fatal(err)
		}
		if remade {
			leftover(t, dir, ".cortex-swept123", false)
		}
		if lock, err := lockAt(f, private); !errors.Is(err, errSwept) {
			t.Fatalf("remade %v: lockAt = %v, %v; want errSwept", remade, lock, err)
		}
		os.Remove(private)
	}
	private := leftover(t, dir, ".cortex-kept1234", false)
	lock, err := lockPrivate(private)
	if err != nil || lock == nil {
		t.Fatalf("lockPrivate = %v, %v", lock, err)
	}
	lock.Close()
}
