// oxidiff runs SPARQL queries with Oxigraph for cortex/sparql's differential
// test (TestDifferential_Oxigraph in ../differential_test.go).
//
// Input, one JSON object per line on stdin:
//   {"id": 7, "ds": 3, "data": "<N-Quads>", "query": "SELECT ..."}
// A CONSTRUCT or DESCRIBE query comes with "graph": true; its triples are
// answered in N-Triples.
// Cases with the same ds share one dataset: the store is loaded from data when
// ds differs from the previous case's (data may then be omitted).
// Output, one JSON object per line on stdout, in input order:
//   {"id": 7, "ok": true, "json": "<SPARQL 1.1 query results JSON>"}   answered
//   {"id": 7, "ok": true, "nt": "<N-Triples>"}                         answered ("graph": true)
//   {"id": 7, "ok": false, "error": "..."}                             rejected or failed
// The query's default graph is the store's own default graph (not the union
// of its graphs); the named graphs are the store's.
import { createInterface } from 'node:readline';
import { Store } from 'oxigraph';

let store = null;
let storeDS = null;

function answer(req) {
  if (store === null || req.ds !== storeDS) {
    store = new Store();
    storeDS = req.ds;
    try {
      store.load(req.data || '', { format: 'application/n-quads' });
    }
    catch (e) {
      store = null;
      return { id: req.id, ok: false, error: `harness: load dataset ${req.ds}: ${String(e && e.message || e)}` };
    }
  }
  try {
    const out = store.query(req.query, {
      results_format: req.graph ? 'application/n-triples' : 'application/sparql-results+json',
      use_default_graph_as_union: false,
    });
    return req.graph ? { id: req.id, ok: true, nt: out } : { id: req.id, ok: true, json: out };
  }
  catch (e) {
    return { id: req.id, ok: false, error: String(e && e.message || e) };
  }
}

const out = [];
const flush = () => { if (out.length) { process.stdout.write(out.join('')); out.length = 0; } };
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', line => {
  if (!line) return;
  out.push(`${JSON.stringify(answer(JSON.parse(line)))}\n`);
  if (out.length >= 64) flush();
});
lines.on('close', flush);
