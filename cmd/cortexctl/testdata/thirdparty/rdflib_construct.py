"""Runs a CONSTRUCT or DESCRIBE query file against a SPARQL endpoint with
rdflib's SPARQLStore (python3-rdflib), which asks for the graph as
application/rdf+xml, and prints the graph as N-Triples, lexical forms kept as
the server sent them.

Usage: python3 rdflib_construct.py ENDPOINT QUERY.rq
"""
import sys

import rdflib
from rdflib import ConjunctiveGraph
from rdflib.plugins.stores.sparqlstore import SPARQLStore

rdflib.NORMALIZE_LITERALS = False

endpoint, path = sys.argv[1], sys.argv[2]
with open(path, encoding="utf-8") as f:
    query = f.read()
result = ConjunctiveGraph(store=SPARQLStore(endpoint)).query(query)
if result.type not in ("CONSTRUCT", "DESCRIBE") or result.graph is None:
    sys.exit("not a graph result: %s" % result.type)
sys.stdout.buffer.write(result.graph.serialize(format="nt", encoding="utf-8"))
