package namespace_test

import (
	"errors"
	"fmt"

	"github.com/cortexgraph/cortex/namespace"
)

func ExampleNew() {
	ns, err := namespace.New("acme")
	if err != nil {
		panic(err)
	}
	fmt.Println(ns.Base())
	fmt.Println(ns.Team("research/2024"))
	fmt.Println(ns.IRI(namespace.TeamStatus))
	fmt.Println(ns.MemberGraph("research/2024", "bob"))

	_, err = namespace.New("Acme")
	fmt.Println(errors.Is(err, namespace.ErrInvalidName))
	// Output:
	// urn:cortex:acme
	// <urn:cortex:acme:team:research%2F2024>
	// <urn:cortex:acme:team:status>
	// <urn:cortex:acme:team:research%2F2024:member:bob:graph:findings>
	// true
}

func ExampleNS_Parse() {
	ns, _ := namespace.New("acme")
	ref, err := ns.Parse(ns.Member("t 1", "a:b"))
	fmt.Printf("%s %q %q %v\n", ref.Kind, ref.Team, ref.Agent, err)

	other, _ := namespace.New("acme-b")
	_, err = ns.Parse(other.Team("t1"))
	fmt.Println(errors.Is(err, namespace.ErrForeignIRI))
	// Output:
	// member "t 1" "a:b" <nil>
	// true
}

func ExampleEscape() {
	fmt.Println(namespace.Escape("alice"))
	fmt.Println(namespace.Escape("<a b>"))
	fmt.Println(namespace.Escape("status")) // a vocabulary word
	s, _ := namespace.Unescape("%73tatus")
	fmt.Println(s)
	// Output:
	// alice
	// %3Ca%20b%3E
	// %73tatus
	// status
}
