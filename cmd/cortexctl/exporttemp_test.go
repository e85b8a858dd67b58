package main

import "testing"

// TestIsExportTemp: only names made of the export's own prefix, a base-36
// number and the suffix are taken for an export's temporary files; a name
// without the prefix is a user's file, whatever its suffix.
func TestIsExportTemp(t *testing.T) {
	target := "/out/all.nq"
	for name, want := range map[string]bool{
		".all.nq.abc.cortexctl-tmp":            true,
		".all.nq.0123456789abc.cortexctl-tmp":  true,
		".all.nq.0123456789abcd.cortexctl-tmp": false, // 14 digits
		".all.nq..cortexctl-tmp":               false,
		".all.nq.A-b.cortexctl-tmp":            false,
		"abc.cortexctl-tmp":                    false, // no prefix
		"x.cortexctl-tmp":                      false,
		".other.nq.abc.cortexctl-tmp":          false,
		".all.nq.abc":                          false,
	} {
		if got := isExportTemp(name, target); got != want {
			t.Errorf("isExportTemp(%q): %v, want %v", name, got, want)
		}
	}
}
