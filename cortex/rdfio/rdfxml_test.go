package rdfio_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/rdfio/rdftest"
)

// rdfxmlDocs are N-Triples documents whose graphs RDF/XML can carry: the
// seeds of FuzzEncodeRDFXML and the documents TestRDFXML_Rdflib has rdflib
// read back.
var rdfxmlDocs = []string{
	"<http://ex.org/s> <http://ex.org/p> <http://ex.org/o> .\n",
	// escapes in text and attributes; white space kept as it is
	"<http://ex.org/s?a=1&b=2> <http://ex.org/p> \"a & b < c > d ]]> \\\"q\\\" 'a'\" .\n" +
		"<http://ex.org/s?a=1&b=2> <http://ex.org/p> \"line\\nbreak\\r\\ncr\\ttab\" .\n" +
		"<http://ex.org/s?a=1&b=2> <http://ex.org/q> \"  \" .\n" +
		"<http://ex.org/s?a=1&b=2> <http://ex.org/q> \"\" .\n" +
		"<http://ex.org/s?a=1&b=2> <http://ex.org/q> <http://ex.org/o?x='1'&y=2> .\n",
	// language tags and datatypes, an empty typed literal
	"<http://ex.org/s> <http://ex.org/p> \"chat\"@fr .\n" +
		"<http://ex.org/s> <http://ex.org/p> \"colour\"@en-GB .\n" +
		"<http://ex.org/s> <http://ex.org/p> \"01\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n" +
		"<http://ex.org/s> <http://ex.org/p> \"x\"^^<http://www.w3.org/2001/XMLSchema#string> .\n" +
		"<http://ex.org/s> <http://ex.org/p> \"\"^^<http://ex.org/dt?a&b> .\n",
	// blank nodes as subjects and objects, labels that are no XML name
	"_:a <http://ex.org/p> _:b .\n_:b <http://ex.org/p> _:a .\n_:x1 <http://ex.org/p> _:1 .\n_:a.b <http://ex.org/p> \"x\" .\n",
	// non-ASCII in IRIs, literals and (kept in the namespace) before a name
	"<http://ex.org/é> <http://ex.org/ü/p> \"日本語 \\u00e9 \\U0001F600\" .\n<http://ex.org/s> <http://ex.org/pé_x> \"\\u007F\\u0080\\u00A0\" .\n",
	// predicates of many namespaces, the RDF one, names with - . _ and digits
	"<http://ex.org/s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex.org/C> .\n" +
		"<http://ex.org/s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#_1> \"first\" .\n" +
		"<http://ex.org/s> <urn:x:p-1.2_3> \"1\" .\n" +
		"<http://ex.org/s> <http://ex.org/a#b_> \"2\" .\n" +
		"<http://ex.org/s> <http://ex.org/123abc> \"3\" .\n" +
		"<http://ex.org/s> <tag:ex.org,2026:_x> \"4\" .\n" +
		"<urn:other> <http://ex.org/ns1p> <urn:s> .\n<http://ex.org/s> <http://ex.org/p> \"again\" .\n",
}

// rdfxmlBad are N-Triples documents RDF/XML cannot carry, with what the
// error says: the encoder fails and writes nothing.
var rdfxmlBad = []struct{ name, doc, msg string }{
	{"PredicateEndsInSlash", "<http://ex.org/s> <http://ex.org/p/> \"x\" .\n", "does not end in an XML name"},
	{"PredicateEndsInDigit", "<http://ex.org/s> <urn:isbn:123> \"x\" .\n", "does not end in an XML name"},
	{"PredicateEndsInNonASCII", "<http://ex.org/s> <http://ex.org/é> \"x\" .\n", "does not end in an XML name"},
	{"RDFLi", "<http://ex.org/s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#li> \"x\" .\n", "rdf:li"},
	{"RDFAbout", "<http://ex.org/s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#about> \"x\" .\n", "rdf:about"},
	{"XMLNSNamespace", "<http://ex.org/s> <http://www.w3.org/2000/xmlns/p> \"x\" .\n", "reserved by XML"},
	{"ControlCharacter", "<http://ex.org/s> <http://ex.org/p> \"a\\u0001b\" .\n", "XML 1.0 cannot carry"},
	{"NonCharacter", "<http://ex.org/s> <http://ex.org/p> \"\\uFFFF\" .\n", "XML 1.0 cannot carry"},
	{"LaterTriple", "<http://ex.org/s> <http://ex.org/p> \"fine\" .\n<http://ex.org/s> <http://ex.org/p/> \"x\" .\n", "does not end in an XML name"},
}

func writeRDFXML(qs []quad.Quad, opts rdfio.EncodeOptions) (string, error) {
	var buf bytes.Buffer
	enc, err := rdfio.NewEncoder(&buf, rdfio.RDFXML, opts)
	if err != nil {
		return "", err
	}
	for _, q := range qs {
		if err := enc.Encode(q); err != nil {
			if cerr := enc.Close(); !errors.Is(cerr, err) {
				return buf.String(), fmt.Errorf("Close after %v: %v, want the same error", err, cerr)
			}
			return buf.String(), err
		}
	}
	err = enc.Close()
	return buf.String(), err
}

func TestRDFXML_Encode(t *testing.T) {
	qs := []quad.Quad{
		{Subject: iri("s"), Predicate: iri("p"), Object: iri("o"), Label: iri("g")},
		{Subject: iri("s"), Predicate: quad.IRI(rdf + "type"), Object: iri("C")},
		{Subject: iri("s"), Predicate: quad.IRI("urn:x:name"), Object: quad.LangString{Value: "a<b&c", Lang: "en"}},
		{Subject: quad.BNode("b1"), Predicate: iri("p"), Object: quad.TypedString{Value: "1", Type: xsd + "integer"}},
		{Subject: quad.BNode("b1"), Predicate: iri("q"), Object: quad.BNode("x y")},
		{Subject: iri("t"), Predicate: iri("p"), Object: quad.String("line\r\n")},
	}
	got, err := writeRDFXML(qs, rdfio.EncodeOptions{Prefixes: map[string]string{"ex": "http://ex.org/", "xmlish": "urn:x:", "rdf": "urn:not-rdf"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `<?xml version="1.0" encoding="utf-8"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    xmlns:ex="http://ex.org/"
    xmlns:ns1="urn:x:">
<rdf:Description rdf:about="http://ex.org/s">
  <ex:p rdf:resource="http://ex.org/o"/>
  <rdf:type rdf:resource="http://ex.org/C"/>
  <ns1:name xml:lang="en">a&lt;b&amp;c</ns1:name>
</rdf:Description>
<rdf:Description rdf:nodeID="b1">
  <ex:p rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">1</ex:p>
  <ex:q rdf:nodeID="x782079"/>
</rdf:Description>
<rdf:Description rdf:about="http://ex.org/t">
  <ex:p>line&#13;
</ex:p>
</rdf:Description>
</rdf:RDF>
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	back, err := readRDFXML([]byte(got))
	if err != nil {
		t.Fatal(err)
	}
	qs[0].Label = nil
	if !rdftest.Isomorphic(qs, back) {
		t.Errorf("read back %v, want %v", back, qs)
	}
}

func TestRDFXML_Empty(t *testing.T) {
	got, err := writeRDFXML(nil, rdfio.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n</rdf:RDF>\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestRDFXML_CannotWrite: a graph RDF/XML cannot carry is an error that
// names the reason, and nothing at all is written, not even the triples
// before it.
// TestRDFXML_Docs checks that every document of rdfxmlDocs reads (so that
// the fuzz seeds and the rdflib test exercise it) and reads back from
// RDF/XML as the same graph.
func TestRDFXML_Docs(t *testing.T) {
	for i, doc := range rdfxmlDocs {
		qs := mustRead(t, rdfio.NTriples, doc, rdfio.DecodeOptions{})
		out, err := writeRDFXML(qs, rdfio.EncodeOptions{})
		if err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		back, err := readRDFXML([]byte(out))
		if err != nil || !rdftest.Isomorphic(qs, back) {
			t.Errorf("document %d reads back as %v (%v):\n%s", i, back, err, out)
		}
	}
}

func TestRDFXML_CannotWrite(t *testing.T) {
	for _, tc := range rdfxmlBad {
		t.Run(tc.name, func(t *testing.T) {
			qs := mustRead(t, rdfio.NTriples, tc.doc, rdfio.DecodeOptions{})
			out, err := writeRDFXML(qs, rdfio.EncodeOptions{})
			var qe *rdfio.QuadError
			if !errors.As(err, &qe) || !errors.Is(err, rdfio.ErrInvalidQuad) && !errors.Is(err, rdfio.ErrInvalidTerm) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want a *QuadError wrapping ErrInvalidQuad or ErrInvalidTerm saying %q", err, tc.msg)
			}
			if out != "" {
				t.Errorf("wrote %q before failing", out)
			}
		})
	}
}

func TestRDFXML_Options(t *testing.T) {
	for name, prefixes := range map[string]map[string]string{
		"bad name":     {"1x": "http://ex.org/"},
		"relative ns":  {"ex": "ex.org/"},
		"control char": {"ex": "http://ex.org/\u0001"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := rdfio.NewEncoder(io.Discard, rdfio.RDFXML, rdfio.EncodeOptions{Prefixes: prefixes}); !errors.Is(err, rdfio.ErrInvalidOption) {
				t.Errorf("err = %v, want ErrInvalidOption", err)
			}
		})
	}
	// A generated prefix never takes the name of an option's.
	qs := []quad.Quad{{Subject: iri("s"), Predicate: quad.IRI("urn:a:p"), Object: iri("o")}, {Subject: iri("s"), Predicate: quad.IRI("urn:b:p"), Object: iri("o")}}
	got, err := writeRDFXML(qs, rdfio.EncodeOptions{Prefixes: map[string]string{"ns1": "urn:b:"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, `xmlns:ns1="urn:b:"`) || !strings.Contains(got, `xmlns:ns2="urn:a:"`) || !strings.Contains(got, "<ns2:p ") {
		t.Errorf("prefixes:\n%s", got)
	}
}

func TestRDFXML_EncodeAfterClose(t *testing.T) {
	enc, err := rdfio.NewEncoder(io.Discard, rdfio.RDFXML, rdfio.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := enc.Encode(quad.Quad{Subject: iri("s"), Predicate: iri("p"), Object: iri("o")}); !errors.Is(err, rdfio.ErrEncoderClosed) {
		t.Errorf("Encode after Close: %v", err)
	}
}

// FuzzEncodeRDFXML: any graph the N-Triples reader accepts either
// serialises to RDF/XML that an XML parser reads back (readRDFXML) as the
// same graph, or fails with a *QuadError before writing anything.
func FuzzEncodeRDFXML(f *testing.F) {
	for _, s := range append(append([]string(nil), rdfxmlDocs...), fuzzSeeds...) {
		f.Add(s)
	}
	for _, tc := range rdfxmlBad {
		f.Add(tc.doc)
	}
	f.Fuzz(func(t *testing.T, src string) {
		qs, err := rdfio.ReadAll(strings.NewReader(src), rdfio.NQuads, rdfio.DecodeOptions{})
		if err != nil {
			return
		}
		out, err := writeRDFXML(qs, rdfio.EncodeOptions{Prefixes: map[string]string{"ex": "http://ex.org/"}})
		if err != nil {
			var qe *rdfio.QuadError
			if !errors.As(err, &qe) || out != "" {
				t.Fatalf("error %v (%T) after writing %q, want a *QuadError and nothing written", err, err, out)
			}
			return
		}
		back, err := readRDFXML([]byte(out))
		if err != nil {
			t.Fatalf("output does not read back: %v\n%s", err, out)
		}
		for i := range qs {
			qs[i].Label = nil
		}
		if !rdftest.Isomorphic(qs, back) {
			a, b := rdftest.Diff(qs, back)
			t.Fatalf("read back another graph:\n%s\nonly written: %v\nonly read: %v", out, a, b)
		}
	})
}

// readRDFXML reads the RDF/XML that the encoder writes (rdf:Description
// elements with rdf:about or rdf:nodeID, property elements with
// rdf:resource, rdf:nodeID, or text with xml:lang or rdf:datatype) with
// encoding/xml in strict mode, which checks well-formedness, characters
// and namespace prefixes; anything else in the document is an error.
func readRDFXML(data []byte) ([]quad.Quad, error) {
	const xmlNS = "http://www.w3.org/XML/1998/namespace"
	dec := xml.NewDecoder(bytes.NewReader(data))
	attr := func(se xml.StartElement, space, local string) (string, bool) {
		for _, a := range se.Attr {
			if a.Name.Space == space && a.Name.Local == local {
				return a.Value, true
			}
		}
		return "", false
	}
	node := func(se xml.StartElement, iriAttr string) (quad.Value, error) {
		if id, ok := attr(se, rdf, "nodeID"); ok {
			return quad.BNode(id), nil
		}
		if v, ok := attr(se, rdf, iriAttr); ok {
			return quad.IRI(v), nil
		}
		return nil, fmt.Errorf("element %v has neither rdf:%s nor rdf:nodeID", se.Name, iriAttr)
	}
	var out []quad.Quad
	var subject quad.Value
	var prop *xml.StartElement
	var text strings.Builder
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if depth != 0 {
				return nil, fmt.Errorf("unexpected end of document")
			}
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch depth {
			case 1:
				if t.Name.Space != rdf || t.Name.Local != "RDF" {
					return nil, fmt.Errorf("root %v is not rdf:RDF", t.Name)
				}
			case 2:
				if t.Name.Space != rdf || t.Name.Local != "Description" {
					return nil, fmt.Errorf("node element %v is not rdf:Description", t.Name)
				}
				if subject, err = node(t, "about"); err != nil {
					return nil, err
				}
			case 3:
				if t.Name.Space == "" || strings.Contains(t.Name.Space, " ") {
					return nil, fmt.Errorf("property element %v has no namespace", t.Name)
				}
				p := t.Copy()
				prop = &p
				text.Reset()
			default:
				return nil, fmt.Errorf("element %v nested too deep", t.Name)
			}
		case xml.CharData:
			if depth == 3 {
				text.Write(t)
			} else if strings.TrimSpace(string(t)) != "" {
				return nil, fmt.Errorf("text %q outside a property element", t)
			}
		case xml.EndElement:
			if depth == 3 {
				pred := quad.IRI(prop.Name.Space + prop.Name.Local)
				var obj quad.Value
				_, hasRes := attr(*prop, rdf, "resource")
				_, hasID := attr(*prop, rdf, "nodeID")
				lang, hasLang := attr(*prop, xmlNS, "lang")
				dt, hasDT := attr(*prop, rdf, "datatype")
				switch {
				case hasRes || hasID:
					if text.Len() > 0 || hasLang || hasDT {
						return nil, fmt.Errorf("property %v has a node and text", prop.Name)
					}
					obj, _ = node(*prop, "resource")
				case hasLang:
					obj = quad.LangString{Value: quad.String(text.String()), Lang: lang}
				case hasDT:
					obj = quad.TypedString{Value: quad.String(text.String()), Type: quad.IRI(dt)}
				default:
					obj = quad.String(text.String())
				}
				out = append(out, quad.Quad{Subject: subject, Predicate: pred, Object: obj})
			}
			depth--
		case xml.ProcInst, xml.Comment:
		default:
			return nil, fmt.Errorf("unexpected %T", t)
		}
	}
}

// TestRDFXML_Rdflib is the differential test of the RDF/XML writer: rdflib
// (python3-rdflib), a third-party RDF/XML parser, reads what the writer
// wrote from each of rdfxmlDocs and of the fuzz seeds that it can write, and
// must find the graph the N-Triples reader read (isomorphic).
func TestRDFXML_Rdflib(t *testing.T) {
	python := rdftest.RequireRdflib(t)
	dir := t.TempDir()
	var files []string
	var graphs [][]quad.Quad
	for i, doc := range append(append([]string(nil), rdfxmlDocs...), fuzzSeeds...) {
		qs, err := rdfio.ReadAll(strings.NewReader(doc), rdfio.NQuads, rdfio.DecodeOptions{Base: "http://base.example/doc"})
		if err != nil {
			if i < len(rdfxmlDocs) {
				t.Fatalf("document %d: %v", i, err)
			}
			continue // a seed of the readers' fuzz tests that is no document
		}
		out, err := writeRDFXML(qs, rdfio.EncodeOptions{Prefixes: map[string]string{"ex": "http://ex.org/"}})
		if err != nil {
			if i < len(rdfxmlDocs) {
				t.Fatalf("document %d: %v", i, err)
			}
			continue
		}
		for j := range qs {
			qs[j].Label = nil
		}
		path := filepath.Join(dir, fmt.Sprintf("doc%d.rdf", i))
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
		graphs = append(graphs, qs)
	}
	if len(files) < len(rdfxmlDocs) {
		t.Fatalf("only %d documents written", len(files))
	}
	read := rdftest.RdflibRead(t, python, "xml", files)
	for i, back := range read {
		if !rdftest.Isomorphic(graphs[i], back) {
			text, _ := os.ReadFile(files[i])
			a, b := rdftest.Diff(graphs[i], back)
			t.Errorf("%s: rdflib reads another graph:\n%s\nonly written: %v\nonly read by rdflib: %v", filepath.Base(files[i]), text, a, b)
		}
	}
	t.Logf("rdflib read %d RDF/XML documents back as written", len(files))
}

// TestQuadError_EscapesTheQuad: the error of a quad an encoder cannot
// write shows it in N-Quads syntax, control characters escaped: it showed
// cayley's form with the literal's bytes raw (a NUL, a BEL, an escape
// sequence went to the terminal of whoever read the message).
func TestQuadError_EscapesTheQuad(t *testing.T) {
	qs := mustRead(t, rdfio.NQuads, "<http://ex/s> <http://ex/p> \"a\\u0000\\u0007\\u001B[31mb\" <http://ex/g> .\n", rdfio.DecodeOptions{})
	_, err := writeRDFXML(qs, rdfio.EncodeOptions{})
	var qe *rdfio.QuadError
	if !errors.As(err, &qe) {
		t.Fatalf("err = %v, want a *QuadError", err)
	}
	msg := err.Error()
	if want := `encode quad <http://ex/s> <http://ex/p> "a\u0000\u0007\u001B[31mb" <http://ex/g>: `; !strings.HasPrefix(msg, want) {
		t.Errorf("error %q, want it to start with %q", msg, want)
	}
	if i := strings.IndexFunc(msg, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
		t.Errorf("error %q holds control character %U", msg, msg[i])
	}
}
