package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/server"
)

// runTokens runs cortexctl --data dir args in process (the tokens commands
// need no store, so no server of one either).
func runTokens(t *testing.T, dir string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"cortexctl", "--data", dir}, args...), strings.NewReader(""), &out, &errb)
	return result{code, out.String(), errb.String()}
}

func TestTokens_CreateListRevoke(t *testing.T) {
	dir := t.TempDir()
	r := runTokens(t, dir, "tokens", "create", "--namespace", "acme", "--role", "write", "--expires", "24h")
	if r.code != 0 {
		t.Fatalf("create: exit %d: %s", r.code, r.stderr)
	}
	tok := strings.TrimSpace(r.stdout)
	if !strings.HasPrefix(tok, "ctk_") || strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stderr, "shown once") {
		t.Fatalf("create printed %q, %q", r.stdout, r.stderr)
	}
	fi, err := os.Stat(filepath.Join(dir, "tokens.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("tokens.json: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "tokens.json")); bytes.Contains(b, []byte(tok)) {
		t.Fatal("tokens.json holds the token")
	}
	id := strings.Split(tok, "_")[1]
	if r := runTokens(t, dir, "tokens", "create", "-n", "other", "--role", "read", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"token": "ctk_`) || !strings.Contains(r.stdout, `"namespace": "other"`) {
		t.Fatalf("create --json: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	r = runTokens(t, dir, "tokens", "list")
	if r.code != 0 || !strings.Contains(r.stdout, id) || !strings.Contains(r.stdout, "acme") || !strings.Contains(r.stdout, "other") || strings.Contains(r.stdout, "ctk_") {
		t.Fatalf("list: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	r = runTokens(t, dir, "tokens", "list", "--namespace", "acme", "--json")
	var list []server.Token
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 1 || list[0].ID != id || list[0].Role != server.RoleWrite || list[0].Expires == nil {
		t.Fatalf("list --namespace acme --json: %v %s", err, r.stdout)
	}
	if r := runTokens(t, dir, "tokens", "revoke", id); r.code != 0 || !strings.Contains(r.stdout, "revoked token "+id) {
		t.Fatalf("revoke: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	if r := runTokens(t, dir, "tokens", "list", "-n", "acme"); !strings.Contains(r.stdout, "revoked") {
		t.Fatalf("list after revoke: %s", r.stdout)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"no role", []string{"tokens", "create", "-n", "acme"}, exitUsage},
		{"bad role", []string{"tokens", "create", "-n", "acme", "--role", "root"}, exitInvalid},
		{"bad expiry", []string{"tokens", "create", "-n", "acme", "--role", "read", "--expires", "-1h"}, exitInvalid},
		{"bad namespace", []string{"tokens", "create", "-n", "Acme!", "--role", "read"}, exitInvalid},
		{"unknown id", []string{"tokens", "revoke", "000000000000"}, exitNotFound},
		{"no id", []string{"tokens", "revoke"}, exitUsage},
		{"empty id", []string{"tokens", "revoke", ""}, exitUsage},
		{"malformed id", []string{"tokens", "revoke", "zz"}, exitInvalid},
		{"id of 13 digits", []string{"tokens", "revoke", "0000000000000"}, exitInvalid},
		{"upper-case id", []string{"tokens", "revoke", "ABCDEF012345"}, exitInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := runTokens(t, dir, tc.args...); r.code != tc.code {
				t.Errorf("exit %d, want %d: %s", r.code, tc.code, r.stderr)
			}
			if r := runTokens(t, dir, "tokens", "list", "--json"); strings.Count(r.stdout, `"id"`) != 2 {
				t.Errorf("wrote something: %s", r.stdout)
			}
		})
	}
}

// TestServe_Tokens runs cortexctl serve on loopback and the CLI against it
// with --server: open while no token exists; once `cortexctl tokens
// create` (another process) made one, a command without a token exits 10,
// one with --token or CORTEX_TOKEN succeeds, one of another namespace
// exits 10, and tokens create goes through the server with an admin token.
func TestServe_Tokens(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir, "--listen", "127.0.0.1:0")
	url := "http://" + s.disc.Address
	cli := func(env []string, args ...string) (int, string) {
		cmd := exec.Command(buildCLI(t), append([]string{"--data", t.TempDir(), "--server", url}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	if code, out := cli(nil, "-n", "acme", "teams", "list"); code != 3 && code != 0 {
		t.Fatalf("no token exists yet: exit %d: %s", code, out)
	}
	mint := func(ns, role string) string {
		cmd := exec.Command(buildCLI(t), "--data", dir, "tokens", "create", "-n", ns, "--role", role)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tokens create: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	admin := mint("acme", "admin")
	if code, out := cli(nil, "-n", "acme", "teams", "list"); code != exitDenied || !strings.Contains(out, "bearer token") {
		t.Fatalf("without a token: exit %d: %s", code, out)
	}
	if code, out := cli(nil, "-n", "acme", "--token", admin, "teams", "create", "--id", "t1", "--name", "t1", "--member", "alice:lead"); code != 0 {
		t.Fatalf("--token: exit %d: %s", code, out)
	}
	if code, out := cli([]string{"CORTEX_TOKEN=" + admin}, "-n", "acme", "teams", "list"); code != 0 || !strings.Contains(out, "t1") {
		t.Fatalf("CORTEX_TOKEN: exit %d: %s", code, out)
	}
	if code, out := cli([]string{"CORTEX_TOKEN=" + admin}, "-n", "other", "teams", "list"); code != exitDenied || !strings.Contains(out, "namespace") {
		t.Fatalf("another namespace: exit %d: %s", code, out)
	}
	code, out := cli([]string{"CORTEX_TOKEN=" + admin}, "-n", "acme", "tokens", "create", "--role", "read")
	read := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
	if code != 0 || !strings.HasPrefix(read, "ctk_") {
		t.Fatalf("tokens create through the server: exit %d: %s", code, out)
	}
	if code, out := cli([]string{"CORTEX_TOKEN=" + read}, "-n", "acme", "query", "SELECT * WHERE { ?s ?p ?o } LIMIT 1"); code != 0 {
		t.Fatalf("read token queries: exit %d: %s", code, out)
	}
	if code, out := cli([]string{"CORTEX_TOKEN=" + read}, "-n", "acme", "teams", "delete", "t1"); code != exitDenied || !strings.Contains(out, "role") {
		t.Fatalf("read token deletes: exit %d: %s", code, out)
	}
	if code, out := cli([]string{"CORTEX_TOKEN=" + read}, "-n", "acme", "tokens", "list"); code != exitDenied {
		t.Fatalf("read token lists tokens: exit %d: %s", code, out)
	}
	// A mailbox's retention decides what the sends delete: setting it
	// needs admin, showing it read (a write token set it).
	code, out = cli([]string{"CORTEX_TOKEN=" + admin}, "-n", "acme", "tokens", "create", "--role", "write")
	write := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
	if code != 0 || !strings.HasPrefix(write, "ctk_") {
		t.Fatalf("tokens create --role write: exit %d: %s", code, out)
	}
	if code, out := cli([]string{"CORTEX_TOKEN=" + write}, "-n", "acme", "mail", "retention", "t1", "--per-agent", "1"); code != exitDenied || !strings.Contains(out, "needs role admin") {
		t.Fatalf("write token sets the mail retention: exit %d: %s", code, out)
	}
	if code, out := cli([]string{"CORTEX_TOKEN=" + read}, "-n", "acme", "mail", "retention", "t1"); code != 0 || !strings.Contains(out, "1,000 messages") {
		t.Fatalf("read token shows the mail retention: exit %d: %s", code, out)
	}
	if code, out := cli([]string{"CORTEX_TOKEN=" + admin}, "-n", "acme", "mail", "retention", "t1", "--per-agent", "1"); code != 0 || !strings.Contains(out, "1 message,") {
		t.Fatalf("admin token sets the mail retention: exit %d: %s", code, out)
	}
	if code := s.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("serve: exit %d: %s", code, s.stderr)
	}
}

// TestServe_NotLoopback checks that serve refuses a --listen address that
// is not loopback without TLS or without a token (exit 2), unless
// --insecure, and serves HTTPS with both.
func TestServe_NotLoopback(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t)
	// serve runs a serve that must refuse to start (a serve that starts is
	// killed: exit code -1).
	serve := func(args ...string) (int, string) { return serveMustRefuse(t, dir, args...) }
	if code, out := serve("--listen", "0.0.0.0:0"); code != exitUsage || !strings.Contains(out, "needs TLS") {
		t.Errorf("no TLS: exit %d: %s", code, out)
	}
	if code, out := serve("--listen", "0.0.0.0:0", "--tls-cert", cert, "--tls-key", key); code != exitUsage || !strings.Contains(out, "needs a token") {
		t.Errorf("no token: exit %d: %s", code, out)
	}
	if code, out := serve("--listen", "0.0.0.0:0", "--tls-cert", cert); code != exitUsage || !strings.Contains(out, "go together") {
		t.Errorf("cert without key: exit %d: %s", code, out)
	}
	if code, out := serve("--listen", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", cert); code != exitInvalid {
		t.Errorf("bad key: exit %d: %s", code, out)
	}
	insecure := startServe(t, dir, "--socket", "", "--listen", "0.0.0.0:0", "--insecure")
	if code := insecure.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("--insecure: exit %d: %s", code, insecure.stderr)
	}

	tok, _, err := server.OpenTokens(filepath.Join(dir, "tokens.json")).Create(context.Background(), "acme", server.RoleRead, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := startServe(t, dir, "--socket", "", "--listen", "0.0.0.0:0", "--tls-cert", cert, "--tls-key", key)
	_, port, _ := net.SplitHostPort(s.disc.Address)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // the test's own certificate
	for _, tc := range []struct {
		tok    string
		status int
	}{{"", 401}, {tok, 200}} {
		req, _ := http.NewRequest("POST", "https://127.0.0.1:"+port+"/ns/acme/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"strategies.list"}`))
		if tc.tok != "" {
			req.Header.Set("Authorization", "Bearer "+tc.tok)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("https, with token %t: status %d, want %d", tc.tok != "", resp.StatusCode, tc.status)
		}
	}
	if code := s.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("exit %d: %s", code, s.stderr)
	}
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key,
// and returns their paths.
func selfSigned(t *testing.T) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "cortex test"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// TestTokens_RevokeMessages: an id no token has and one no token can have
// each get one message: "not found: unknown token" (exit 3) for the first,
// "invalid id" and what an id looks like (exit 7) for the second, which
// never says "not found" (it said `invalid id (not found: unknown token;
// ...)`, two messages at once).
func TestTokens_RevokeMessages(t *testing.T) {
	dir := t.TempDir()
	if r := runTokens(t, dir, "tokens", "create", "-n", "acme", "--role", "read"); r.code != 0 {
		t.Fatalf("create: exit %d: %s", r.code, r.stderr)
	}
	for _, tc := range []struct {
		id, want, not string
		code          int
	}{
		{"0123456789ab", `not found: unknown token "0123456789ab"`, "invalid", exitNotFound},
		{"0123456789AB", `token "0123456789AB": invalid id: want 12 lower-case hexadecimal digits`, "not found", exitInvalid},
		{"zz", `token "zz": invalid id: want 12 lower-case hexadecimal digits`, "not found", exitInvalid},
	} {
		t.Run(tc.id, func(t *testing.T) {
			r := runTokens(t, dir, "tokens", "revoke", tc.id)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, tc.not) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("exit %d, %q; want exit %d, %q, not %q", r.code, r.stderr, tc.code, tc.want, tc.not)
			}
		})
	}
}

// TestTokens_RoleAnyCase: tokens create --role READ was refused (exit 7);
// a role is taken in any case, as the other words of our vocabularies are
// (TestCLI_EnumInputsAnyCase), and stored lower case.
func TestTokens_RoleAnyCase(t *testing.T) {
	dir := t.TempDir()
	if r := runTokens(t, dir, "tokens", "create", "-n", "acme", "--role", "READ", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"role": "read"`) {
		t.Fatalf("create --role READ: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	if r := runTokens(t, dir, "tokens", "list", "--json"); !strings.Contains(r.stdout, `"role": "read"`) {
		t.Errorf("list: %s", r.stdout)
	}
}
