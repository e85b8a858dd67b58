//go:build unix

package server_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/server"
)

// TestTokenFile_WritableByOthers checks that a token file that other
// users may write (they could add a token of their own) is refused by
// every method, and by the server (500 for every request that may need a
// token, never let in), until it is chmodded back.
func TestTokenFile_WritableByOthers(t *testing.T) {
	ctx := context.Background()
	f := tokenFile(t)
	ts := serve(t, server.DefaultOptions().WithTokens(f))
	tok, rec := mint(t, f, "a", server.RoleAdmin, 0)
	for _, mode := range []os.FileMode{0o620, 0o602, 0o666} {
		t.Run(mode.String(), func(t *testing.T) {
			if err := os.Chmod(f.Path(), mode); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(f.Path())
			for name, err := range map[string]error{
				"Authenticate": func() error { _, err := f.Authenticate(tok, time.Now()); return err }(),
				"Any":          func() error { _, err := f.Any(); return err }(),
				"List":         func() error { _, err := f.List(ctx, ""); return err }(),
				"Create":       func() error { _, _, err := f.Create(ctx, "a", server.RoleRead, 0); return err }(),
				"Revoke":       func() error { _, err := f.Revoke(ctx, "", rec.ID); return err }(),
				"Check":        f.Check(rec.ID, time.Now()),
			} {
				if !errors.Is(err, server.ErrUnsafeTokenFile) || !strings.Contains(err.Error(), "chmod 600") {
					t.Errorf("%s: %v, want ErrUnsafeTokenFile saying chmod 600", name, err)
				}
			}
			if after, _ := os.ReadFile(f.Path()); string(after) != string(before) {
				t.Errorf("the file changed: %s", after)
			}
			for _, h := range [][]string{bearer(tok), nil} {
				if resp, body := ts.rpcAs("a", "teams.list", `{}`, h...); resp.StatusCode != http.StatusInternalServerError {
					t.Errorf("token %v: status %d, want 500: %s", h != nil, resp.StatusCode, body)
				}
			}
		})
	}
	if err := os.Chmod(f.Path(), 0o600); err != nil {
		t.Fatal(err)
	}
	if resp, body := ts.rpcAs("a", "teams.list", `{}`, bearer(tok)...); resp.StatusCode != http.StatusOK {
		t.Fatalf("chmodded back: status %d %s", resp.StatusCode, body)
	}
}

// TestTokenFile_OwnedByAnotherUser checks that a token file that another
// user owns is refused as one that other users may write: its owner can
// chmod it and add a token of their own whatever its mode (sshd refuses
// such an authorized_keys too). Only root can give a file away: the test
// needs it.
func TestTokenFile_OwnedByAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to chown the token file")
	}
	f := tokenFile(t)
	ts := serve(t, server.DefaultOptions().WithTokens(f))
	tok, _ := mint(t, f, "a", server.RoleAdmin, 0)
	if err := os.Chown(f.Path(), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(f.Path(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Authenticate(tok, time.Now()); !errors.Is(err, server.ErrUnsafeTokenFile) || !strings.Contains(err.Error(), "65534") {
		t.Errorf("Authenticate: %v, want ErrUnsafeTokenFile naming its owner", err)
	}
	if resp, body := ts.rpcAs("a", "teams.list", `{}`, bearer(tok)...); resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("status %d, want 500: %s", resp.StatusCode, body)
	}
	if err := os.Chown(f.Path(), os.Getuid(), os.Getgid()); err != nil {
		t.Fatal(err)
	}
	if resp, body := ts.rpcAs("a", "teams.list", `{}`, bearer(tok)...); resp.StatusCode != http.StatusOK {
		t.Fatalf("chowned back: status %d %s", resp.StatusCode, body)
	}
}

// TestTokenFile_NamesPathQuoted: the token file's errors name a path that
// is not plain text quoted (as pathtext.Quote does), so that a newline or a
// quote in the store's directory can neither garble nor forge the message.
func TestTokenFile_NamesPathQuoted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a\ntokens x: \"b")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "tokens.json")
	if err := os.WriteFile(p, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := server.OpenTokens(p)
	if _, err := f.Any(); err == nil || !strings.Contains(err.Error(), "tokens "+strconv.Quote(p)+": ") {
		t.Errorf("bad JSON: %v, want it to name %s", err, strconv.Quote(p))
	}
	if err := os.Chmod(p, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Any(); err == nil || !strings.Contains(err.Error(), "tokens "+strconv.Quote(p)+": ") || !strings.Contains(err.Error(), "(chmod 600 "+strconv.Quote(p)+")") {
		t.Errorf("writable by others: %v, want it to name %s", err, strconv.Quote(p))
	}
}
