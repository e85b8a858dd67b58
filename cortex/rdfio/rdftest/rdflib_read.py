"""Reads RDF files of one format with rdflib (python3-rdflib) and prints their triples
as JSON: one list per file, of [subject, predicate, object] terms, each
{"iri": ...}, {"bnode": ...} or {"literal": ..., "lang": ..., "datatype": ...}.
Lexical forms are kept as written (rdflib.NORMALIZE_LITERALS off).

Usage: python3 rdflib_read.py FORMAT FILE...   (FORMAT: an rdflib parser name, e.g. xml, turtle)
"""
import json
import sys

import rdflib
from rdflib.term import BNode, Literal, URIRef

rdflib.NORMALIZE_LITERALS = False


def term(t):
    if isinstance(t, URIRef):
        return {"iri": str(t)}
    if isinstance(t, BNode):
        return {"bnode": str(t)}
    if isinstance(t, Literal):
        return {"literal": str(t), "lang": t.language or "", "datatype": str(t.datatype or "")}
    raise TypeError("unexpected term %r" % (t,))


graphs = []
for path in sys.argv[2:]:
    g = rdflib.Graph()
    # A base of a scheme that urljoin does not resolve against keeps every
    # (absolute) IRI exactly as written.
    g.parse(path, format=sys.argv[1], publicID="tag:cortex.example,2026:base")
    graphs.append([[term(s), term(p), term(o)] for s, p, o in g])
json.dump(graphs, sys.stdout)
