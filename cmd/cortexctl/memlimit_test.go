package main

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  string
	}{
		{"768MiB", 768 << 20, ""},
		{"2GiB", 2 << 30, ""},
		{"1.5 GiB", 3 << 29, ""},
		{"500MB", 500e6, ""},
		{"1gb", 1e9, ""},
		{"314572800", 300 << 20, ""},
		{"off", math.MaxInt64, ""},
		{"0", math.MaxInt64, ""},
		{"1KiB", 0, "below 256MiB"},
		{"lots", 0, "not a size"},
		{"-5GiB", 0, "not a size"},
		{"", 0, "not a size"},
	} {
		got, err := parseSize(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseSize(%q) = %d, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

// TestCLI_SmallGOMEMLIMIT: a GOMEMLIMIT below the store's smallest budget
// still bounds the Go heap, and the store takes its smallest budget: every
// command works (here: a read on a missing store, exit 3, not 1).
func TestCLI_SmallGOMEMLIMIT(t *testing.T) {
	bin := buildCLI(t)
	cmd := exec.Command(bin, "--data", filepath.Join(t.TempDir(), "none"), "stats")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CORTEX_MEMORY_LIMIT=") && !strings.HasPrefix(kv, "GOMEMLIMIT=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GOMEMLIMIT=100MiB")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitNotFound {
		t.Fatalf("exit %v, output %q; want %d (no store)", err, out, exitNotFound)
	}
}
