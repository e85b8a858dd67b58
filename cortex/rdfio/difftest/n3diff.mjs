// n3diff reads RDF documents with N3.js for cortex/rdfio's differential test
// (TestDifferential_N3js in ../differential_test.go).
//
// Input, one JSON object per line on stdin:
//   {"id": 7, "format": "turtle" | "ntriples" | "nquads", "base": "http://...", "doc": "<base64 bytes>"}
// Output, one JSON object per line on stdout, in input order:
//   {"id": 7, "ok": true, "quads": [[s, p, o, g], ...]}   accepted
//   {"id": 7, "ok": false, "error": "..."}                 rejected
// A term is {"t": "I", "v": iri}, {"t": "B", "v": label},
// {"t": "L", "v": lexical form, "l": language, "d": datatype IRI, "dir": direction},
// or {"t": "T"} for an RDF 1.2 triple term; g is null for the default graph.
//
// The document bytes must be UTF-8 (RDF syntaxes are Unicode text): a
// malformed sequence is a rejection, as N3.js itself only reads strings.
import { createInterface } from 'node:readline';
import { Parser } from 'n3';

const formats = {
  turtle: 'text/turtle',
  ntriples: 'application/n-triples',
  nquads: 'application/n-quads',
};

function term(t) {
  switch (t.termType) {
  case 'NamedNode': return { t: 'I', v: t.value };
  case 'BlankNode': return { t: 'B', v: t.value };
  case 'Literal': {
    const out = { t: 'L', v: t.value, l: t.language, d: t.datatype.value };
    if (t.direction) out.dir = t.direction;
    return out;
  }
  case 'DefaultGraph': return null;
  default: return { t: 'T' };
  }
}

function answer(req) {
  const format = formats[req.format];
  if (!format)
    return { id: req.id, ok: false, error: `harness: unknown format ${req.format}` };
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(Buffer.from(req.doc, 'base64'));
  }
  catch {
    return { id: req.id, ok: false, error: 'invalid UTF-8' };
  }
  try {
    const quads = new Parser({ format, baseIRI: req.base }).parse(text);
    return { id: req.id, ok: true, quads: quads.map(q => [term(q.subject), term(q.predicate), term(q.object), term(q.graph)]) };
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
  if (out.length >= 256) flush();
});
lines.on('close', flush);
