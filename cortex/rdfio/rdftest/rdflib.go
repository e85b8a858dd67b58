package rdftest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/cayleygraph/quad"
)

//go:embed rdflib_read.py
var rdflibReadPy string

// RdflibPython returns a python3 that imports rdflib: the one on PATH, or
// Debian's (python3-rdflib installs it for /usr/bin/python3); "" if none.
func RdflibPython() string {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import rdflib").Run() == nil {
			return p
		}
	}
	return ""
}

// RequireRdflib returns RdflibPython, or, when no python3 imports rdflib,
// skips t, or fails it when the environment variable
// CORTEX_REQUIRE_CLIENTS is "1" (as CI sets it).
func RequireRdflib(t testing.TB) string {
	t.Helper()
	if p := RdflibPython(); p != "" {
		return p
	}
	msg := "no python3 imports rdflib (apt-get install python3-rdflib)"
	if os.Getenv("CORTEX_REQUIRE_CLIENTS") == "1" {
		t.Fatalf("%s (CORTEX_REQUIRE_CLIENTS=1: rdflib is required)", msg)
	}
	t.Skipf("%s (set CORTEX_REQUIRE_CLIENTS=1 to make this a failure)", msg)
	return ""
}

// RdflibRead has rdflib read files, all in format (an rdflib parser name:
// "xml", "turtle", ...), with python (see RdflibPython), and returns each
// file's triples as quads of the default graph, lexical forms as written.
// IRIs are not resolved against a base: every IRI of the files must be
// absolute. It fails t if rdflib fails.
func RdflibRead(t testing.TB, python, format string, files []string) [][]quad.Quad {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(python, append([]string{"-c", rdflibReadPy, format}, files...)...)
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("rdflib: %v\n%s", err, stderr.String())
	}
	var read [][][3]map[string]string
	if err := json.Unmarshal(stdout, &read); err != nil || len(read) != len(files) {
		t.Fatalf("rdflib printed %d graphs for %d files (%v):\n%.2000s", len(read), len(files), err, stdout)
	}
	out := make([][]quad.Quad, len(read))
	for i, triples := range read {
		for _, tr := range triples {
			var v [3]quad.Value
			for k, term := range tr {
				switch {
				case term["iri"] != "":
					v[k] = quad.IRI(term["iri"])
				case term["bnode"] != "":
					v[k] = quad.BNode(term["bnode"])
				case term["lang"] != "":
					v[k] = quad.LangString{Value: quad.String(term["literal"]), Lang: term["lang"]}
				case term["datatype"] != "":
					v[k] = quad.TypedString{Value: quad.String(term["literal"]), Type: quad.IRI(term["datatype"])}
				default:
					v[k] = quad.String(term["literal"])
				}
			}
			out[i] = append(out[i], quad.Quad{Subject: v[0], Predicate: v[1], Object: v[2]})
		}
	}
	return out
}
