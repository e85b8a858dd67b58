//go:build unix

package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServe_SocketPathWithSpaceAndPercent: a store directory whose path holds
// a space and a percent sign is served on DIR/cortex.sock, and commands
// reach it by its discovery file, by --server and by CORTEX_SERVER given
// as a unix:// URL (percent-encoded: %20, %25) or as the socket's path.
// A unix:// URL was not percent-decoded (the socket "a%20b%25c/..." did
// not exist: exit 6), and the discovered socket was made a URL without
// encoding ("a b%c": exit 7).
func TestServe_SocketPathWithSpaceAndPercent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a b%c")
	s := startServe(t, dir, "--listen", "")
	sockURL := (&url.URL{Scheme: "unix", Path: s.disc.Socket}).String()
	if !strings.Contains(sockURL, "a%20b%25c") {
		t.Fatalf("test setup: %s", sockURL)
	}
	other := t.TempDir() // never opened: every command goes to the server
	for i, tc := range []struct {
		name string
		env  []string
		args []string
	}{
		{"discovery", nil, []string{"--data", dir}},
		{"--server URL", nil, []string{"--data", other, "--server", sockURL}},
		{"CORTEX_SERVER URL", []string{"CORTEX_SERVER=" + sockURL}, []string{"--data", other}},
		{"--server path", nil, []string{"--data", other, "--server", s.disc.Socket}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			team := "t" + string(rune('0'+i))
			if r := runBinary(t, tc.env, append(tc.args, "-n", "acme", "teams", "create", "--id", team, "--name", "n", "--member", "a0")...); r.code != 0 {
				t.Fatalf("teams create: exit %d: %s", r.code, r.stderr)
			}
			if r := runBinary(t, nil, "--data", dir, "-n", "acme", "teams", "get", team); r.code != 0 {
				t.Fatalf("teams get through the server: exit %d: %s", r.code, r.stderr)
			}
		})
	}
	if es, err := os.ReadDir(other); err != nil || len(es) != 0 {
		t.Errorf("--data %s was used: %v %v", other, es, err)
	}
	s.healthyThenStop(t)
}
