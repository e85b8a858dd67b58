package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/config"
)

func TestParse_DocsExample(t *testing.T) {
	c, err := config.Parse([]byte(`// Cortex config
{ teams: { maxTeamSize: 8, defaultStrategy: "additive", workflowTimeout: 600,
           eventMaxAge: 604800, eventMax: 100000 } }`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Teams != config.Default().Teams {
		t.Fatalf("%+v", c.Teams)
	}
}

func TestParse_Full(t *testing.T) {
	c, err := config.Parse([]byte(`{
  teams: { maxTeamSize: 3, defaultStrategy: 'majority-wins', workflowTimeout: 0, eventMaxAge: 0, eventMax: 7 },
  namespaces: { acme: { base: "https://acme.example/kg" } },
  prefixes: { ex: "http://example.org/" },
}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Teams.MaxTeamSize != 3 || c.Teams.DefaultStrategy != "majority-wins" || c.Teams.WorkflowTimeout != 0 ||
		c.Teams.EventMaxAge != 0 || c.Teams.EventMax != 7 {
		t.Fatalf("%+v", c.Teams)
	}
	if c.Namespaces["acme"].Base != "https://acme.example/kg" || c.Prefixes["ex"] != "http://example.org/" {
		t.Fatalf("%+v", c)
	}
}

func TestParse_DefaultsForMissingKeys(t *testing.T) {
	c, err := config.Parse([]byte(`{teams: {maxTeamSize: 4}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := config.Default().Teams
	want.MaxTeamSize = 4
	if c.Teams != want {
		t.Fatalf("%+v", c.Teams)
	}
}

func TestParse_Errors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{teams: {maxTeamsize: 8}}`, `unknown key "teams.maxTeamsize"`},
		{`{teams: {eventMax: 0}}`, `teams.eventMax: 0 must be at least 1`},
		{`{teams: {eventMaxAge: -1}}`, `teams.eventMaxAge: -1 must be ≥ 0 seconds`},
		{`{team: {}}`, `unknown key "team"`},
		{`{teams: {maxTeamSize: "8"}}`, `teams.maxTeamSize: expected a whole number, got the string "8"`},
		{`{teams: {maxTeamSize: 2.5}}`, `teams.maxTeamSize: expected a whole number`},
		{`{teams: {maxTeamSize: 0}}`, `out of range`},
		{`{teams: {defaultStrategy: 7}}`, `teams.defaultStrategy: expected a string, got the number 7`},
		{`{teams: {workflowTimeout: -1}}`, `must be ≥ 0`},
		{`{teams: {defaultStrategy: ""}}`, `teams.defaultStrategy: must not be empty`},
		{`{teams: []}`, `teams: expected an object, got an array`},
		{`[1]`, `top level: expected an object`},
		{`{teams: {`, `invalid config`},
		{`{namespaces: {acme: {bse: "x"}}}`, `unknown key "namespaces.acme.bse"`},
		{`{namespaces: {acme: {base: "not an iri"}}}`, `namespaces.acme.base: invalid namespace base "not an iri"`},
		{`{namespaces: {acme: {base: "kg/acme"}}}`, `namespaces.acme.base: invalid namespace base "kg/acme": not an absolute iri`},
		{`{namespaces: {acme: {base: ""}}}`, `namespaces.acme.base: invalid namespace base ""`},
		{`{namespaces: {"Acme Corp": {}}}`, `namespaces.Acme Corp: invalid namespace name "Acme Corp"`},
		{`{namespaces: {"": {base: "urn:x"}}}`, `invalid namespace name ""`},
		{`{prefixes: {ex: "example.org/"}}`, `prefixes.ex: "example.org/" is not an absolute iri`},
		{`{prefixes: {ex: "http://example.org/a b"}}`, `prefixes.ex: "http://example.org/a b" is not an absolute iri: character ' ' at offset 20 not allowed`},
		{`{prefixes: {ex: ""}}`, `prefixes.ex: "" is not an absolute iri`},
		{`{prefixes: {rdf: "http://example.org/"}}`, `prefixes.rdf: "rdf" is a built-in prefix`},
		{`{prefixes: {cx: "http://example.org/"}}`, `prefixes.cx: "cx" is a built-in prefix`},
		{`{prefixes: {"e x": "http://example.org/"}}`, `"e x" is not a prefix name`},
		// A key given twice was the last silently; nesting without bound
		// crashed the process (the JSON5 parser recurses).
		{"{teams: {maxTeamSize: 8,\n maxTeamSize: 9}}", `line 2: duplicate key "maxTeamSize"`},
		{"{teams: {}, 'teams': {}}", `duplicate key "teams"`},
		{"{x: " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "}", `nest`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := config.Parse([]byte(tc.in))
			if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want error containing %q", err, tc.want)
			}
		})
	}
}

func TestLoad_NamesTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cortex.json5")
	if err := os.WriteFile(p, []byte(`{teams: {x: 1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Load(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("got %v", err)
	}
	if _, err := config.Load(p + ".missing"); err == nil {
		t.Fatal("missing file accepted")
	}
}

// TestLoad_PrefixBadPercentEncoding: a prefix IRI with a '%' not followed
// by two hex digits is not an IRI: Load refuses it naming the file and the
// prefix; well-formed percent-encodings (either case) are accepted.
func TestLoad_PrefixBadPercentEncoding(t *testing.T) {
	for _, tc := range []struct {
		iri string
		ok  bool
	}{
		{"http://ex.org/%zz", false},
		{"http://ex.org/%4", false},
		{"http://ex.org/%", false},
		{"http://ex.org/%4g/", false},
		{"http://ex.org/caf%C3%A9/", true},
		{"http://ex.org/caf%c3%a9/", true},
	} {
		t.Run(tc.iri, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "cortex.json5")
			if err := os.WriteFile(p, []byte(`{prefixes: {ex: "`+tc.iri+`"}}`), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := config.Load(p)
			if tc.ok {
				if err != nil || c.Prefixes["ex"] != tc.iri {
					t.Fatalf("Load: %v, prefixes %v", err, c.Prefixes)
				}
				return
			}
			if !errors.Is(err, config.ErrInvalid) {
				t.Fatalf("Load accepted %q: err %v", tc.iri, err)
			}
			for _, want := range []string{p, "prefixes.ex", tc.iri, "percent-encoding"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
		})
	}
}

// TestParse_ErrorIsDeterministic: with several bad values the error names
// the same key every time (the first in key order), not whichever key a map
// iteration met first.
func TestParse_ErrorIsDeterministic(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{teams: {workflowTimeout: -1, maxTeamSize: 0, eventMax: 0, eventMaxAge: -1}}`, "teams.eventMax:"},
		{`{teams: {zz: 1, maxTeamSize: 0}}`, "teams.maxTeamSize:"},
		{`{zz: 1, teams: {maxTeamSize: 0}, prefixes: {rdf: "x"}}`, "prefixes.rdf:"},
		{`{prefixes: {rdf: "x", owl: "y", cx: "z"}}`, "prefixes.cx:"},
		{`{namespaces: {b: {base: "rel"}, a: {base: "rel"}}}`, "namespaces.a.base:"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			for i := 0; i < 50; i++ {
				_, err := config.Parse([]byte(tc.in))
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("run %d: got %v, want an error naming %q", i, err, tc.want)
				}
			}
		})
	}
}

// TestParse_ByteOrderMark: a file that starts with a UTF-8 byte order mark
// (Windows editors write one; JSON5 counts U+FEFF as white space) is read
// as without it, as definitions, SPARQL and RDF files are.
func TestParse_ByteOrderMark(t *testing.T) {
	c, err := config.Parse([]byte("\ufeff{teams: {maxTeamSize: 4}}"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Teams.MaxTeamSize != 4 {
		t.Fatalf("%+v", c.Teams)
	}
}

// TestParse_ErrorQuotesOddKeys: a key holding a control character is
// quoted where the error names it, so that the message stays one line and
// writes no control character to a terminal ("\ncortexctl: forged" made a
// second, forged line).
func TestParse_ErrorQuotesOddKeys(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{prefixes: {"e\ncortexctl: forged": "http://x/"}}`, `prefixes."e\ncortexctl: forged": `},
		{`{namespaces: {"a\u001b[2J": {}}}`, `namespaces."a\x1b[2J": `},
		{`{prefixes: {ex: 1}}`, `prefixes.ex: expected a string`},
		{`{namespaces: {"Acme Corp": {}}}`, `namespaces.Acme Corp: invalid namespace name`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := config.Parse([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.ContainsAny(err.Error(), "\n\x1b") {
				t.Fatalf("got %q, want one line containing %q", err, tc.want)
			}
		})
	}
}

// TestLoad_NamesPathQuoted: Load's errors name a path that is not plain
// text quoted (as pathtext.Quote does), so that a newline or a quote in it
// can neither garble nor forge the message.
func TestLoad_NamesPathQuoted(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a\nconfig x: \"b.json5")
	if err := os.WriteFile(p, []byte(`{teams: {x: 1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Load(p); err == nil || !strings.HasPrefix(err.Error(), "config "+strconv.Quote(p)+": ") {
		t.Errorf("got %v, want it to start with config %s", err, strconv.Quote(p))
	}
	missing := p + ".missing"
	if _, err := config.Load(missing); err == nil || err.Error() != "config: open "+strconv.Quote(missing)+": no such file or directory" || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestParse_SyntaxErrorNamesLine: a JSON5 syntax error names its line, as
// a duplicate key does (the parser's message alone left a user to search
// the file), lines ending at LF, CR LF or CR; a character that is not
// ASCII is named whole, not by its first byte as a Latin-1 character
// ('ï' for a byte order mark, 'â' for U+202E).
func TestParse_SyntaxErrorNamesLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\n teams: {maxTeamSize: 8,,}\n}", "invalid config: line 2: invalid character ',' looking for beginning of object key"},
		{"{\r\n\r\n teams: {maxTeamSize: 8,,}}", "line 3: invalid character ','"},
		{"{\r\r\r teams: {maxTeamSize: 8,,}}", "line 4: invalid character ','"},
		{"{\n\n\n teams: {maxTeamSize: 'x}}", "line 4: unexpected end of JSON input"},
		{"{teams: {}}\n\n{}", "line 3: invalid character '{' after top-level value"},
		{"{}\ufeff", `line 1: invalid character '\ufeff' after top-level value`},
		{"{\nteams: {maxTeamSize: \u202e8}}", `line 2: invalid character '\u202e' looking for beginning of value`},
		{"{\nteams: {maxTeamSize: \xff}}", `line 2: invalid character byte 0xff (not UTF-8) looking for beginning of value`},
		{"{\nteams: {maxTeamSize: \u00e9}}", `line 2: invalid character 'é' looking for beginning of value`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := config.Parse([]byte(tc.in))
			if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %q, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestParse_NumberOutOfRangeNamesLine: a number no float64 holds is an
// error naming its line (it named none: "json: cannot unmarshal number
// 1e400 into Go value of type float64").
func TestParse_NumberOutOfRangeNamesLine(t *testing.T) {
	_, err := config.Parse([]byte("{\n teams: {\n  maxTeamSize: 1e400,\n },\n}"))
	if !errors.Is(err, config.ErrInvalid) || err == nil || err.Error() != "invalid config: line 3: number 1e400 out of range" {
		t.Errorf("Parse = %v, want invalid config: line 3: number 1e400 out of range", err)
	}
}

// TestParse_ErrorsNameLines: an error about a key or its value names the
// key's line, with LF, CR LF or CR line ends; it named the key only
// ("teams.maxTeamSize: 0 is out of range"), which a file of a few keys
// made do but left the reader counting in a longer one.
func TestParse_ErrorsNameLines(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\n teams: {\n  eventMax: 5,\n  maxTeamSize: 0,\n },\n}", `invalid config: line 4: teams.maxTeamSize: 0 is out of range 1..1000`},
		{"{\n teams: {\n  maxTeamsize: 8,\n },\n}", `invalid config: line 3: unknown key "teams.maxTeamsize"`},
		{"{\n // the team\n team: {},\n}", `invalid config: line 3: unknown key "team"`},
		{"{\n namespaces: {\n  acme: {\n   base:\n    'kg/acme',\n  },\n },\n}", `invalid config: line 4: namespaces.acme.base: invalid namespace base "kg/acme": not an absolute iri`},
		{"{\n namespaces: {\n  'a/b': {},\n },\n}", `invalid config: line 3: namespaces.a/b: invalid namespace name "a/b"`},
		{"{\n prefixes: {ex: 'http://e/',\n  rdf: 'http://r/'},\n}", `invalid config: line 3: prefixes.rdf: "rdf" is a built-in prefix and cannot be redefined`},
		{"{\n teams: [],\n}", `invalid config: line 2: teams: expected an object, got an array`},
		{"[]", `invalid config: top level: expected an object, got an array`},
	} {
		for _, eol := range []string{"\n", "\r\n", "\r"} {
			in := strings.ReplaceAll(tc.in, "\n", eol)
			_, err := config.Parse([]byte(in))
			if !errors.Is(err, config.ErrInvalid) || err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("Parse(%q) = %v, want %s...", in, err, tc.want)
			}
		}
	}
}

// TestLoad_TooLarge: a config file larger than MaxFileSize (or one that
// never ends: /dev/zero) is refused, naming it, after reading at most
// MaxFileSize bytes and one; it was read whole (a sparse file of 17 MiB
// went to the parser, /dev/zero until memory ran out). A pipe (--config
// <(...)) is still read.
func TestLoad_TooLarge(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.json5")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, config.MaxFileSize+1); err != nil { // sparse
		t.Fatal(err)
	}
	for _, path := range []string{big, "/dev/zero"} {
		_, err := config.Load(path)
		want := "config " + path + ": invalid config: larger than 16777216 bytes"
		if !errors.Is(err, config.ErrInvalid) || err == nil || err.Error() != want {
			t.Errorf("Load(%s) = %v, want %s", path, err, want)
		}
	}
	if err := os.Truncate(big, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, []byte("{teams: {maxTeamSize: 3}}"+strings.Repeat(" ", config.MaxFileSize-25)), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err := config.Load(big); err != nil || c.Teams.MaxTeamSize != 3 {
		t.Errorf("Load of MaxFileSize bytes: %+v, %v", c.Teams, err)
	}
}

// TestLoad_EmptyFileNamesFileAndLine: an empty config file (or one of
// white space only) is refused naming the file, line 1 and that it is
// empty; the parser's error named no line ("unexpected end of JSON input").
func TestLoad_EmptyFileNamesFileAndLine(t *testing.T) {
	for _, content := range []string{"", "\n", " \t\r\n\n", "\ufeff"} {
		t.Run(strconv.Quote(content), func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "cortex.json5")
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := config.Load(p)
			if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "line 1: the file is empty") {
				t.Fatalf("got %v, want the file, line 1 and that it is empty", err)
			}
		})
	}
}
