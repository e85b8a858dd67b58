package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLI_ServerPrefixes: through a server, a prefixed name on the command
// line (cx:x, the namespace's name, a config prefix) means what it means to
// the server, whose config gives the namespace its base and the extra
// prefixes, not what this command's own config (here: none) would make of
// it; and the output abbreviates with the server's prefixes. Before,
// findings add read cx:s with its own default base while query read it
// with the server's, so a finding added through a server was not found by
// the same term.
func TestCLI_ServerPrefixes(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "server.json5")
	if err := os.WriteFile(cfg, []byte(`{namespaces: {acme: {base: "https://kg.example/acme/"}}, prefixes: {ex: "https://example.org/ns#"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CORTEX_CONFIG", cfg)
	s := startServe(t, dir, "--listen", "")
	os.Unsetenv("CORTEX_CONFIG") // the commands below have no config; t.Setenv restores it at the end
	args := func(a ...string) []string {
		return append([]string{"--server", "unix://" + s.disc.Socket, "--data", t.TempDir(), "-n", "acme"}, a...)
	}
	if r := runBinary(t, nil, args("teams", "create", "--id", "t1", "--name", "n", "--member", "ann")...); r.code != 0 {
		t.Fatalf("teams create: exit %d: %s", r.code, r.stderr)
	}
	for _, a := range [][]string{
		{"findings", "add", "t1", "ann", "cx:s", "ex:p", "acme:o"},
		{"findings", "add", "t1", "ann", "cx:s", "ex:q", "<https://other.example/o>"},
	} {
		if r := runBinary(t, nil, args(a...)...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", a, r.code, r.stderr)
		}
	}
	r := runBinary(t, nil, args("findings", "list", "t1", "--json")...)
	var fs []struct{ Subject, Predicate, Object string }
	if err := json.Unmarshal([]byte(r.stdout), &fs); err != nil || len(fs) != 2 {
		t.Fatalf("findings list: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	for _, f := range fs {
		if f.Subject != "<https://kg.example/acme/s>" || !strings.HasPrefix(f.Predicate, "<https://example.org/ns#") {
			t.Errorf("finding %+v: want the server's cx: and ex:", f)
		}
	}
	// The same term finds them, as the server's SPARQL reads it.
	r = runBinary(t, nil, args("query", "--format", "csv", "SELECT ?o WHERE { ?f rdf:subject cx:s ; rdf:object ?o } ORDER BY ?o")...)
	if r.code != 0 || r.stdout != "o\r\nhttps://kg.example/acme/o\r\nhttps://other.example/o\r\n" {
		t.Fatalf("query: exit %d\n%q%s", r.code, r.stdout, r.stderr)
	}
	// A table abbreviates with the server's prefixes.
	r = runBinary(t, nil, args("query", "--format", "table", "SELECT ?p WHERE { ?f rdf:predicate ?p } ORDER BY ?p")...)
	if r.code != 0 || !strings.Contains(r.stdout, "ex:p") || !strings.Contains(r.stdout, "ex:q") {
		t.Fatalf("query table: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A filter term is read the same way.
	if r := runBinary(t, nil, args("facts", "list", "t1", "--subject", "cx:s")...); r.code != 0 {
		t.Fatalf("facts list: exit %d: %s", r.code, r.stderr)
	}
}
