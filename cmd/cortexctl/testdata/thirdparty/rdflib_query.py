"""Runs a SPARQL query file against a SPARQL endpoint with rdflib's
SPARQLStore (python3-rdflib) and prints the results as SPARQL JSON.

Usage: python3 rdflib_query.py ENDPOINT QUERY.rq
"""
import sys

from rdflib import ConjunctiveGraph
from rdflib.plugins.stores.sparqlstore import SPARQLStore

endpoint, path = sys.argv[1], sys.argv[2]
with open(path, encoding="utf-8") as f:
    query = f.read()
store = SPARQLStore(endpoint, returnFormat="json")
# A ConjunctiveGraph queries the endpoint's default graph (no
# default-graph-uri): the union of the namespace's graphs.
result = ConjunctiveGraph(store=store).query(query)
sys.stdout.buffer.write(result.serialize(format="json"))
