//go:build unix

package server_test

import (
	"context"
	"errors"
	"net/http"
	"os"
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
