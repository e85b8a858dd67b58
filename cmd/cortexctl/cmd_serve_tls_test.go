package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cortexgraph/cortex/server"
)

// TestServe_TLSOnlyServerDiscovered: commands go through the server that
// holds --data when it serves TCP over TLS only (--socket ""), as through
// any other: the discovery file gives the SHA-256 of its certificate, and
// cortexctl reaches its loopback address over https trusting that
// certificate only (one issued for another name, as a public server's is).
// Before, a command spoke plain HTTP to the TLS listener and exited 1
// ("Client sent an HTTP request to an HTTPS server").
func TestServe_TLSOnlyServerDiscovered(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t)
	s := startServe(t, dir, "--socket", "", "--listen", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key)
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(pair.Certificate[0])
	if s.disc.CertSHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("discovery file: certSha256 %q, want the certificate's %x", s.disc.CertSHA256, sum)
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"cortexctl", "--data", dir, "strategies"}, strings.NewReader(""), &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "additive") {
		t.Errorf("strategies through the TLS server: exit %d\n%s%s", code, out.String(), errb.String())
	}
	// A certificate other than the one the file names is not trusted: the
	// command fails, and sends nothing.
	path := filepath.Join(dir, server.DiscoveryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Replace(b, []byte(s.disc.CertSHA256), []byte(strings.Repeat("0", 64)), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := run(context.Background(), []string{"cortexctl", "--data", dir, "strategies"}, strings.NewReader(""), &out, &errb); code == 0 || !strings.Contains(errb.String(), "certificate") {
		t.Errorf("strategies through a server whose certificate is not the one the discovery file names: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if code := s.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("exit %d: %s", code, s.stderr)
	}
}
