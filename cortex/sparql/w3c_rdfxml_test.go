package sparql_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

// resultSetFromRDFXML reads the RDF/XML result sets of the SPARQL 1.0 sort tests: an rs:ResultSet
// element with rs:resultVariable, and rs:solution / rs:binding elements (rs:index for order).
func resultSetFromRDFXML(b []byte) (*results.Result, error) {
	type value struct {
		Resource string `xml:"http://www.w3.org/1999/02/22-rdf-syntax-ns# resource,attr"`
		NodeID   string `xml:"http://www.w3.org/1999/02/22-rdf-syntax-ns# nodeID,attr"`
		Datatype string `xml:"http://www.w3.org/1999/02/22-rdf-syntax-ns# datatype,attr"`
		Lang     string `xml:"http://www.w3.org/XML/1998/namespace lang,attr"`
		Text     string `xml:",chardata"`
	}
	type binding struct {
		Variable string `xml:"http://www.w3.org/2001/sw/DataAccess/tests/result-set# variable"`
		Value    value  `xml:"http://www.w3.org/2001/sw/DataAccess/tests/result-set# value"`
	}
	type solution struct {
		Index    string    `xml:"http://www.w3.org/2001/sw/DataAccess/tests/result-set# index"`
		Bindings []binding `xml:"http://www.w3.org/2001/sw/DataAccess/tests/result-set# binding"`
	}
	type resultSet struct {
		Vars      []string   `xml:"http://www.w3.org/2001/sw/DataAccess/tests/result-set# resultVariable"`
		Solutions []solution `xml:"http://www.w3.org/2001/sw/DataAccess/tests/result-set# solution"`
	}
	var doc struct {
		Sets []resultSet `xml:"http://www.w3.org/2001/sw/DataAccess/tests/result-set# ResultSet"`
	}
	if err := xml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
		return nil, err
	}
	if len(doc.Sets) == 0 {
		return nil, errors.New("no rs:ResultSet element")
	}
	rs := doc.Sets[0]
	out := &results.Result{Vars: append([]string(nil), rs.Vars...)}
	sort.Strings(out.Vars)
	idx := map[string]int{}
	for i, v := range out.Vars {
		idx[v] = i
	}
	type sol struct {
		row   results.Row
		index int
	}
	var sols []sol
	for _, s := range rs.Solutions {
		row := make(results.Row, len(out.Vars))
		for _, bd := range s.Bindings {
			i, ok := idx[bd.Variable]
			if !ok {
				continue
			}
			v := bd.Value
			switch {
			case v.Resource != "":
				row[i] = quad.IRI(v.Resource)
			case v.NodeID != "":
				row[i] = quad.BNode(v.NodeID)
			case v.Lang != "":
				row[i] = quad.LangString{Value: quad.String(v.Text), Lang: v.Lang}
			case v.Datatype != "" && v.Datatype != "http://www.w3.org/2001/XMLSchema#string":
				row[i] = quad.TypedString{Value: quad.String(v.Text), Type: quad.IRI(v.Datatype)}
			default:
				row[i] = quad.String(v.Text)
			}
		}
		n, _ := strconv.Atoi(s.Index)
		sols = append(sols, sol{row, n})
	}
	sort.SliceStable(sols, func(i, j int) bool { return sols[i].index < sols[j].index })
	for _, s := range sols {
		out.Rows = append(out.Rows, s.row)
	}
	return out, nil
}

// readRDFXML reads the small subset of RDF/XML used by the W3C sub-query test data: node elements
// (rdf:Description or typed) with rdf:about / rdf:nodeID, and property elements with rdf:resource,
// rdf:nodeID or literal text (rdf:datatype, xml:lang). Relative IRIs resolve against base.
func readRDFXML(b []byte, base string) ([]quad.Quad, error) {
	const rdfNS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	dec := xml.NewDecoder(bytes.NewReader(b))
	attr := func(e xml.StartElement, space, local string) (string, bool) {
		for _, a := range e.Attr {
			if a.Name.Space == space && a.Name.Local == local {
				return a.Value, true
			}
		}
		return "", false
	}
	resolve := func(ref string) quad.IRI {
		if ref == "" {
			return quad.IRI(base)
		}
		if strings.Contains(ref, ":") {
			return quad.IRI(ref)
		}
		if ref[0] == '#' {
			return quad.IRI(base + ref)
		}
		return quad.IRI(base[:strings.LastIndexByte(base, '/')+1] + ref)
	}
	var (
		out     []quad.Quad
		depth   int
		subject quad.Value
		prop    *xml.StartElement
		text    strings.Builder
		done    bool
		bn      int
	)
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch depth {
			case 1: // rdf:RDF
			case 2: // node element
				if v, ok := attr(t, rdfNS, "about"); ok {
					subject = resolve(v)
				} else if v, ok := attr(t, rdfNS, "nodeID"); ok {
					subject = quad.BNode(v)
				} else {
					bn++
					subject = quad.BNode("x" + strconv.Itoa(bn))
				}
				if !(t.Name.Space == rdfNS && t.Name.Local == "Description") {
					out = append(out, quad.Quad{Subject: subject, Predicate: quad.IRI(rdfNS + "type"), Object: quad.IRI(t.Name.Space + t.Name.Local)})
				}
			case 3: // property element
				tc := t.Copy()
				prop, done = &tc, false
				text.Reset()
				pred := quad.IRI(t.Name.Space + t.Name.Local)
				if v, ok := attr(t, rdfNS, "resource"); ok {
					out = append(out, quad.Quad{Subject: subject, Predicate: pred, Object: resolve(v)})
					done = true
				} else if v, ok := attr(t, rdfNS, "nodeID"); ok {
					out = append(out, quad.Quad{Subject: subject, Predicate: pred, Object: quad.BNode(v)})
					done = true
				}
			default:
				return nil, errors.New("rdf/xml: nested node elements are not supported")
			}
		case xml.CharData:
			if depth == 3 {
				text.Write(t)
			}
		case xml.EndElement:
			if depth == 3 && prop != nil && !done {
				pred := quad.IRI(prop.Name.Space + prop.Name.Local)
				var obj quad.Value = quad.String(text.String())
				if dt, ok := attr(*prop, rdfNS, "datatype"); ok && dt != "http://www.w3.org/2001/XMLSchema#string" {
					obj = quad.TypedString{Value: quad.String(text.String()), Type: quad.IRI(dt)}
				} else if l, ok := attr(*prop, "http://www.w3.org/XML/1998/namespace", "lang"); ok && l != "" {
					obj = quad.LangString{Value: quad.String(text.String()), Lang: l}
				}
				out = append(out, quad.Quad{Subject: subject, Predicate: pred, Object: obj})
			}
			depth--
		}
	}
}
