package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
)

type result struct {
	code           int
	stdout, stderr string
}

// runCLI runs cortexctl against the store in dir. When the test ends, the
// store in dir, if any, is checked (cortextest.CheckDir). In the CLI tests
// through a server (TestCLI_ThroughServer), the command goes through a
// server of the store in dir, if there is one (serveForCLI).
func runCLI(t *testing.T, dir string, stdin string, args ...string) result {
	t.Helper()
	cortextest.CheckDir(t, dir)
	var stop func(code int)
	if throughServer {
		stop = serveForCLI(t, dir, args)
	}
	var out, errb bytes.Buffer
	full := append([]string{"cortexctl", "--data", dir}, args...)
	code := run(context.Background(), full, strings.NewReader(stdin), &out, &errb)
	if stop != nil {
		stop(code)
	}
	return result{code, out.String(), errb.String()}
}

func mustCLI(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := runCLI(t, dir, "", args...)
	if r.code != 0 {
		t.Fatalf("cortexctl %v: exit %d\n%s", args, r.code, r.stderr)
	}
	return r.stdout
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const sampleTTL = `@prefix ex: <http://example.org/> .
ex:a ex:p "x", "01"^^<http://www.w3.org/2001/XMLSchema#integer>, "hi"@en ;
     ex:q [ ex:r _:b1 ] .
_:b1 ex:s <rel> .
`

func TestCLI_ImportExportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, "sample.ttl", sampleTTL)
	out := mustCLI(t, dir, "import", in)
	if !strings.Contains(out, "imported 6 quads") {
		t.Fatalf("import output %q", out)
	}
	nq := mustCLI(t, dir, "export")
	for _, want := range []string{`"01"^^<http://www.w3.org/2001/XMLSchema#integer>`, `"hi"@en`, "<file://" + filepath.Dir(in) + "/rel>"} {
		if !strings.Contains(nq, want) {
			t.Errorf("export lacks %s:\n%s", want, nq)
		}
	}
	// Re-import the export into another namespace: same size.
	exp := writeFile(t, "exp.nq", nq)
	mustCLI(t, dir, "--namespace", "copy", "import", exp)
	var st struct{ Quads int64 }
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "--namespace", "copy", "stats", "--json")), &st); err != nil || st.Quads != 6 {
		t.Fatalf("copy has %d quads (%v)", st.Quads, err)
	}
	// Turtle export to a file, read back.
	ttl := filepath.Join(t.TempDir(), "out.ttl")
	mustCLI(t, dir, "export", "-o", ttl)
	// The file has the permissions of any new file (not a temporary
	// file's 0600).
	plain := filepath.Join(filepath.Dir(ttl), "plain")
	if err := os.WriteFile(plain, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if a, b := fileMode(t, ttl), fileMode(t, plain); a != b {
		t.Errorf("exported file has mode %v, a new file %v", a, b)
	}
	mustCLI(t, dir, "--namespace", "ttl", "import", ttl)
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "--namespace", "ttl", "stats", "--json")), &st); err != nil || st.Quads != 6 {
		t.Fatalf("turtle round trip has %d quads (%v)", st.Quads, err)
	}
}

func TestCLI_ImportIntoGraphAndListGraphs(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, "a.nt", "<http://example.org/s> <http://example.org/p> \"o\" .\n")
	mustCLI(t, dir, "import", "--graph", "http://example.org/g1", in)
	mustCLI(t, dir, "import", in)
	var gs []struct {
		Graph *string
		Quads int64
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "graphs", "--json")), &gs); err != nil {
		t.Fatal(err)
	}
	if len(gs) != 2 || gs[0].Graph != nil || gs[1].Graph == nil || *gs[1].Graph != "http://example.org/g1" || gs[1].Quads != 1 {
		t.Fatalf("graphs %+v", gs)
	}
	nt := mustCLI(t, dir, "export", "--graph", "http://example.org/g1", "--format", "ntriples")
	if nt != "<http://example.org/s> <http://example.org/p> \"o\" .\n" {
		t.Fatalf("one-graph export %q", nt)
	}
}

// TestCLI_ImportIntoDefaultGraph: import --graph default puts every quad,
// those of N-Quads' named graphs too, into the default graph, where
// export --graph default reads them back; with a file missing it imports
// nothing. (The store exists first, so that through a server the imports
// go to it.)
func TestCLI_ImportIntoDefaultGraph(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "import", writeFile(t, "c.nt", "<http://example.org/s> <http://example.org/p> \"c\" .\n"))
	in := writeFile(t, "a.nq", "<http://example.org/s> <http://example.org/p> \"a\" <http://example.org/g1> .\n"+
		"<http://example.org/s> <http://example.org/p> \"b\" .\n")
	if r := runCLI(t, dir, "", "import", "--graph", "default", in, filepath.Join(t.TempDir(), "missing.nq")); r.code != exitNotFound {
		t.Fatalf("import with a missing file: exit %d: %s", r.code, r.stderr)
	}
	mustCLI(t, dir, "import", "--graph", "default", in)
	var gs []struct {
		Graph *string
		Quads int64
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "graphs", "--json")), &gs); err != nil {
		t.Fatal(err)
	}
	if len(gs) != 1 || gs[0].Graph != nil || gs[0].Quads != 3 {
		t.Fatalf("graphs %+v, want the default graph only, 3 quads", gs)
	}
	nt := mustCLI(t, dir, "export", "--graph", "default", "--format", "ntriples")
	want := "<http://example.org/s> <http://example.org/p> \"a\" .\n<http://example.org/s> <http://example.org/p> \"b\" .\n" +
		"<http://example.org/s> <http://example.org/p> \"c\" .\n"
	if got := strings.Join(slices.Sorted(slices.Values(strings.SplitAfter(nt, "\n"))), ""); got != want {
		t.Fatalf("default graph export %q, want %q", got, want)
	}
}

func TestCLI_StdinImport(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, dir, "<http://example.org/s> <http://example.org/p> <http://example.org/o> <http://example.org/g> .\n", "import", "--format", "nquads", "-")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r := runCLI(t, dir, "", "import", "-"); r.code != exitUsage {
		t.Fatalf("stdin without --format: exit %d", r.code)
	}
}

// TestCLI_StdinImport_NoBase: standard input is no file, so it has no
// base but --base: a relative IRI in it is a syntax error that writes
// nothing (it was resolved against the file:// URL of a file named
// "<stdin>" in the working directory), and with --base it resolves there.
func TestCLI_StdinImport_NoBase(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "import", writeFile(t, "one.nt", "<http://example.org/s> <http://example.org/p> <http://example.org/o> .\n"))
	const rel = "<rel> <http://example.org/p> <> .\n"
	r := runCLI(t, dir, rel, "import", "--format", "turtle", "-")
	if r.code != exitSyntax || !strings.Contains(r.stderr, "<stdin>:1:1: relative IRI <rel> and no base IRI") {
		t.Fatalf("relative IRI on stdin: exit %d, want %d\n%s", r.code, exitSyntax, r.stderr)
	}
	if got := mustCLI(t, dir, "export", "--format", "ntriples"); got != "<http://example.org/s> <http://example.org/p> <http://example.org/o> .\n" {
		t.Fatalf("after the failed import: %q", got)
	}
	r = runCLI(t, dir, rel, "import", "--format", "turtle", "--base", "http://example.org/d/", "-")
	if r.code != 0 {
		t.Fatalf("with --base: exit %d\n%s", r.code, r.stderr)
	}
	if got := mustCLI(t, dir, "export", "--format", "ntriples"); !strings.Contains(got, "<http://example.org/d/rel> <http://example.org/p> <http://example.org/d/> .\n") {
		t.Fatalf("with --base: %q", got)
	}
}

func fileMode(t *testing.T, name string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestCLI_ExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, "bad.nt", "<http://example.org/s> <http://example.org/p> \"unterminated .\n")
	// The namespace exists (export to a missing directory needs it): a
	// failed import into a new one creates none.
	mustCLI(t, dir, "import", writeFile(t, "empty.nt", ""))
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"syntax", []string{"import", bad}, exitSyntax, bad + ":1:"},
		{"missing file", []string{"import", filepath.Join(dir, "nope.nt")}, exitNotFound, "no such file"},
		{"unknown flag", []string{"import", "--bogus"}, exitUsage, "import: unknown flag --bogus (see cortexctl import --help)"},
		{"no args", []string{"import"}, exitUsage, "no file given"},
		{"bad namespace", []string{"--namespace", "Bad NS", "graphs"}, exitInvalid, `invalid namespace name "Bad NS"`},
		{"bad graph", []string{"export", "--graph", "not absolute"}, exitInvalid, "--graph"},
		{"export to a missing directory", []string{"export", "-o", filepath.Join(dir, "no", "out.nq")}, exitNotFound,
			"export: create " + filepath.Join(dir, "no", "out.nq") + ": no such file or directory"},
		{"unknown format", []string{"export", "--format", "rdfxml"}, exitUsage, "rdfxml"},
		{"unknown extension", []string{"import", writeFile(t, "x.rdf", "")}, exitUsage, "--format"},
		{"bad config", []string{"--config", writeFile(t, "c.json5", "{teams: {maxTeamSize: 'x'}}"), "graphs"}, exitInvalid, "teams.maxTeamSize"},
		{"unknown command", []string{"frobnicate"}, exitUsage, "frobnicate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr+r.stdout, tc.msg) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.code, tc.code, r.stderr, tc.msg)
			}
		})
	}
	// Nothing was imported by the failed runs.
	if out := mustCLI(t, dir, "export"); out != "" {
		t.Fatalf("failed imports left data: %q", out)
	}
}

// TestCLI_ExportMissingGraph: export --graph of a named graph that holds
// no quad (one that does not exist) exits 3 saying so and writes nothing,
// neither to standard output nor to -o (an existing file keeps its
// content); the default graph always exists, so its export is empty.
func TestCLI_ExportMissingGraph(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "import", writeFile(t, "g.nq", "<http://example.org/s> <http://example.org/p> <http://example.org/o> <http://example.org/g1> .\n"))
	out := filepath.Join(t.TempDir(), "out.nq")
	if err := os.WriteFile(out, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		msg    string
	}{
		{"missing graph", []string{"export", "--graph", "http://example.org/nope"}, exitNotFound, "",
			"not found: graph <http://example.org/nope> in namespace default"},
		{"missing graph to a file", []string{"export", "--graph", "<http://example.org/nope>", "-o", out, "--json"}, exitNotFound, "",
			"not found: graph <http://example.org/nope> in namespace default"},
		{"missing graph as N-Triples", []string{"export", "--graph", "http://example.org/nope", "-f", "nt"}, exitNotFound, "",
			"not found: graph <http://example.org/nope> in namespace default"},
		{"empty default graph", []string{"export", "--graph", "default"}, exitOK, "", ""},
		{"named graph", []string{"export", "--graph", "http://example.org/g1", "-f", "nt"}, exitOK,
			"<http://example.org/s> <http://example.org/p> <http://example.org/o> .\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code || r.stdout != tc.stdout || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d (want %d), stdout %q (want %q), stderr %q (want %q)", r.code, tc.code, r.stdout, tc.stdout, r.stderr, tc.msg)
			}
		})
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "keep\n" {
		t.Fatalf("-o file after exports of a missing graph: %q, %v", b, err)
	}
	if names := entries(t, filepath.Dir(out)); len(names) != 1 {
		t.Fatalf("files beside -o after exports of a missing graph: %v", names)
	}
}

// TestCLI_ImportUnclosedCollection is issue #16: an unclosed Turtle
// collection used to swallow the rest of the file and import with exit 0.
func TestCLI_ImportUnclosedCollection(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, "bad.ttl", "@prefix ex: <http://ex/> .\nex:a ex:b ( ex:c .\nex:e ex:f ex:g .\n")
	r := runCLI(t, dir, "", "import", bad)
	if r.code != exitSyntax || !strings.Contains(r.stderr, bad+":2:18: ") || !strings.Contains(r.stderr, "collection") {
		t.Fatalf("exit %d (want %d), stderr %q (want %s:2:18: ... collection ...)", r.code, exitSyntax, r.stderr, bad)
	}
	// It left nothing, not even the store it created
	// (TestImport_FailedFirstImportLeavesNoStore).
	if r := runCLI(t, dir, "", "export"); r.code != exitNotFound || r.stdout != "" || !strings.Contains(r.stderr, "no store at") {
		t.Fatalf("export after the failed import: exit %d (want %d), stdout %q, stderr %q", r.code, exitNotFound, r.stdout, r.stderr)
	}
}

func TestCLI_LockedStore(t *testing.T) {
	dir := t.TempDir()
	s, err := cortex.Open(context.Background(), dir, cortex.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := runCLI(t, dir, "", "graphs")
	// This process holds it: the message names it where the system tells
	// the holder (on Unix: TestCLI_TwoProcessesOneStore).
	want := regexp.MustCompile(fmt.Sprintf(`^cortexctl: store %s is in use by another process( \(pid %d\))?\n$`, regexp.QuoteMeta(dir), os.Getpid()))
	if r.code != exitLocked || !want.MatchString(r.stderr) {
		t.Fatalf("exit %d, stderr %q; want %d, %s", r.code, r.stderr, exitLocked, want)
	}
}

func TestCLI_HelpAndVersion(t *testing.T) {
	dir := t.TempDir()
	if out := mustCLI(t, dir, "--version"); !strings.Contains(out, version) {
		t.Fatalf("version output %q", out)
	}
	for _, cmd := range []string{"import", "export", "graphs", "stats"} {
		out := mustCLI(t, dir, cmd, "--help")
		if !strings.Contains(out, "Example") {
			t.Errorf("%s --help has no example:\n%s", cmd, out)
		}
	}
}

// TestCLI_InvalidValues: invalid config and option values exit 7 (2 for
// flags used together that exclude each other) and write nothing.
func TestCLI_InvalidValues(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "t1", "--name", "n", "--member", "ann")
	nt := writeFile(t, "a.nt", "<http://ex/s> <http://ex/p> \"o\" .\n")
	cfg := func(s string) string { return writeFile(t, "c.json5", s) }
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"base not an IRI", []string{"--config", cfg(`{namespaces: {default: {base: "kg/acme"}}}`), "graphs"}, exitInvalid, "namespaces.default.base"},
		{"bad namespace name", []string{"--config", cfg(`{namespaces: {"Acme": {}}}`), "graphs"}, exitInvalid, `invalid namespace name "Acme"`},
		{"prefix not absolute", []string{"--config", cfg(`{prefixes: {ex: "example.org/"}}`), "graphs"}, exitInvalid, "prefixes.ex"},
		{"built-in prefix", []string{"--config", cfg(`{prefixes: {rdf: "http://example.org/"}}`), "graphs"}, exitInvalid, `"rdf" is a built-in prefix`},
		{"import --base rel", []string{"import", "--base", "rel", nt}, exitInvalid, "--base"},
		{"--memory-limit lots", []string{"--memory-limit", "lots", "graphs"}, exitInvalid, "--memory-limit"},
		{"teams create --timeout -5", []string{"teams", "create", "--name", "x", "--member", "a", "--timeout", "-5"}, exitInvalid, "timeout -5"},
		{"--none with --object", []string{"conflicts", "resolve", "t1", "c1", "--none", "--object", "x"}, exitUsage, "exclude each other"},
		{"query --timeout -1s", []string{"query", "--timeout", "-1s", "ASK {}"}, exitInvalid, "--timeout -1s"},
		{"export -o x.rdf", []string{"export", "-o", filepath.Join(t.TempDir(), "x.rdf")}, exitUsage, "give --format"},
		{"findings add --at", []string{"findings", "add", "t1", "ann", "<http://s>", "<http://p>", "o", "--at", "2026-13-01"}, exitInvalid, "such as 2026-01-02T15:04:05Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := mustCLI(t, dir, "export")
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) || strings.Contains(r.stderr, "2006") {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.code, tc.code, r.stderr, tc.msg)
			}
			if after := mustCLI(t, dir, "export"); after != before {
				t.Fatalf("the failed command wrote:\n%s", after)
			}
		})
	}
	// -1 is "no timeout".
	mustCLI(t, dir, "teams", "create", "--name", "x", "--member", "a", "--timeout", "-1")
	// Short format names.
	for _, f := range []string{"nt", "ttl", "nq"} {
		mustCLI(t, dir, "export", "-f", f)
	}
	out := filepath.Join(t.TempDir(), "x.rdf")
	mustCLI(t, dir, "export", "-o", out, "--format", "nt")
}

// TestCLI_EmptyData: --data given empty on the command line is a usage error
// (exit 2, as any empty option value is) and writes nothing, not even in the working directory.
func TestCLI_EmptyData(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "t1", "--name", "n", "--member", "ann")
	cwd := t.TempDir()
	t.Chdir(cwd)
	for _, args := range [][]string{{"teams", "list"}, {"tokens", "create", "--role", "read"}, {"stats"}} {
		var out, errb bytes.Buffer
		code := run(context.Background(), append([]string{"cortexctl", "--data", ""}, args...), strings.NewReader(""), &out, &errb)
		r := result{code, out.String(), errb.String()}
		if r.code != exitUsage || !strings.Contains(r.stderr, "usage: --data is empty") {
			t.Errorf("%v with --data \"\": exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if ents, err := os.ReadDir(cwd); err != nil || len(ents) != 0 {
		t.Fatalf("the working directory holds %v (%v)", ents, err)
	}
}

// TestCLI_UnsendableToken: a --token no HTTP header can carry is an
// invalid value (exit 7) before anything is sent, and is not printed.
func TestCLI_UnsendableToken(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "t1", "--name", "n", "--member", "ann")
	secret := "ctk_secret\nInjected: header"
	sock := "unix://" + filepath.Join(t.TempDir(), "none.sock")
	for _, args := range [][]string{{"teams", "list"}, {"tokens", "list"}} {
		r := runCLI(t, dir, "", append([]string{"--server", sock, "--token", secret}, args...)...)
		if r.code != exitInvalid || !strings.Contains(r.stderr, "--token") || strings.Contains(r.stderr, "secret") {
			t.Errorf("%v with a token holding a newline: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

// TestCLI_DataIsAFile: a --data that is a file, or a path under one, holds
// no store: a command that reads says so (exit 3), one that would create
// the store says --data is not a directory (exit 7), each in one line (no
// word about a discovery file), and the file is left as it was.
func TestCLI_DataIsAFile(t *testing.T) {
	file := writeFile(t, "data", "not a store\n")
	nt := writeFile(t, "a.nt", "<http://ex/s> <http://ex/p> \"o\" .\n")
	for _, tc := range []struct {
		name string
		data string
		args []string
		code int
		msg  string
	}{
		{"stats", file, []string{"stats"}, exitNotFound, "no store at " + file + " (not a directory)"},
		{"teams list under", file + "/sub", []string{"teams", "list"}, exitNotFound, "no store at " + file + "/sub (not a directory)"},
		{"findings add", file, []string{"findings", "add", "t", "a", "<http://ex/s>", "<http://ex/p>", "o"}, exitNotFound, "(not a directory)"},
		{"import", file, []string{"import", nt}, exitInvalid, "--data " + file + " is not a directory"},
		{"teams create under", file + "/sub", []string{"teams", "create", "--name", "x", "--member", "a:lead"}, exitInvalid, "--data " + file + "/sub is not a directory"},
		{"tokens list", file, []string{"tokens", "list"}, exitNotFound, "no store at " + file + " (not a directory)"},
		{"tokens create under", file + "/sub", []string{"tokens", "create", "--role", "read"}, exitInvalid, "--data " + file + "/sub is not a directory"},
		{"tokens revoke", file, []string{"tokens", "revoke", "x"}, exitInvalid, "--data " + file + " is not a directory"},
		{"serve", file, []string{"serve", "--listen", "127.0.0.1:0"}, exitInvalid, "--data " + file + " is not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Not runCLI: there is no store to check (CheckDir) or serve.
			var out, errb bytes.Buffer
			code := run(context.Background(), append([]string{"cortexctl", "--data", tc.data}, tc.args...), strings.NewReader(""), &out, &errb)
			r := result{code, out.String(), errb.String()}
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) || strings.Count(r.stderr, "\n") != 1 {
				t.Fatalf("exit %d (want %d), stderr %q (want one line with %q)", r.code, tc.code, r.stderr, tc.msg)
			}
		})
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "not a store\n" {
		t.Fatalf("the file changed: %q, %v", b, err)
	}
}

// TestCLI_RDFFormatErrors: an RDF format or extension that import, export
// or findings import do not take is a usage error that lists those they
// take — never RDF/XML, which only query results are written in, and never
// "it is written, not read" for export, which writes.
func TestCLI_RDFFormatErrors(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "t1", "--name", "n", "--member", "ann")
	rdf := writeFile(t, "x.rdf", "<http://ex/s> <http://ex/p> \"o\" .\n")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"export", "-o", filepath.Join(t.TempDir(), "out.rdf")}, "(known extensions: .nq, .nt, .ttl) (give --format)"},
		{[]string{"export", "--format", "rdfxml"}, `"rdfxml" (known: nquads (nq), ntriples (nt), turtle (ttl))`},
		{[]string{"import", rdf}, "(known extensions: .nq, .nt, .ttl) (use --format)"},
		{[]string{"import", rdf, "--format", "xml"}, `"xml" (known: nquads (nq), ntriples (nt), turtle (ttl))`},
		{[]string{"findings", "import", "t1", "ann", rdf}, "(known extensions: .nq, .nt, .ttl), or .json, .jsonl, .ndjson (use --format)"},
		{[]string{"findings", "import", "t1", "ann", rdf, "--format", "rdfxml"}, `"rdfxml" (known: nquads (nq), ntriples (nt), turtle (ttl)), or json`},
	} {
		t.Run(strings.Join(tc.args[:2], " "), func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tc.msg) || strings.Contains(r.stderr, "written, not read") {
				t.Fatalf("%q: exit %d (want %d), stderr %q (want %q)", tc.args, r.code, exitUsage, r.stderr, tc.msg)
			}
		})
	}
}

// TestCLI_ExportOutputFile: export -o replaces an existing file as the
// shell's > would write it, through a temporary file: the file keeps its
// permissions (a private backup stays private; it became 0644), a symbolic
// link keeps pointing to the file, which is replaced (the link was
// replaced by a file), and a directory is refused before anything is
// read (the export ran in full, then failed with exit 1 naming its
// temporary file: "rename .dir.x dir: file exists").
func TestCLI_ExportOutputFile(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "import", writeFile(t, "a.nt", "<http://example.org/s> <http://example.org/p> \"o\" .\n"))
	const want = "<http://example.org/s> <http://example.org/p> \"o\" .\n"
	t.Run("private file", func(t *testing.T) {
		out := writeFile(t, "private.nq", "old\n")
		if err := os.Chmod(out, 0o600); err != nil {
			t.Fatal(err)
		}
		mustCLI(t, dir, "export", "-o", out)
		if got := readString(t, out); got != want {
			t.Fatalf("exported %q, want %q", got, want)
		}
		if m := fileMode(t, out); m != 0o600 {
			t.Fatalf("the exported file has mode %v, want the file's own -rw-------", m)
		}
	})
	t.Run("symbolic link", func(t *testing.T) {
		target := writeFile(t, "target.nq", "old\n")
		link := filepath.Join(t.TempDir(), "link.nq")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		mustCLI(t, dir, "export", "-o", link)
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("-o LINK: the link was replaced (%v, %v)", fi.Mode(), err)
		}
		if got := readString(t, target); got != want {
			t.Fatalf("the link's file holds %q, want %q", got, want)
		}
		if names := entries(t, filepath.Dir(link)); len(names) != 1 {
			t.Fatalf("beside the link: %v", names)
		}
	})
	// A dangling link: as the shell's > does, the file it points to is
	// created and the link kept (the link was replaced by a file).
	t.Run("dangling symbolic link", func(t *testing.T) {
		linkDir := t.TempDir()
		link := filepath.Join(linkDir, "link.nq")
		if err := os.Symlink("target.nq", link); err != nil {
			t.Fatal(err)
		}
		mustCLI(t, dir, "export", "-o", link)
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("-o LINK: the link was replaced (%v, %v)", fi.Mode(), err)
		}
		if got := readString(t, filepath.Join(linkDir, "target.nq")); got != want {
			t.Fatalf("the link's file holds %q, want %q", got, want)
		}
		if names := entries(t, linkDir); len(names) != 2 {
			t.Fatalf("beside the link: %v", names)
		}
	})
	// The format is -o's extension, else N-Quads: a file without one, a
	// device (/dev/stdout, /dev/null), a directory (refused as such, exit
	// 7) are no unknown format. Another extension is (exit 2).
	t.Run("no extension", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		mustCLI(t, dir, "export", "-o", out)
		if got := readString(t, out); got != want {
			t.Fatalf("exported %q, want %q", got, want)
		}
	})
	t.Run("device", func(t *testing.T) {
		if r := runCLI(t, dir, "", "export", "-o", os.DevNull); r.code != 0 || !strings.Contains(r.stdout, "(nquads)") {
			t.Fatalf("-o %s: exit %d, stdout %q, stderr %q", os.DevNull, r.code, r.stdout, r.stderr)
		}
	})
	t.Run("unknown extension", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out.rdf")
		if r := runCLI(t, dir, "", "export", "-o", out); r.code != exitUsage || !strings.Contains(r.stderr, "give --format") {
			t.Fatalf("-o %s: exit %d (want %d), stderr %q", out, r.code, exitUsage, r.stderr)
		}
	})
	t.Run("directory", func(t *testing.T) {
		out := t.TempDir()
		for _, args := range [][]string{{"export", "-f", "nq", "-o", out}, {"export", "-o", out}} {
			r := runCLI(t, dir, "", args...)
			if r.code != exitInvalid || !strings.Contains(r.stderr, "export: -o "+out+" is a directory") {
				t.Fatalf("%v: exit %d (want %d), stderr %q", args, r.code, exitInvalid, r.stderr)
			}
		}
		if names := entries(t, out); len(names) != 0 {
			t.Fatalf("-o DIR left %v in it", names)
		}
		if names := entries(t, filepath.Dir(out)); len(names) != 1 {
			t.Fatalf("-o DIR left %v beside it", names)
		}
	})
}

func readString(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCLI_GraphsStatsTakeNoArgument: graphs and stats take no argument;
// one (stats acme, meaning -n acme) was ignored and the default
// namespace's answer printed.
func TestCLI_GraphsStatsTakeNoArgument(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "import", writeFile(t, "a.nt", "<http://example.org/s> <http://example.org/p> \"o\" .\n"))
	for _, cmd := range []string{"graphs", "stats"} {
		r := runCLI(t, dir, "", cmd, "acme")
		if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, cmd+`: unexpected argument "acme"`) {
			t.Errorf("%s acme: exit %d (want %d), stdout %q, stderr %q", cmd, r.code, exitUsage, r.stdout, r.stderr)
		}
	}
}

// TestCLI_ImportSeveralFiles_OneFails: each file is an import of its own;
// the error of one that fails says which files were imported before it
// and which ones were not (it said only "(nothing was imported)", of the
// failed file, while the one before it was).
func TestCLI_ImportSeveralFiles_OneFails(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, "a.nt", "<http://example.org/a> <http://example.org/p> \"1\" .\n")
	b := writeFile(t, "b.nt", "<http://example.org/b> <http://example.org/p> \"2 .\n")
	c := writeFile(t, "c.nt", "<http://example.org/c> <http://example.org/p> \"3\" .\n")
	r := runCLI(t, dir, "", "import", a, b, c)
	want := b + ":1:47: unterminated string literal (nothing was imported); the files before it were imported: " + a + " (1 quad); the files after it were not: " + c + "\n"
	if r.code != exitSyntax || !strings.HasSuffix(r.stderr, want) {
		t.Fatalf("exit %d (want %d), stderr %q (want it to end with %q)", r.code, exitSyntax, r.stderr, want)
	}
	if got := mustCLI(t, dir, "export", "-f", "nt"); got != "<http://example.org/a> <http://example.org/p> \"1\" .\n" {
		t.Fatalf("after the failed command the namespace holds %q", got)
	}
}

// cancelOnRead cancels a context on its first Read.
type cancelOnRead struct {
	r      io.Reader
	cancel context.CancelFunc
}

func (c *cancelOnRead) Read(p []byte) (int, error) {
	c.cancel()
	return c.r.Read(p)
}

// cancelOnWrite cancels a context on its first Write.
type cancelOnWrite struct {
	bytes.Buffer
	cancel context.CancelFunc
}

func (c *cancelOnWrite) Write(p []byte) (int, error) {
	c.cancel()
	return c.Buffer.Write(p)
}

// TestCLI_ImportExportInterrupted: an import or export stopped by Ctrl-C
// (its context cancelled) says it was interrupted (it said "context
// canceled"), and an export to standard output that its output is
// incomplete, as a stopped query does.
func TestCLI_ImportExportInterrupted(t *testing.T) {
	dir := t.TempDir()
	var nt strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&nt, "<http://example.org/s%d> <http://example.org/p> \"%d\" .\n", i, i)
	}
	ok := writeFile(t, "ok.nt", "<http://example.org/a> <http://example.org/p> \"1\" .\n")
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb bytes.Buffer
	code := run(ctx, []string{"cortexctl", "--data", dir, "import", "-f", "nt", "-", ok}, &cancelOnRead{r: strings.NewReader(nt.String()), cancel: cancel}, &out, &errb)
	if code != exitTimeout || !strings.Contains(errb.String(), "cortexctl: import <stdin>: interrupted: ") ||
		!strings.HasSuffix(errb.String(), "; the files after it were not: "+ok+"\n") {
		t.Fatalf("import: exit %d (want %d), stderr %q", code, exitTimeout, errb.String())
	}
	mustCLI(t, dir, "import", "-f", "nt", writeFile(t, "big.nt", nt.String()))
	ctx, cancel = context.WithCancel(context.Background())
	w := &cancelOnWrite{cancel: cancel}
	errb.Reset()
	code = run(ctx, []string{"cortexctl", "--data", dir, "export"}, strings.NewReader(""), w, &errb)
	if code != exitTimeout || !strings.HasPrefix(errb.String(), "cortexctl: export interrupted: the output is incomplete: ") {
		t.Fatalf("export: exit %d (want %d), stderr %q", code, exitTimeout, errb.String())
	}
}

// TestCLI_ImportResumeOtherGraph: an interrupted import (here one that
// failed half-way) run again with another --graph (or --graph default, or
// none) is refused (exit 7) before it writes, the message naming both
// targets and the ways on; the first --graph resumes it, and --import-id
// imports the file anew into another graph.
func TestCLI_ImportResumeOtherGraph(t *testing.T) {
	store := t.TempDir()
	var b strings.Builder
	for i := 0; i < 20_000; i++ {
		fmt.Fprintf(&b, "_:f%d <http://ex/says> \"finding %d\" .\n", i, i)
	}
	path := writeFile(t, "half.nt", b.String()+"not N-Triples\n")
	quads := func() int {
		t.Helper()
		var st struct{ Quads int }
		if err := json.Unmarshal([]byte(mustCLI(t, store, "stats", "--json")), &st); err != nil {
			t.Fatal(err)
		}
		return st.Quads
	}
	r := runCLI(t, store, "", "import", path, "--graph", "http://ex/g1")
	m := regexp.MustCompile(`as import ([A-Za-z0-9_-]+) `).FindStringSubmatch(r.stderr)
	if r.code != exitSyntax || m == nil {
		t.Fatalf("first import: exit %d, stderr %q; want a syntax error after committed chunks", r.code, r.stderr)
	}
	id := m[1]
	size := quads()
	if size == 0 {
		t.Fatal("the first import committed nothing: the test tests nothing")
	}
	for _, c := range []struct {
		args []string
		not  string
	}{
		{[]string{"--graph", "default"}, "not the default graph"},
		{nil, "not the input's own graphs (no graph given)"},
		{[]string{"--graph", "http://ex/g2"}, "not graph <http://ex/g2>"},
		{[]string{"--graph", "http://ex/g2", "--import-id", id}, "not graph <http://ex/g2>"},
	} {
		r := runCLI(t, store, "", append([]string{"import", path}, c.args...)...)
		for _, want := range []string{"import " + id + " of " + path + " was interrupted while it imported into graph <http://ex/g1>, " + c.not,
			"import it again into graph <http://ex/g1> to resume it", "under a new import id (import-id NEW)"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("import %v: stderr %q lacks %q", c.args, r.stderr, want)
			}
		}
		if r.code != exitInvalid || strings.Contains(r.stderr, "resuming import") {
			t.Fatalf("import %v: exit %d, stderr %q; want exit %d before the import starts", c.args, r.code, r.stderr, exitInvalid)
		}
		if n := quads(); n != size {
			t.Fatalf("import %v: %d quads, want %d: the refused import wrote", c.args, n, size)
		}
	}
	r = runCLI(t, store, "", "import", path, "--graph", "http://ex/g1")
	if r.code != exitSyntax || !strings.Contains(r.stderr, "resuming import "+id+" of ") {
		t.Fatalf("the first --graph again: exit %d, stderr %q; want a resumption of %s", r.code, r.stderr, id)
	}
	if n := quads(); n != size {
		t.Fatalf("%d quads after the resumption, want %d", n, size)
	}
	r = runCLI(t, store, "", "import", path, "--graph", "default", "--import-id", "fresh")
	if r.code != exitSyntax || strings.Contains(r.stderr, "resuming") || quads() <= size {
		t.Fatalf("--import-id fresh into the default graph: exit %d, stderr %q; want a new import that commits", r.code, r.stderr)
	}
}
