package main

import (
	"encoding/json"
	"path/filepath"
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
