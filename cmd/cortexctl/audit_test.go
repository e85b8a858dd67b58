package main

import (
	"slices"
	"testing"
)

// TestCLI_WrongInputMessages: command lines a user gets wrong, each refused
// with its exit code and a message saying what is wrong, and nothing on
// stdout.
func TestCLI_WrongInputMessages(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		// It said `want bash, zsh or fish, got ""`: no argument was given.
		{"completion without a shell", []string{"completion"}, exitUsage, "completion: want the shell: bash, zsh or fish"},
		{"completion of an unknown shell", []string{"completion", "powershell"}, exitUsage, `completion: want bash, zsh or fish, got "powershell"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", slices.Clone(tc.args)...)
			want := "cortexctl: "
			if tc.code == exitUsage {
				want += "usage: "
			}
			if want += tc.stderr + "\n"; r.code != tc.code || r.stderr != want || r.stdout != "" {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, stderr %q", tc.args, r.code, r.stdout, r.stderr, tc.code, want)
			}
		})
	}
}
