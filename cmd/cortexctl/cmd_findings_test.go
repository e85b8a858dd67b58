package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCLI_Findings(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "t1", "--name", "n", "--member", "ann", "--member", "bob")
	var added struct{ ID string }
	out := mustCLI(t, dir, "findings", "add", "t1", "ann", "<http://ex/a>", "rdfs:label", `"hello"@en`, "--confidence", "0.5", "--at", "2025-01-02T03:04:05Z", "--json")
	if err := json.Unmarshal([]byte(out), &added); err != nil || added.ID == "" {
		t.Fatalf("add --json %q", out)
	}
	mustCLI(t, dir, "findings", "add", "t1", "bob", "<http://ex/a>", "<http://ex/p>", "plainword")
	mustCLI(t, dir, "findings", "import", "t1", "bob", writeFile(t, "f.nt", "<http://ex/b> <http://ex/p> <http://ex/c> .\n"))
	var fs []struct {
		ID, Agent, Subject, Predicate, Object string
		Confidence                            float64
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "findings", "list", "t1", "--json")), &fs); err != nil || len(fs) != 3 {
		t.Fatalf("list: %+v (%v)", fs, err)
	}
	if fs[0].ID != added.ID || fs[0].Predicate != "<http://www.w3.org/2000/01/rdf-schema#label>" || fs[0].Object != `"hello"@en` || fs[0].Confidence != 0.5 {
		t.Fatalf("first finding %+v", fs[0])
	}
	if fs[1].Object != `"plainword"` && fs[2].Object != `"plainword"` {
		t.Fatalf("bare word object: %+v", fs)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"not a member", []string{"findings", "add", "t1", "zed", "<http://ex/a>", "<http://ex/p>", "x"}, exitNotFound, "unknown agent"},
		{"bad term", []string{"findings", "add", "t1", "ann", "<http://ex/a", "<http://ex/p>", "x"}, exitSyntax, ""},
		{"unknown prefix", []string{"findings", "add", "t1", "ann", "zz:a", "<http://ex/p>", "x"}, exitInvalid, "unknown prefix"},
		{"literal subject", []string{"findings", "add", "t1", "ann", `"s"`, "<http://ex/p>", "x"}, exitInvalid, "invalid finding"},
		{"confidence", []string{"findings", "add", "t1", "ann", "<http://ex/a>", "<http://ex/p>", "x", "--confidence", "3"}, exitInvalid, "confidence"},
		{"missing file", []string{"findings", "import", "t1", "ann", "/nonexistent.ttl"}, exitNotFound, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d (want %d), stderr %q", r.code, tc.code, r.stderr)
			}
		})
	}
	mustCLI(t, dir, "teams", "member-status", "t1", "ann", "failed")
	if r := runCLI(t, dir, "", "findings", "add", "t1", "ann", "<http://ex/a>", "<http://ex/p>", "x"); r.code != exitConflict {
		t.Fatalf("finding of a failed member: exit %d %s", r.code, r.stderr)
	}
}
