# Reads SPARQL results documents with rdflib, a third-party reader, for the
# differential test of the results writers (TestWriters_Rdflib in
# ../rdflib_test.go). Usage: rdflib_read_results.py FORMAT FILE...
# Prints a JSON list, one entry per file: {"vars": [...], "rows": [[term or
# null, ...], ...]}, {"boolean": b} or {"error": "..."}; a term is {"iri":
# ...}, {"bnode": ...} or {"literal": ..., "lang": ..., "datatype": ...}.
import json
import sys

import rdflib
from rdflib import BNode, Literal, URIRef
from rdflib.query import Result

rdflib.NORMALIZE_LITERALS = False  # keep lexical forms as written


def term(v):
    if v is None:
        return None
    if isinstance(v, URIRef):
        return {"iri": str(v)}
    if isinstance(v, BNode):
        return {"bnode": str(v)}
    if isinstance(v, Literal):
        d = {"literal": str(v)}
        if v.language:
            d["lang"] = v.language
        if v.datatype:
            d["datatype"] = str(v.datatype)
        return d
    return {"other": repr(v)}


out = []
fmt = sys.argv[1]
stdout, sys.stdout = sys.stdout, sys.stderr  # rdflib's TSV reader prints its errors
for path in sys.argv[2:]:
    try:
        with open(path, "rb") as f:
            r = Result.parse(f, format=fmt)
        if r.type == "ASK":
            out.append({"boolean": bool(r.askAnswer)})
        else:
            out.append({"vars": [str(v) for v in r.vars],
                        "rows": [[term(b.get(v)) for v in r.vars] for b in r.bindings]})
    except Exception as e:  # report, do not stop: one answer per file
        out.append({"error": "%s: %s" % (type(e).__name__, e)})
json.dump(out, stdout)
