//go:build linux || darwin || freebsd

package server_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
)

// TestAuth_SocketOfAnotherUserNeedsToken: a request on a Unix socket
// needs no token because the socket is its owner's; a socket that another
// user can connect to (a host that listened under a permissive umask, or
// in a shared directory) does not make that user its owner. A connection
// from another user than the server's (and root) needs a token, as on TCP
// off loopback; the owner's still needs none. It runs curl as user 65534:
// it needs root.
func TestAuth_SocketOfAnotherUserNeedsToken(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to connect as another user")
	}
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("needs curl")
	}
	dir, err := os.MkdirTemp("", "cortex-peer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sock, 0o777); err != nil { // as under umask 0
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.New(cortextest.NewStore(t), server.DefaultOptions()).Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	body := `{"jsonrpc":"2.0","id":1,"method":"teams.create","params":{"id":"t1","name":"n","members":[{"agent":"x"}]}}`
	run := func(uid uint32) string {
		cmd := exec.Command(curl, "-s", "-o", "/dev/null", "-w", "%{http_code}", "--unix-socket", sock,
			"-H", "Content-Type: application/json", "--data-binary", body, "http://localhost/ns/acme/rpc")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("curl as %d: %v %s", uid, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if code := run(65534); code != "401" {
		t.Errorf("a write by another user on the socket: status %s, want 401", code)
	}
	if code := run(0); code != "200" {
		t.Errorf("a write by the server's user on the socket: status %s, want 200", code)
	}
}
