// Package namespace is the only place Cortex builds IRIs and graph names.
//
// A namespace is a name matching NameRule (ValidName, ValidateName) plus
// an IRI base, "urn:cortex:{name}" by default (WithBase changes it). Every
// IRI of the namespace starts with its Prefix, the base followed by ':'
// (unless the base already ends in ':', '/' or '#'). The store keeps
// namespaces apart; this package only provides the names. Because a name
// cannot contain ':', the prefixes of two default-based namespaces are never
// prefixes of each other: "urn:cortex:a:" does not start "urn:cortex:a-b:",
// and Parse rejects the other namespace's IRIs with ErrForeignIRI.
//
// # Layout
//
// With the default base of namespace "acme" (prefix "urn:cortex:acme:"):
//
//	urn:cortex:acme:Team                                 class (also Member, Agent, Finding, Conflict, Merge, FactSet)
//	urn:cortex:acme:team:status                          team predicate (see the Team* terms)
//	urn:cortex:acme:team:member:role                     member predicate (see the Member* terms)
//	urn:cortex:acme:finding:confidence                   finding predicate (also conflict:*, merge:*, fact:*)
//	urn:cortex:acme:agent:{agent}                        agent node
//	urn:cortex:acme:team:{team}                          team node
//	urn:cortex:acme:team:{team}:member:{agent}           member node
//	urn:cortex:acme:team:{team}:finding:{id}             finding node
//	urn:cortex:acme:team:{team}:conflict:{id}            conflict node
//	urn:cortex:acme:team:{team}:merge:{id}               merge run node
//	urn:cortex:acme:team:{team}:fact:{id}                FactSet (a named graph of fused facts)
//	urn:cortex:acme:team:{team}:graph:state              TeamGraph
//	urn:cortex:acme:team:{team}:graph:shared             SharedGraph
//	urn:cortex:acme:team:{team}:graph:provenance         ProvenanceGraph
//	urn:cortex:acme:team:{team}:graph:conflicts          ConflictGraph
//	urn:cortex:acme:team:{team}:member:{agent}:graph:findings  MemberGraph
//	urn:cortex:acme:agentdef:{agent}                     agent definition (and :graph:def, its graph)
//	urn:cortex:acme:teamdef:{team}                       team definition (and :step:{step}, :graph:def)
//	urn:cortex:acme:def:name                             definition predicate (see the Def* terms, defs.go)
//
// Every {part} is a user identifier passed through Escape: bytes outside
// [A-Za-z0-9._~-] become %XX, and an identifier equal to a vocabulary word
// ("name", "status", ...) gets its first byte escaped, so no identifier can
// produce a vocabulary IRI, a ':' or '/' separator, or a character that is
// invalid in an N-Triples IRIREF. Parse reverses the builders exactly.
//
// # Data model
//
// The team graph holds the team node (rdf:type Team; team:name, team:status,
// team:strategy, team:createdAt, team:timeout, ...; team:member → member
// node; team:merge → the last merge run; team:merge:status,
// team:merge:error and team:merge:errorKind while a finished team's merge is due) and its member nodes (rdf:type Member; team:member:agent → agent
// node, team:member:role, team:member:status, ...). Status literals are the
// plain strings pending, running, completed and failed.
//
// A member's graph holds its findings, each twice: the asserted triple
// itself, as a plain triple (so the graph reads as what the member said),
// and a finding node (rdf:type Finding) describing it in RDF-reification
// style, which reads naturally in SPARQL:
//
//	?f a cx:Finding ; rdf:subject ?s ; rdf:predicate ?p ; rdf:object ?o ;
//	   cx:finding:assertedBy ?member ; cx:finding:assertedAt ?t ;
//	   cx:finding:confidence ?c .
//
// The shared graph holds only the fused triples, as plain triples. Each of
// them is also in exactly one fact set (FactSet), a named graph holding the
// fused triples that share one attribution. The provenance graph holds, per
// merge run, a Merge node (a prov:Activity with merge:strategy,
// prov:startedAtTime, prov:endedAtTime) and, per fact set, its description
// (rdf:type FactSet, fact:team → team, prov:wasAttributedTo → agents,
// fact:confidence, fact:agent → the resolver if any, prov:wasGeneratedBy →
// merge, prov:generatedAtTime). A fact's provenance reads, in SPARQL:
//
//	GRAPH ?set { ?s ?p ?o } ?set a cx:FactSet ; prov:wasAttributedTo ?agent .
//
// The conflict graph holds
// Conflict nodes: conflict:team → team, conflict:subject,
// conflict:predicate, conflict:candidate → findings, conflict:chosen → the
// kept finding (absent if unresolved), conflict:strategy, conflict:reason,
// conflict:detectedAt and prov:wasGeneratedBy → merge. Conflict records and
// fact sets name their team, so "per team" is one pattern, whatever graph
// they are in:
//
//	SELECT ?team (COUNT(?c) AS ?n) WHERE { GRAPH ?g { ?c cx:conflict:team ?team } } GROUP BY ?team
//
// NS.Vocab and fixtures/vocab.ttl document every term.
//
// # Literals
//
// String, DateTime, Bool, Decimal, Confidence and Duration give every writer
// one encoding per datatype (plain strings as quad.String, never
// xsd:string-typed; xsd:dateTime in UTC; xsd:duration in seconds), and
// ParseString, ParseStatus, ParseDateTime, ParseBool, ParseDecimal,
// ParseConfidence and ParseDuration read them back, failing with
// ErrInvalidLiteral.
//
// # Concurrency
//
// NS is an immutable value; all its methods and all package functions are
// safe for concurrent use. Package-level tables are read-only after
// initialisation.
//
// # Caveats
//
//   - The list of reserved vocabulary words used by Escape is frozen: adding
//     a word changes how an identifier equal to it is escaped, so IRIs
//     already stored for that identifier would no longer Parse. New
//     vocabulary terms should reuse existing words where possible.
//   - With WithBase the namespace name no longer appears in IRIs; two
//     namespaces given the same base produce the same IRIs.
//   - The empty identifier is allowed and escapes to the empty string, giving
//     IRIs such as urn:cortex:acme:team: — callers that want to forbid empty
//     ids must check them.
//   - ParseDuration rejects years and months (no fixed length) and values
//     outside time.Duration's range, including Duration(math.MinInt64).
//   - The zero NS is not usable: its builders return prefix-less strings and
//     Parse fails. Use New.
package namespace
