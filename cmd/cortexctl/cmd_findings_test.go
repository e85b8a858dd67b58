package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCLI_Findings(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "t1", "--name", "n", "--member", "ann", "--member", "bob")
	var added struct{ ID string }
	out := mustCLI(t, dir, "findings", "add", "t1", "ann", "<http://ex/a>", "rdfs:label", `"hello"@en`, "--confidence", "0.5", "--at", "2025-01-02T03:04:05Z", "--json")
	if err := json.Unmarshal([]byte(out), &added); err != nil || added.ID == "" {
		t.Fatalf("add --json %q", out)
	}
	mustCLI(t, dir, "findings", "add", "t1", "bob", "<http://ex/a>", "<http://ex/p>", "plainword")
	mustCLI(t, dir, "findings", "import", "t1", "bob", writeFile(t, "f.nt", "<http://ex/b> <http://ex/p> <http://ex/c> .\n"))
	var fs []struct {
		ID, Agent, Subject, Predicate, Object string
		Confidence                            float64
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "findings", "list", "t1", "--json")), &fs); err != nil || len(fs) != 3 {
		t.Fatalf("list: %+v (%v)", fs, err)
	}
	if fs[0].ID != added.ID || fs[0].Predicate != "<http://www.w3.org/2000/01/rdf-schema#label>" || fs[0].Object != `"hello"@en` || fs[0].Confidence != 0.5 {
		t.Fatalf("first finding %+v", fs[0])
	}
	if fs[1].Object != `"plainword"` && fs[2].Object != `"plainword"` {
		t.Fatalf("bare word object: %+v", fs)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"not a member", []string{"findings", "add", "t1", "zed", "<http://ex/a>", "<http://ex/p>", "x"}, exitNotFound, "unknown agent"},
		{"bad term", []string{"findings", "add", "t1", "ann", "<http://ex/a", "<http://ex/p>", "x"}, exitSyntax, ""},
		{"unknown prefix", []string{"findings", "add", "t1", "ann", "zz:a", "<http://ex/p>", "x"}, exitInvalid, "unknown prefix"},
		{"literal subject", []string{"findings", "add", "t1", "ann", `"s"`, "<http://ex/p>", "x"}, exitInvalid, "invalid finding"},
		{"confidence", []string{"findings", "add", "t1", "ann", "<http://ex/a>", "<http://ex/p>", "x", "--confidence", "3"}, exitInvalid, "confidence"},
		{"missing file", []string{"findings", "import", "t1", "ann", "/nonexistent.ttl"}, exitNotFound, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d (want %d), stderr %q", r.code, tc.code, r.stderr)
			}
		})
	}
	mustCLI(t, dir, "teams", "member-status", "t1", "ann", "failed")
	if r := runCLI(t, dir, "", "findings", "add", "t1", "ann", "<http://ex/a>", "<http://ex/p>", "x"); r.code != exitConflict {
		t.Fatalf("finding of a failed member: exit %d %s", r.code, r.stderr)
	}
}

// TestCLI_FindingsImport_RoundTrip checks that `findings list --json`
// imports back (as a JSON file) with the same confidence and time, that
// JSON Lines import, and that an exported findings graph (finding
// descriptions in Turtle) imports back with them too.
func TestCLI_FindingsImport_RoundTrip(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "t1", "--name", "n", "--member", "ann", "--member", "bob", "--member", "cy", "--member", "dan")
	type finding struct {
		Subject, Predicate, Object string
		Confidence                 float64
		AssertedAt                 string
	}
	list := func(agent string) []finding {
		t.Helper()
		var fs []finding
		if err := json.Unmarshal([]byte(mustCLI(t, dir, "findings", "list", "t1", "--agent", agent, "--json")), &fs); err != nil {
			t.Fatal(err)
		}
		return fs
	}
	mustCLI(t, dir, "findings", "add", "t1", "ann", "<http://ex/a>", "rdfs:label", `"hello"@en`, "--confidence", "0.5", "--at", "2025-01-02T03:04:05Z")
	mustCLI(t, dir, "findings", "add", "t1", "ann", "<http://ex/b>", "<http://ex/p>", "<http://ex/c>", "--confidence", "0.9", "--at", "2025-01-02T03:04:06.25Z")
	ann := list("ann")
	if len(ann) != 2 || ann[0].Confidence != 0.5 || ann[1].AssertedAt != "2025-01-02T03:04:06.25Z" {
		t.Fatalf("ann's findings: %+v", ann)
	}

	listed := writeFile(t, "ann.json", mustCLI(t, dir, "findings", "list", "t1", "--agent", "ann", "--json"))
	if out := mustCLI(t, dir, "findings", "import", "t1", "bob", listed); !strings.Contains(out, "imported 2 findings") {
		t.Fatalf("import of the listing: %q", out)
	}
	if bob := list("bob"); !slices.Equal(bob, ann) {
		t.Fatalf("bob's findings %+v, want ann's %+v", bob, ann)
	}

	lines := writeFile(t, "f.jsonl", `{"subject": "<http://ex/a>", "predicate": "rdfs:label", "object": "\"hello\"@en", "confidence": 0.5, "assertedAt": "2025-01-02T03:04:05Z"}
{"subject": "<http://ex/b>", "predicate": "<http://ex/p>", "object": "<http://ex/c>", "confidence": 0.9, "assertedAt": "2025-01-02T03:04:06.25Z"}
`)
	mustCLI(t, dir, "findings", "import", "t1", "cy", lines)
	if cy := list("cy"); !slices.Equal(cy, ann) {
		t.Fatalf("cy's findings %+v, want ann's %+v", cy, ann)
	}

	ttl := writeFile(t, "ann.ttl", mustCLI(t, dir, "export", "--graph", "urn:cortex:default:team:t1:member:ann:graph:findings", "--format", "turtle"))
	mustCLI(t, dir, "findings", "import", "t1", "dan", ttl)
	if dan := list("dan"); !slices.Equal(dan, ann) {
		t.Fatalf("dan's findings %+v, want ann's %+v", dan, ann)
	}

	bad := writeFile(t, "bad.json", `[{"subject": "<http://ex/a>", "predicate": "<http://ex/p>", "object": "leaks"}]`)
	if r := runCLI(t, dir, "", "findings", "import", "t1", "bob", bad); r.code != exitInvalid || !strings.Contains(r.stderr, "record 1 (line 1)") {
		t.Fatalf("bad JSON finding: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLI(t, dir, "", "findings", "import", "t1", "bob", "--format", "json", writeFile(t, "x.txt", "{")); r.code != exitInvalid {
		t.Fatalf("--format json: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestCLI_FindingsImport_ExactNames: a JSON findings file's keys are
// case-sensitive and given once (encoding/json matched "Subject" to
// "subject" and took the last of two "object"s): another case, or a key
// given twice, is an invalid finding (exit 7) naming the record, and
// nothing is written.
func TestCLI_FindingsImport_ExactNames(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "t1", "--name", "n", "--member", "ann")
	const good = `{"subject": "<http://ex/a>", "predicate": "<http://ex/p>", "object": "\"o\""}`
	for name, tc := range map[string]struct{ file, data, msg string }{
		"another case": {"f.json", `[` + good + `,` + "\n" + `{"subject": "<http://ex/b>", "Predicate": "<http://ex/p>", "object": "\"o\""}]`,
			`record 2 (line 2): unknown field "Predicate" (field names are case-sensitive; did you mean "predicate"?)`},
		"given twice": {"f.jsonl", good + "\n" + `{"subject": "<http://ex/b>", "predicate": "<http://ex/p>", "object": "\"o\"", "object": "\"p\""}`,
			`record 2 (line 2): duplicate key "object"`},
	} {
		t.Run(name, func(t *testing.T) {
			r := runCLI(t, dir, "", "findings", "import", "t1", "ann", writeFile(t, tc.file, tc.data))
			if r.code != exitInvalid || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, exitInvalid, tc.msg)
			}
			if out := mustCLI(t, dir, "findings", "list", "t1", "--json"); strings.TrimSpace(out) != "[]" {
				t.Fatalf("findings after a refused import: %s", out)
			}
		})
	}
}

// TestCLI_Query_CxPrefix checks that cx: in queries is the namespace's
// vocabulary, as in findings add and fixtures/vocab.ttl.
func TestCLI_Query_CxPrefix(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "t1", "--name", "n", "--member", "ann")
	mustCLI(t, dir, "findings", "add", "t1", "ann", "<http://ex/a>", "<http://ex/p>", "x", "--confidence", "0.5")
	out := mustCLI(t, dir, "query", "--format", "csv", `SELECT ?c WHERE { ?f a cx:Finding ; cx:finding:confidence ?c ; rdf:subject <http://ex/a> }`)
	if out != "c\r\n0.5\r\n" {
		t.Fatalf("query output %q", out)
	}
}

// TestCLI_FindingsImport_NotUTF8: a findings file with a byte that is not
// UTF-8 — in a literal, in a comment, in a JSON string — is refused as a
// syntax error of its format (RDF: exit 5, JSON findings: exit 7) naming
// the file, line and column, and imports nothing; the same in embedded
// mode (whose JSON reader would store U+FFFD instead) and through a server
// (which JSON cannot carry the bytes to).
func TestCLI_FindingsImport_NotUTF8(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "t1", "--name", "n", "--member", "ann")
	for _, tc := range []struct {
		name, file, content string
		code                int
		msg                 string
	}{
		{"literal", "lit.nt", "<http://ex/a> <http://ex/p> \"bad \xff\" .\n", exitSyntax, "lit.nt:1:34: not valid UTF-8"},
		{"comment", "comment.ttl", "<http://ex/a> <http://ex/p> \"ok\" .\n# \xfe\n", exitSyntax, "comment.ttl:2:3: not valid UTF-8"},
		{"json string", "f.jsonl", `{"subject": "<http://ex/a>", "predicate": "<http://ex/p>", "object": "\"b` + "\xff" + `\""}` + "\n", exitInvalid, "f.jsonl:1:74: not valid UTF-8"},
		// Lines and columns as rdfio's syntax errors count them: a line
		// ends at LF, CR LF or CR alone; a column counts bytes, not the
		// byte order mark; the file is named as pathText names it.
		{"cr lines", "cr.nt", "<http://ex/a> <http://ex/p> \"ok\" .\r# c\r# \xfe\r", exitSyntax, "cr.nt:3:3: not valid UTF-8"},
		{"crlf lines", "crlf.nt", "<http://ex/a> <http://ex/p> \"ok\" .\r\n# \xfe\r\n", exitSyntax, "crlf.nt:2:3: not valid UTF-8"},
		{"columns count bytes", "bytes.nt", "<http://ex/\u00e9> <http://ex/p> \"\xff\" .\n", exitSyntax, "bytes.nt:1:31: not valid UTF-8"},
		{"byte order mark", "bom.nt", "\uFEFF<http://ex/a> <http://ex/p> \"\xff\" .\n", exitSyntax, "bom.nt:1:30: not valid UTF-8"},
		{"json quoted path", `q"f.jsonl`, "{\"subject\": \"\xff\"}\n", exitInvalid, `q\"f.jsonl":1:14: not valid UTF-8`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", "findings", "import", "t1", "ann", writeFile(t, tc.file, tc.content))
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) || r.stdout != "" {
				t.Fatalf("exit %d (want %d), stdout %q, stderr %q (want %q)", r.code, tc.code, r.stdout, r.stderr, tc.msg)
			}
		})
	}
	if out := mustCLI(t, dir, "findings", "list", "t1", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("findings were imported: %s", out)
	}
	// The team and agent are named as the Manager names ids: quoted unless
	// well-formed, so that an id with a line break cannot forge a line.
	r := runCLI(t, dir, "", "findings", "import", "t1\nfake: line", "ann\x1b[31m", writeFile(t, "q.nt", "<http://ex/a> <http://ex/p> \"\xff\" .\n"))
	if want := `import findings: team "t1\nfake: line": agent "ann\x1b[31m": `; r.code != exitSyntax || !strings.Contains(r.stderr, want) {
		t.Fatalf("exit %d, stderr %q, want exit %d with %q", r.code, r.stderr, exitSyntax, want)
	}
}

// TestCLI_DirectoryInsteadOfFile: a directory given where a command reads
// a file (a findings file, --file, --from, --config) is an invalid value
// (exit 7), as it is for import, not an I/O error, and writes nothing.
func TestCLI_DirectoryInsteadOfFile(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "t1", "--name", "n", "--member", "ann")
	before := mustCLI(t, dir, "export")
	sub := t.TempDir()
	for _, args := range [][]string{
		{"findings", "import", "t1", "ann", sub + "/x.nt"},
		{"query", "--file", sub},
		{"teams", "create", "--from", sub},
		{"--config", sub, "teams", "list"},
	} {
		if err := os.MkdirAll(sub+"/x.nt", 0o755); err != nil {
			t.Fatal(err)
		}
		t.Run(args[0], func(t *testing.T) {
			r := runCLI(t, dir, "", args...)
			if r.code != exitInvalid || !strings.Contains(r.stderr, "is a directory") {
				t.Fatalf("%q: exit %d (want %d), stderr %q", args, r.code, exitInvalid, r.stderr)
			}
		})
	}
	if after := mustCLI(t, dir, "export"); after != before {
		t.Fatalf("the store changed:\n%s\nwant\n%s", after, before)
	}
}

// TestCLI_Findings_PrefixedDatatype checks that a literal's datatype may be
// a prefixed name, as findings add --help writes it ("1"^^xsd:...), on the
// command line, in JSON findings and in facts list --subject, and that an
// undeclared prefix there is an invalid value (exit 7).
func TestCLI_Findings_PrefixedDatatype(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "t1", "--name", "n", "--member", "ann", "--member", "bob")
	mustCLI(t, dir, "findings", "add", "t1", "ann", "<http://ex/a>", "<http://ex/p>", `"01"^^xsd:integer`)
	mustCLI(t, dir, "findings", "import", "t1", "bob", writeFile(t, "f.jsonl",
		`{"subject": "<http://ex/a>", "predicate": "<http://ex/q>", "object": "\"a \\\" ^^b\"^^rdfs:Literal"}`+"\n"))
	var fs []struct{ Agent, Object string }
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "findings", "list", "t1", "--json")), &fs); err != nil || len(fs) != 2 {
		t.Fatalf("list: %+v (%v)", fs, err)
	}
	got := []string{fs[0].Agent + " " + fs[0].Object, fs[1].Agent + " " + fs[1].Object}
	slices.Sort(got)
	want := []string{
		`ann "01"^^<http://www.w3.org/2001/XMLSchema#integer>`,
		`bob "a \" ^^b"^^<http://www.w3.org/2000/01/rdf-schema#Literal>`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("objects %q, want %q", got, want)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"add", []string{"findings", "add", "t1", "ann", "<http://ex/a>", "<http://ex/p>", `"1"^^zz:int`}},
		{"import", []string{"findings", "import", "t1", "ann", writeFile(t, "g.jsonl",
			`{"subject": "<http://ex/a>", "predicate": "<http://ex/q>", "object": "\"1\"^^zz:int"}`+"\n")}},
	} {
		t.Run("unknown prefix "+tc.name, func(t *testing.T) {
			if r := runCLI(t, dir, "", tc.args...); r.code != exitInvalid || !strings.Contains(r.stderr, `unknown prefix "zz"`) {
				t.Fatalf("exit %d (want %d), stderr %q", r.code, exitInvalid, r.stderr)
			}
		})
	}
}

// TestCLI_FindingArgs_CheckedBeforeTheStore: a finding nothing can hold
// (confidence out of [0, 1] or NaN, a literal subject, a predicate that is
// not an IRI, a time of year < 0 in UTC) is an invalid value (exit 7) with
// the Manager's message, checked before the store and the namespace are
// opened: the same in a namespace or store that does not exist as in one
// that does, and as through a server (whose client checks it before it
// sends anything); nothing is created.
func TestCLI_FindingArgs_CheckedBeforeTheStore(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	add := []string{"findings", "add", "crew", "bob"}
	task := []string{"tasks", "add-finding", "crew", "T1"}
	for _, tc := range []struct {
		name      string
		triple    []string
		flags     []string
		msg, tmsg string // findings add's and tasks add-finding's
	}{
		{"confidence 2", []string{"<http://s>", "<http://p>", "o"}, []string{"--confidence", "2"},
			"team crew: agent bob: invalid finding: confidence 2 not in [0, 1]", "team crew: agent bob: finding 1 of 1: invalid finding: confidence 2 not in [0, 1]"},
		{"confidence NaN", []string{"<http://s>", "<http://p>", "o"}, []string{"--confidence", "NaN"},
			"invalid finding: confidence NaN not in [0, 1]", "finding 1 of 1: invalid finding: confidence NaN not in [0, 1]"},
		{"confidence -0.5", []string{"<http://s>", "<http://p>", "o"}, []string{"--confidence=-0.5"},
			"invalid finding: confidence -0.5 not in [0, 1]", "finding 1 of 1: invalid finding: confidence -0.5 not in [0, 1]"},
		{"literal subject", []string{`"lit"`, "<http://p>", "o"}, nil,
			"team crew: agent bob: invalid finding: invalid quad: subject must be an IRI or a blank node", "finding 1 of 1: invalid finding: invalid quad: subject must be"},
		{"blank predicate", []string{"<http://s>", "_:b", "o"}, nil,
			"invalid finding: invalid quad: predicate must be an IRI, got a blank node", "finding 1 of 1: invalid finding: invalid quad: predicate must be an IRI"},
		{"literal predicate", []string{"<http://s>", `"p"`, "o"}, nil,
			"invalid finding: invalid quad: predicate must be an IRI, got a literal", "finding 1 of 1: invalid finding: invalid quad: predicate must be an IRI"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nostore := filepath.Join(t.TempDir(), "none")
			for _, c := range []struct {
				args []string
				msg  string
			}{
				{append(append(append([]string{}, add...), tc.triple...), tc.flags...), tc.msg},
				{append(append(append(append([]string{}, task...), tc.triple...), tc.flags...), "--as", "bob"), tc.tmsg},
			} {
				for _, where := range []struct {
					dir  string
					pre  []string
					what string
				}{
					{dir, nil, "the namespace"},
					{dir, []string{"-n", "fresh"}, "a namespace that does not exist"},
					{nostore, nil, "no store"},
				} {
					r := runCLI(t, where.dir, "", append(append([]string{}, where.pre...), c.args...)...)
					if r.code != exitInvalid || !strings.Contains(r.stderr, c.msg) {
						t.Errorf("%q in %s: exit %d, %q; want %d, %q", c.args, where.what, r.code, r.stderr, exitInvalid, c.msg)
					}
				}
			}
			if _, err := os.Stat(nostore); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused finding created %s (%v)", nostore, err)
			}
			if out := mustCLI(t, dir, "namespaces", "list"); strings.Contains(out, "fresh") {
				t.Errorf("a refused finding created namespace fresh:\n%s", out)
			}
		})
	}
}
