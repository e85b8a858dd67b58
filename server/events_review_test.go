package server_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/server"
)

// TestEvents_EndCommentKeepsFraming: the comment that ends a stream whose
// token is gone quotes the token file's path; a CR in it (which ends an
// SSE line as LF does) must not end the comment line and inject fields:
// here a data line, which an EventSource would fire as an event.
func TestEvents_EndCommentKeepsFraming(t *testing.T) {
	defer server.SetEventTokenCheck(5 * time.Millisecond)()
	dir := filepath.Join(t.TempDir(), "x\rdata: {\"injected\":1}\r")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Skipf("a directory name with CR: %v", err)
	}
	path := filepath.Join(dir, "tokens.json")
	f := server.OpenTokens(path)
	ts := serve(t, server.DefaultOptions().WithTokens(f))
	writer, _ := mint(t, f, "acme", server.RoleWrite, 0)
	if resp, body := ts.rpcAs("acme", "teams.create", `{"id":"t1","name":"n","members":[{"agent":"a"}]}`, bearer(writer)...); strings.Contains(body, `"error"`) {
		t.Fatalf("teams.create: %d %s", resp.StatusCode, body)
	}
	st := ts.openEvents("acme", "?after=0", bearer(writer)...)
	st.read(1)
	// Another token file at the path, without the stream's token.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	mint(t, server.OpenTokens(path), "acme", server.RoleRead, 0)
	time.AfterFunc(hangGuard, func() { st.resp.Body.Close() })
	rest, err := io.ReadAll(st.r)
	if err != nil && err != context.Canceled {
		t.Logf("reading the rest: %v", err)
	}
	for _, line := range regexp.MustCompile("\r\n|\r|\n").Split(string(rest), -1) {
		if line != "" && !strings.HasPrefix(line, ":") {
			t.Fatalf("a field line %q after the token went (the rest: %q)", line, rest)
		}
	}
	if !strings.Contains(string(rest), "the stream ends") {
		t.Fatalf("the rest of the stream: %q", rest)
	}
}
