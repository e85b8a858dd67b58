package server

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeServerSection returns the README's "Run it as a server" section.
func readmeServerSection(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Run it as a server\n")
	if !ok {
		t.Fatal(`README.md has no "Run it as a server" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}

// TestREADME_Methods checks that the README's routes table lists exactly
// the JSON-RPC methods the server has.
func TestREADME_Methods(t *testing.T) {
	_, row, ok := strings.Cut(readmeServerSection(t), "\n| `POST /ns/NS/rpc` |")
	if !ok {
		t.Fatal("the README's routes table has no POST /ns/NS/rpc row")
	}
	row, _, _ = strings.Cut(row, "\n")
	var listed []string
	for _, m := range regexp.MustCompile("`([a-z_]+(?:\\.[a-z_]+)+)`").FindAllStringSubmatch(row, -1) {
		listed = append(listed, m[1])
	}
	slices.Sort(listed)
	listed = slices.Compact(listed)
	if have := Methods(); !slices.Equal(listed, have) {
		for _, m := range have {
			if !slices.Contains(listed, m) {
				t.Errorf("the README's routes table does not list method %s", m)
			}
		}
		for _, m := range listed {
			if !slices.Contains(have, m) {
				t.Errorf("the README's routes table lists %s, which is no method", m)
			}
		}
	}
}

// TestREADME_AdminMethods checks the README's list of what needs the admin
// role ("Security") against the role table: the JSON-RPC methods it names
// are exactly those that need admin.
func TestREADME_AdminMethods(t *testing.T) {
	_, list, ok := strings.Cut(readmeServerSection(t), "`admin` (+ ")
	if !ok {
		t.Fatal("the README's Security section has no list of what needs admin")
	}
	list, _, _ = strings.Cut(list, "; `graphs.list`")
	var named []string
	for _, m := range regexp.MustCompile("`([a-z_]+(?:\\.[a-z_*|]+)+)`").FindAllStringSubmatch(list, -1) {
		prefix, last := m[1][:strings.LastIndex(m[1], ".")+1], m[1][strings.LastIndex(m[1], ".")+1:]
		for _, alt := range strings.Split(last, "|") {
			if alt != "*" {
				named = append(named, prefix+alt)
				continue
			}
			for _, have := range Methods() {
				if strings.HasPrefix(have, prefix) {
					named = append(named, have)
				}
			}
		}
	}
	slices.Sort(named)
	var admin []string
	for _, m := range Methods() {
		if roleOf("rpc "+m) == RoleAdmin {
			admin = append(admin, m)
		}
	}
	if !slices.Equal(named, admin) {
		t.Errorf("the README says these methods need admin:\n%v\nthe role table:\n%v", named, admin)
	}
}

// TestREADME_Metrics checks that the README's /metrics row names every
// metric the server defines.
func TestREADME_Metrics(t *testing.T) {
	_, row, ok := strings.Cut(readmeServerSection(t), "\n| `GET /healthz`, `GET /metrics` |")
	if !ok {
		t.Fatal("the README's routes table has no /metrics row")
	}
	row, _, _ = strings.Cut(row, "\n")
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile(`"(cortex_[a-z_]+)"`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range name.FindAllStringSubmatch(string(src), -1) {
			if !strings.Contains(row, "`"+m[1]+"`") {
				t.Errorf("the README's /metrics row does not name %s (%s)", m[1], f)
			}
		}
	}
}
