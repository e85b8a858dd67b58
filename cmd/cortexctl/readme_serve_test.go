package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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
	block := readmeBlock(t, "sh")
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

// readmeBlock returns the first fenced block of language lang in the
// README's "Run it as a server" section.
func readmeBlock(t *testing.T, lang string) string {
	t.Helper()
	return readmeSectionBlock(t, "Run it as a server", lang)
}

// readmeSectionBlock returns the first fenced block of language lang in
// the README's section "## heading".
func readmeSectionBlock(t *testing.T, heading, lang string) string {
	t.Helper()
	return readmeSectionBlocks(t, heading, lang)[0]
}

// runReadmeSection runs the sh block of the README's section "## heading"
// as written (bash with set -e: a failing command fails t) in directory
// work, with the cortexctl binary on PATH, the store in data and env
// added, and returns what it printed.
func runReadmeSection(t *testing.T, heading, work, data string, env ...string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", "set -e\n"+readmeSectionBlock(t, heading, "sh"))
	cmd.Dir = work
	cmd.Env = append(append(os.Environ(), "CORTEX_DATA="+data,
		"PATH="+filepath.Dir(buildCLI(t))+string(os.PathListSeparator)+os.Getenv("PATH")), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's %q commands failed: %v\n%s", heading, err, out)
	}
	return string(out)
}

// TestREADME_ClientExamples runs the Python (JSON-RPC with urllib, SPARQL
// with rdflib) and Go (package client) examples of the README's "Run it as
// a server" section, as written, against a `cortexctl serve` subprocess,
// and checks what they print.
func TestREADME_ClientExamples(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir, "--listen", "127.0.0.1:0")
	t.Run("python", func(t *testing.T) {
		python := rdflibPython()
		if python == "" {
			missingClient(t, "the README's Python example needs rdflib (apt-get install python3-rdflib)")
		}
		cmd := exec.Command(python, "-c", readmeBlock(t, "python"))
		cmd.Env = append(os.Environ(), "CORTEX_URL=http://"+s.disc.Address)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the Python example failed: %v\n%s", err, out)
		}
		for _, want := range []string{"{'id': '", "not_found ['unknown_team']\n", "https://ex.org/pool.go leaks a connection\n"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("the Python example's output lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("python stream", func(t *testing.T) {
		python, err := exec.LookPath("python3")
		if err != nil {
			missingClient(t, "the README's Python stream example needs python3")
		}
		cmd := exec.Command(python, "-c", readmeBlock(t, "python3"))
		cmd.Env = append(os.Environ(), "CORTEX_URL=http://"+s.disc.Address)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the Python stream example failed: %v\n%s", err, out)
		}
		if string(out) != "100 findings added on one stream\n" {
			t.Errorf("the Python stream example printed %q", out)
		}
	})
	t.Run("go", func(t *testing.T) {
		// The program must be in the module to build against it; go's
		// -overlay puts it there without writing into the source tree.
		tmp := t.TempDir()
		mainGo := filepath.Join(tmp, "main.go")
		if err := os.WriteFile(mainGo, []byte(readmeBlock(t, "go")), 0o644); err != nil {
			t.Fatal(err)
		}
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		inModule := filepath.Join(wd, "testdata", "readme-go", "main.go")
		overlay, err := json.Marshal(map[string]map[string]string{"Replace": {inModule: mainGo}})
		if err != nil {
			t.Fatal(err)
		}
		overlayFile := filepath.Join(tmp, "overlay.json")
		if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "run", "-overlay", overlayFile, "./testdata/readme-go")
		cmd.Env = append(os.Environ(), "CORTEX_DATA="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the Go example failed: %v\n%s", err, out)
		}
		if string(out) != "team go-review running\ntrue\n" {
			t.Errorf("the Go example printed %q", out)
		}
	})
	if code := s.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("serve exited %d: %s", code, s.stderr)
	}
}

// TestREADME_Security runs the sh example of the README's "Security"
// subsection against a real cortexctl serve on loopback, with cortexctl on
// PATH, and checks the statuses its comments promise.
func TestREADME_Security(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sub, ok := strings.Cut(string(readme), "\n### Security\n")
	if !ok {
		t.Fatal(`README.md has no "Security" subsection`)
	}
	_, block, ok := strings.Cut(sub, "```sh\n")
	if !ok {
		t.Fatal("no sh block in the Security subsection")
	}
	block, _, _ = strings.Cut(block, "```\n")
	dir := t.TempDir()
	s := startServe(t, dir, "--listen", "127.0.0.1:0")
	cmd := exec.Command("bash", "-c", "set -e\n"+block)
	cmd.Env = append(os.Environ(), "CORTEX_DATA="+dir, "CORTEX_URL=http://"+s.disc.Address,
		"PATH="+filepath.Dir(buildCLI(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the example failed: %v\n%s%s", err, out, stderr.String())
	}
	if !strings.Contains(stderr.String(), "shown once") {
		t.Errorf("tokens create said: %s", stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 4 || lines[0] != "401" || !strings.Contains(lines[1], `"result":[`) || lines[2] != "403" || !strings.Contains(string(out), "conflict-flag") {
		t.Errorf("the example's output:\n%s", out)
	}
	if code := s.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("serve exited %d: %s", code, s.stderr)
	}
}
