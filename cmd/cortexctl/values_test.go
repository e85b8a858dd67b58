package main

import (
	"testing"
)

// TestCLI_ValuesRefusedAsEmbedded: values a server cannot be sent as they
// are (NaN or ±Inf in JSON, text that is not UTF-8) and a time that
// cannot be stored (the zero time) are refused with the same stderr and
// exit code through a server as embedded (TestCLI_ThroughServer runs it
// so): the embedded Manager's message, not the client's encoding error
// (exit 1) or a param's name. Nothing is written.
func TestCLI_ValuesRefusedAsEmbedded(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir) // ann (lead), bob, cat
	zero := writeFile(t, "zero.jsonl", `{"subject": "<https://ex.org/s>", "predicate": "rdfs:comment", "object": "\"x\"", "assertedAt": "0001-01-01T00:00:00Z"}`+"\n")
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"confidence NaN", []string{"findings", "add", "crew", "bob", "<https://ex.org/s>", "rdfs:comment", `"x"`, "--confidence", "NaN"},
			"cortexctl: team crew: agent bob: invalid finding: confidence NaN not in [0, 1]\n"},
		{"confidence Inf", []string{"findings", "add", "crew", "bob", "<https://ex.org/s>", "rdfs:comment", `"x"`, "--confidence", "Inf"},
			"cortexctl: team crew: agent bob: invalid finding: confidence +Inf not in [0, 1]\n"},
		{"confidence -Inf", []string{"findings", "add", "crew", "bob", "<https://ex.org/s>", "rdfs:comment", `"x"`, "--confidence", "-Inf"},
			"cortexctl: team crew: agent bob: invalid finding: confidence -Inf not in [0, 1]\n"},
		{"--at the zero time", []string{"findings", "add", "crew", "bob", "<https://ex.org/s>", "rdfs:comment", `"x"`, "--at", "0001-01-01T00:00:00Z"},
			"cortexctl: invalid value: --at \"0001-01-01T00:00:00Z\" is the zero time, which a finding cannot have: give another time, or no --at (now)\n"},
		{"--at after 9999 in UTC", []string{"findings", "add", "crew", "bob", "<https://ex.org/s>", "rdfs:comment", `"x"`, "--at", "9999-12-31T23:00:00-05:00"},
			"cortexctl: team crew: agent bob: invalid finding: assertedAt 10000-01-01T04:00:00Z: year 10000 of UTC not in 0000-9999 (RFC 3339)\n"},
		{"import of the zero time", []string{"findings", "import", "crew", "bob", zero},
			"cortexctl: import findings: team crew: agent bob: record 1 (line 1): invalid finding: assertedAt \"0001-01-01T00:00:00Z\" is the zero time, which a finding cannot have (no assertedAt means now): give another time, or none\n"},
		{"task subject not UTF-8", []string{"tasks", "create", "crew", "bad\xff", "--as", "ann"},
			"cortexctl: team crew: create task: invalid task: subject is not valid UTF-8\n"},
		{"message body not UTF-8", []string{"mail", "send", "crew", "bad\xff", "--as", "ann"},
			"cortexctl: team crew: send message: invalid message: body is not valid UTF-8\n"},
		{"message subject not UTF-8", []string{"mail", "send", "crew", "hi", "--as", "ann", "--subject", "bad\xff"},
			"cortexctl: team crew: send message: invalid message: subject is not valid UTF-8\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != exitInvalid || r.stderr != tc.stderr || r.stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr\n%q\nwant exit %d, stderr\n%q", r.code, r.stdout, r.stderr, exitInvalid, tc.stderr)
			}
		})
	}
	for _, args := range [][]string{{"findings", "list", "crew"}, {"tasks", "list", "crew"}, {"mail", "history", "crew"}} {
		if out := mustCLI(t, dir, append(args, "--json")...); out != "[]\n" {
			t.Errorf("%v after the refused commands: %s", args, out)
		}
	}
}
