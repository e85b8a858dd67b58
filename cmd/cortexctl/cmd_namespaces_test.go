package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
)

// readCommands are the commands that only read, with valid arguments.
var readCommands = [][]string{
	{"stats"}, {"graphs"}, {"export"}, {"query", "ASK {}"}, {"teams", "list"}, {"teams", "get", "t1"},
	{"conflicts", "list", "t1"}, {"findings", "list", "t1"}, {"namespaces", "list"},
}

// dirState describes what a directory holds, to see that a command left it
// as it was.
func dirState(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return "absent"
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Name()+":"+info.ModTime().String())
	}
	return strings.Join(names, ",")
}

// TestCLI_ReadCommandsCreateNothing: reading commands on a missing store,
// a directory that holds none, or a missing namespace exit 3 and create
// nothing.
func TestCLI_ReadCommandsCreateNothing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	unrelated := t.TempDir()
	if err := os.WriteFile(filepath.Join(unrelated, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := t.TempDir()
	mustCLI(t, store, "teams", "create", "--id", "t1", "--name", "n", "--member", "ann")
	for _, args := range readCommands {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			for _, dir := range []string{missing, unrelated} {
				before := dirState(t, dir)
				r := runCLI(t, dir, "", args...)
				if r.code != exitNotFound || !strings.Contains(r.stderr, "no store at "+dir) {
					t.Fatalf("%s: exit %d, stderr %q; want %d, no store at %s", dir, r.code, r.stderr, exitNotFound, dir)
				}
				if after := dirState(t, dir); after != before {
					t.Fatalf("%s changed: %s -> %s", dir, before, after)
				}
			}
			if args[0] == "namespaces" {
				return
			}
			r := runCLI(t, store, "", append([]string{"-n", "typo"}, args...)...)
			// The same line in both modes (through a server too).
			if r.code != exitNotFound || r.stderr != "cortexctl: no such namespace \"typo\"\n" {
				t.Fatalf("missing namespace: exit %d, stderr %q", r.code, r.stderr)
			}
			if out := mustCLI(t, store, "namespaces", "list", "--json"); strings.Contains(out, "typo") {
				t.Fatalf("namespace typo was created: %s", out)
			}
		})
	}
	// The same commands work on the store, read-only: beside another
	// reader, and not beside a writer.
	r, err := cortex.Open(context.Background(), store, cortex.DefaultOptions().WithReadOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range readCommands {
		mustCLI(t, store, args...)
	}
	if res := runCLI(t, store, "", "teams", "create", "--name", "x", "--member", "a"); res.code != exitLocked {
		t.Fatalf("a write beside a reader: exit %d (%s)", res.code, res.stderr)
	}
	r.Close()
	w, err := cortex.Open(context.Background(), store, cortex.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if res := runCLI(t, store, "", "stats"); res.code != exitLocked {
		t.Fatalf("a read beside a writer: exit %d (%s)", res.code, res.stderr)
	}
}

// TestCLI_ReadCommandRecoversInterruptedWrite: a read-only command on a
// store holding a write interrupted by a crash rolls it back (opening the
// store read-write once), says so (that it opens the store read-write to
// recover it, and what it rolls back), and runs.
func TestCLI_ReadCommandRecoversInterruptedWrite(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "import", writeFile(t, "a.nt", "<http://ex/s> <http://ex/p> \"o\" .\n"))
	// The header of a journaled delta that had written nothing yet, as
	// cortex writes it (journal.go, journalHeader): magic, first version,
	// namespace key prefix, CRC-32 of what precedes.
	b := []byte("cortex-journal1")
	b = binary.AppendUvarint(b, 1<<40)
	prefix := []byte("n:default/")
	b = binary.AppendUvarint(b, uint64(len(prefix)))
	b = append(b, prefix...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	journal := filepath.Join(dir, "cortex-delta.journal")
	if err := os.WriteFile(journal, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cortex.Open(context.Background(), dir, cortex.DefaultOptions().WithReadOnly(true)); err == nil {
		t.Fatal("the store opens read-only: the test does not test anything")
	}
	r := runCLI(t, dir, "", "stats", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// Two lines: the store is opened read-write to recover it, and what
	// is rolled back.
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "cortexctl stats opens it read-write once to recover it") ||
		!strings.Contains(lines[1], "rolling back an interrupted write in namespace default") {
		t.Fatalf("stderr %q", r.stderr)
	}
	var st struct{ Quads int }
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || st.Quads != 1 {
		t.Fatalf("stats %q (%v)", r.stdout, err)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Fatalf("journal still there (%v)", err)
	}
}

func TestCLI_Namespaces(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, "a.nt", "<http://ex/s> <http://ex/p> \"o\" .\n<http://ex/s> <http://ex/p> \"o2\" .\n")
	mustCLI(t, dir, "-n", "scratch", "import", in)
	cfg := writeFile(t, "c.json5", `{namespaces: {acme: {base: "https://acme.example/kg/"}}}`)
	mustCLI(t, dir, "--config", cfg, "-n", "acme", "teams", "create", "--name", "x", "--member", "a")
	var list []struct {
		Name, Base string
		Quads      int64
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "namespaces", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "acme" || list[0].Base != "https://acme.example/kg/" ||
		list[1].Name != "scratch" || list[1].Base != "urn:cortex:scratch" || list[1].Quads != 2 {
		t.Fatalf("list %+v", list)
	}
	if out := mustCLI(t, dir, "namespaces", "list"); !strings.Contains(out, "scratch  urn:cortex:scratch") {
		t.Fatalf("table:\n%s", out)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no --yes", []string{"namespaces", "delete", "scratch"}, exitUsage, "add --yes"},
		{"missing", []string{"namespaces", "delete", "nope", "--yes"}, exitNotFound, `no such namespace "nope"`},
		{"bad name", []string{"namespaces", "delete", "Bad", "--yes"}, exitInvalid, "invalid namespace name"},
		{"no name", []string{"namespaces", "delete", "--yes"}, exitUsage, "want NAME"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.code, tc.code, r.stderr, tc.msg)
			}
		})
	}
	var del struct {
		Namespace string
		Deleted   bool
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "namespaces", "delete", "scratch", "--yes", "--json")), &del); err != nil || del.Namespace != "scratch" || !del.Deleted {
		t.Fatalf("delete --json: %+v (%v)", del, err)
	}
	if r := runCLI(t, dir, "", "-n", "scratch", "stats"); r.code != exitNotFound {
		t.Fatalf("deleted namespace: exit %d", r.code)
	}
	// Created again, it starts empty.
	mustCLI(t, dir, "-n", "scratch", "import", writeFile(t, "b.nt", "<http://ex/s> <http://ex/p> \"new\" .\n"))
	if out := mustCLI(t, dir, "-n", "scratch", "export"); strings.Contains(out, `"o"`) || !strings.Contains(out, `"new"`) {
		t.Fatalf("re-created namespace:\n%s", out)
	}
	// Without a store, delete creates none.
	missing := filepath.Join(t.TempDir(), "missing")
	if r := runCLI(t, missing, "", "namespaces", "delete", "x", "--yes"); r.code != exitNotFound || dirState(t, missing) != "absent" {
		t.Fatalf("delete without a store: exit %d, %s", r.code, dirState(t, missing))
	}
}

// TestCLI_NamespaceBaseIsRecorded: a config whose base for a namespace
// differs from the one recorded when it was created is refused, naming
// both, by reading and writing commands alike.
func TestCLI_NamespaceBaseIsRecorded(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, "a.json5", `{namespaces: {acme: {base: "https://a.example/kg/"}}}`)
	b := writeFile(t, "b.json5", `{namespaces: {acme: {base: "https://b.example/kg/"}}}`)
	mustCLI(t, dir, "--config", a, "-n", "acme", "teams", "create", "--id", "t1", "--name", "x", "--member", "ann")
	mustCLI(t, dir, "--config", a, "-n", "acme", "teams", "get", "t1")
	for _, tc := range []struct {
		name string
		args []string
		want string // the base the config gives
	}{
		{"list, other base", []string{"--config", b, "-n", "acme", "teams", "list"}, "https://b.example/kg/"},
		{"get, other base", []string{"--config", b, "-n", "acme", "teams", "get", "t1"}, "https://b.example/kg/"},
		{"write, other base", []string{"--config", b, "-n", "acme", "teams", "create", "--name", "y", "--member", "bo"}, "https://b.example/kg/"},
		{"no config", []string{"-n", "acme", "teams", "list"}, "urn:cortex:acme"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != exitInvalid || !strings.Contains(r.stderr, `"https://a.example/kg/"`) || !strings.Contains(r.stderr, `"`+tc.want+`"`) {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
		})
	}
	// A namespace created without a config has the default base.
	mustCLI(t, dir, "-n", "plain", "teams", "create", "--name", "x", "--member", "ann")
	if r := runCLI(t, dir, "", "--config", a, "-n", "plain", "teams", "list"); r.code != 0 {
		t.Fatalf("no base configured for plain: exit %d (%s)", r.code, r.stderr)
	}
	c := writeFile(t, "c.json5", `{namespaces: {plain: {base: "https://c.example/"}}}`)
	if r := runCLI(t, dir, "", "--config", c, "-n", "plain", "teams", "list"); r.code != exitInvalid || !strings.Contains(r.stderr, "urn:cortex:plain") {
		t.Fatalf("custom base over a default one: exit %d (%s)", r.code, r.stderr)
	}
}

// TestCLI_ConfigUnknownDefaultStrategy: a config whose
// teams.defaultStrategy names no strategy is refused when it is read, as an
// invalid value (exit 7) naming the file and the key, by every command
// (serve too). It was accepted, and every team command then failed with
// "invalid team manager config", naming neither.
func TestCLI_ConfigUnknownDefaultStrategy(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, "cortex.json5", `{teams: {defaultStrategy: "majority"}}`)
	for _, args := range [][]string{
		{"--config", cfg, "teams", "list"},
		{"--config", cfg, "teams", "create", "--name", "x", "--member", "ann", "--strategy", "additive"},
		{"--config", cfg, "strategies"},
	} {
		r := runCLI(t, dir, "", args...)
		want := "config " + cfg + `: invalid config: teams.defaultStrategy: merge strategy "majority": unknown merge strategy (known: additive,`
		if r.code != exitInvalid || !strings.Contains(r.stderr, want) {
			t.Fatalf("%q: exit %d, stderr %q; want exit %d and %q", args, r.code, r.stderr, exitInvalid, want)
		}
	}
	mustCLI(t, dir, "--config", writeFile(t, "cortex.json5", `{teams: {defaultStrategy: "majority-wins"}}`), "strategies")
}

// TestCLI_TeamWritesCreateNothing: commands that write to an existing team
// never create a store or a namespace: a typo in --data or -n is "not
// found" (exit 3) and leaves nothing behind.
func TestCLI_TeamWritesCreateNothing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	store := t.TempDir()
	mustCLI(t, store, "teams", "create", "--id", "t1", "--name", "n", "--member", "ann")
	findings := writeFile(t, "f.nt", "<http://ex/s> <http://ex/p> \"o\" .\n")
	for _, args := range [][]string{
		{"teams", "member-status", "t1", "ann", "running"},
		{"teams", "merge", "t1"},
		{"teams", "delete", "t1"},
		{"findings", "add", "t1", "ann", "<http://ex/s>", "<http://ex/p>", "o"},
		{"findings", "import", "t1", "ann", findings},
		{"conflicts", "resolve", "t1", "c0123456789abcdef0123456789abcdef", "--object", "x", "--by", "ann"},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			if r := runCLI(t, missing, "", args...); r.code != exitNotFound || !strings.Contains(r.stderr, "no store at "+missing) {
				t.Fatalf("missing store: exit %d, stderr %q", r.code, r.stderr)
			}
			if _, err := os.Stat(missing); !os.IsNotExist(err) {
				t.Fatalf("%s was created (%v)", missing, err)
			}
			r := runCLI(t, store, "", append([]string{"-n", "typo"}, args...)...)
			// The same line in both modes (through a server too).
			if r.code != exitNotFound || r.stderr != "cortexctl: no such namespace \"typo\"\n" {
				t.Fatalf("missing namespace: exit %d, stderr %q", r.code, r.stderr)
			}
			if out := mustCLI(t, store, "namespaces", "list", "--json"); strings.Contains(out, "typo") {
				t.Fatalf("namespace typo was created: %s", out)
			}
		})
	}
}

// TestCLI_FailedImportCreatesNoNamespace: an import into a namespace that
// does not exist yet that fails (a syntax error, an interruption) before
// it commits anything creates no namespace: namespaces list shows none,
// and reading it is "no such namespace". An import into an existing
// namespace that fails keeps it, empty or not.
func TestCLI_FailedImportCreatesNoNamespace(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, "bad.nt", "<http://ex/s> <http://ex/p> \"o .\n")
	if r := runCLI(t, dir, "", "-n", "fresh", "import", bad); r.code != exitSyntax {
		t.Fatalf("import: exit %d (want %d), stderr %q", r.code, exitSyntax, r.stderr)
	}
	var nt strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&nt, "<http://example.org/s%d> <http://example.org/p> \"%d\" .\n", i, i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"cortexctl", "--data", dir, "-n", "stopped", "import", "-f", "nt", "-"},
		&cancelOnRead{r: strings.NewReader(nt.String()), cancel: cancel}, &out, &errb); code != exitTimeout {
		t.Fatalf("interrupted import: exit %d (want %d), stderr %q", code, exitTimeout, errb.String())
	}
	// Each created the store in the empty directory and removed it again
	// (TestImport_FailedFirstImportLeavesNoStore).
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Fatalf("--data after the failed imports: %v, %v; want it empty", ents, err)
	}
	for _, ns := range []string{"fresh", "stopped"} {
		if r := runCLI(t, dir, "", "-n", ns, "stats"); r.code != exitNotFound {
			t.Fatalf("stats of %s: exit %d, stderr %q", ns, r.code, r.stderr)
		}
	}
	// An existing (empty) namespace stays.
	mustCLI(t, dir, "-n", "kept", "import", writeFile(t, "empty.nt", ""))
	if r := runCLI(t, dir, "", "-n", "kept", "import", bad); r.code != exitSyntax {
		t.Fatalf("import into kept: exit %d, stderr %q", r.code, r.stderr)
	}
	if out := mustCLI(t, dir, "namespaces", "list"); !strings.Contains(out, "kept") {
		t.Fatalf("namespaces after a failed import into an existing one:\n%s", out)
	}
}
