package main

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestREADME_RunItAsAServer runs the curl examples of the README's "Run it
// as a server" section, as written, against a `cortexctl serve` subprocess
// (bash with set -e: a failing request, curl -f, fails the test), and
// checks what they print.
func TestREADME_RunItAsAServer(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatalf("the README's examples need curl: %v", err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Run it as a server\n")
	if !ok {
		t.Fatal(`README.md has no "Run it as a server" section`)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal("no sh block in the section")
	}
	block, _, _ = strings.Cut(block, "```\n")
	dir := t.TempDir()
	s := startServe(t, dir, "--listen", "")
	cmd := exec.Command("bash", "-c", "set -e\n"+block)
	cmd.Env = append(os.Environ(), "CORTEX_DATA="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the examples failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"ok\n",
		`"result":{"id":"review","name":"review","status":"pending"`,
		`"id":2}]`,
		"s,o\r\nhttps://ex.org/pool.go,leaks a connection\r\n",
		`<https://ex.org/a> <https://ex.org/p> "1" .`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the examples' output lacks %q:\n%s", want, out)
		}
	}
	if code := s.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("serve exited %d: %s", code, s.stderr)
	}
}
