package results_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio/rdftest"
	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

type rdflibTerm struct {
	IRI      *string `json:"iri"`
	BNode    *string `json:"bnode"`
	Literal  *string `json:"literal"`
	Lang     string  `json:"lang"`
	Datatype string  `json:"datatype"`
	Other    string  `json:"other"`
}

type rdflibAnswer struct {
	Vars    []string        `json:"vars"`
	Rows    [][]*rdflibTerm `json:"rows"`
	Boolean *bool           `json:"boolean"`
	Error   string          `json:"error"`
}

func (t *rdflibTerm) value() quad.Value {
	switch {
	case t == nil:
		return nil
	case t.IRI != nil:
		return quad.IRI(*t.IRI)
	case t.BNode != nil:
		return quad.BNode(*t.BNode)
	case t.Literal != nil && t.Lang != "":
		return quad.LangString{Value: quad.String(*t.Literal), Lang: t.Lang}
	case t.Literal != nil && t.Datatype != "" && t.Datatype != xsd+"string":
		return quad.TypedString{Value: quad.String(*t.Literal), Type: quad.IRI(t.Datatype)}
	case t.Literal != nil:
		return quad.String(*t.Literal)
	}
	return quad.String("<rdflib: " + t.Other + ">")
}

// TestWriters_Rdflib is the differential test of the results writers:
// rdflib (python3-rdflib), a third-party reader, reads the JSON and XML
// documents our writers wrote from random rows of hostile terms as the rows
// they were given (up to blank node labels).
func TestWriters_Rdflib(t *testing.T) {
	python := rdftest.RequireRdflib(t)
	for _, name := range []string{"json", "xml"} { // rdflib's TSV reader mis-reads escapes: no oracle
		t.Run(name, func(t *testing.T) {
			f, err := results.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			g := rowGen{rand.New(rand.NewPCG(20261127, 11))}
			dir := t.TempDir()
			var files []string
			var wants []*results.Result
			for i := range 300 {
				doc, kept := writeAccepted(t, f, g.result())
				path := filepath.Join(dir, fmt.Sprintf("r%d.%s", i, name))
				if err := os.WriteFile(path, doc, 0o644); err != nil {
					t.Fatal(err)
				}
				files = append(files, path)
				wants = append(wants, &results.Result{Vars: kept.Vars, Rows: normalise(kept.Rows)})
			}
			var stderr bytes.Buffer
			cmd := exec.Command(python, append([]string{filepath.Join("testdata", "rdflib_read_results.py"), name}, files...)...)
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("rdflib: %v\n%s", err, stderr.String())
			}
			var answers []rdflibAnswer
			if err := json.Unmarshal(out, &answers); err != nil || len(answers) != len(files) {
				t.Fatalf("rdflib answered %d times for %d files (%v)", len(answers), len(files), err)
			}
			bad := 0
			for i, a := range answers {
				got := &results.Result{Vars: a.Vars, Rows: []results.Row{}}
				for _, r := range a.Rows {
					row := make(results.Row, len(r))
					for j, term := range r {
						row[j] = term.value()
					}
					got.Rows = append(got.Rows, row)
				}
				if a.Error == "" && results.Equivalent(wants[i], got, true) {
					continue
				}
				doc, _ := os.ReadFile(files[i])
				t.Errorf("rdflib reads %s other than written (%s)\nwrote %#v\nread  %#v\n%s", filepath.Base(files[i]), a.Error, wants[i].Rows, got.Rows, doc)
				if bad++; bad == 5 {
					t.Fatal("too many failures")
				}
			}
		})
	}
}

// TestCSVWriter_EmptyRows_Rdflib: rdflib (Python's csv module) reads every
// row our CSV writer writes of one unbound variable ("") and of no
// variables (an empty line). (Its TSV reader skips empty lines, the only
// TSV form of such rows, and cannot be the oracle there; Jena reads them.)
func TestCSVWriter_EmptyRows_Rdflib(t *testing.T) {
	python := rdftest.RequireRdflib(t)
	x := quad.IRI("http://ex.org/x")
	want := []*results.Result{
		{Vars: []string{}, Rows: []results.Row{{}, {}, {}}},
		{Vars: []string{"a"}, Rows: []results.Row{{nil}, {nil}, {x}, {nil}}},
	}
	dir := t.TempDir()
	var files []string
	for i, res := range want {
		var buf bytes.Buffer
		if err := results.CSV().WriteResult(&buf, res); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("r%d.csv", i))
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(python, append([]string{filepath.Join("testdata", "rdflib_read_results.py"), "csv"}, files...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rdflib: %v\n%s", err, stderr.String())
	}
	var answers []rdflibAnswer
	if err := json.Unmarshal(out, &answers); err != nil || len(answers) != len(files) {
		t.Fatalf("rdflib answered %s for %d files (%v)", out, len(files), err)
	}
	for i, a := range answers {
		got := &results.Result{Vars: a.Vars, Rows: []results.Row{}}
		for _, r := range a.Rows {
			row := results.Row{}
			for _, term := range r {
				row = append(row, term.value())
			}
			got.Rows = append(got.Rows, row)
		}
		if a.Error != "" || !results.Equivalent(want[i], got, true) {
			doc, _ := os.ReadFile(files[i])
			t.Errorf("rdflib reads %q as %#v (%s), want %#v", doc, got, a.Error, want[i])
		}
	}
}
