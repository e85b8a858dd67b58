package rdfio_test

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex/rdfio"
)

func TestFormats_Lookup(t *testing.T) {
	cases := []struct {
		name string
		get  func() (rdfio.Format, error)
		want string
	}{
		{"name", func() (rdfio.Format, error) { return rdfio.Lookup("turtle") }, "turtle"},
		{"name case", func() (rdfio.Format, error) { return rdfio.Lookup("NQuads") }, "nquads"},
		{"extension", func() (rdfio.Format, error) { return rdfio.ByExtension("dir/data.NT") }, "ntriples"},
		{"extension nq", func() (rdfio.Format, error) { return rdfio.ByExtension("x.nq") }, "nquads"},
		{"extension ttl", func() (rdfio.Format, error) { return rdfio.ByExtension("/a/b.ttl") }, "turtle"},
		{"media type", func() (rdfio.Format, error) { return rdfio.ByMediaType("text/turtle; charset=utf-8") }, "turtle"},
		{"media type nt", func() (rdfio.Format, error) { return rdfio.ByMediaType("application/n-triples") }, "ntriples"},
		{"rdfxml", func() (rdfio.Format, error) { return rdfio.Lookup("rdfxml") }, "rdfxml"},
		{"extension rdf", func() (rdfio.Format, error) { return rdfio.ByExtension("a.rdf") }, "rdfxml"},
		{"media type rdfxml", func() (rdfio.Format, error) { return rdfio.ByMediaType("application/rdf+xml") }, "rdfxml"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := c.get()
			if err != nil {
				t.Fatal(err)
			}
			if f.Name != c.want {
				t.Errorf("got %s, want %s", f.Name, c.want)
			}
		})
	}
}

func TestFormats_Unknown(t *testing.T) {
	cases := []struct {
		name     string
		err      error
		mentions []string
	}{
		{"name", second(rdfio.Lookup("jsonld")), []string{`"jsonld"`, "nquads, ntriples, rdfxml, turtle"}},
		{"extension", second(rdfio.ByExtension("a.jsonld")), []string{`"a.jsonld"`, ".nq, .nt, .rdf, .ttl"}},
		{"no extension", second(rdfio.ByExtension("README")), []string{".ttl"}},
		{"media type", second(rdfio.ByMediaType("application/ld+json")), []string{"application/ld+json", "text/turtle"}},
		{"decoder", second(rdfio.NewDecoder(strings.NewReader(""), "jsonld", rdfio.DecodeOptions{})), []string{"jsonld"}},
		{"write-only", second(rdfio.NewDecoder(strings.NewReader(""), "rdfxml", rdfio.DecodeOptions{})), []string{`"rdfxml": it is written, not read (read nquads, ntriples, turtle)`}},
		{"encoder", second(rdfio.NewEncoder(io.Discard, "jsonld", rdfio.EncodeOptions{})), []string{"jsonld"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !errors.Is(c.err, rdfio.ErrUnknownFormat) {
				t.Fatalf("err = %v, want ErrUnknownFormat", c.err)
			}
			for _, m := range c.mentions {
				if !strings.Contains(c.err.Error(), m) {
					t.Errorf("error %q does not mention %s", c.err, m)
				}
			}
		})
	}
}

func second[T any](_ T, err error) error { return err }

func TestFormats_NamesSorted(t *testing.T) {
	names := rdfio.Names()
	for _, want := range []string{"nquads", "ntriples", "turtle"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("Names() = %v lacks %s", names, want)
		}
	}
	sorted := append([]string(nil), names...)
	for i := 1; i < len(sorted); i++ {
		if sorted[i-1] > sorted[i] {
			t.Errorf("Names() not sorted: %v", names)
		}
	}
}

func TestFormats_Readable(t *testing.T) {
	if got := strings.Join(rdfio.ReadableNames(), ","); got != "nquads,ntriples,turtle" {
		t.Errorf("ReadableNames() = %s, want nquads,ntriples,turtle", got)
	}
	for _, n := range rdfio.Names() {
		f, err := rdfio.Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		if f.Readable() != (n != rdfio.RDFXML) {
			t.Errorf("%s: Readable() = %v", n, f.Readable())
		}
	}
}

func TestRegister_Panics(t *testing.T) {
	nt, err := rdfio.Lookup(rdfio.NTriples)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]rdfio.Format{
		"duplicate name":         {Name: "NTriples", NewDecoder: nt.NewDecoder},
		"empty name":             {Name: "", NewDecoder: nt.NewDecoder},
		"no decoder, no encoder": {Name: "test-nodecoder"},
		"extension taken":        {Name: "test-ext", Extensions: []string{".nt"}, NewDecoder: nt.NewDecoder},
		"media type taken":       {Name: "test-mt", MediaTypes: []string{"text/turtle"}, NewDecoder: nt.NewDecoder},
		"extension sans dot":     {Name: "test-dot", Extensions: []string{"x"}, NewDecoder: nt.NewDecoder},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("Register did not panic")
				}
			}()
			rdfio.Register(f)
		})
	}
}

func TestRegister_Custom(t *testing.T) {
	nt, _ := rdfio.Lookup(rdfio.NTriples)
	f := nt
	f.Name, f.Extensions, f.MediaTypes = "test-custom-nt", []string{".testnt"}, []string{"application/x-test-nt"}
	rdfio.Register(f)
	got, err := rdfio.ByExtension("a.TESTNT")
	if err != nil || got.Name != "test-custom-nt" || !reflect.DeepEqual(got.MediaTypes, f.MediaTypes) {
		t.Fatalf("got %+v, %v", got, err)
	}
	qs := mustRead(t, "test-custom-nt", "<http://ex.org/s> <http://ex.org/p> <http://ex.org/o> .\n", rdfio.DecodeOptions{})
	if len(qs) != 1 {
		t.Errorf("got %d quads", len(qs))
	}
}
