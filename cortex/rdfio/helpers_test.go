package rdfio_test

import (
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
)

const (
	xsd = "http://www.w3.org/2001/XMLSchema#"
	rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
)

func mustRead(t *testing.T, format, src string, opts rdfio.DecodeOptions) []quad.Quad {
	t.Helper()
	qs, err := rdfio.ReadAll(strings.NewReader(src), format, opts)
	if err != nil {
		t.Fatalf("read %s: %v\ninput:\n%s", format, err, src)
	}
	return qs
}

func readErr(t *testing.T, format, src string, opts rdfio.DecodeOptions) error {
	t.Helper()
	qs, err := rdfio.ReadAll(strings.NewReader(src), format, opts)
	if err == nil {
		t.Fatalf("read %s: no error, got %v\ninput:\n%s", format, qs, src)
	}
	return err
}

func iri(s string) quad.IRI { return quad.IRI("http://ex.org/" + s) }
