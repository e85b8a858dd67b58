package results_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

// fuzzReader checks that read never panics and that whatever it accepts can
// be written in the same format and read back to an equivalent result.
func fuzzReader(f *testing.F, name string, seeds ...string) {
	format, err := results.Lookup(name)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	var buf bytes.Buffer
	if err := format.WriteResult(&buf, fixture()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	if golden, err := filepath.Glob(filepath.Join("testdata", "*."+name+".golden")); err == nil {
		for _, g := range golden {
			if data, err := os.ReadFile(g); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := format.Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := format.WriteResult(&out, res); err != nil {
			t.Fatalf("rewrite of accepted input failed: %v\ninput: %q", err, data)
		}
		again, err := format.Read(&out)
		if err != nil {
			t.Fatalf("reread failed: %v\ninput: %q\nrewritten: %q", err, data, out.Bytes())
		}
		if !results.Equivalent(res, again, true) {
			t.Fatalf("round trip changed the result\ninput: %q\nrewritten: %q", data, out.Bytes())
		}
	})
}

func FuzzReadJSON(f *testing.F) {
	fuzzReader(f, "json",
		`{"head":{},"boolean":true}`,
		`{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"literal","value":"\u0000x","xml:lang":"en"}}]}}`,
		`{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"typed-literal","value":"1","datatype":"http://x"}}]}}`)
}

func FuzzReadXML(f *testing.F) {
	fuzzReader(f, "xml",
		srxHead+`<head/><boolean>true</boolean></sparql>`,
		srxHead+`<head><variable name="a"/></head><results><result><binding name="a"><literal xml:lang="en">&#xD;x</literal></binding></result></results></sparql>`)
}

func FuzzReadTSV(f *testing.F) {
	fuzzReader(f, "tsv", "true\n", "?a\t?b\n1.5e3\t'x\\u00e9'@en\n", "?a\n_:b\n<x>\n\n", "?_askResult\nfalse\n", "?_askResult\ntrue\ntrue\n")
}

func FuzzReadCSV(f *testing.F) {
	fuzzReader(f, "csv", "false\r\n", "a,b\r\n\"x\"\"\",_:b\r\nurn:x,\r\n", "a\n\n", "_askResult\r\nyes\r\n", "\"_askResult\"\r\ntrue\r\n")
}
