//go:build unix

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cortexgraph/cortex/server"
)

// TestServe_RefusesUnusableTokenFile checks that serve with a TCP listener
// refuses to start on a tokens.json that is not JSON (exit 5) or that
// other users may write (exit 7), saying why, instead of serving and
// answering every TCP request 500; without a TCP listener it serves.
func TestServe_RefusesUnusableTokenFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tokens.json")
	if _, _, err := server.OpenTokens(path).Create(context.Background(), "acme", server.RoleRead, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o664); err != nil {
		t.Fatal(err)
	}
	if code, out := serveMustRefuse(t, dir, "--listen", "127.0.0.1:0"); code != exitInvalid || !strings.Contains(out, "chmod 600") {
		t.Errorf("group-writable: exit %d: %s", code, out)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("[{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := serveMustRefuse(t, dir, "--listen", "127.0.0.1:0"); code != exitSyntax || !strings.Contains(out, path) {
		t.Errorf("not JSON: exit %d: %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, server.DiscoveryFile)); err == nil {
		t.Errorf("a refused serve left a discovery file")
	}
	s := startServe(t, dir, "--listen", "", "--socket", filepath.Join(dir, "cortex.sock"))
	if code := s.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("socket only: exit %d: %s", code, s.stderr)
	}
}
