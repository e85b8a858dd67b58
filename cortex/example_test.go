package cortex_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/sparql"
)

// Open a persistent store, write a few quads to a namespace with Apply and
// read them back with Quads.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "cortex-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	s, err := cortex.Open(ctx, dir, cortex.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	ns, err := s.Namespace(ctx, "team")
	if err != nil {
		log.Fatal(err)
	}
	alice := quad.IRI("http://example.org/alice")
	name := quad.IRI("http://xmlns.com/foaf/0.1/name")
	if err := ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{
		{Subject: alice, Predicate: name, Object: quad.String("Alice")},
		{Subject: alice, Predicate: name, Object: quad.String("Alice")}, // quads are a set
	}}); err != nil {
		log.Fatal(err)
	}
	qs, err := ns.Quads(ctx, cortex.Pattern{Subject: alice})
	if err != nil {
		log.Fatal(err)
	}
	for _, q := range qs {
		fmt.Println(q.NQuad())
	}
	// Output:
	// <http://example.org/alice> <http://xmlns.com/foaf/0.1/name> "Alice" .
}

// A SPARQL query reads one consistent state of a namespace; its result
// streams from the store and must be closed. Bindings give variables values
// without writing them into the query text.
func ExampleNamespace_Query() {
	ctx := context.Background()
	s, err := cortex.Open(ctx, "", cortex.DefaultOptions().WithInMemory(true))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ns, err := s.Namespace(ctx, "team")
	if err != nil {
		log.Fatal(err)
	}
	role := quad.IRI("http://example.org/role")
	if err := ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{
		{Subject: quad.IRI("http://example.org/alice"), Predicate: role, Object: quad.String("lead")},
		{Subject: quad.IRI("http://example.org/bob"), Predicate: role, Object: quad.String("reviewer")},
		{Subject: quad.IRI("http://example.org/carol"), Predicate: role, Object: quad.String("reviewer")},
	}}); err != nil {
		log.Fatal(err)
	}

	res, err := ns.Query(ctx, `SELECT ?who WHERE { ?who <http://example.org/role> ?role } ORDER BY ?who`,
		sparql.Options{Bindings: map[string]quad.Value{"role": quad.String("reviewer")}})
	if err != nil {
		log.Fatal(err)
	}
	defer res.Close()
	for res.Next(ctx) {
		fmt.Println(res.Row()[0])
	}
	if err := res.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// <http://example.org/bob>
	// <http://example.org/carol>
}

// Update is an atomic read-modify-write: fn sees the latest committed state
// and no other writer of the namespace runs until its delta is applied. If fn
// returns an error, nothing is written.
func ExampleNamespace_Update() {
	ctx := context.Background()
	s, err := cortex.Open(ctx, "", cortex.DefaultOptions().WithInMemory(true))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ns, err := s.Namespace(ctx, "team")
	if err != nil {
		log.Fatal(err)
	}
	task := quad.IRI("http://example.org/task1")
	status := quad.IRI("http://example.org/status")
	if err := ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{{Subject: task, Predicate: status, Object: quad.String("open")}}}); err != nil {
		log.Fatal(err)
	}

	// Move the task from "open" to "done", only if it is open.
	setStatus := func(from, to string) error {
		return ns.Update(ctx, func(tx *cortex.Tx) error {
			cur, err := tx.Namespace().Quads(ctx, cortex.Pattern{Subject: task, Predicate: status, Object: quad.String(from)})
			if err != nil {
				return err
			}
			if len(cur) == 0 {
				return fmt.Errorf("task is not %s", from)
			}
			tx.Remove(cur...)
			tx.Add(quad.Quad{Subject: task, Predicate: status, Object: quad.String(to)})
			return nil
		})
	}
	fmt.Println(setStatus("open", "done"))
	fmt.Println(setStatus("open", "done")) // nothing written
	qs, err := ns.Quads(ctx, cortex.Pattern{Subject: task})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(qs[0].Object)
	// Output:
	// <nil>
	// task is not open
	// "done"
}

// ImportRDF loads a document in any rdfio format; Export writes the
// namespace (or the graphs its options select) back out.
func ExampleNamespace_ImportRDF() {
	ctx := context.Background()
	s, err := cortex.Open(ctx, "", cortex.DefaultOptions().WithInMemory(true))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ns, err := s.Namespace(ctx, "team")
	if err != nil {
		log.Fatal(err)
	}
	doc := `@prefix ex: <http://example.org/> .
ex:alice ex:knows ex:bob .
ex:bob ex:knows ex:carol .
`
	res, err := ns.ImportRDF(ctx, strings.NewReader(doc), cortex.RDFImportOptions{
		Format: rdfio.Turtle,
		File:   "team.ttl",
		Graph:  quad.IRI("http://example.org/people"),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("imported", res.Committed)

	var out strings.Builder
	if _, err := ns.Export(ctx, &out, rdfio.NQuads, cortex.ExportOptions{}); err != nil {
		log.Fatal(err)
	}
	fmt.Print(out.String())
	// Output:
	// imported 2
	// <http://example.org/alice> <http://example.org/knows> <http://example.org/bob> <http://example.org/people> .
	// <http://example.org/bob> <http://example.org/knows> <http://example.org/carol> <http://example.org/people> .
}

// Errors are matched with errors.Is against the package's sentinels.
func ExampleStore_OpenNamespace() {
	ctx := context.Background()
	s, err := cortex.Open(ctx, "", cortex.DefaultOptions().WithInMemory(true))
	if err != nil {
		log.Fatal(err)
	}
	_, err = s.OpenNamespace(ctx, "missing")
	fmt.Println(errors.Is(err, cortex.ErrNoNamespace), errors.Is(err, cortex.ErrNotFound))

	s.Close()
	_, err = s.Namespace(ctx, "team")
	fmt.Println(errors.Is(err, cortex.ErrClosed))
	// Output:
	// true true
	// true
}
