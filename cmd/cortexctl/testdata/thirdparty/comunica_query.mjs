// Runs a SPARQL query file against a SPARQL endpoint with Comunica
// (@comunica/query-sparql, pinned in package.json) and prints the results
// as SPARQL JSON.
//
// Usage: node comunica_query.mjs ENDPOINT QUERY.rq
import { readFileSync } from 'node:fs';
import { QueryEngine } from '@comunica/query-sparql';

const [endpoint, path] = process.argv.slice(2);
const engine = new QueryEngine();
const result = await engine.query(readFileSync(path, 'utf8'), {
  sources: [{ type: 'sparql', value: endpoint }],
});
const { data } = await engine.resultToString(result, 'application/sparql-results+json');
data.pipe(process.stdout);
