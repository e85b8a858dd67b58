package rdfio_test

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cortexgraph/cortex/cortex/rdfio"
)

func ExampleNewDecoder() {
	src := `@prefix ex: <http://ex.org/> .
ex:alice ex:knows [ ex:name "Bob"@en ] ; ex:age 042 .
`
	d, err := rdfio.NewDecoder(strings.NewReader(src), rdfio.Turtle, rdfio.DecodeOptions{BlankPrefix: "imp1_"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	for {
		q, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(rdfio.FormatTerm(q.Subject), rdfio.FormatTerm(q.Predicate), rdfio.FormatTerm(q.Object))
	}
	// Output:
	// <http://ex.org/alice> <http://ex.org/knows> _:imp1_g1
	// _:imp1_g1 <http://ex.org/name> "Bob"@en
	// <http://ex.org/alice> <http://ex.org/age> "042"^^<http://www.w3.org/2001/XMLSchema#integer>
}

func ExampleNewEncoder() {
	qs, err := rdfio.ReadAll(strings.NewReader(`<http://ex.org/s> <http://ex.org/p> "a", "b" ; <http://ex.org/q> _:x .`),
		rdfio.Turtle, rdfio.DecodeOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	e, err := rdfio.NewEncoder(os.Stdout, rdfio.Turtle, rdfio.EncodeOptions{Prefixes: map[string]string{"ex": "http://ex.org/"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, q := range qs {
		if err := e.Encode(q); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := e.Close(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// @prefix ex: <http://ex.org/> .
	//
	// ex:s ex:p "a" ,
	// 		"b" ;
	// 	ex:q _:ex .
}

func ExampleSyntaxError() {
	_, err := rdfio.ReadAll(strings.NewReader("@prefix ex: <http://ex.org/> .\nex:s ex:p nope:o .\n"),
		rdfio.Turtle, rdfio.DecodeOptions{File: "team.ttl"})
	fmt.Println(err)
	// Output:
	// team.ttl:2:11: undefined prefix "nope"
}
