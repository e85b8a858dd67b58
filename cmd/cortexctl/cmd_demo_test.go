package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemo_Namespace: the demo runs in namespace demo unless --namespace
// (-n) is given on its command line. CORTEX_NAMESPACE, set for everyday
// work, does not send it elsewhere: the demo deletes and recreates its team
// code-review, and the README promises that nothing outside the demo
// namespace is touched.
func TestDemo_Namespace(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CORTEX_NAMESPACE", "acme")
	mustCLI(t, dir, "teams", "create", "--id", "code-review", "--name", "mine", "--member", "x")
	mustCLI(t, dir, "demo")
	var team struct{ Name string }
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "teams", "get", "code-review", "--json")), &team); err != nil {
		t.Fatal(err)
	}
	if team.Name != "mine" {
		t.Errorf("CORTEX_NAMESPACE=acme: the demo replaced acme's team code-review (now %q)", team.Name)
	}
	mustCLI(t, dir, "-n", "demo", "teams", "get", "code-review")

	for _, c := range []struct {
		args []string
		ns   string
	}{
		{[]string{"-n", "other", "demo"}, "other"},
		{[]string{"demo", "--namespace", "third"}, "third"},
		{[]string{"--verbose", "demo", "-n=fourth"}, "fourth"},
	} {
		mustCLI(t, dir, c.args...)
		mustCLI(t, dir, "-n", c.ns, "teams", "get", "code-review")
	}
}

// TestDemo_KeepsATeamItDidNotCreate: with -n NS, the demo replaces its
// own team code-review of an earlier run, but not a team of that id that
// it did not create (the README's teams create --from
// fixtures/teams/code-review.json5 makes one): exit 4, and the team and
// its findings are left as they were. It disbanded and deleted it.
func TestDemo_KeepsATeamItDidNotCreate(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "-n", "acme", "teams", "create", "--from", fixturePath("teams", "code-review.json5"))
	mustCLI(t, dir, "-n", "acme", "teams", "member-status", "code-review", "bob", "running")
	mustCLI(t, dir, "-n", "acme", "findings", "add", "code-review", "bob", "<https://ex.org/s>", "<https://ex.org/p>", "o")
	r := runCLI(t, dir, "", "-n", "acme", "demo")
	if r.code != exitConflict || !strings.Contains(r.stderr, "did not create") {
		t.Fatalf("demo over a team it did not create: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var fs []json.RawMessage
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "-n", "acme", "findings", "list", "code-review", "--json")), &fs); err != nil || len(fs) != 1 {
		t.Fatalf("the team's findings after the refused demo: %d, %v", len(fs), err)
	}
	// Its own team of an earlier run it replaces.
	mustCLI(t, dir, "-n", "other", "demo")
	mustCLI(t, dir, "-n", "other", "demo")
}

// TestDemo_UnexpectedArgument: the demo takes no argument; one (`demo
// acme`, taking it for the namespace) is a usage error and runs nothing:
// it ran the demo in namespace demo.
func TestDemo_UnexpectedArgument(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	r := runCLI(t, dir, "", "demo", "acme")
	if r.code != exitUsage || r.stdout != "" || r.stderr != "cortexctl: usage: demo: unexpected argument \"acme\"\n" {
		t.Fatalf("exit %d, stdout %.60q, stderr %q; want exit %d, usage", r.code, r.stdout, r.stderr, exitUsage)
	}
	if st := dirState(t, dir); st != "absent" {
		t.Fatalf("the refused demo left %s", st)
	}
}
