//go:build unix

package main

import (
	"errors"
	"net"
	"os"
	"path/filepath"
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
	l, tmp, err := bindPrivate(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s exists before it is published: %v", path, err)
	}
	private := filepath.Dir(tmp)
	if filepath.Dir(private) != dir || !strings.HasPrefix(filepath.Base(private), ".") {
		t.Fatalf("socket bound at %s, want DIR/.NAME/s beside %s", tmp, path)
	}
	checkMode(t, private, true, 0o700)
	checkMode(t, tmp, false, 0o600)

	if err := publishSocket(tmp, path); err != nil {
		t.Fatal(err)
	}
	checkMode(t, path, false, 0o600)
	if got := entries(t, dir); len(got) != 1 || got[0] != "cortex.sock" {
		t.Fatalf("%s holds %v after publishing, want only cortex.sock", dir, got)
	}
	roundTrip(t, l, path)
}

// TestPublishSocket_PathTaken: a file that appears at the path while the
// socket is bound (another server's) is kept: publishing fails with an
// error matching os.ErrExist, where a rename would have replaced it.
func TestPublishSocket_PathTaken(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cortex.sock")
	l, tmp, err := bindPrivate(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	other, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := publishSocket(tmp, path); !errors.Is(err, os.ErrExist) {
		t.Fatalf("publishSocket over another socket: %v, want os.ErrExist", err)
	}
	roundTrip(t, other, path)
	removePrivate(tmp)
	if got := entries(t, dir); len(got) != 1 || got[0] != "cortex.sock" {
		t.Fatalf("%s holds %v, want only cortex.sock", dir, got)
	}
}

// TestListenUnix_LongestPaths: a socket path as long as a socket address
// allows is served, the private directory's name shortened to fit; a
// directory too long for a private directory with a one-byte name is an
// invalid value before anything is opened.
func TestListenUnix_LongestPaths(t *testing.T) {
	withUmask(t, 0)
	base := t.TempDir()
	for _, name := range []string{"cortex.sock", "s"} {
		// A directory as long as the path allows: a path of maxSocketPath
		// bytes, or (name "s") the longest directory of a private one.
		dirLen := min(maxSocketPath-1-len(name), maxPrivateDir)
		dir := filepath.Join(base, strings.Repeat("d", dirLen-len(base)-1))
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := checkSocketPath(path, true); err != nil {
			t.Fatalf("checkSocketPath(%d bytes, directory %d) = %v", len(path), len(dir), err)
		}
		l, err := listenUnix(path)
		if err != nil {
			t.Fatalf("listenUnix(%d bytes, directory %d) = %v", len(path), len(dir), err)
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
	dir := filepath.Join(base, strings.Repeat("e", maxPrivateDir+1-len(base)-1))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := checkSocketPath(filepath.Join(dir, "s"), true); !errors.Is(err, errInvalid) || !strings.Contains(err.Error(), "private directory") {
		t.Fatalf("checkSocketPath in a directory of %d bytes = %v, want an invalid value", len(dir), err)
	}
}
