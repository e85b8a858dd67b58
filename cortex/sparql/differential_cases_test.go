package sparql_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

// Hand-written cases of TestDifferential_OxigraphCases: the edges of the
// builtins, aggregates and patterns that the generated corpus of
// TestDifferential_Oxigraph seldom reaches. Each query runs over one of
// handDatasets (N-Quads in the canonical forms Oxigraph's store keeps, see
// diffgen_test.go) with our engine and with Oxigraph; results must be the
// same (in order when ordered is set) unless the case names a skip of
// handSkips, whose reason says why the SPARQL 1.1 recommendation is on our
// side. A CONSTRUCT or DESCRIBE result is compared as a graph (a set of
// triples, blank nodes up to renaming). Each deterministic query also runs
// over a Cortex store holding the dataset, whose answer must be the one our
// engine gives over the in-memory dataset.

const handPrologue = "PREFIX ex: <" + dgEx + ">\nPREFIX xsd: <" + dgXSD + ">\n" +
	"PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n"

var handDatasets = []string{
	// 0: empty
	"",
	// 1: strings, numbers, dates
	`<http://ex.org/s1> <http://ex.org/str> "a\U0001F600b"@en .
<http://ex.org/s2> <http://ex.org/str> "abc" .
<http://ex.org/s3> <http://ex.org/str> "ABC"@fr .
<http://ex.org/s4> <http://ex.org/str> "x\u00e9y"^^<http://www.w3.org/2001/XMLSchema#string> .
<http://ex.org/s1> <http://ex.org/num> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://ex.org/s2> <http://ex.org/num> "2.5"^^<http://www.w3.org/2001/XMLSchema#decimal> .
<http://ex.org/s3> <http://ex.org/num> "1.5"^^<http://www.w3.org/2001/XMLSchema#double> .
<http://ex.org/s4> <http://ex.org/num> "x" .
<http://ex.org/s1> <http://ex.org/date> "2024-01-02T03:04:05Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
<http://ex.org/s2> <http://ex.org/date> "2024-01-02T03:04:05"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
<http://ex.org/s3> <http://ex.org/date> "2024-01-02T01:04:05-02:00"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
<http://ex.org/s1> <http://ex.org/link> <http://ex.org/s2> .
<http://ex.org/s2> <http://ex.org/link> <http://ex.org/s3> .
<http://ex.org/s3> <http://ex.org/link> <http://ex.org/s1> .
<http://ex.org/s4> <http://ex.org/link> _:b1 .
_:b1 <http://ex.org/link> <http://ex.org/s4> .
`,
	// 2: named graphs
	`<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> .
<http://ex.org/b> <http://ex.org/p> <http://ex.org/c> <http://ex.org/g1> .
<http://ex.org/c> <http://ex.org/p> <http://ex.org/a> <http://ex.org/g1> .
<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> <http://ex.org/g2> .
<http://ex.org/a> <http://ex.org/name> "A" <http://ex.org/g2> .
<http://ex.org/g1> <http://ex.org/owner> <http://ex.org/a> .
<http://ex.org/g2> <http://ex.org/owner> <http://ex.org/b> <http://ex.org/g2> .
_:x <http://ex.org/p> _:x <http://ex.org/g1> .
`,
	// 3: pairs linked by several predicates, cycles in named graphs
	`<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> .
<http://ex.org/a> <http://ex.org/q> <http://ex.org/b> .
<http://ex.org/b> <http://ex.org/p> <http://ex.org/b> .
<http://ex.org/b> <http://ex.org/q> <http://ex.org/b> .
<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> <http://ex.org/g1> .
<http://ex.org/b> <http://ex.org/p> <http://ex.org/a> <http://ex.org/g1> .
<http://ex.org/b> <http://ex.org/p> <http://ex.org/c> <http://ex.org/g1> .
<http://ex.org/c> <http://ex.org/q> "lit" <http://ex.org/g1> .
<http://ex.org/x> <http://ex.org/p> <http://ex.org/x> <http://ex.org/g2> .
`,
	// 4: a cycle of three, blank nodes, names in several languages, a pair in two graphs
	`<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> .
<http://ex.org/b> <http://ex.org/p> <http://ex.org/c> .
<http://ex.org/c> <http://ex.org/p> <http://ex.org/a> .
<http://ex.org/c> <http://ex.org/q> <http://ex.org/d> .
<http://ex.org/d> <http://ex.org/r> _:n1 .
_:n1 <http://ex.org/v> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .
_:n1 <http://ex.org/w> _:n2 .
_:n2 <http://ex.org/v> "x"@en .
<http://ex.org/a> <http://ex.org/name> "Alice"@en .
<http://ex.org/a> <http://ex.org/name> "Alicia"@es .
<http://ex.org/b> <http://ex.org/name> "Bob" .
<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> <http://ex.org/g1> .
<http://ex.org/b> <http://ex.org/q> <http://ex.org/a> <http://ex.org/g1> .
<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> <http://ex.org/g2> .
<http://ex.org/d> <http://ex.org/p> <http://ex.org/d> <http://ex.org/g2> .
_:n3 <http://ex.org/p> <http://ex.org/a> <http://ex.org/g2> .
<http://ex.org/d> <http://ex.org/name> "D\U0001F600d"@en-gb <http://ex.org/g2> .
`,
	// 5: several values per subject and per object, for filters cached per term and scans that skip groups
	`<http://ex.org/x1> <http://ex.org/k> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://ex.org/x1> <http://ex.org/k> "2"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://ex.org/x1> <http://ex.org/m> "2"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://ex.org/x1> <http://ex.org/m> "3"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://ex.org/x2> <http://ex.org/k> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://ex.org/x2> <http://ex.org/m> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://ex.org/x3> <http://ex.org/k> "5"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://ex.org/x3> <http://ex.org/k> "2"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://ex.org/x4> <http://ex.org/k> "x" .
<http://ex.org/x1> <http://ex.org/t> "a" .
<http://ex.org/x1> <http://ex.org/t> "b"@en .
<http://ex.org/x2> <http://ex.org/t> "a" .
<http://ex.org/x3> <http://ex.org/t> "c" .
<http://ex.org/x4> <http://ex.org/t> "a" .
<http://ex.org/x1> <http://ex.org/k> "2"^^<http://www.w3.org/2001/XMLSchema#integer> <http://ex.org/g1> .
<http://ex.org/x2> <http://ex.org/m> "7"^^<http://www.w3.org/2001/XMLSchema#integer> <http://ex.org/g1> .
`,
	// 6: a few thousand quads (see largeDataset), so that the planner hashes, caches and skips
	largeDataset(),
}

// largeDataset returns hand dataset 6: 400 subjects ex:n0 ... ex:n399, each
// with one to three ex:k values (0 to 9), an ex:t string ("a" to "e", some
// with a language tag), ex:link edges to two pseudo-random subjects (ex:n0's
// ex:link+ reaches most of them), and a share of its triples also or only in
// the named graphs ex:g1 and ex:g2. It is the same on every call.
func largeDataset() string {
	const n = 400
	var b strings.Builder
	x := uint32(12345)
	next := func(m int) int { // a linear congruential generator, deterministic
		x = x*1103515245 + 12345
		return int(x>>16) % m
	}
	xsdInt := "^^<" + dgXSD + "integer>"
	for i := 0; i < n; i++ {
		s := fmt.Sprintf("<%sn%d>", dgEx, i)
		for j := 0; j <= next(3); j++ {
			fmt.Fprintf(&b, "%s <%sk> \"%d\"%s .\n", s, dgEx, next(10), xsdInt)
		}
		t := fmt.Sprintf("\"%c\"", 'a'+next(5))
		if next(4) == 0 {
			t += "@en"
		}
		fmt.Fprintf(&b, "%s <%st> %s .\n", s, dgEx, t)
		for j := 0; j < 2; j++ {
			o := fmt.Sprintf("<%sn%d>", dgEx, next(n))
			switch next(6) {
			case 0:
				fmt.Fprintf(&b, "%s <%slink> %s <%sg1> .\n", s, dgEx, o, dgEx)
			case 1:
				fmt.Fprintf(&b, "%s <%slink> %s <%sg2> .\n", s, dgEx, o, dgEx)
				fmt.Fprintf(&b, "%s <%slink> %s .\n", s, dgEx, o)
			default:
				fmt.Fprintf(&b, "%s <%slink> %s .\n", s, dgEx, o)
			}
		}
	}
	return b.String()
}

type handCase struct {
	name    string
	ds      int
	query   string
	ordered bool
	// numeric compares computed numbers by value (see colNumeric): the
	// lexical form of a computed xsd:decimal or xsd:double is the
	// implementation's.
	numeric bool
	skip    string // a key of handSkips
}

var handSkips = map[string]string{
	"limit-integer-digits": "Oxigraph fails on an xsd:integer beyond 64 bits (and on SUBSTR " +
		"positions beyond 32); the value space " +
		"has no bound, but XSD 1.1 (§3.3.3, §5.4) lets a processor limit the digits it supports (16 at " +
		"least) and fail past them, so both answers conform; we compute exactly",
	"limit-decimal-digits": "Oxigraph's xsd:decimal holds 18 fractional digits and about 39 in all, " +
		"and fails past them; XSD 1.1 (§3.3.3, §5.4) lets a processor limit the digits it supports " +
		"(16 at least), so both answers conform; we compute exactly",
	"oxigraph-rejects-valid-query": "Oxigraph's parser rejects GROUP BY (?u AS ?k) with ?u bound " +
		"nowhere, and ASK with GROUP BY and HAVING; the grammar allows both (GroupCondition [20]; " +
		"AskQuery [12] takes a SolutionModifier), and the key of the first is an error, which leaves " +
		"?k unbound",
	"limit-slice-size": "Oxigraph (WebAssembly) rejects OFFSET and LIMIT above 2^32; the grammar " +
		"allows any INTEGER (we read one past 2^63-1 as 2^63-1, which no result can tell apart), and " +
		"a bound on it is an implementation limit",
	"oxigraph-round-half": "Oxigraph rounds a double or float half away from zero (ROUND(-2.5e0) is -3, " +
		"ROUND(\"-0.5\"^^xsd:float) -1); SPARQL 1.1 §17.4.4.2 is fn:round, which rounds halves towards " +
		"positive infinity (-2 and -0), as Oxigraph itself does on decimals",
	"oxigraph-cast-whitespace": "Oxigraph rejects xsd:integer(\" 5 \"); XPath casting from a string " +
		"(F&O 3.1 §19.2) first applies the target type's whiteSpace facet (collapse), so the cast gives 5",
	"unspecified-cast-langstring": "xsd:string(\"a\"@en): the casting table of SPARQL 1.1 §17.5 has rows " +
		"for IRIs and simple literals and none for a language-tagged literal; we raise the type error " +
		"the unlisted argument gets, Oxigraph returns \"a\"",
	"oxigraph-isnumeric-ill-typed": "Oxigraph's isNumeric(\"300\"^^xsd:byte) is true; SPARQL 1.1 " +
		"§17.4.2.4 requires a valid lexical form and gives isNumeric(\"1200\"^^xsd:byte) = false as its example",
	"oxigraph-boolean-order": "Oxigraph has no < or > on xsd:boolean; the operator table of SPARQL 1.1 " +
		"§17.3 maps them to op:boolean-less-than and op:boolean-greater-than (true > false)",
	"oxigraph-ordering-extension": emulations["oxigraph-ordering-extension"],
	"unspecified-datetime-timezone": "= between an xsd:dateTime with a time zone and one without within " +
		"14 hours: op:dateTime-equal (SPARQL 1.1 §17.3) decides it through an implicit time zone that " +
		"the recommendation leaves to the implementation; we raise a type error (XSD's partial order " +
		"leaves the pair indeterminate), Oxigraph answers false",
	"oxigraph-canonical-constants": emulations["oxigraph-canonical-constants"] +
		" (also TZ of +00:00 and LANG, GROUP BY and DISTINCT of such constants)",
	"oxigraph-date-extension": "Oxigraph's YEAR and TZ accept an xsd:date; SPARQL 1.1 §17.4.5 defines " +
		"them on xsd:dateTime only, so the argument is a type error",
	"oxigraph-replace-empty-match": "Oxigraph's REPLACE with a pattern that matches the empty string " +
		"inserts the replacement everywhere; fn:replace (SPARQL 1.1 §17.4.3.15) raises err:FORX0003",
	"oxigraph-replace-replacement": "Oxigraph copies the replacement string's \\$ and \\\\ verbatim and " +
		"accepts a lone $; fn:replace reads \\$ as $ and \\\\ as \\ and raises err:FORX0004 on a $ " +
		"not followed by a digit",
	"oxigraph-bnode-per-solution": "Oxigraph's BNODE(\"x\") returns the same blank node for every " +
		"solution; SPARQL 1.1 §17.4.2.9 gives the same node within one solution mapping and distinct " +
		"nodes across solutions",
	"oxigraph-ebv-ill-typed": "Oxigraph's !\"x\"^^xsd:integer is an error; SPARQL 1.1 §17.2.2 makes " +
		"the EBV of a numeric or boolean literal with an invalid lexical form false",
	"oxigraph-ebv-lang-string": "Oxigraph's EBV of \"a\"@en is an error; SPARQL 1.1 §17.2.2 gives a " +
		"plain literal (which includes language-tagged ones) the EBV true when it is not empty",
	"oxigraph-empty-group-dropped": "Oxigraph returns no row for an aggregate query without GROUP BY " +
		"whose pattern is empty (VALUES with no rows, FILTER NOT EXISTS {}), also in a subquery; SPARQL 1.1 §18.5 (Group((1), Ω) of an empty Ω is one group) and " +
		"§18.5.1 (Sum and Avg of nothing are 0, GroupConcat \"\") give one row",
	"oxigraph-group-concat-lang": "Oxigraph keeps a language tag shared by every value of " +
		"GROUP_CONCAT; SPARQL 1.1 §18.5.1.7 defines it as CONCAT(S0, sep, ...) with the separator a " +
		"simple literal, and CONCAT of a tagged and a simple literal is simple",
	"oxigraph-zero-length-absent-term": emulations["oxigraph-zero-length-absent-term"],
	"oxigraph-path-set":                emulations["oxigraph-path-set"],
	"oxigraph-replace-group-number": "Oxigraph replaces $10 with no tenth group by nothing; fn:replace " +
		"(F&O 3.1 §5.6.4) takes the last digit of a group number above 9 that exceeds the groups as a " +
		"literal, so $10 with no group is \"\" then \"0\"",
	"oxigraph-bnode-empty-string": "Oxigraph fails on BNODE(\"\"); SPARQL 1.1 §17.4.2.9 takes any " +
		"simple literal, the empty one too",
	"oxigraph-ill-typed-derived": "Oxigraph computes with \"-1\"^^xsd:nonNegativeInteger and " +
		"\"300\"^^xsd:byte; a lexical form outside the datatype's lexical space is no numeric value " +
		"(SPARQL 1.1 §17.2.2, §17.4.2.4), so arithmetic on it is a type error",
	"oxigraph-double-lexical": "Oxigraph casts \"inf\" and \"nan\" to xsd:double and xsd:float; " +
		"their lexical space (XSD 1.1 §3.3.5) spells them INF and NaN only, so the casts fail",
	"cortex-cast-datetime-lexical": "our documented choice (builtin.Cast): a string cast to xsd:dateTime " +
		"keeps its lexical form, so 24:00:00 stays as written where Oxigraph writes the next day's " +
		"00:00:00; SPARQL 1.1 §17.1 maps the cast's value back by its canonical form, as Oxigraph does. " +
		"The value (HOURS, comparisons) is the same",
	"oxigraph-graph-subquery": "GRAPH ?g { SELECT (COUNT(*) AS ?c) ... }: Oxigraph aggregates over " +
		"every graph at once and leaves ?g unbound; SPARQL 1.1 §18.6 (Evaluation of Graph) evaluates " +
		"the subquery in each named graph and joins ?g, one row per graph",
	"oxigraph-nested-graph": "GRAPH ?g { GRAPH ?h { ... } }: Oxigraph leaves ?g unbound; SPARQL 1.1 " +
		"§18.6 (Evaluation of Graph) joins ?g with each named graph, and the inner GRAPH ?h ranges over " +
		"the dataset's named graphs whatever the active graph, so every (g, h, s) comes once",
	"unspecified-exists-minus": "a MINUS inside EXISTS whose right side reads an outer variable: " +
		"SPARQL 1.1 §18.6 substitutes the outer value into both sides, which leaves them no shared " +
		"variable, so MINUS removes nothing (our answer); Oxigraph binds the outer value on both sides " +
		"and removes the matches. Substituting into MINUS is where the recommendation's definition of " +
		"EXISTS is least settled, and implementations read it differently",
	"oxigraph-regex-classes": "Oxigraph reads \\w and \\s as its own regex library does; XML Schema's " +
		"regular expressions, which fn:matches uses (F&O §5.6.1), define \\s as exactly space, tab, " +
		"newline and carriage return, and \\w as every character but punctuation (\"_\", \"-\"), " +
		"separators and others, so \"+\" is a word character and \"_\" is not",
	"xpath-version-dot": "REGEX(\"a\\rb\", \"^a.b$\"): the F&O that SPARQL 1.1 cites (XQuery 1.0 " +
		"and XPath 2.0, flags) lets . match any character but newline without the s flag, so a " +
		"carriage return matches (Oxigraph's true); F&O 3.1 §5.6.1.1 (flags) excludes newline and " +
		"carriage return, XML Schema's . ([^\\n\\r]); we follow 3.1 (builtin regex.go, its test), " +
		"as for the x flag",
	"xpath-version-x-flag": "REGEX(\"a b\", \"a[ ]b\", \"x\"): the x flag of F&O 1.0 (XPath 2.0, " +
		"which SPARQL 1.1 cites) strips whitespace inside character classes too, leaving the invalid " +
		"\"a[]b\" (Oxigraph's error); F&O 3.1 keeps it, and our documented choice (builtin doc.go) " +
		"follows 3.1",
	"oxigraph-regex-q-replacement": "Oxigraph's REPLACE with the q flag still reads $1 in the " +
		"replacement; F&O 3.1 §5.6.4 takes the replacement literally under q",
	"oxigraph-regex-xpath-escapes": "Oxigraph hands the pattern to its own regex library, which has " +
		"no back-references (\\1) and no \\i, \\c, \\I, \\C (an error, so unbound), and reads " +
		"\\p{IsGreek} as the Greek script (U+0374, a Common-script sign, does not match) and " +
		"\\p{IsBasicLatin} as an error; F&O 3.1 §5.6.1 has back-references, and XML Schema's " +
		"regular expressions (Part 2, appendix F) have \\i and \\c (XML names) and \\p{IsX}, the " +
		"Unicode block X, which U+0374 is in",
	"oxigraph-regex-syntax": "Oxigraph accepts (?i), a++ and \\z; none is XML Schema regular " +
		"expression syntax, and F&O §5.6.1 makes an invalid pattern an error (err:FORX0002)",
	"oxigraph-count-errors": "Oxigraph's COUNT(expr) is an error when expr is an error for some " +
		"solution; SPARQL 1.1 §18.5.1.2 removes the error elements and counts the rest",
	"oxigraph-substr-negative": "Oxigraph's SUBSTR fails on a negative length or a start below 1; " +
		"SPARQL 1.1 §17.4.3.3 is fn:substring, which gives \"\" for SUBSTR(\"abc\", 2, -1) and \"a\" " +
		"for SUBSTR(\"abc\", 0, 2)",
	"oxigraph-nps-multiset": "Oxigraph matches a negated property set once per edge, so a pair of " +
		"nodes linked by two predicates outside the set comes twice; SPARQL 1.1 §18.4 (Evaluation of " +
		"NegatedPropertySet) defines it as the set { μ | ∃ triple(x, p, y), p ∉ S }, once per pair",
	"oxigraph-graph-var-in-group": "GRAPH ?g { P MINUS { ?g ... } }: Oxigraph reads ?g inside the " +
		"group as the graph being evaluated; SPARQL 1.1 §18.6 (Evaluation of Graph) evaluates the group " +
		"in each graph first and joins ?g after, so inside it ?g is a free variable",
	"cortex-service-unsupported": "SERVICE SILENT: our documented limit (parser doc.go) refuses every " +
		"SERVICE with ErrNotSupported; Oxigraph without a service handler lets SILENT turn the failed " +
		"call into one empty solution (SPARQL 1.1 Federated Query §4)",
	"unspecified-exists-subquery-slice": "EXISTS { SELECT ?a ... ORDER BY ?a LIMIT 1 } over an outer ?a: " +
		"SPARQL 1.1 §18.6 substitutes the outer value for ?a, which in a sub-select's VALUES, ORDER BY " +
		"and projection has no settled meaning; Oxigraph restricts the sub-select to the outer value " +
		"before the LIMIT, we evaluate the sub-select on its own and join its ?a",
	"oxigraph-nan-order": "Oxigraph's \"NaN\"^^xsd:double < 1 is an error; SPARQL 1.1 §17.3 maps < <= > >= " +
		"between numbers to op:numeric-less-than and op:numeric-greater-than, which are false when an " +
		"operand is NaN (F&O §4.3.2, §4.3.3), so !(NaN < 1) is true",
	"oxigraph-right-associative": "Oxigraph 0.5.11 groups a chain of - or / to the right (8 - 2 - 2 is 8, " +
		"8 / 2 * 2 is 2); the grammar's AdditiveExpression and MultiplicativeExpression ([116], [117]) " +
		"apply the operators left to right, as arithmetic does (4 and 8.0)",
	"unspecified-substr-non-integer": "SUBSTR with a non-integer start or length: SPARQL 1.1 §17.4.3.3 " +
		"types them xsd:integer but defines the function by fn:substring, which takes doubles and " +
		"rounds them; we follow fn:substring, Oxigraph raises a type error",
	"oxigraph-bnode-label-string": "Oxigraph's BNODE(\"http://ex.org/a\") is an error (it makes the " +
		"string the node's label, and that one is no valid label); SPARQL 1.1 §17.4.2.9 takes any simple " +
		"literal and gives one blank node per distinct string within a solution",
	"oxigraph-from-multiset": "Oxigraph's default graph made by two FROM clauses holds a triple of both " +
		"graphs twice; SPARQL 1.1 §13.2.1 makes it the RDF merge of the graphs, a set, so the triple is " +
		"matched once",
	"oxigraph-regex-x-escaped-space": "REGEX(\"A B\", \"a\\\\ b\", \"ix\"): the x flag (F&O §5.6.1.1, 1.0 " +
		"and 3.1) removes every whitespace character outside a character class before the expression is " +
		"read, the escaped one too, which leaves the invalid escape \\b (an error, err:FORX0002), and " +
		"makes \"\\ d\" the digit escape \\d; Oxigraph keeps \"\\ \" as a space",
	"oxigraph-datetime-arithmetic": "Oxigraph subtracts two xsd:dateTime values (an xsd:dayTimeDuration); " +
		"the operator table of SPARQL 1.1 §17.3 has no - on them, so it is a type error, and §17.3.1 " +
		"lets an extension define it",
	"oxigraph-group-sees-outer": "{ ?x ex:k ?a { ?x ex:t ?n FILTER NOT EXISTS { ?x ex:m ?a } } }: Oxigraph " +
		"substitutes the outer ?a into the NOT EXISTS of the inner group; SPARQL 1.1 §18.2.2.6 and §18.6 " +
		"evaluate the inner group on its own (?a is not in its scope, so EXISTS substitutes only ?x and " +
		"?n) and join it with the outer pattern after",
	"oxigraph-boolean-keyword-case": "Oxigraph rejects TRUE; SPARQL 1.1 §19.8 matches the grammar's " +
		"keywords, 'true' and 'false' among them, case-insensitively (all but 'a')",
	"unspecified-aggregate-placement": "an aggregate inside an aggregate (COUNT(COUNT(*))) or in GROUP BY: " +
		"the translation of SPARQL 1.1 §18.2.4.1 gives it no meaning (the inner aggregate would be " +
		"evaluated on one solution, and GROUP BY keys are evaluated before any group exists); we reject " +
		"the query, as Jena does, Oxigraph answers",
	"oxigraph-path-filter-by-term": "Oxigraph compares an end of a zero-length path (?b p* ?d) or of a " +
		"negated set with forward and inverse members (?a !(p|^q) ex:s) with a number in FILTER(?b IN (...)) " +
		"or FILTER(?a = ...) by term: 2.5 in the data is not 2.5e0 there, as it is after ?s ?p ?b; SPARQL " +
		"1.1 §17.4.1.9 (IN) and §17.3 (=) compare numbers by value",
	"unspecified-min-max-ties": "MIN and MAX of values that are equal as numbers but different terms " +
		"(1, 1.0, \"1\"^^xsd:double): SPARQL 1.1 §18.5.1.4 and §18.5.1.5 take them by the ORDER BY " +
		"ordering, which does not order equal numbers (§15.1), so which term comes back is the " +
		"implementation's choice",
	"oxigraph-regex-class-subtraction": "Oxigraph reads [a-z-[aeiou]] as a union (\"a\" matches) and fails " +
		"on [\\w-[\\d]]; XML Schema Part 2 §F.1.1 (charClassSub), whose regular expressions fn:matches " +
		"uses (F&O §5.6.1), makes it a subtraction: the consonants, the word characters but digits",
}

var handCases = []handCase{
	// numbers
	{name: "int-div", numeric: true, query: `SELECT (1/2 AS ?r) (4/2 AS ?r2) (1.0/3 AS ?r3) {}`},
	{name: "int-div-zero", query: `SELECT (1/0 AS ?r) (1.0/0 AS ?r2) (1e0/0 AS ?r3) (-1e0/0 AS ?r4) (0e0/0 AS ?r5) {}`},
	{name: "big-int", query: `SELECT (9223372036854775807 + 1 AS ?r) (9223372036854775807 * 9223372036854775807 AS ?r2) {}`, skip: "limit-integer-digits"},
	{name: "promote", numeric: true, query: `SELECT (1 + 1.5 AS ?r) (1 + 1e0 AS ?r2) (1.5 + "1"^^xsd:float AS ?r3) (DATATYPE(1 + "1"^^xsd:float) AS ?t) {}`},
	{name: "derived-int", query: `SELECT ("1"^^xsd:byte + "2"^^xsd:short AS ?r) (DATATYPE("1"^^xsd:nonNegativeInteger * 2) AS ?t) {}`},
	{name: "unary", numeric: true, query: `SELECT (-"1"^^xsd:byte AS ?r) (+"01"^^xsd:integer AS ?r2) (-(-0.0) AS ?r3) {}`},
	{name: "abs-round", numeric: true, query: `SELECT (ABS(-2.5) AS ?a) (ROUND(-2.5) AS ?b) (ROUND(2.5) AS ?c) (ROUND(-2.5e0) AS ?d) (CEIL(-0.5) AS ?e) (FLOOR(-0.5e0) AS ?f) (ROUND("-0.5"^^xsd:float) AS ?g) {}`, skip: "oxigraph-round-half"},
	{name: "abs-types", query: `SELECT (ABS("-1"^^xsd:byte) AS ?a) (DATATYPE(ABS("-1"^^xsd:byte)) AS ?t) (ABS("x") AS ?e) {}`},
	{name: "decimal-format", numeric: true, query: `SELECT (1.50 + 0 AS ?a) (2.0 * 1 AS ?b) (0.1 + 0.2 AS ?c) (1e0 * 1 AS ?d) (1.5e10 + 0 AS ?e) (1e-7 + 0 AS ?f) {}`},
	// The lexical form of a computed double is the implementation's: check that it reads back as the same value.
	{name: "double-format", query: `SELECT (xsd:double(STR(?v)) = ?v AS ?same) (xsd:decimal(STR(?d)) = ?d AS ?dsame) WHERE { VALUES (?v ?d) { (1e0 1.0) (0.1e0 0.1) (1.5e10 123456789012345678.25) (1e-7 0.0000001) ("INF"^^xsd:double -0.5) (-0e0 0.0) (123456789e0 1) (1.7976931348623157e308 1) (4.9e-324 1) } BIND(?v * 1 AS ?w) BIND(?d * 3 / 3 AS ?e) }`},
	{name: "double-format-computed", query: `SELECT (xsd:double(STR(?w)) = ?w AS ?same) (xsd:decimal(STR(?e)) = ?e AS ?dsame) WHERE { VALUES (?v ?d) { (1e0 1.0) (0.1e0 0.1) (1.5e10 123456789012345678.25) (1e-7 0.0000001) (-0e0 0.0) (1.7976931348623157e308 1) (4.9e-324 1) } BIND(?v * 1 + 0.2e0 AS ?w) BIND(?d * 3 + 0.5 AS ?e) }`},
	{name: "cast-numbers", numeric: true, query: `SELECT (xsd:integer("1.5") AS ?a) (xsd:integer(1.5) AS ?b) (xsd:integer(-1.9e0) AS ?c) (xsd:decimal(1e0) AS ?d) (xsd:decimal("1e0") AS ?e) (xsd:double("1") AS ?f) (xsd:float(0.1) AS ?g) (xsd:integer(" 5 ") AS ?h) {}`, skip: "oxigraph-cast-whitespace"},
	{name: "cast-bool", numeric: true, query: `SELECT (xsd:boolean("1") AS ?a) (xsd:boolean(0) AS ?b) (xsd:boolean(0.0) AS ?c) (xsd:boolean("NaN"^^xsd:double) AS ?d) (xsd:boolean("yes") AS ?e) (xsd:integer(true) AS ?f) (xsd:double(false) AS ?g) {}`},
	{name: "cast-string", query: `SELECT (xsd:string(1.0) AS ?a) (xsd:string(1e0) AS ?b) (xsd:string(ex:x) AS ?c) (xsd:string("a"@en) AS ?d) (xsd:string(true) AS ?e) (xsd:string(-0.0) AS ?f) {}`, skip: "unspecified-cast-langstring"},
	{name: "cast-datetime", query: `SELECT (xsd:dateTime("2024-01-02T03:04:05Z") AS ?a) (xsd:dateTime("2024-01-02") AS ?b) (xsd:dateTime(1) AS ?c) (xsd:dateTime("2024-13-02T03:04:05Z") AS ?d) {}`},
	{name: "isnumeric", query: `SELECT (isNumeric("1"^^xsd:integer) AS ?a) (isNumeric("x"^^xsd:integer) AS ?b) (isNumeric("1"^^xsd:byte) AS ?c) (isNumeric("300"^^xsd:byte) AS ?d) (isNumeric("1") AS ?e) {}`, skip: "oxigraph-isnumeric-ill-typed"},
	{name: "compare-num", query: `SELECT (1 = 1.0 AS ?a) (1 = 1e0 AS ?b) ("1"^^xsd:integer = "01"^^xsd:integer AS ?c) (1 < 2e0 AS ?d) ("NaN"^^xsd:double = "NaN"^^xsd:double AS ?e) ("NaN"^^xsd:double != "NaN"^^xsd:double AS ?f) {}`},
	{name: "compare-mixed", query: `SELECT (1 = "1" AS ?a) ("a" = "a"@en AS ?b) ("a" != "a"@en AS ?c) ("a"@en = "a"@EN AS ?d) (ex:a = ex:a AS ?e) ("x"^^ex:t = "x"^^ex:t AS ?f) ("x"^^ex:t = "y"^^ex:t AS ?g) ("x"^^ex:t != "y"^^ex:t AS ?h) {}`},
	{name: "compare-invalid-lex", query: `SELECT ("x"^^xsd:integer = "x"^^xsd:integer AS ?a) ("x"^^xsd:integer = "y"^^xsd:integer AS ?b) ("1"^^xsd:integer = "x"^^xsd:integer AS ?c) {}`},
	{name: "compare-bool", query: `SELECT (true = "1"^^xsd:boolean AS ?a) (true > false AS ?b) ("true" = true AS ?c) {}`, skip: "oxigraph-boolean-order"},
	{name: "compare-string-order", query: `SELECT ("a" < "b" AS ?a) ("a" < "a"^^xsd:string AS ?b) ("B" < "a" AS ?c) ("\U0001F600" > "\uFFFD" AS ?d) ("a"@en < "b"@en AS ?e) {}`, skip: "oxigraph-ordering-extension"},
	// dates
	{name: "date-compare", query: `SELECT ("2024-01-02T03:04:05Z"^^xsd:dateTime = "2024-01-02T04:04:05+01:00"^^xsd:dateTime AS ?a) ("2024-01-02T03:04:05Z"^^xsd:dateTime < "2024-01-03T03:04:05"^^xsd:dateTime AS ?b) ("2024-01-02T03:04:05Z"^^xsd:dateTime = "2024-01-02T03:04:05"^^xsd:dateTime AS ?c) ("2024-01-02T03:04:05"^^xsd:dateTime = "2024-01-02T03:04:05"^^xsd:dateTime AS ?d) ("2024-01-02T03:04:05.0Z"^^xsd:dateTime = "2024-01-02T03:04:05Z"^^xsd:dateTime AS ?e) {}`, skip: "unspecified-datetime-timezone"},
	{name: "date-parts", numeric: true, query: `SELECT (YEAR(?d) AS ?y) (MONTH(?d) AS ?m) (DAY(?d) AS ?dd) (HOURS(?d) AS ?h) (MINUTES(?d) AS ?mi) (SECONDS(?d) AS ?s) (TIMEZONE(?d) AS ?tz) (TZ(?d) AS ?t) WHERE { VALUES ?d { "2024-01-02T03:04:05.5Z"^^xsd:dateTime "2024-01-02T03:04:05"^^xsd:dateTime "2024-01-02T03:04:05-05:30"^^xsd:dateTime "2024-01-02T03:04:05+00:00"^^xsd:dateTime "-0044-03-15T12:00:00Z"^^xsd:dateTime } }`, skip: "oxigraph-canonical-constants"},
	{name: "date-parts-err", query: `SELECT (YEAR("2024-01-02") AS ?y) (YEAR("2024-01-02"^^xsd:date) AS ?y2) (HOURS("x"^^xsd:dateTime) AS ?h) (TZ("2024-01-02"^^xsd:date) AS ?t) {}`, skip: "oxigraph-date-extension"},
	{name: "date-seconds", numeric: true, query: `SELECT (SECONDS("2024-01-02T03:04:00Z"^^xsd:dateTime) AS ?a) (SECONDS("2024-01-02T03:04:05.120Z"^^xsd:dateTime) AS ?b) (DATATYPE(SECONDS("2024-01-02T03:04:05Z"^^xsd:dateTime)) AS ?c) {}`},
	{name: "date-24", query: `SELECT (HOURS("2024-01-02T24:00:00Z"^^xsd:dateTime) AS ?h) (DAY("2024-01-02T24:00:00Z"^^xsd:dateTime) AS ?d) {}`},
	{name: "date-order", ds: 1, ordered: true, query: `SELECT ?d WHERE { ?s ex:date ?d } ORDER BY ?d`},
	{name: "date-filter", ds: 1, query: `SELECT ?s WHERE { ?s ex:date ?d FILTER(?d < "2024-01-02T03:04:06Z"^^xsd:dateTime) }`},
	// strings
	{name: "strlen-nonbmp", query: `SELECT (STRLEN("a\U0001F600b") AS ?a) (STRLEN("é") AS ?b) (STRLEN("") AS ?c) (STRLEN("x"@en) AS ?d) (STRLEN(1) AS ?e) {}`},
	{name: "substr-nonbmp", query: `SELECT (SUBSTR("a\U0001F600b", 2, 1) AS ?a) (SUBSTR("a\U0001F600b", 3) AS ?b) (SUBSTR("abc"@en, 2) AS ?c) (SUBSTR("abc"^^xsd:string, 2) AS ?d) (SUBSTR("abc", 2, 100) AS ?g) (SUBSTR("\U0001F600\U0001F601", 2) AS ?h) {}`},
	{name: "substr-negative-length", query: `SELECT (SUBSTR("abc", 2, -1) AS ?f) (SUBSTR("abc", 0, 2) AS ?g) {}`, skip: "oxigraph-substr-negative"},
	{name: "substr-non-integer", query: `SELECT (SUBSTR("abc", 1.5, 1) AS ?e) (SUBSTR("abc", 1, 1.5) AS ?h) {}`, skip: "unspecified-substr-non-integer"},
	{name: "substr-float", query: `SELECT (SUBSTR("12345", 1.5, 2.6) AS ?a) (SUBSTR("12345", "NaN"^^xsd:double) AS ?b) (SUBSTR("12345", 2, "INF"^^xsd:double) AS ?c) (SUBSTR("12345", "-INF"^^xsd:double, "INF"^^xsd:double) AS ?d) (SUBSTR("abc", "1") AS ?e) {}`, skip: "unspecified-substr-non-integer"},
	{name: "ucase", query: `SELECT (UCASE("straße") AS ?a) (LCASE("İ") AS ?b) (UCASE("a"@en) AS ?c) (LCASE("A"^^xsd:string) AS ?d) (UCASE(1) AS ?e) (UCASE("ǆ") AS ?f) {}`},
	{name: "strbefore-tags", query: `SELECT (STRBEFORE("abc"@en, "b") AS ?a) (STRBEFORE("abc"@en, "b"@en) AS ?b) (STRBEFORE("abc"@en, "b"@fr) AS ?c) (STRBEFORE("abc", "b"@en) AS ?d) (STRBEFORE("abc"@en, "z") AS ?e) (STRBEFORE("abc"@en, "") AS ?f) (STRBEFORE("abc"^^xsd:string, "c") AS ?g) {}`},
	{name: "strafter-tags", query: `SELECT (STRAFTER("abc"@en, "b") AS ?a) (STRAFTER("abc"@en, "b"@en) AS ?b) (STRAFTER("abc"@en, "b"@fr) AS ?c) (STRAFTER("abc", "b"@en) AS ?d) (STRAFTER("abc"@en, "z") AS ?e) (STRAFTER("abc"@en, "") AS ?f) (STRAFTER("a\U0001F600b", "\U0001F600") AS ?g) {}`},
	{name: "contains-tags", query: `SELECT (CONTAINS("abc"@en, "b"@fr) AS ?a) (STRSTARTS("abc", "a"@en) AS ?b) (STRENDS("abc"@en, "c"^^xsd:string) AS ?c) (CONTAINS("abc"@en, "B"@EN) AS ?d) (CONTAINS(1, "1") AS ?e) {}`},
	{name: "concat-tags", query: `SELECT (CONCAT("a"@en, "b"@en) AS ?a) (CONCAT("a"@en, "b"@fr) AS ?b) (CONCAT("a"@en, "b") AS ?c) (CONCAT() AS ?d) (CONCAT("a"^^xsd:string, "b"^^xsd:string) AS ?e) (CONCAT("a"@en) AS ?f) (CONCAT("a"@en, "b"@EN) AS ?g) (CONCAT(1, "a") AS ?h) {}`},
	{name: "encode-for-uri", query: `SELECT (ENCODE_FOR_URI("a b/c?d~e-f_g.h!*'()") AS ?a) (ENCODE_FOR_URI("é\U0001F600"@en) AS ?b) (ENCODE_FOR_URI(1) AS ?c) {}`},
	{name: "replace", query: `SELECT (REPLACE("abcabc", "b", "X") AS ?a) (REPLACE("abc"@en, "b", "X") AS ?b) (REPLACE("aBc", "b", "X", "i") AS ?c) (REPLACE("abc", "(b)", "[$1]") AS ?d) (REPLACE("abc", "", "X") AS ?e) (REPLACE("abc", "(", "X") AS ?f) (REPLACE("a.c", ".", "X", "q") AS ?g) (REPLACE("abc", "b", "X", "z") AS ?h) {}`, skip: "oxigraph-replace-empty-match"},
	{name: "replace-dollar", query: `SELECT (REPLACE("abc", "b", "$") AS ?a) (REPLACE("abc", "b", "\\$") AS ?b) (REPLACE("abc", "b", "\\\\") AS ?c) (REPLACE("abc", "(b)", "$2") AS ?d) (REPLACE("abc", "b", "$0$0") AS ?e) {}`, skip: "oxigraph-replace-replacement"},
	{name: "regex-flags", query: `SELECT (REGEX("ABC", "b", "i") AS ?a) (REGEX("a\nb", "a.b", "s") AS ?b) (REGEX("a\nb", "^b$", "m") AS ?c) (REGEX("abc", "a b c", "x") AS ?d) (REGEX("abc", "(", "") AS ?e) (REGEX("abc", "b", "k") AS ?f) (REGEX("a+c", "+", "q") AS ?g) (REGEX("abc"@en, "b") AS ?h) (REGEX(1, "1") AS ?i) {}`},
	{name: "regex-classes", query: `SELECT (REGEX("a1", "\\d") AS ?a) (REGEX("é", "^\\w$") AS ?b) (REGEX("\U0001F600", "^.$") AS ?c) (REGEX("ab", "^\\p{L}+$") AS ?d) (REGEX("a b", "\\s") AS ?e) {}`},
	{name: "lang-funcs", query: `SELECT (LANG("a"@EN-us) AS ?a) (LANGMATCHES("en-US", "en") AS ?b) (LANGMATCHES("EN", "en") AS ?c) (LANGMATCHES("", "*") AS ?d) (LANGMATCHES("fr", "*") AS ?e) (LANG(1) AS ?f) (LANG(ex:a) AS ?g) {}`, skip: "oxigraph-canonical-constants"},
	{name: "str-of", query: `SELECT (STR(ex:a) AS ?a) (STR("a"@en) AS ?b) (STR(1.50) AS ?c) {}`, skip: "oxigraph-canonical-constants"},
	{name: "strdt-strlang", query: `SELECT (STRDT("1", xsd:integer) AS ?a) (STRDT("a"@en, xsd:string) AS ?b) (STRDT("a"^^xsd:string, ex:t) AS ?c) (STRLANG("a", "en") AS ?d) (STRLANG("a"@en, "fr") AS ?e) (STRLANG("a", "") AS ?f) (STRDT("a", "x") AS ?g) (STRLANG("a", "EN-us") AS ?h) (STRLANG(1, "en") AS ?i) {}`},
	{name: "iri-fn", query: `BASE <http://ex.org/base/> SELECT (IRI("x") AS ?a) (IRI(ex:y) AS ?b) (IRI("a"@en) AS ?c) (IRI(1) AS ?d) (URI("http://a/b") AS ?e) (IRI("http://a/b c") AS ?f) {}`},
	{name: "bnode-fn", query: `SELECT (isBlank(BNODE()) AS ?a) (isBlank(BNODE("x")) AS ?b) (BNODE("x") = BNODE("x") AS ?c) (BNODE() = BNODE() AS ?d) (BNODE(1) AS ?e) (BNODE("x"@en) AS ?f) {}`},
	{name: "bnode-per-row", query: `SELECT ?i (sameTerm(BNODE("x"), BNODE("x")) AS ?same) WHERE { VALUES ?i { 1 2 } }`},
	{name: "bnode-across-rows", query: `SELECT (COUNT(DISTINCT ?b) AS ?n) WHERE { VALUES ?i { 1 2 } BIND(BNODE("x") AS ?b) }`, skip: "oxigraph-bnode-per-solution"},
	{name: "hash", query: `SELECT (MD5("abc") AS ?a) (SHA1("abc"@en) AS ?b) (SHA256("é") AS ?c) (SHA384("") AS ?d) (SHA512("abc"^^xsd:string) AS ?e) (MD5(1) AS ?f) (MD5(ex:a) AS ?g) {}`},
	{name: "uuid", query: `SELECT (isIRI(UUID()) AS ?a) (STRSTARTS(STR(UUID()), "urn:uuid:") AS ?b) (STRLEN(STRUUID()) AS ?c) (DATATYPE(STRUUID()) AS ?d) {}`},
	{name: "coalesce-if", query: `SELECT (COALESCE(1/0, ?u, 2) AS ?a) (COALESCE(?u) AS ?b) (COALESCE() AS ?c) (IF(1/0, 1, 2) AS ?d) (IF("", 1, 2) AS ?e) (IF("x", 1, 1/0) AS ?f) (IF(?u, 1, 2) AS ?g) (IF(2, 1, 2) AS ?h) (IF(ex:a, 1, 2) AS ?i) {}`},
	{name: "logic-errors", query: `SELECT (1/0 || true AS ?a) (1/0 && false AS ?b) (1/0 || false AS ?c) (1/0 && true AS ?d) (!(1/0) AS ?e) (!"" AS ?f) (!"0"^^xsd:integer AS ?g) (!"x"^^xsd:integer AS ?h) {}`, skip: "oxigraph-ebv-ill-typed"},
	{name: "ebv", query: `SELECT ?v WHERE { VALUES ?v { "" "a" 0 1 0.0 "0"^^xsd:double "NaN"^^xsd:double true false "false" "x"^^xsd:boolean "x"^^xsd:integer "a"@en ex:a "x"^^ex:t } FILTER(?v) }`, skip: "oxigraph-ebv-lang-string"},
	{name: "in-errors", query: `SELECT (1 IN (1/0, 1) AS ?a) (2 IN (1/0, 1) AS ?b) (2 NOT IN (1/0, 1) AS ?c) (1 IN () AS ?d) (1 NOT IN () AS ?e) ("a" IN ("a"@en) AS ?f) {}`},
	{name: "sameterm", query: `SELECT (sameTerm(1, 1.0) AS ?a) (sameTerm("a", "a"^^xsd:string) AS ?b) (sameTerm("a"@en, "a"@EN) AS ?c) (sameTerm(1, "1"^^xsd:integer) AS ?d) {}`},
	{name: "datatype-fn", query: `SELECT (DATATYPE("a"@en) AS ?a) (DATATYPE("a") AS ?b) (DATATYPE(1.0) AS ?c) (DATATYPE(ex:a) AS ?d) (DATATYPE(1e0) AS ?e) (DATATYPE(true) AS ?f) {}`},
	{name: "istests", query: `SELECT (isIRI(ex:a) AS ?a) (isLiteral("a") AS ?b) (isBlank(ex:a) AS ?c) (isIRI(?u) AS ?d) {}`},
	{name: "rand-now", query: `SELECT (DATATYPE(RAND()) AS ?a) (RAND() < 1 AS ?b) (DATATYPE(NOW()) AS ?c) (NOW() = NOW() AS ?d) {}`},
	// data-driven strings
	{name: "str-data", ds: 1, query: `SELECT ?s (STRLEN(?o) AS ?l) (UCASE(?o) AS ?u) (SUBSTR(?o, 2, 1) AS ?sub) (STRAFTER(?o, "b") AS ?af) (CONCAT(?o, ?o) AS ?c) (ENCODE_FOR_URI(?o) AS ?e) WHERE { ?s ex:str ?o }`},
	// aggregates
	{name: "sum-mixed", numeric: true, ds: 1, query: `SELECT (SUM(?n) AS ?s) (COUNT(?n) AS ?c) (AVG(?n) AS ?a) (MIN(?n) AS ?mi) (MAX(?n) AS ?ma) WHERE { ?x ex:num ?n FILTER(isNumeric(?n)) }`},
	{name: "sum-types", numeric: true, query: `SELECT (SUM(?n) AS ?s) (DATATYPE(SUM(?n)) AS ?t) (AVG(?n) AS ?a) (DATATYPE(AVG(?n)) AS ?at) WHERE { VALUES ?n { 1 2 4 } }`},
	{name: "avg-int", numeric: true, query: `SELECT (AVG(?n) AS ?a) (DATATYPE(AVG(?n)) AS ?t) WHERE { VALUES ?n { 1 2 } }`},
	{name: "agg-empty", query: `SELECT (SUM(?n) AS ?s) (AVG(?n) AS ?a) (MIN(?n) AS ?mi) (MAX(?n) AS ?ma) (COUNT(?n) AS ?c) (COUNT(*) AS ?cs) (GROUP_CONCAT(?n) AS ?g) (SAMPLE(?n) AS ?sa) WHERE { VALUES ?n { } }`, skip: "oxigraph-empty-group-dropped"},
	{name: "agg-empty-grouped", query: `SELECT ?k (COUNT(*) AS ?c) WHERE { VALUES ?k { } } GROUP BY ?k`},
	{name: "agg-unbound", query: `SELECT (COUNT(?n) AS ?c) (COUNT(DISTINCT ?n) AS ?cd) (COUNT(*) AS ?cs) (SUM(?n) AS ?s) (SAMPLE(?n) AS ?sa) (GROUP_CONCAT(?n) AS ?g) WHERE { VALUES ?n { UNDEF UNDEF } }`},
	{name: "count-distinct-star", query: `SELECT (COUNT(DISTINCT *) AS ?c) (COUNT(*) AS ?c2) WHERE { VALUES (?a ?b) { (1 2) (1 2) (1 UNDEF) (1 UNDEF) (UNDEF UNDEF) } }`},
	{name: "group-concat-sep", query: `SELECT (GROUP_CONCAT(?v; separator="") AS ?a) (GROUP_CONCAT(DISTINCT ?v; separator=", ") AS ?b) WHERE { VALUES ?v { "x" "x" } }`},
	{name: "group-concat-lang", query: `SELECT (GROUP_CONCAT(?v) AS ?a) WHERE { VALUES ?v { "x"@en "y"@en } }`, skip: "oxigraph-group-concat-lang"},
	{name: "group-concat-num", query: `SELECT (GROUP_CONCAT(?v) AS ?a) WHERE { VALUES ?v { 1 } }`},
	{name: "group-concat-non-string", query: `SELECT ?k (GROUP_CONCAT(?v) AS ?a) (COUNT(*) AS ?n) WHERE { VALUES (?k ?v) { (1 "a") (1 2) (2 ex:i) (3 true) (4 "x"^^ex:t) (5 "b"^^xsd:string) (5 "c") (6 1.5e0) } } GROUP BY ?k`},
	{name: "group-concat-str-of-numbers", query: `SELECT (GROUP_CONCAT(STR(?v); separator=",") AS ?a) WHERE { VALUES ?v { 1 } }`},
	{name: "min-max-mixed", query: `SELECT (MIN(?v) AS ?mi) (MAX(?v) AS ?ma) WHERE { VALUES ?v { 1 "a" ex:a } }`},
	{name: "min-max-strings", query: `SELECT (MIN(?v) AS ?mi) (MAX(?v) AS ?ma) WHERE { VALUES ?v { "b" "a"^^xsd:string "c" } }`},
	{name: "group-by-expr", query: `SELECT ?k (COUNT(*) AS ?c) WHERE { VALUES ?v { 1 1.0 2 "1" } } GROUP BY (STR(?v) AS ?k)`, skip: "oxigraph-canonical-constants"},
	{name: "group-by-value", query: `SELECT ?v (COUNT(*) AS ?c) WHERE { VALUES ?v { 1 1.0 "01"^^xsd:integer } } GROUP BY ?v`, skip: "oxigraph-canonical-constants"},
	{name: "group-by-error", numeric: true, query: `SELECT ?k (COUNT(*) AS ?c) WHERE { VALUES ?v { 1 "a" 0 } } GROUP BY (1/?v AS ?k)`},
	{name: "having-error", query: `SELECT ?v WHERE { VALUES ?v { 1 "a" } } GROUP BY ?v HAVING (?v > 0)`},
	{name: "agg-sum-overflow", query: `SELECT (SUM(?v) AS ?s) WHERE { VALUES ?v { 9223372036854775807 1 } }`, skip: "limit-integer-digits"},
	{name: "avg-decimal", numeric: true, query: `SELECT (AVG(?v) AS ?a) WHERE { VALUES ?v { 1 2 2 } }`},
	// order by
	{name: "order-mixed", ordered: true, query: `SELECT ?v WHERE { VALUES ?v { "b" ex:a 2 UNDEF 1 "a" } } ORDER BY ?v`},
	{name: "order-numbers", ordered: true, query: `SELECT ?v WHERE { VALUES ?v { 2 1.5 "1"^^xsd:double 10 -1 } } ORDER BY DESC(?v)`},
	{name: "order-expr-error", query: `SELECT ?v WHERE { VALUES ?v { 1 0 2 } } ORDER BY (1/?v)`},
	// patterns
	{name: "optional-filter-scope", ds: 1, query: `SELECT ?s ?n WHERE { ?s ex:str ?o OPTIONAL { ?s ex:num ?n FILTER(?o = "abc") } }`},
	{name: "optional-filter-outer", ds: 1, query: `SELECT ?s ?n WHERE { ?s ex:str ?o OPTIONAL { ?s ex:num ?n } FILTER(!BOUND(?n) || isNumeric(?n)) }`},
	{name: "filter-unbound-inner", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o { FILTER(BOUND(?o)) } }`},
	{name: "minus-no-shared", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o MINUS { ?x ex:num ?y } }`},
	{name: "minus-partial", query: `SELECT * WHERE { VALUES (?a ?b) { (1 2) (1 3) (UNDEF 4) } MINUS { VALUES (?a ?c) { (1 9) (UNDEF 8) } } }`},
	{name: "not-exists", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o FILTER NOT EXISTS { ?s ex:num ?n FILTER(isNumeric(?n)) } }`},
	{name: "exists-in-select", ds: 1, query: `SELECT ?s (EXISTS { ?s ex:date ?d } AS ?e) WHERE { ?s ex:str ?o }`},
	{name: "path-zero-bound", ds: 1, query: `SELECT ?x WHERE { ex:s1 ex:link* ?x }`},
	{name: "path-zero-both-bound", ds: 1, query: `ASK { ex:nothere ex:link* ex:nothere }`, skip: "oxigraph-zero-length-absent-term"},
	{name: "path-zero-unbound", ds: 1, query: `SELECT ?x ?y WHERE { ?x ex:link? ?y }`},
	{name: "path-plus-cycle", ds: 1, query: `SELECT ?x WHERE { ex:s1 ex:link+ ?x }`},
	{name: "path-plus-cycle-both", ds: 1, query: `SELECT * WHERE { ?x ex:link+ ?x }`},
	{name: "path-inverse-seq", ds: 1, query: `SELECT ?x ?y WHERE { ?x ^ex:link/ex:link ?y }`},
	{name: "path-seq-star", ds: 1, query: `SELECT ?y WHERE { ex:s4 (ex:link/ex:link)* ?y }`},
	{name: "path-negated-inverse", ds: 1, query: `SELECT ?x ?y WHERE { ?x !(ex:str|^ex:link|ex:num|ex:date) ?y }`},
	{name: "path-zero-literal", ds: 1, query: `SELECT ?x WHERE { ?x ex:link* "abc" }`},
	{name: "path-star-count", ds: 1, query: `SELECT (COUNT(*) AS ?c) WHERE { ?x ex:link* ?y }`},
	{name: "path-star-var-pred-both", ds: 1, query: `SELECT ?x WHERE { ?x ex:link*/ex:str "abc" }`},
	{name: "values-undef-join", ds: 1, query: `SELECT ?s ?o WHERE { ?s ex:str ?o VALUES (?s ?o) { (UNDEF "abc") (ex:s1 UNDEF) (ex:s9 UNDEF) } }`},
	{name: "values-after", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o } VALUES ?s { ex:s2 UNDEF }`},
	{name: "subquery-projection", ds: 1, query: `SELECT ?s ?o WHERE { ?s ex:str ?o { SELECT ?s WHERE { ?s ex:num ?o } } }`},
	{name: "subquery-limit", ds: 1, query: `SELECT (COUNT(*) AS ?c) WHERE { { SELECT ?s WHERE { ?s ex:str ?o } ORDER BY ?s LIMIT 2 } }`},
	{name: "subquery-agg-empty", query: `SELECT * WHERE { { SELECT (COUNT(*) AS ?c) WHERE { ?s ?p ?o } } }`},
	{name: "bind-scope", ds: 1, query: `SELECT ?s ?l WHERE { ?s ex:str ?o BIND(STRLEN(?o) AS ?l) FILTER(?l > 3) }`},
	{name: "bind-unbound", query: `SELECT ?a ?b WHERE { BIND(?z AS ?a) BIND(COALESCE(?a, 1) AS ?b) }`},
	{name: "bind-error", query: `SELECT ?a ?b WHERE { BIND(1/0 AS ?a) BIND(2 AS ?b) }`},
	{name: "bind-in-optional", query: `SELECT ?a ?b WHERE { BIND(1 AS ?a) OPTIONAL { BIND(2 AS ?b) FILTER(?a = 1) } }`},
	{name: "distinct-terms", query: `SELECT DISTINCT ?v WHERE { VALUES ?v { 1 1.0 "01"^^xsd:integer "a" "a"^^xsd:string "a"@en "a"@EN } }`, skip: "oxigraph-canonical-constants"},
	{name: "reduced", query: `SELECT (COUNT(*) AS ?c) WHERE { { SELECT REDUCED ?v WHERE { VALUES ?v { 1 1 } } } }`},
	{name: "limit-zero", query: `SELECT ?v WHERE { VALUES ?v { 1 2 } } LIMIT 0`},
	{name: "offset-past", query: `SELECT ?v WHERE { VALUES ?v { 1 2 } } OFFSET 5`},
	{name: "offset-limit", ordered: true, query: `SELECT ?v WHERE { VALUES ?v { 1 2 3 4 } } ORDER BY ?v OFFSET 1 LIMIT 2`},
	{name: "ask-empty", query: `ASK {}`},
	{name: "ask-false", query: `ASK { FILTER(false) }`},
	{name: "ask-error", query: `ASK { FILTER(1/0) }`},
	{name: "empty-group", query: `SELECT * {}`},
	{name: "select-expr-reuse", query: `SELECT (1 AS ?a) (?a + 1 AS ?b) {}`},
	{name: "union-scope", query: `SELECT * WHERE { { BIND(1 AS ?a) } UNION { BIND(2 AS ?b) } }`},
	{name: "graph-var", ds: 1, query: `SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } }`},
	// batch 2
	{name: "strbefore-edge", query: `SELECT (STRBEFORE("abc", "") AS ?a) (STRBEFORE("", "") AS ?b) (STRBEFORE("abc"@en, ""@en) AS ?c) (STRAFTER("abc"@en, ""@en) AS ?d) (STRBEFORE("abc", "abc") AS ?e) (STRAFTER("abc", "abc") AS ?f) (STRBEFORE("a\U0001F600b\U0001F600", "\U0001F600") AS ?g) (STRBEFORE("abc"^^xsd:string, "b"^^xsd:string) AS ?h) (STRAFTER("abc"^^xsd:string, "z") AS ?i) {}`},
	{name: "strbefore-notfound-lang", query: `SELECT (STRBEFORE("abc"@en, "z"@en) AS ?a) (LANG(STRBEFORE("abc"@en, "z")) AS ?b) (DATATYPE(STRAFTER("abc"@en, "z")) AS ?c) {}`},
	{name: "contains-edge", query: `SELECT (CONTAINS("", "") AS ?a) (STRSTARTS("abc", "") AS ?b) (STRENDS("", "a") AS ?c) (CONTAINS("a\U0001F600b", "\U0001F600") AS ?d) (STRSTARTS("abc"@en, "a"@fr) AS ?e) (STRENDS("abc"@en, ""@en) AS ?f) {}`},
	{name: "strlen-types", query: `SELECT (STRLEN("abc"^^xsd:string) AS ?a) (STRLEN("\U0001F600\U0001F600"@en) AS ?b) (STRLEN(ex:a) AS ?c) (STRLEN("e\u0301") AS ?d) {}`},
	{name: "concat-edge", query: `SELECT (CONCAT(""@en, "a"@en) AS ?a) (CONCAT("a"@en-us, "b"@en-US) AS ?b) (CONCAT("a"^^xsd:string, "b") AS ?c) (CONCAT("a", ex:b) AS ?d) (DATATYPE(CONCAT("a"^^xsd:string)) AS ?e) {}`},
	{name: "encode-edge", query: `SELECT (ENCODE_FOR_URI("") AS ?a) (ENCODE_FOR_URI("%20#&=+") AS ?b) (ENCODE_FOR_URI("Los Angeles") AS ?c) (ENCODE_FOR_URI("\u0000\u007f") AS ?d) {}`},
	{name: "hash-nonbmp", query: `SELECT (MD5("\U0001F600") AS ?a) (SHA1("a\nb") AS ?b) (SHA256("abc"@en) AS ?c) (SHA512(""^^xsd:string) AS ?d) (SHA384("é"@fr) AS ?e) {}`},
	{name: "regex-edge", query: `SELECT (REGEX("", "") AS ?a) (REGEX("abc", "^$") AS ?b) (REGEX("ABC", "abc", "ix") AS ?c) (REGEX("a\U0001F600c", "a.c") AS ?d) (REGEX("x", "[") AS ?e) (REGEX("abc", "B", "iq") AS ?f) (REGEX("a.c", "a.c", "q") AS ?g) (REGEX("abc", "a.c", "q") AS ?h) {}`},
	{name: "regex-lang-pattern", query: `SELECT (REGEX("abc", "b"@en) AS ?a) (REGEX("abc", "b"^^xsd:string) AS ?b) (REGEX("abc", "b", "i"@en) AS ?c) (REGEX(ex:abc, "b") AS ?d) {}`},
	{name: "replace-edge", query: `SELECT (REPLACE("abc"@en, "b"@en, "x") AS ?a) (REPLACE("abc", "B", "x", "i") AS ?b) (REPLACE("a\U0001F600c", ".", "-") AS ?c) (REPLACE("abab", "(a)(b)", "$2$1") AS ?e) (REPLACE("abc", "b", "x"@en) AS ?f) {}`},
	{name: "replace-empty-star", query: `SELECT (REPLACE("aaa", "a*", "x") AS ?d) {}`, skip: "oxigraph-replace-empty-match"},
	{name: "replace-group-10", query: `SELECT (REPLACE("abc", "b", "$10") AS ?g) (REPLACE("abc", "(b)", "$19") AS ?h) {}`, skip: "oxigraph-replace-group-number"},
	{name: "strdt-edge", query: `SELECT (STRDT("x", xsd:integer) AS ?a) (isNumeric(STRDT("x", xsd:integer)) AS ?b) (STRDT(1, xsd:string) AS ?d) (STRDT("a", ?u) AS ?e) {}`},
	{name: "strlang-edge", query: `SELECT (STRLANG("a", "en-US") AS ?a) (STRLANG("a"^^xsd:string, "fr") AS ?b) (STRLANG("a", "1") AS ?c) (STRLANG("a", "en"@en) AS ?d) (STRLANG("a", "not a tag") AS ?e) {}`},
	{name: "iri-edge", query: `BASE <http://ex.org/base/> SELECT (IRI("") AS ?a) (IRI("#f") AS ?b) (IRI("../up") AS ?c) (IRI("x"^^xsd:string) AS ?d) (IRI("http://ex.org/<>") AS ?f) {}`},
	{name: "bnode-edge", query: `SELECT (isBlank(BNODE(""))AS ?a) (BNODE("a") = BNODE("b") AS ?b) (sameTerm(BNODE("a"), BNODE("a"^^xsd:string)) AS ?c) {}`, skip: "oxigraph-bnode-empty-string"},
	{name: "numeric-fns-types", query: `SELECT (DATATYPE(ABS(-1)) AS ?a) (DATATYPE(ROUND(1.5)) AS ?b) (DATATYPE(CEIL(1e0)) AS ?c) (DATATYPE(FLOOR("1"^^xsd:float)) AS ?d) (DATATYPE(ROUND("1"^^xsd:short)) AS ?e) (ABS("x"^^xsd:integer) AS ?f) (ROUND("NaN"^^xsd:double) AS ?g) (CEIL("-INF"^^xsd:double) AS ?h) {}`},
	{name: "numeric-derived-ops", numeric: true, query: `SELECT ("1"^^xsd:int + "1"^^xsd:unsignedByte AS ?a) (DATATYPE("1"^^xsd:int + "1"^^xsd:long) AS ?b) ("5"^^xsd:positiveInteger / "2"^^xsd:int AS ?c) (DATATYPE("5"^^xsd:long / "2"^^xsd:int) AS ?d) ("1"^^xsd:float * 2 AS ?f) (DATATYPE("1"^^xsd:float * 2.0) AS ?g) (DATATYPE("1"^^xsd:float * 2e0) AS ?h) {}`},
	{name: "numeric-ill-typed-derived", query: `SELECT ("-1"^^xsd:nonNegativeInteger + 0 AS ?e) ("300"^^xsd:byte * 1 AS ?f) {}`, skip: "oxigraph-ill-typed-derived"},
	{name: "numeric-div", numeric: true, query: `SELECT (0/0 AS ?a) (0.0/0.0 AS ?b) (0e0/0e0 AS ?c) (-1/0e0 AS ?d) (1/-0e0 AS ?e) (-7/2 AS ?f) (7.5/-2.5 AS ?g) (1 / 3e0 AS ?h) {}`},
	{name: "numeric-compare-special", query: `SELECT ("INF"^^xsd:double > 1e308 AS ?a) ("-INF"^^xsd:double < -1e308 AS ?b) (0e0 = -0e0 AS ?c) (0.0 = -0.0 AS ?d) ("NaN"^^xsd:double = 1 AS ?e) ("NaN"^^xsd:double != 1 AS ?f) (1 = "1"^^xsd:float AS ?g) (0.1 = 0.1e0 AS ?h) {}`},
	{name: "numeric-in", query: `SELECT (1 IN (1.0) AS ?a) (1 IN ("1") AS ?b) ("a" IN ("a"^^xsd:string) AS ?c) (1 NOT IN (1e0, 2) AS ?d) (ex:a IN (ex:a) AS ?e) {}`},
	{name: "cast-edge", numeric: true, query: `SELECT (xsd:integer("+5") AS ?a) (xsd:integer("-0") AS ?b) (xsd:decimal("1.") AS ?c) (xsd:decimal(".5") AS ?d) (xsd:double("1e400") AS ?e) (xsd:double("-INF") AS ?g) (xsd:float("1e39") AS ?h) (xsd:integer("1e0") AS ?i) (xsd:decimal("INF"^^xsd:double) AS ?j) (xsd:integer("NaN"^^xsd:double) AS ?k) {}`},
	{name: "cast-double-lowercase-inf", query: `SELECT (xsd:double("inf") AS ?f) (xsd:float("nan") AS ?g) {}`, skip: "oxigraph-double-lexical"},
	{name: "cast-bool-edge", query: `SELECT (xsd:boolean("TRUE") AS ?a) (xsd:boolean(" true ") AS ?b) (xsd:boolean(2) AS ?c) (xsd:boolean(-0e0) AS ?d) (xsd:boolean(ex:a) AS ?e) {}`, skip: "oxigraph-cast-whitespace"},
	{name: "cast-iri", query: `SELECT (xsd:integer(ex:a) AS ?a) (xsd:dateTime(ex:a) AS ?c) {}`},
	{name: "cast-datetime-edge", query: `SELECT (STR(xsd:dateTime("2024-02-29T00:00:00Z")) AS ?a) (xsd:dateTime("2023-02-29T00:00:00Z") AS ?b) (xsd:dateTime("2024-01-02T03:04:05+14:00") AS ?d) (xsd:dateTime("2024-01-02T03:04:05+14:01") AS ?e) (xsd:dateTime("2024-01-02T03:04:60Z") AS ?f) (xsd:dateTime("24-01-02T03:04:05Z") AS ?g) {}`},
	{name: "cast-datetime-24", query: `SELECT (xsd:dateTime("2024-01-02T24:00:00") AS ?c) (HOURS(xsd:dateTime("2024-01-02T24:00:00")) AS ?h) {}`, skip: "cortex-cast-datetime-lexical"},
	{name: "datetime-cmp-ms", query: `SELECT ("2024-01-02T03:04:05.1Z"^^xsd:dateTime > "2024-01-02T03:04:05Z"^^xsd:dateTime AS ?a) ("2024-01-02T03:04:05.123456789012Z"^^xsd:dateTime > "2024-01-02T03:04:05.123456789Z"^^xsd:dateTime AS ?b) ("2024-01-02T00:00:00+14:00"^^xsd:dateTime < "2024-01-01T11:00:00Z"^^xsd:dateTime AS ?c) ("2024-01-02T03:04:05Z"^^xsd:dateTime != "2024-01-02T03:04:06Z"^^xsd:dateTime AS ?d) {}`},
	{name: "datetime-far", query: `SELECT ("2024-01-01T00:00:00"^^xsd:dateTime < "2024-01-01T15:00:00Z"^^xsd:dateTime AS ?a) ("2024-01-01T00:00:00"^^xsd:dateTime > "2024-01-01T15:00:00Z"^^xsd:dateTime AS ?b) ("2024-01-01T15:00:01"^^xsd:dateTime > "2024-01-01T00:00:00Z"^^xsd:dateTime AS ?c) {}`},
	{name: "datetime-fns-edge", numeric: true, query: `SELECT (TIMEZONE("2024-01-02T03:04:05+14:00"^^xsd:dateTime) AS ?a) (TIMEZONE("2024-01-02T03:04:05-00:30"^^xsd:dateTime) AS ?b) (TZ("2024-01-02T03:04:05-00:30"^^xsd:dateTime) AS ?c) (SECONDS("2024-01-02T03:04:59.999Z"^^xsd:dateTime) AS ?d) (YEAR("12345-01-02T03:04:05Z"^^xsd:dateTime) AS ?e) (MONTH("2024-12-31T23:59:59-12:00"^^xsd:dateTime) AS ?f) (TIMEZONE(ex:a) AS ?g) {}`},
	{name: "now-fns", query: `SELECT (YEAR(NOW()) >= 2024 AS ?a) (DATATYPE(TIMEZONE(NOW())) AS ?b) (NOW() = NOW() AS ?c) WHERE { VALUES ?i { 1 2 } }`},
	{name: "coalesce-edge", query: `SELECT (COALESCE(?u, ?v, "d") AS ?a) (COALESCE(1/0, 2/0) AS ?b) (COALESCE(BNODE("x")) = COALESCE(BNODE("x")) AS ?c) (COALESCE(?u) AS ?d) {}`},
	{name: "if-edge", query: `SELECT (IF(true, ?u, 1) AS ?a) (IF(false, 1/0, "e") AS ?b) (IF("x"^^xsd:integer, 1, 2) AS ?c) (IF(?u, 1, 2) AS ?d) {}`, skip: "oxigraph-ebv-ill-typed"},
	{name: "if-nan", query: `SELECT (IF("NaN"^^xsd:double, 1, 2) AS ?e) (IF("0.0"^^xsd:float, 1, 2) AS ?f) (IF("-0"^^xsd:decimal, 1, 2) AS ?g) {}`},
	{name: "bound-edge", query: `SELECT (BOUND(?u) AS ?a) ?b WHERE { OPTIONAL { BIND(1 AS ?b) } }`},
	// aggregates, batch 2
	{name: "agg-mixed-numeric", numeric: true, query: `SELECT (SUM(?v) AS ?s) (DATATYPE(SUM(?v)) AS ?t) (AVG(?v) AS ?a) (DATATYPE(AVG(?v)) AS ?at) (MIN(?v) AS ?mi) (MAX(?v) AS ?ma) WHERE { VALUES ?v { 1 2.5 "0.5"^^xsd:float } }`},
	{name: "agg-distinct", numeric: true, query: `SELECT (SUM(DISTINCT ?v) AS ?s) (COUNT(DISTINCT ?v) AS ?c) (AVG(DISTINCT ?v) AS ?a) WHERE { VALUES ?v { 1 1 1.0 2 "01"^^xsd:integer } }`, skip: "oxigraph-canonical-constants"},
	{name: "agg-count-expr-error", query: `SELECT (COUNT(1/?v) AS ?c) (COUNT(DISTINCT 1/?v) AS ?cd) (COUNT(?u) AS ?cu) WHERE { VALUES ?v { 0 1 2 1 "a" } }`, skip: "oxigraph-count-errors"},
	{name: "agg-groups-errors", query: `SELECT ?k (COUNT(*) AS ?c) (SAMPLE(?v) AS ?s) WHERE { VALUES (?k ?v) { (1 UNDEF) (1 UNDEF) (2 3) } } GROUP BY ?k`},
	{name: "agg-group-undef-key", query: `SELECT ?k (COUNT(*) AS ?c) WHERE { VALUES (?k ?v) { (UNDEF 1) (UNDEF 2) (1 3) } } GROUP BY ?k`},
	{name: "agg-group-two-keys", query: `SELECT ?a ?b (COUNT(*) AS ?c) WHERE { VALUES (?a ?b) { (1 UNDEF) (UNDEF 1) (1 1) (1 UNDEF) } } GROUP BY ?a ?b`},
	{name: "agg-having-count", query: `SELECT ?k WHERE { VALUES (?k ?v) { (1 1) (1 2) (2 3) } } GROUP BY ?k HAVING (COUNT(?v) > 1)`},
	{name: "agg-having-no-group", query: `SELECT (COUNT(*) AS ?c) WHERE { VALUES ?v { 1 2 } } HAVING (COUNT(*) > 5)`},
	{name: "agg-order-by-agg", ordered: true, query: `SELECT ?k (SUM(?v) AS ?s) WHERE { VALUES (?k ?v) { (ex:a 1) (ex:b 5) (ex:a 2) (ex:c 0) } } GROUP BY ?k ORDER BY DESC(SUM(?v)) ?k`},
	{name: "agg-min-max-types", query: `SELECT (MIN(?v) AS ?mi) (MAX(?v) AS ?ma) WHERE { VALUES ?v { 2 10 "10"^^xsd:double 3.5 } }`},
	{name: "agg-min-max-dates", query: `SELECT (MIN(?v) AS ?mi) (MAX(?v) AS ?ma) WHERE { VALUES ?v { "2024-01-02T03:04:05Z"^^xsd:dateTime "2023-01-02T03:04:05Z"^^xsd:dateTime "2025-01-02T03:04:05+05:00"^^xsd:dateTime } }`},
	{name: "agg-min-max-langs", query: `SELECT (MIN(?v) AS ?mi) (MAX(?v) AS ?ma) WHERE { VALUES ?v { "b" "a" "c"^^xsd:string } }`},
	{name: "agg-group-concat-distinct-order", query: `SELECT (STRLEN(GROUP_CONCAT(DISTINCT ?v; separator="")) AS ?l) WHERE { VALUES ?v { "ab" "ab" "c" } }`},
	{name: "agg-sample-single", query: `SELECT (SAMPLE(?v) AS ?s) WHERE { VALUES ?v { "x"@en } }`},
	{name: "agg-count-star-distinct-group", query: `SELECT ?k (COUNT(DISTINCT *) AS ?c) WHERE { VALUES (?k ?v) { (1 1) (1 1) (1 2) } } GROUP BY ?k`},
	{name: "agg-avg-float", numeric: true, query: `SELECT (AVG(?v) AS ?a) (DATATYPE(AVG(?v)) AS ?t) WHERE { VALUES ?v { "1"^^xsd:float "2"^^xsd:float } }`},
	{name: "agg-subquery-empty-grouped", query: `SELECT * WHERE { { SELECT ?k (COUNT(*) AS ?c) WHERE { ?s ex:none ?k } GROUP BY ?k } }`},
	{name: "agg-expression-of-aggs", numeric: true, query: `SELECT (SUM(?v) / COUNT(?v) AS ?m) (MAX(?v) - MIN(?v) AS ?r) WHERE { VALUES ?v { 1 4 } }`},
	// order by, batch 2
	{name: "order-lang-strings", ordered: true, query: `SELECT ?v WHERE { VALUES ?v { "b" "a" "c"^^xsd:string "B" "é" "\U0001F600" "z" } } ORDER BY ?v`},
	{name: "order-datetimes", ordered: true, query: `SELECT ?v WHERE { VALUES ?v { "2024-01-02T03:04:05Z"^^xsd:dateTime "2024-01-02T04:04:05+02:00"^^xsd:dateTime "2023-01-02T03:04:05Z"^^xsd:dateTime } } ORDER BY DESC(?v)`},
	{name: "order-datetime-subnano", ordered: true, query: `SELECT ?v WHERE { VALUES ?v { "2024-01-02T03:04:05.0000000002Z"^^xsd:dateTime "2024-01-02T03:04:05.0000000001Z"^^xsd:dateTime "2024-01-02T03:04:05Z"^^xsd:dateTime } } ORDER BY ?v`},
	{name: "order-iris", ordered: true, query: `SELECT ?v WHERE { VALUES ?v { <http://ex.org/b> <http://ex.org/a> <http://ex.org/B> <http://ex.org/a/b> } } ORDER BY ?v`},
	{name: "order-unbound-first", ordered: true, query: `SELECT ?v WHERE { VALUES ?v { 3 UNDEF 1 } } ORDER BY ?v`},
	{name: "order-unbound-desc", ordered: true, query: `SELECT ?v WHERE { VALUES ?v { 3 UNDEF 1 } } ORDER BY DESC(?v)`},
	{name: "order-by-bool", ordered: true, query: `SELECT ?v WHERE { VALUES ?v { true false } } ORDER BY ?v`},
	{name: "order-two-keys", ordered: true, query: `SELECT ?a ?b WHERE { VALUES (?a ?b) { (1 2) (1 1) (0 5) (UNDEF 3) } } ORDER BY ?a DESC(?b)`},
	{name: "order-limit-offset-big", ordered: true, query: `SELECT ?v WHERE { VALUES ?v { 1 2 3 } } ORDER BY ?v LIMIT 100 OFFSET 1`},
	{name: "distinct-order", ordered: true, query: `SELECT DISTINCT ?v WHERE { VALUES (?v ?w) { (2 1) (1 2) (2 3) } } ORDER BY ?v`},
	{name: "order-by-unprojected", ordered: true, query: `SELECT ?v WHERE { VALUES (?v ?w) { (ex:a 2) (ex:b 1) (ex:c 3) } } ORDER BY ?w`},
	// patterns, batch 2
	{name: "optional-nested", ds: 1, query: `SELECT ?s ?n ?d WHERE { ?s ex:str ?o OPTIONAL { ?s ex:num ?n OPTIONAL { ?s ex:date ?d } } }`},
	{name: "optional-filter-unbound-outer", ds: 1, query: `SELECT ?s ?d WHERE { ?s ex:str ?o OPTIONAL { ?s ex:date ?d FILTER(?n > 0) } OPTIONAL { ?s ex:num ?n } }`},
	{name: "optional-two-same-var", ds: 1, query: `SELECT ?s ?x WHERE { ?s ex:str ?o OPTIONAL { ?s ex:num ?x } OPTIONAL { ?s ex:date ?x } }`},
	{name: "optional-cross-scope", ds: 1, query: `SELECT ?s ?t WHERE { ?s ex:link ?t OPTIONAL { ?t ex:link ?s } }`},
	{name: "filter-in-optional-refers-outer", ds: 1, query: `SELECT ?s ?t WHERE { ?s ex:str ?o OPTIONAL { ?s ex:link ?t FILTER(STRLEN(?o) = 3) } }`},
	{name: "minus-disjoint-vars", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o MINUS { ?a ex:str ?b } }`},
	{name: "minus-shared", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o MINUS { ?s ex:date ?d } }`},
	{name: "minus-filter-inner", ds: 1, query: `SELECT ?s WHERE { ?s ex:num ?n MINUS { ?s ex:num ?m FILTER(?n = ?m) } }`},
	{name: "not-exists-filter-outer", ds: 1, query: `SELECT ?s WHERE { ?s ex:num ?n FILTER NOT EXISTS { ?s ex:num ?m FILTER(?n = ?m) } }`},
	{name: "exists-nested-optional", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o FILTER EXISTS { OPTIONAL { ?s ex:date ?d } FILTER(!BOUND(?d)) } }`},
	{name: "union-optional", ds: 1, query: `SELECT ?s ?x WHERE { { ?s ex:num ?x } UNION { ?s ex:date ?x } OPTIONAL { ?s ex:str ?x } }`},
	{name: "graph-default-empty", ds: 1, query: `SELECT (COUNT(*) AS ?c) WHERE { GRAPH ex:g0 { ?s ?p ?o } }`},
	{name: "bind-chain", query: `SELECT ?a ?b ?c WHERE { BIND(1 AS ?a) BIND(?a + 1 AS ?b) BIND(?b * ?a AS ?c) }`},
	{name: "bind-then-values", query: `SELECT * WHERE { BIND(1 AS ?a) VALUES ?a { 1 2 } }`},
	{name: "bind-group-scope", query: `SELECT ?a ?b WHERE { { BIND(1 AS ?a) } BIND(?a + 1 AS ?b) }`},
	{name: "bind-before-group", query: `SELECT ?a ?b WHERE { BIND(1 AS ?a) { BIND(?a AS ?b) } }`},
	{name: "filter-scope-group", query: `SELECT ?a WHERE { BIND(1 AS ?a) { FILTER(?a = 1) } }`},
	{name: "values-multi-undef", query: `SELECT * WHERE { VALUES (?a ?b) { (1 UNDEF) (UNDEF 2) } VALUES (?b ?c) { (2 3) (UNDEF 4) } }`},
	{name: "values-lit-match", ds: 1, query: `SELECT ?s WHERE { VALUES ?o { "abc" "abc"^^xsd:string "ABC"@fr "abc"@en } ?s ex:str ?o }`},
	{name: "values-num-match", ds: 1, query: `SELECT ?s WHERE { VALUES ?o { 1 1.0 "01"^^xsd:integer 2.5 2.50 } ?s ex:num ?o }`, skip: "oxigraph-canonical-constants"},
	{name: "subquery-scope", ds: 1, query: `SELECT ?s ?o WHERE { ?s ex:str ?o { SELECT ?s (COUNT(*) AS ?n) WHERE { ?s ex:link ?x } GROUP BY ?s } }`},
	{name: "subquery-hidden-var", ds: 1, query: `SELECT ?s ?x WHERE { { SELECT ?s WHERE { ?s ex:link ?x } } BIND(1 AS ?x) }`},
	{name: "subquery-order-limit", ds: 1, ordered: true, query: `SELECT ?s WHERE { { SELECT ?s WHERE { ?s ex:str ?o } ORDER BY DESC(?s) LIMIT 2 } } ORDER BY ?s`},
	{name: "subquery-distinct-count", ds: 1, query: `SELECT (COUNT(*) AS ?c) WHERE { { SELECT DISTINCT ?t WHERE { ?s ex:link ?t } } }`},
	{name: "select-star-bind", query: `SELECT * WHERE { BIND(1 AS ?a) OPTIONAL { BIND(2 AS ?b) } }`},
	// paths, batch 2
	{name: "path-star-bound-both", ds: 1, query: `ASK { ex:s1 ex:link* ex:s3 }`},
	{name: "path-star-literal-both", ds: 1, query: `ASK { "abc" ex:link* "abc" }`},
	{name: "path-opt-bound", ds: 1, query: `SELECT ?y WHERE { ex:s1 ex:link? ?y }`},
	{name: "path-inverse-star", ds: 1, query: `SELECT ?y WHERE { ex:s1 ^ex:link* ?y }`},
	{name: "path-alt-dups", ds: 1, query: `SELECT ?y WHERE { ex:s1 (ex:link|ex:link) ?y }`, skip: "oxigraph-path-set"},
	{name: "path-seq-dups", ds: 1, query: `SELECT ?y WHERE { ex:s1 ex:link/ex:link/ex:link ?y }`},
	{name: "path-plus-distinct", ds: 1, query: `SELECT ?x ?y WHERE { ?x ex:link+ ?y }`},
	{name: "path-star-count-both-var", ds: 1, query: `SELECT (COUNT(*) AS ?c) WHERE { ?x ex:link* ?y }`},
	{name: "path-negated-empty", ds: 1, query: `SELECT (COUNT(*) AS ?c) WHERE { ?x !ex:link ?y }`},
	{name: "path-negated-inverse-only", ds: 1, query: `SELECT ?x ?y WHERE { ?x !^ex:str ?y }`},
	{name: "path-bnode-cycle", ds: 1, query: `SELECT ?y WHERE { ex:s4 ex:link+ ?y }`},
	{name: "path-in-graph", ds: 1, query: `SELECT ?g ?y WHERE { GRAPH ?g { ex:s1 ex:link* ?y } }`},
	{name: "path-var-both-same-plus", ds: 1, query: `SELECT ?x WHERE { ?x (ex:link/ex:link/ex:link) ?x }`},
	{name: "path-zero-var-subject-const-object", ds: 1, query: `SELECT ?x WHERE { ?x ex:link* ex:s1 }`},
	{name: "path-seq-inverse-star", ds: 1, query: `SELECT ?y WHERE { ex:s1 ex:link/^ex:link* ?y }`},
	{name: "path-star-then-triple", ds: 1, query: `SELECT ?s ?n WHERE { ex:s1 ex:link* ?s . ?s ex:num ?n }`},
	// query forms
	{name: "ask-optional", ds: 1, query: `ASK { ?s ex:none ?o }`},
	{name: "ask-values", query: `ASK { VALUES ?x { } }`},
	{name: "limit-offset-zero", query: `SELECT ?v WHERE { VALUES ?v { 1 } } OFFSET 0 LIMIT 1`},
	{name: "reduced-top", query: `SELECT REDUCED ?v WHERE { VALUES ?v { 1 2 } }`},
	{name: "distinct-bnodes", ds: 1, query: `SELECT DISTINCT ?o WHERE { ?s ex:link ?o FILTER(isBlank(?o)) }`},
	// EXISTS and scope, batch 3
	{name: "exists-minus-inside", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o FILTER EXISTS { ?s ex:link ?t MINUS { ?t ex:date ?d } } }`},
	{name: "exists-bind-inside", ds: 1, query: `SELECT ?s WHERE { ?s ex:num ?n FILTER EXISTS { BIND(?n AS ?m) FILTER(isNumeric(?m)) } }`},
	{name: "exists-values-inside", ds: 1, query: `SELECT ?s WHERE { ?s ex:link ?t FILTER EXISTS { VALUES ?t { ex:s2 ex:s4 } } }`},
	{name: "exists-graph-inside", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o FILTER NOT EXISTS { GRAPH ?g { ?s ?p ?x } } }`},
	{name: "exists-union-inside", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o FILTER EXISTS { { ?s ex:num ?n FILTER(isNumeric(?n) && ?n > 1) } UNION { ?s ex:date ?d FILTER(STRLEN(?o) > 3) } } }`},
	{name: "exists-path-inside", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o FILTER EXISTS { ?s ex:link+ ?t FILTER(?t = ex:s1) } }`},
	{name: "not-exists-in-select", ds: 1, query: `SELECT ?s (NOT EXISTS { ?s ex:num ?m FILTER(?m = ?n) } AS ?e) WHERE { ?s ex:num ?n }`},
	{name: "exists-in-bind", ds: 1, query: `SELECT ?s ?e WHERE { ?s ex:num ?n BIND(EXISTS { ?s ex:date ?d FILTER(isNumeric(?n)) } AS ?e) }`},
	{name: "exists-in-order", ds: 1, ordered: true, query: `SELECT ?s WHERE { ?s ex:str ?o } ORDER BY DESC(EXISTS { ?s ex:date ?d }) ?s`},
	{name: "exists-in-having", ds: 1, query: `SELECT ?s (COUNT(*) AS ?c) WHERE { ?s ?p ?o } GROUP BY ?s HAVING EXISTS { ?s ex:date ?d }`},
	{name: "exists-optional-filter", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o FILTER EXISTS { ?s ex:link ?t OPTIONAL { ?t ex:str ?o2 FILTER(?o2 = ?o) } FILTER(BOUND(?o2)) } }`},
	{name: "exists-subquery", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o FILTER EXISTS { { SELECT ?s WHERE { ?s ex:link ?t } } } }`},
	{name: "exists-two-levels", ds: 1, query: `SELECT ?s WHERE { ?s ex:num ?n FILTER NOT EXISTS { ?x ex:num ?m FILTER(isNumeric(?m) && isNumeric(?n) && ?m > ?n) FILTER NOT EXISTS { ?x ex:date ?d FILTER(?d > "2030-01-01T00:00:00Z"^^xsd:dateTime) } } }`},
	{name: "exists-newest", ds: 1, query: `SELECT ?s ?d WHERE { ?s ex:date ?d FILTER NOT EXISTS { ?t ex:date ?d2 FILTER(?d2 > ?d) } }`},
	{name: "not-exists-empty", ds: 1, query: `SELECT (COUNT(*) AS ?c) WHERE { ?s ex:str ?o FILTER NOT EXISTS { } }`, skip: "oxigraph-empty-group-dropped"},
	{name: "exists-unbound-outer", ds: 1, query: `SELECT ?s ?n WHERE { ?s ex:str ?o OPTIONAL { ?s ex:date ?n } FILTER EXISTS { ?s ?p ?n } }`},
	{name: "optional-filter-two-outer", ds: 1, query: `SELECT ?s ?t ?n WHERE { ?s ex:link ?t OPTIONAL { ?t ex:num ?n FILTER(?s != ex:s1) } }`},
	{name: "optional-in-optional-filter", ds: 1, query: `SELECT ?s ?t ?n WHERE { ?s ex:str ?o OPTIONAL { ?s ex:link ?t OPTIONAL { ?t ex:num ?n FILTER(STRLEN(?o) = 3) } } }`},
	{name: "optional-bind-scope", ds: 1, query: `SELECT ?s ?x WHERE { ?s ex:str ?o OPTIONAL { BIND(STRLEN(?o) AS ?x) } }`},
	{name: "minus-in-optional", ds: 1, query: `SELECT ?s ?t WHERE { ?s ex:str ?o OPTIONAL { ?s ex:link ?t MINUS { ?t ex:date ?d } } }`},
	{name: "minus-unbound-shared", query: `SELECT * WHERE { VALUES (?a ?b) { (1 UNDEF) (2 3) } MINUS { VALUES (?a ?b) { (UNDEF 3) } } }`},
	{name: "minus-filter-outer-var", ds: 1, query: `SELECT ?s WHERE { ?s ex:num ?n MINUS { ?s ex:date ?d FILTER(BOUND(?n)) } }`},
	{name: "graph-exists", ds: 1, query: `SELECT ?s WHERE { GRAPH ?g { ?s ?p ?o } FILTER EXISTS { ?s ex:link ?t } }`},
	{name: "subquery-exists-outer", ds: 1, query: `SELECT ?s ?c WHERE { ?s ex:str ?o { SELECT ?s (COUNT(?t) AS ?c) WHERE { ?s ex:link ?t FILTER NOT EXISTS { ?t ex:date ?d } } GROUP BY ?s } }`},
	{name: "filter-not-exists-bnode", ds: 1, query: `SELECT ?x WHERE { ?x ex:link ?y FILTER NOT EXISTS { ?y ex:link ?x } }`},
	// named graphs, batch 4
	{name: "ng-graph-var", ds: 2, query: `SELECT ?g ?s ?o WHERE { GRAPH ?g { ?s ex:p ?o } }`},
	{name: "ng-graph-var-path", ds: 2, query: `SELECT ?g ?o WHERE { GRAPH ?g { ex:a ex:p* ?o } }`},
	{name: "ng-graph-var-zero-path-both", ds: 2, query: `SELECT ?g ?x WHERE { GRAPH ?g { ?x ex:p* ?x } }`},
	{name: "ng-graph-owner", ds: 2, query: `SELECT ?g ?o WHERE { ?g ex:owner ?o GRAPH ?g { ?s ex:p ?t } }`},
	{name: "ng-graph-self", ds: 2, query: `SELECT ?g WHERE { GRAPH ?g { ?g ex:owner ?o } }`},
	{name: "ng-graph-optional", ds: 2, query: `SELECT ?g ?s ?n WHERE { GRAPH ?g { ?s ex:p ?o OPTIONAL { ?s ex:name ?n } } }`},
	{name: "ng-graph-const-missing", ds: 2, query: `SELECT (COUNT(*) AS ?c) WHERE { GRAPH ex:nothere { ?s ?p ?o } }`},
	{name: "ng-graph-empty-group", ds: 2, query: `SELECT ?g WHERE { GRAPH ?g { } }`},
	{name: "ng-from", ds: 2, query: `SELECT ?s ?o FROM ex:g1 WHERE { ?s ex:p ?o }`},
	{name: "ng-from-two", ds: 2, query: `SELECT ?s ?o FROM ex:g1 FROM ex:g2 WHERE { ?s ex:p ?o }`},
	{name: "ng-from-named", ds: 2, query: `SELECT ?g ?s FROM NAMED ex:g2 WHERE { GRAPH ?g { ?s ?p ?o } }`},
	{name: "ng-from-named-default-empty", ds: 2, query: `SELECT (COUNT(*) AS ?c) FROM NAMED ex:g2 WHERE { ?s ?p ?o }`},
	{name: "ng-from-path", ds: 2, query: `SELECT ?o FROM ex:g1 FROM ex:g2 WHERE { ex:a ex:p+ ?o }`},
	{name: "ng-exists-graph", ds: 2, query: `SELECT ?s WHERE { ?s ex:p ?o FILTER EXISTS { GRAPH ?g { ?s ex:p ?o } } }`},
	{name: "ng-minus-graph", ds: 2, query: `SELECT ?g ?s WHERE { GRAPH ?g { ?s ex:p ?o } MINUS { ?s ex:p ?o } }`},
	{name: "ng-bnode-self-path", ds: 2, query: `SELECT ?g (COUNT(*) AS ?c) WHERE { GRAPH ?g { ?x ex:p+ ?x } } GROUP BY ?g`},
	{name: "ng-union-default-named", ds: 2, query: `SELECT ?s ?g WHERE { { ?s ex:p ?o } UNION { GRAPH ?g { ?s ex:p ?o } } }`},
	{name: "ng-subquery-graph", ds: 2, query: `SELECT ?g ?c WHERE { GRAPH ?g { SELECT (COUNT(*) AS ?c) WHERE { ?s ?p ?o } } }`, skip: "oxigraph-graph-subquery"},
	{name: "ng-values-graph", ds: 2, query: `SELECT ?g ?s WHERE { VALUES ?g { ex:g2 ex:nothere } GRAPH ?g { ?s ?p ?o } }`},
	{name: "ng-graph-bound-by-bind", ds: 2, query: `SELECT ?s WHERE { BIND(ex:g1 AS ?g) GRAPH ?g { ?s ex:p ?o } }`},
	{name: "ng-graph-var-literal", ds: 2, query: `SELECT ?s WHERE { BIND("x" AS ?g) GRAPH ?g { ?s ex:p ?o } }`},
	// batch 5: more builtins and orderings
	{name: "order-lang-vs-simple", query: `SELECT ?v WHERE { VALUES ?v { "b"@en "a" "a"@en "a"@de "b" } } ORDER BY ?v`},
	{name: "order-typed-unknown", query: `SELECT ?v WHERE { VALUES ?v { "b"^^ex:t "a"^^ex:t "1"^^ex:u } } ORDER BY ?v`},
	{name: "min-max-lang", query: `SELECT (MIN(?v) AS ?mi) (MAX(?v) AS ?ma) WHERE { VALUES ?v { "b"@en "a"@en "c"@en } }`},
	{name: "min-max-bool", query: `SELECT (MIN(?v) AS ?mi) (MAX(?v) AS ?ma) WHERE { VALUES ?v { true false true } }`},
	{name: "min-max-empty-strings", query: `SELECT (MIN(?v) AS ?mi) (MAX(?v) AS ?ma) WHERE { VALUES ?v { "" "a" } }`},
	{name: "sum-float-decimal", numeric: true, query: `SELECT (SUM(?v) AS ?s) (DATATYPE(SUM(?v)) AS ?t) WHERE { VALUES ?v { 0.1 "0.2"^^xsd:float } }`},
	{name: "sum-big-decimal", numeric: true, query: `SELECT (SUM(?v) AS ?s) WHERE { VALUES ?v { 123456789012345678901234567890.5 0.5 } }`, skip: "limit-decimal-digits"},
	{name: "sum-inf-nan", query: `SELECT (SUM(?v) AS ?s) WHERE { VALUES ?v { "INF"^^xsd:double "-INF"^^xsd:double } }`},
	{name: "avg-one-double", numeric: true, query: `SELECT (AVG(?v) AS ?a) (DATATYPE(AVG(?v)) AS ?t) WHERE { VALUES ?v { 2e0 } }`},
	{name: "count-distinct-numbers", query: `SELECT (COUNT(DISTINCT ?v) AS ?c) WHERE { VALUES ?v { 1 2 1 } }`},
	{name: "count-distinct-mixed-undef", query: `SELECT (COUNT(DISTINCT ?v) AS ?c) (COUNT(?v) AS ?c2) WHERE { VALUES ?v { 1 UNDEF "1" UNDEF 1 } }`},
	{name: "group-concat-distinct-sep", query: `SELECT (GROUP_CONCAT(DISTINCT ?v; separator="-") AS ?g) WHERE { VALUES ?v { "a" } }`},
	{name: "group-concat-xsd-string", query: `SELECT (GROUP_CONCAT(?v; separator="") AS ?g) (DATATYPE(GROUP_CONCAT(?v)) AS ?t) WHERE { VALUES ?v { "a"^^xsd:string } }`},
	{name: "group-concat-empty-values", query: `SELECT (GROUP_CONCAT(?v; separator=",") AS ?g) WHERE { VALUES ?v { "" "" } }`},
	{name: "group-by-lang", query: `SELECT ?v (COUNT(*) AS ?c) WHERE { VALUES ?v { "a"@en "a"@en "a" } } GROUP BY ?v`},
	{name: "group-by-unbound-expr", query: `SELECT ?k (COUNT(*) AS ?c) WHERE { VALUES ?v { 1 2 } } GROUP BY (?u AS ?k)`, skip: "oxigraph-rejects-valid-query"},
	{name: "group-select-key-expr", query: `SELECT (?v * 2 AS ?d) (COUNT(*) AS ?c) WHERE { VALUES ?v { 1 1 2 } } GROUP BY ?v`},
	{name: "having-on-group-key", query: `SELECT ?v WHERE { VALUES ?v { 1 2 3 } } GROUP BY ?v HAVING (?v >= 2)`},
	{name: "agg-in-order-no-group", query: `SELECT (COUNT(*) AS ?c) WHERE { VALUES ?v { 1 2 } } ORDER BY DESC(COUNT(*))`},
	{name: "strafter-start", query: `SELECT (STRAFTER("abc", "a") AS ?a) (STRBEFORE("abc", "c") AS ?b) (STRAFTER("aXbXc", "X") AS ?c) (STRBEFORE("aXbXc", "X") AS ?d) {}`},
	{name: "substr-lang-nonbmp", query: `SELECT (SUBSTR("\U0001F600a\U0001F601"@en, 2, 2) AS ?a) (STRLEN(SUBSTR("\U0001F600a", 1, 1)) AS ?b) {}`},
	{name: "ucase-lang-nonbmp", query: `SELECT (UCASE("\U00010428"@en) AS ?a) (LCASE("\U00010400") AS ?b) {}`},
	{name: "regex-nonbmp-class", query: `SELECT (REGEX("\U0001F600", "^[\U0001F600-\U0001F64F]$") AS ?a) (REPLACE("a\U0001F600b", "[^a-z]", "_") AS ?b) {}`},
	{name: "regex-anchors-multiline", query: `SELECT (REGEX("a\nb", "^b") AS ?a) (REGEX("a\nb", "a$", "m") AS ?b) (REPLACE("a\nb", "^", ">", "m") AS ?c) {}`, skip: "oxigraph-replace-empty-match"},
	{name: "regex-i-nonascii", query: `SELECT (REGEX("ÉCOLE", "école", "i") AS ?a) (REGEX("Straße", "STRASSE", "i") AS ?b) (REGEX("K", "\u212A", "i") AS ?c) {}`},
	{name: "regex-escapes", query: `SELECT (REGEX("a.b", "a\\.b") AS ?a) (REGEX("a-b", "a\\-b") AS ?b) (REGEX("tab\there", "\\t") AS ?c) (REGEX("x", "\\p{Lu}") AS ?d) (REGEX("X", "\\P{Ll}") AS ?e) {}`},
	{name: "encode-nonbmp", query: `SELECT (ENCODE_FOR_URI("\U0001F600") AS ?a) (ENCODE_FOR_URI("~") AS ?b) {}`},
	{name: "concat-many", query: `SELECT (CONCAT("a", "b"@en, "c"^^xsd:string, "") AS ?a) (CONCAT(""@en, ""@en) AS ?b) {}`},
	{name: "str-numbers", query: `SELECT (STR(1) AS ?a) (STR(-0.0) AS ?b) (STR("1.50"^^xsd:decimal) AS ?c) (STR(true) AS ?d) {}`, skip: "oxigraph-canonical-constants"},
	{name: "lang-match-ranges", query: `SELECT (LANGMATCHES("en", "en-US") AS ?a) (LANGMATCHES("de-CH-1996", "de-CH") AS ?b) (LANGMATCHES("de", "de-*") AS ?c) (LANGMATCHES("*", "*") AS ?d) (LANGMATCHES("en", "") AS ?e) {}`},
	{name: "numeric-string-compare", query: `SELECT ("10" < "9" AS ?a) (10 < 9 AS ?b) ("10"^^xsd:integer < "9"^^xsd:integer AS ?c) ("a" < 1 AS ?d) {}`},
	{name: "round-decimal-edges", numeric: true, query: `SELECT (ROUND(0.5) AS ?a) (ROUND(-0.5) AS ?b) (ROUND(1.45) AS ?c) (CEIL(-1.5) AS ?d) (FLOOR(-1.5) AS ?e) (ROUND(-1.5) AS ?f) {}`},
	{name: "round-decimal-19-digits", numeric: true, query: `SELECT (ROUND(2.4999999999999999999) AS ?g) (2.4999999999999999999 + 0 AS ?h) {}`, skip: "limit-decimal-digits"},
	{name: "abs-neg-zero", query: `SELECT (STR(ABS(-0)) AS ?a) (ABS("-INF"^^xsd:double) AS ?b) (DATATYPE(ABS("-1"^^xsd:decimal)) AS ?c) {}`},
	{name: "seconds-types", numeric: true, query: `SELECT (SECONDS("2024-01-02T03:04:05.000Z"^^xsd:dateTime) AS ?a) (SECONDS("2024-01-02T03:04:05.0000000001Z"^^xsd:dateTime) AS ?b) {}`},
	{name: "timezone-types", query: `SELECT (TIMEZONE("2024-01-02T03:04:05-14:00"^^xsd:dateTime) AS ?a) (TIMEZONE("2024-01-02T03:04:05+05:45"^^xsd:dateTime) AS ?b) (TZ("2024-01-02T03:04:05-00:00"^^xsd:dateTime) AS ?c) {}`, skip: "oxigraph-canonical-constants"},
	// batch 6: solution modifiers and query shapes
	{name: "limit-huge", query: `SELECT ?v WHERE { VALUES ?v { 1 2 } } LIMIT 99999999999999999999`, skip: "limit-slice-size"},
	{name: "offset-huge", query: `SELECT ?v WHERE { VALUES ?v { 1 2 } } OFFSET 99999999999999999999`, skip: "limit-slice-size"},
	{name: "offset-int64-max", query: `SELECT ?v WHERE { VALUES ?v { 1 2 } } OFFSET 9223372036854775807 LIMIT 9223372036854775807`, skip: "limit-slice-size"},
	{name: "values-trailing", query: `SELECT ?a ?b WHERE { BIND(1 AS ?a) } VALUES (?a ?b) { (1 2) (3 4) (UNDEF 5) }`},
	{name: "values-trailing-after-order", ordered: true, query: `SELECT ?a WHERE { VALUES ?a { 3 1 2 } } ORDER BY ?a VALUES ?a { 2 3 }`},
	{name: "reject-values-trailing-as", query: `SELECT ?k (COUNT(*) AS ?c) WHERE { VALUES ?k { 1 1 2 } } GROUP BY ?k VALUES ?c { 2 }`},
	{name: "values-empty-vars", query: `SELECT * WHERE { VALUES () { () () } }`},
	{name: "values-no-rows", query: `SELECT * WHERE { BIND(1 AS ?a) VALUES ?b { } }`},
	{name: "subquery-limit-zero", query: `SELECT * WHERE { BIND(1 AS ?a) { SELECT ?b WHERE { VALUES ?b { 1 } } LIMIT 0 } }`},
	{name: "subquery-select-star-expr", query: `SELECT ?a ?b WHERE { { SELECT * WHERE { BIND(1 AS ?a) BIND(?a + 1 AS ?b) } } }`},
	{name: "subquery-agg-no-rows-join", query: `SELECT ?a ?c WHERE { BIND(1 AS ?a) { SELECT (COUNT(*) AS ?c) WHERE { VALUES ?x { } } } }`, skip: "oxigraph-empty-group-dropped"},
	{name: "subquery-same-var-inner-outer", query: `SELECT ?x ?y WHERE { VALUES ?x { 1 2 } { SELECT ?y WHERE { VALUES (?x ?y) { (1 "a") (3 "b") } } } }`},
	{name: "subquery-distinct-order-limit", ordered: true, query: `SELECT ?v WHERE { { SELECT DISTINCT ?v WHERE { VALUES ?v { 3 1 3 2 1 } } ORDER BY DESC(?v) LIMIT 2 } } ORDER BY ?v`},
	{name: "order-by-expr-not-projected", ordered: true, query: `SELECT ?v WHERE { VALUES ?v { "bb" "a" "ccc" } } ORDER BY DESC(STRLEN(?v))`},
	{name: "order-by-bound", ordered: true, query: `SELECT ?a ?b WHERE { VALUES (?a ?b) { (1 UNDEF) (2 5) (3 UNDEF) } } ORDER BY BOUND(?b) ?a`},
	{name: "distinct-after-projection", query: `SELECT DISTINCT ?a WHERE { VALUES (?a ?b) { (1 1) (1 2) (2 1) } }`},
	{name: "distinct-star", query: `SELECT DISTINCT * WHERE { VALUES (?a ?b) { (1 UNDEF) (1 UNDEF) (UNDEF 1) } }`},
	{name: "select-expr-shadow-error", query: `SELECT ?a (?a / 0 AS ?b) (COALESCE(?b, "none") AS ?c) WHERE { VALUES ?a { 1 } }`},
	{name: "bind-then-filter-unbound", query: `SELECT ?a WHERE { VALUES ?a { 1 2 } BIND(IF(?a = 1, ?a, ?u) AS ?b) FILTER(!BOUND(?b)) }`},
	{name: "ask-with-values", query: `ASK { VALUES ?a { 1 } FILTER(?a = 1) }`},
	{name: "ask-with-limit-zero", query: `ASK { VALUES ?a { 1 } } LIMIT 0`},
	{name: "ask-with-offset", query: `ASK { VALUES ?a { 1 } } OFFSET 1`},
	{name: "ask-group", query: `ASK { VALUES ?a { 1 } } GROUP BY ?a HAVING (COUNT(*) > 1)`, skip: "oxigraph-rejects-valid-query"},
	{name: "join-unbound-both-sides", query: `SELECT * WHERE { { VALUES (?a ?b) { (1 UNDEF) (UNDEF 2) } } { VALUES (?a ?b) { (UNDEF UNDEF) (1 2) } } }`},
	{name: "optional-unbound-compat", query: `SELECT * WHERE { VALUES (?a ?b) { (1 UNDEF) } OPTIONAL { VALUES (?a ?b) { (UNDEF 3) (2 4) } } }`},
	{name: "union-same-rows", query: `SELECT ?a WHERE { { BIND(1 AS ?a) } UNION { BIND(1 AS ?a) } }`},
	{name: "filter-error-in-optional-condition", query: `SELECT * WHERE { BIND(1 AS ?a) OPTIONAL { BIND(2 AS ?b) FILTER(1/0) } }`},
	{name: "filter-optional-condition-uses-both", query: `SELECT * WHERE { VALUES ?a { 1 5 } OPTIONAL { VALUES ?b { 2 3 } FILTER(?b > ?a) } }`},
	// batch 7: queries SPARQL 1.1 rejects (both must reject) and their near misses
	{name: "reject-bind-twice", query: `SELECT * WHERE { BIND(1 AS ?a) BIND(2 AS ?a) }`},
	{name: "reject-bind-after-triple", ds: 1, query: `SELECT * WHERE { ?s ex:str ?a BIND(1 AS ?a) }`},
	{name: "accept-bind-after-group", ds: 1, query: `SELECT * WHERE { { ?s ex:str ?a } BIND(1 AS ?b) }`},
	{name: "reject-select-as-in-scope", query: `SELECT ?a (1 AS ?a) WHERE { BIND(2 AS ?a) }`},
	{name: "reject-select-as-twice", query: `SELECT (1 AS ?a) (2 AS ?a) {}`},
	{name: "reject-ungrouped-var", query: `SELECT ?v (COUNT(*) AS ?c) WHERE { VALUES ?v { 1 } }`},
	{name: "reject-ungrouped-var-group", query: `SELECT ?w (COUNT(*) AS ?c) WHERE { VALUES (?v ?w) { (1 2) } } GROUP BY ?v`},
	{name: "accept-grouped-expr-var", query: `SELECT ?k (COUNT(*) AS ?c) WHERE { VALUES ?v { 1 } } GROUP BY (?v + 1 AS ?k)`},
	{name: "reject-select-star-group", query: `SELECT * WHERE { VALUES ?v { 1 } } GROUP BY ?v`},
	{name: "reject-agg-in-where", query: `SELECT * WHERE { VALUES ?v { 1 } FILTER(COUNT(?v) > 0) }`},
	{name: "reject-values-arity", query: `SELECT * WHERE { VALUES (?a ?b) { (1) } }`},
	{name: "reject-limit-negative", query: `SELECT * WHERE { } LIMIT -1`},
	{name: "reject-bnode-label-two-bgps", ds: 1, query: `SELECT * WHERE { _:a ex:str ?o . FILTER(true) OPTIONAL { _:a ex:num ?n } }`},
	{name: "accept-bnode-label-same-bgp", ds: 1, query: `SELECT ?o WHERE { _:a ex:str ?o . FILTER(true) _:a ex:num ?n }`},
	{name: "reject-subquery-agg-var", query: `SELECT * WHERE { { SELECT ?v (COUNT(*) AS ?c) WHERE { VALUES ?v { 1 } } } }`},
	{name: "reject-prefix-undefined", query: `SELECT * WHERE { ?s zz:p ?o }`},
	{name: "accept-keyword-case", query: `select distinct ?v where { values ?v { 1 1 } } order by ?v limit 5`},
	{name: "accept-a-keyword", ds: 1, query: `SELECT ?s WHERE { ?s a ex:T }`},
	{name: "accept-numeric-forms", query: `SELECT (.5 AS ?a) (+.5e1 AS ?c) (-5.E-1 AS ?d) {}`, numeric: true},
	{name: "accept-string-escapes", query: `SELECT ("\t\"\\\u00e9\U0001F600" AS ?a) ('''a
b''' AS ?b) {}`},
	// batch 8: optimizer-sensitive shapes (filter placement, sideways bindings, maybe-bound variables)
	{name: "opt-filter-maybe-left", ds: 1, query: `SELECT ?s ?n ?d WHERE { ?s ex:str ?o OPTIONAL { ?s ex:num ?n FILTER(isNumeric(?n)) } OPTIONAL { ?s ex:date ?d FILTER(BOUND(?n)) } }`},
	{name: "opt-join-maybe-var", ds: 1, query: `SELECT ?s ?x WHERE { ?s ex:str ?o OPTIONAL { ?s ex:link ?x } ?x ex:str ?o2 }`},
	{name: "opt-then-triple-shared", ds: 1, query: `SELECT ?s ?n WHERE { ?s ex:link ?t OPTIONAL { ?t ex:num ?n } ?s ex:num ?n }`},
	{name: "filter-maybe-unbound", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o OPTIONAL { ?s ex:date ?d } FILTER(!BOUND(?d) || ?d > "2024-01-02T00:00:00Z"^^xsd:dateTime) }`},
	{name: "filter-before-triple", ds: 1, query: `SELECT ?s ?n WHERE { FILTER(?n > 1) ?s ex:num ?n }`},
	{name: "filter-in-group-with-later-triple", ds: 1, query: `SELECT ?s ?n WHERE { { FILTER(BOUND(?n)) ?s ex:str ?o } ?s ex:num ?n }`},
	{name: "bind-used-by-later-triple", ds: 1, query: `SELECT ?o WHERE { BIND(ex:s2 AS ?s) ?s ex:str ?o }`},
	{name: "bind-after-triple-used-in-filter", ds: 1, query: `SELECT ?s ?l WHERE { ?s ex:str ?o BIND(STRLEN(?o) AS ?l) ?s ex:num ?n FILTER(?l = 3) }`},
	{name: "values-join-maybe", ds: 1, query: `SELECT ?s ?n WHERE { ?s ex:str ?o OPTIONAL { ?s ex:num ?n } VALUES ?n { 1 UNDEF } }`},
	{name: "union-filter-outer", ds: 1, query: `SELECT ?s ?x WHERE { ?s ex:str ?o { ?s ex:num ?x } UNION { ?s ex:date ?x FILTER(STRLEN(?o) = 3) } }`},
	{name: "minus-maybe-var", ds: 1, query: `SELECT ?s ?n WHERE { ?s ex:str ?o OPTIONAL { ?s ex:num ?n } MINUS { ?x ex:num ?n } }`},
	{name: "path-then-filter-equal", ds: 1, query: `SELECT ?x ?y WHERE { ?x ex:link+ ?y FILTER(?x = ?y) }`},
	{name: "path-then-filter-sameterm", ds: 1, query: `SELECT ?x WHERE { ?x ex:link* ?y FILTER(sameTerm(?y, ex:s1)) }`},
	{name: "triple-repeated-var", ds: 1, query: `SELECT ?x WHERE { ?x ?x ?y }`},
	{name: "triple-repeated-var-so", ds: 2, query: `SELECT ?x WHERE { ?x ex:p ?x }`},
	{name: "triple-all-same-var", ds: 2, query: `SELECT ?x WHERE { GRAPH ?g { ?x ?x ?x } }`},
	{name: "graph-var-in-pattern", ds: 2, query: `SELECT ?g ?o WHERE { GRAPH ?g { ?g ex:owner ?o } }`},
	{name: "graph-var-joined-outside", ds: 2, query: `SELECT ?g ?s WHERE { ?g ex:owner ?o GRAPH ?g { ?s ?p ?o2 } }`},
	{name: "graph-nested", ds: 2, query: `SELECT ?g ?h ?s WHERE { GRAPH ?g { GRAPH ?h { ?s ex:p ?o } } }`, skip: "oxigraph-nested-graph"},
	{name: "count-join-fanout", ds: 1, query: `SELECT (COUNT(*) AS ?c) WHERE { ?a ex:link ?b . ?b ex:link ?c2 . ?c2 ex:link ?d }`},
	{name: "cross-product", ds: 1, query: `SELECT (COUNT(*) AS ?c) WHERE { ?a ex:num ?n . ?b ex:date ?d }`},
	{name: "distinct-join-dups", ds: 1, query: `SELECT DISTINCT ?a WHERE { ?a ?p ?o . ?a ?q ?o2 }`},
	{name: "limit-in-optional-subquery", ds: 1, query: `SELECT ?s ?t WHERE { ?s ex:str ?o OPTIONAL { SELECT ?s ?t WHERE { ?s ex:link ?t } ORDER BY ?t LIMIT 1 } }`},
	{name: "exists-with-sideways", ds: 1, query: `SELECT ?s ?t WHERE { ?s ex:link ?t FILTER EXISTS { ?t ex:link ?u FILTER(?u != ?s) } }`},
	{name: "not-exists-filter-on-path", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o FILTER NOT EXISTS { ?s ex:link+ ?u FILTER(?u = ?s) } }`},
	{name: "exists-minus-outer-var", ds: 1, query: `SELECT ?s WHERE { ?s ex:num ?n FILTER EXISTS { ?s ex:str ?o MINUS { ?s ex:date ?d } } }`},
	{name: "exists-minus-filter-outer-var", ds: 1, query: `SELECT ?s WHERE { ?s ex:num ?n FILTER EXISTS { ?s ex:str ?o MINUS { ?x ex:date ?d FILTER(?x = ?s) } } }`, skip: "unspecified-exists-minus"},
	// batch 9: float precision and numeric results read back as values
	{name: "float-precision", query: `SELECT (xsd:double(STR("1.1"^^xsd:float + "2.2"^^xsd:float)) > 3.30000001e0 AS ?a) ("0.1"^^xsd:float = 0.1 AS ?b) ("0.1"^^xsd:float = "0.1"^^xsd:double AS ?c) (xsd:float(0.1) = "0.1"^^xsd:float AS ?d) ("16777217"^^xsd:float = 16777216 AS ?e) {}`},
	{name: "float-ops-types", query: `SELECT (DATATYPE("1"^^xsd:float / 3) AS ?a) (DATATYPE(ABS("-1"^^xsd:float)) AS ?b) (DATATYPE(-"1"^^xsd:float) AS ?c) (DATATYPE(SUM("1"^^xsd:float)) AS ?d) {}`},
	{name: "float-cast-range", query: `SELECT (xsd:float("3.5e38") AS ?a) (xsd:float(1e39) AS ?b) (xsd:float("1e-46") AS ?c) (xsd:double("1e-400") AS ?d) {}`, numeric: true},
	{name: "decimal-division-exact", query: `SELECT (1/4 AS ?a) (1/8 AS ?b) (10/4 AS ?c) (-1/3 * 3 = -1 AS ?d) (2/3 = 0.6666666666666666 AS ?e) {}`, numeric: true},
	{name: "integer-mod-like", query: `SELECT (7 - FLOOR(7/2) * 2 AS ?a) (-7 - FLOOR(-7/2) * 2 AS ?b) {}`, numeric: true},
	{name: "compare-int-double-big", query: `SELECT (9007199254740993 = 9007199254740992e0 AS ?a) (9007199254740993 > 9007199254740992e0 AS ?b) (9007199254740993 = 9007199254740993.0 AS ?c) {}`},
	{name: "compare-decimal-double", query: `SELECT (0.1 = 0.1e0 AS ?a) (0.1 < 0.1e0 AS ?b) (0.3 = 0.1e0 + 0.2e0 AS ?c) {}`},
	// batch 10: XPath regular expressions (F&O 3.1 §5.6.1) against RE2's readings of the same syntax
	{name: "regex-d-unicode", query: `SELECT (REGEX("\u0663", "^\\d$") AS ?a) (REGEX("\u0663", "^[\\d]$") AS ?b) (REGEX("x", "^\\D$") AS ?c) {}`},
	{name: "regex-w-unicode", query: `SELECT (REGEX("\u00e9", "^\\w$") AS ?a) (REGEX("_", "^\\w$") AS ?b) (REGEX("+", "^\\w$") AS ?c) (REGEX("-", "^\\w$") AS ?d) (REGEX(" ", "^\\W$") AS ?e) {}`, skip: "oxigraph-regex-classes"},
	{name: "regex-s-exact", query: `SELECT (REGEX("\u000c", "^\\s$") AS ?a) (REGEX("\u00a0", "^\\s$") AS ?b) (REGEX("\r", "^\\s$") AS ?c) (REGEX("\u000b", "^\\s$") AS ?d) {}`, skip: "oxigraph-regex-classes"},
	{name: "regex-dot-cr", query: `SELECT (REGEX("a\rb", "^a.b$") AS ?a) (REGEX("a\nb", "^a.b$") AS ?b) (REGEX("a\rb", "^a.b$", "s") AS ?c) (REGEX("a\u2028b", "^a.b$") AS ?d) {}`, skip: "xpath-version-dot"},
	{name: "regex-dollar-newline", query: `SELECT (REGEX("a\n", "a$") AS ?a) (REGEX("a\n", "^a$") AS ?b) {}`},
	{name: "regex-x-flag", query: `SELECT (REGEX("ab", "a b", "x") AS ?a) (REGEX("a b", "a[ ]b", "x") AS ?b) (REGEX("ab", "a\\sb", "x") AS ?c) {}`, skip: "xpath-version-x-flag"},
	{name: "regex-q-flag", query: `SELECT (REGEX("a+b", "a+b", "q") AS ?a) (REGEX("A+B", "a+b", "qi") AS ?b) (REPLACE("a.b", ".", "$1", "q") AS ?c) {}`, skip: "oxigraph-regex-q-replacement"},
	{name: "regex-quantifiers", query: `SELECT (REGEX("aaa", "^a{2,3}$") AS ?a) (REGEX("aaaa", "^a{2,3}$") AS ?b) (REGEX("a", "^a{0}$") AS ?c) (REGEX("ab", "^a*?b$") AS ?d) {}`},
	{name: "regex-classes-escapes", query: `SELECT (REGEX("a-b", "^a[\\-]b$") AS ?a) (REGEX("^", "^[\\^]$") AS ?b) (REGEX("\\", "^\\\\$") AS ?c) {}`},
	{name: "regex-category", query: `SELECT (REGEX("A", "^\\p{L}$") AS ?a) (REGEX("1", "^\\p{N}$") AS ?b) (REGEX("\u0300", "^\\p{M}$") AS ?c) (REGEX("$", "^\\p{S}$") AS ?d) (REGEX(",", "^\\p{P}$") AS ?e) {}`},
	{name: "regex-invalid-xpath", query: `SELECT (REGEX("a", "a{,2}") AS ?a) (REGEX("a", "(?i)a") AS ?b) (REGEX("a", "a++") AS ?c) (REGEX("a", "\\z") AS ?d) {}`, skip: "oxigraph-regex-syntax"},
	{name: "replace-case-insensitive", query: `SELECT (REPLACE("ABC", "b", "x", "i") AS ?a) (REPLACE("aBc", "[a-c]", "x", "i") AS ?b) {}`},
	// batch 11: extreme arguments
	{name: "extreme-substr-double", query: `SELECT (SUBSTR("abc", 2, 1e308) AS ?a) (SUBSTR("abc", -1e308, 1e308) AS ?b) {}`, skip: "unspecified-substr-non-integer"},
	{name: "extreme-substr-integer", query: `SELECT (SUBSTR("abc", 9223372036854775807) AS ?c) (SUBSTR("abc", 1, 99999999999999999999999) AS ?d) {}`, skip: "limit-integer-digits"},
	{name: "extreme-cast-integer", query: `SELECT (STRLEN(STR(xsd:integer(1e308))) AS ?a) (xsd:integer("INF"^^xsd:double) AS ?b) {}`, skip: "limit-integer-digits"},
	{name: "extreme-cast-decimal", query: `SELECT (STRLEN(STR(xsd:decimal(1e-300))) > 300 AS ?c) {}`, skip: "limit-decimal-digits"},
	{name: "extreme-arith", numeric: true, query: `SELECT (1e308 * 10 AS ?a) (-1e308 * 10 AS ?b) (1e-320 / 1e10 AS ?c) (xsd:float(1e38) * 10 AS ?d) {}`},
	{name: "extreme-round", numeric: true, query: `SELECT (ROUND(1e300) AS ?a) (ROUND(123456789012345678901234567890.5) AS ?b) (CEIL(-0.0000000000000000000001) AS ?c) {}`, skip: "limit-decimal-digits"},
	{name: "extreme-regex-repeat", query: `SELECT (REGEX("aaa", "^a{3}$") AS ?a) (REGEX("a", "a{0,1000}") AS ?b) {}`},
	{name: "extreme-strlen-long", query: `SELECT (STRLEN(CONCAT("\U0001F600\U0001F600\U0001F600\U0001F600\U0001F600", "\U0001F600\U0001F600\U0001F600\U0001F600\U0001F600")) AS ?a) {}`},
	{name: "extreme-year", query: `SELECT (YEAR("-999999999-01-01T00:00:00Z"^^xsd:dateTime) AS ?a) (YEAR("0000-01-01T00:00:00Z"^^xsd:dateTime) AS ?b) ("-0001-01-01T00:00:00Z"^^xsd:dateTime < "0001-01-01T00:00:00Z"^^xsd:dateTime AS ?c) {}`},
	{name: "exists-subquery-local-var", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o FILTER EXISTS { { SELECT (COUNT(*) AS ?c) WHERE { ?s ex:link ?t } } FILTER(?c = 1) } }`},
	{name: "exists-subquery-local-var-filter", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o FILTER EXISTS { { SELECT ?t WHERE { ?s ex:link ?t } } FILTER(?t != ?o) } }`},
	{name: "exists-subquery-projected", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o FILTER EXISTS { { SELECT ?s (COUNT(*) AS ?c) WHERE { ?s ex:link ?t } GROUP BY ?s } FILTER(?c = 1) } }`},
	// batch 12: EXISTS substitution with graphs, paths, VALUES and unions
	{name: "exists-graph-outer-var", ds: 2, query: `SELECT ?g ?s WHERE { GRAPH ?g { ?s ex:p ?o } FILTER EXISTS { GRAPH ?g { ?o ex:p ?z FILTER(?z != ?s) } } }`},
	{name: "exists-graph-filter-only-outer", ds: 2, query: `SELECT ?g ?s WHERE { GRAPH ?g { ?s ex:p ?o } FILTER NOT EXISTS { GRAPH ?h { ?x ex:p ?y FILTER(?h != ?g && ?y = ?o) } } }`},
	{name: "exists-optional-graph", ds: 2, query: `SELECT ?s WHERE { ?s ex:p ?o FILTER EXISTS { OPTIONAL { GRAPH ?g { ?s ex:name ?n } } FILTER(!BOUND(?n)) } }`},
	{name: "exists-path-filter-outer", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o FILTER EXISTS { ?s ex:link+ ?u FILTER(?u != ?s && STRLEN(?o) = 3) } }`},
	{name: "exists-values-filter-outer", ds: 1, query: `SELECT ?s WHERE { ?s ex:num ?n FILTER EXISTS { VALUES ?m { 1 2.5 } FILTER(?m = ?n) } }`},
	{name: "exists-union-filter-outer", ds: 1, query: `SELECT ?s WHERE { ?s ex:num ?n FILTER EXISTS { { FILTER(isNumeric(?n) && ?n > 2) } UNION { ?s ex:date ?d FILTER(!isNumeric(?n)) } } }`},
	{name: "exists-bind-filter-outer", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o FILTER EXISTS { BIND(STRLEN(?o) AS ?l) FILTER(?l > 3) } }`},
	{name: "exists-minus-left-filter-outer", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o FILTER EXISTS { ?s ex:link ?t FILTER(STRLEN(?o) = 3) MINUS { ?t ex:date ?d } } }`},
	{name: "exists-optional-cond-outer", ds: 1, query: `SELECT ?s ?e WHERE { ?s ex:str ?o BIND(EXISTS { ?s ex:link ?t OPTIONAL { ?t ex:str ?o2 FILTER(LANG(?o2) = LANG(?o)) } FILTER(BOUND(?o2)) } AS ?e) }`},
	{name: "not-exists-in-optional", ds: 1, query: `SELECT ?s ?t WHERE { ?s ex:str ?o OPTIONAL { ?s ex:link ?t FILTER NOT EXISTS { ?t ex:str ?o } } }`},
	{name: "exists-aggregate-subquery-outer-projected", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o FILTER EXISTS { { SELECT ?s (COUNT(?t) AS ?c) WHERE { ?s ex:link ?t } GROUP BY ?s } FILTER(?c >= 1 && STRLEN(?o) = 3) } }`},
	{name: "distinct-unbound", query: `SELECT DISTINCT ?a WHERE { VALUES (?a ?b) { (UNDEF 1) (UNDEF 2) } }`},
	// batch 13: negated property sets over multi-predicate pairs, paths in named graphs, UNDEF in hash
	// joins, SERVICE, aggregates with DISTINCT
	{name: "nps-both-bound", ds: 3, query: `SELECT * WHERE { ex:a !ex:z ex:b }`},
	{name: "nps-both-bound-count", ds: 3, query: `SELECT (COUNT(*) AS ?c) WHERE { ex:b !ex:r ex:b }`},
	{name: "nps-subject-bound", ds: 3, query: `SELECT ?y WHERE { ex:a !ex:z ?y }`, skip: "oxigraph-nps-multiset"},
	{name: "nps-vars", ds: 3, query: `SELECT ?x ?y WHERE { ?x !ex:z ?y }`, skip: "oxigraph-nps-multiset"},
	{name: "nps-in-seq", ds: 3, query: `SELECT ?x WHERE { ?x ex:p/!ex:z ?x }`},
	{name: "nps-excluded-one", ds: 3, query: `SELECT ?x ?y WHERE { ?x !ex:p ?y }`},
	{name: "ng-path-cycle", ds: 3, query: `SELECT ?g ?x ?y WHERE { GRAPH ?g { ?x ex:p+ ?y } }`},
	{name: "ng-path-zero-vars", ds: 3, query: `SELECT ?g ?x ?y WHERE { GRAPH ?g { ?x ex:p* ?y } }`},
	{name: "ng-path-zero-const-in-one-graph", ds: 3, query: `SELECT ?g ?y WHERE { GRAPH ?g { ex:a ex:p* ?y } }`, skip: "oxigraph-zero-length-absent-term"},
	{name: "ng-path-zero-literal", ds: 3, query: `SELECT ?g ?y WHERE { GRAPH ?g { "lit" ex:q* ?y } }`, skip: "oxigraph-zero-length-absent-term"},
	{name: "ng-path-seq-star", ds: 3, query: `SELECT ?g ?x ?y WHERE { GRAPH ?g { ?x (ex:p/ex:p)* ?y } }`},
	{name: "ng-path-alt-star", ds: 3, query: `SELECT ?x ?y WHERE { GRAPH ex:g1 { ?x (ex:p|ex:q)* ?y } }`},
	{name: "ng-graph-var-minus", ds: 3, query: `SELECT ?g ?c WHERE { GRAPH ?g { ?c ex:p* ?c MINUS { ?g ex:q* ?c } } }`, skip: "oxigraph-graph-var-in-group"},
	{name: "service-refused", query: `SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }`},
	{name: "service-silent-refused", query: `SELECT * WHERE { SERVICE SILENT <http://example.org/sparql> { ?s ?p ?o } }`, skip: "cortex-service-unsupported"},
	{name: "hash-join-undef-keys", query: `SELECT * WHERE { VALUES (?a ?x ?y) { (1 UNDEF 2) (2 5 UNDEF) (3 UNDEF UNDEF) } { SELECT ?x ?y ?b WHERE { VALUES (?x ?y ?b) { (5 2 "p") (UNDEF 2 "q") (5 UNDEF "r") (UNDEF UNDEF "s") (7 7 "t") } } } }`},
	{name: "hash-optional-undef-keys", query: `SELECT * WHERE { VALUES (?a ?x) { (1 UNDEF) (2 5) } OPTIONAL { SELECT ?x ?b WHERE { VALUES (?x ?b) { (5 "p") (UNDEF "q") (6 "r") } } } }`},
	{name: "hash-minus-undef-keys", query: `SELECT * WHERE { VALUES (?a ?x) { (1 UNDEF) (2 5) (3 6) } MINUS { SELECT ?x WHERE { VALUES (?x ?b) { (5 "p") (UNDEF "q") } } } }`},
	{name: "subquery-group-undef-key-join", query: `SELECT * WHERE { VALUES ?k { 1 2 } OPTIONAL { SELECT ?k (COUNT(*) AS ?c) WHERE { VALUES (?k ?v) { (UNDEF 1) (1 2) } } GROUP BY ?k } }`},
	{name: "minus-no-shared-values", query: `SELECT * WHERE { VALUES ?a { 1 2 } MINUS { VALUES ?b { 1 } } }`},
	{name: "minus-shared-undef-only", query: `SELECT * WHERE { VALUES ?a { 1 2 } MINUS { VALUES (?a ?b) { (UNDEF 1) } } }`},
	{name: "bind-in-optional-outer-var", query: `SELECT ?x ?y WHERE { VALUES ?x { 1 2 } OPTIONAL { BIND(?x * 10 AS ?y) } }`},
	{name: "bind-in-union-outer-var", query: `SELECT ?x ?y WHERE { VALUES ?x { 1 2 } { BIND(?x * 10 AS ?y) } UNION { BIND(7 AS ?y) } }`},
	{name: "subquery-filter-outer-var", query: `SELECT * WHERE { VALUES ?x { 1 2 } { SELECT (COUNT(*) AS ?c) WHERE { VALUES ?y { 1 2 3 } FILTER(?y > ?x) } } }`},
	{name: "having-select-alias", ds: 1, query: `SELECT ?s (COUNT(*) AS ?c) WHERE { ?s ?p ?v } GROUP BY ?s HAVING (COUNT(*) > 3)`},
	{name: "agg-distinct-groups", numeric: true, query: `SELECT ?k (COUNT(DISTINCT ?v) AS ?c) (SUM(DISTINCT ?v) AS ?s) (AVG(DISTINCT ?v) AS ?a) (MIN(DISTINCT ?v) AS ?mi) WHERE { VALUES (?k ?v) { (1 1) (1 1) (1 2.0) (1 2) (2 UNDEF) } } GROUP BY ?k`},
	{name: "agg-distinct-empty-grouped", query: `SELECT ?k (COUNT(DISTINCT ?v) AS ?c) WHERE { VALUES (?k ?v) { } } GROUP BY ?k`},
	{name: "exists-subquery-slice", query: `SELECT * WHERE { VALUES ?a { 1 2 } FILTER NOT EXISTS { SELECT ?a WHERE { VALUES ?a { 2 1 } } ORDER BY ?a LIMIT 1 } }`, skip: "unspecified-exists-subquery-slice"},
	{name: "substr-nonbmp-edges", query: `SELECT (SUBSTR("a\U0001F600b", 3, 5) AS ?b) (SUBSTR("", 1) AS ?c) (SUBSTR("abc"@en, 5) AS ?d) (STRBEFORE("\U0001F600x\U0001F600", "x") AS ?e) (REPLACE("\U0001F600", "\U0001F600", "x") AS ?f) {}`},
	{name: "lang-matching-data", ds: 1, query: `SELECT ?s WHERE { ?s ex:str ?o FILTER(LANGMATCHES(LANG(?o), "FR") || LANGMATCHES(LANG(?o), "en-*")) }`},
	{name: "arith-left-associative", numeric: true, query: `SELECT (8 - 2 - 2 AS ?a) (8 / 2 * 2 AS ?b) (8 / 2 / 2 AS ?c) (?x - 2 - 2 AS ?d) WHERE { BIND(8 AS ?x) }`, skip: "oxigraph-right-associative"},
	{name: "nan-order", query: `SELECT ("NaN"^^xsd:double < 1 AS ?a) (1 >= "NaN"^^xsd:float AS ?b) (!("NaN"^^xsd:double > 1) AS ?c) ("NaN"^^xsd:double <= "x" AS ?d) {}`, skip: "oxigraph-nan-order"},
	{name: "cast-datetime-canonical", query: `SELECT (xsd:string("2024-01-02T03:04:05.500+00:00"^^xsd:dateTime) AS ?a) (xsd:dateTime("2024-01-02T03:04:05.0-00:00"^^xsd:dateTime) AS ?b) (xsd:string("2024-12-31T24:00:00"^^xsd:dateTime) AS ?c) (xsd:string("2024-01-02T03:04:05.10-05:00"^^xsd:dateTime) AS ?d) {}`},
	// a blank node of the data returned by an expression is still that node
	{name: "data-bnode-through-bind", ds: 1, query: `SELECT (COUNT(*) AS ?n) WHERE { ex:s4 ex:link ?b BIND(?b AS ?c) ?c ex:link ?y }`},
	{name: "data-bnode-through-bind-grouped", ds: 1, query: `SELECT (COUNT(*) AS ?n) (COUNT(DISTINCT ?c) AS ?d) WHERE { { ex:s4 ex:link ?b BIND(COALESCE(?b) AS ?c) } UNION { ?c ex:link ex:s4 } } GROUP BY ?c`},
	{name: "data-bnode-through-bind-minus", ds: 1, query: `SELECT (COUNT(*) AS ?n) WHERE { ex:s4 ex:link ?b BIND(IF(true, ?b, 0) AS ?c) MINUS { ?c ex:link ex:s4 } }`},
	// fresh values made in a group joined with the rows before it: once per solution of the group
	{name: "fresh-in-joined-group", ds: 1, query: `SELECT (COUNT(DISTINCT ?b) AS ?c) (COUNT(DISTINCT ?r) AS ?d) (COUNT(*) AS ?n) WHERE { ?x ex:num ?u { BIND(BNODE() AS ?b) BIND(STRUUID() AS ?r) } }`},
	{name: "fresh-in-joined-union", ds: 1, query: `SELECT (COUNT(DISTINCT ?b) AS ?c) (COUNT(*) AS ?n) WHERE { ?x ex:num ?u { { BIND(BNODE() AS ?b) } UNION { VALUES ?z { 1 } BIND(BNODE() AS ?b) } } }`},
	{name: "fresh-in-joined-group-rows", ds: 1, query: `SELECT (COUNT(DISTINCT ?b) AS ?c) (COUNT(*) AS ?n) WHERE { ?x ex:num ?u { ?y ex:str ?v BIND(BNODE() AS ?b) } }`},
	{name: "fresh-in-optional", ds: 1, query: `SELECT (COUNT(DISTINCT ?b) AS ?c) (COUNT(*) AS ?n) WHERE { ?x ex:num ?u OPTIONAL { BIND(RAND() AS ?b) } }`},
	// batch 14: CONSTRUCT and DESCRIBE, paths over cycles and graphs, FROM NAMED, nested OPTIONAL
	// scopes, HAVING, strings and numbers on tagged and typed literals
	{name: "construct-simple", ds: 4, query: `CONSTRUCT { ?o ex:back ?s } WHERE { ?s ex:p ?o }`},
	{name: "construct-where", ds: 4, query: `CONSTRUCT WHERE { ?s ex:name ?n }`},
	{name: "construct-fresh-bnode", ds: 4, query: `CONSTRUCT { ?s ex:r [ ex:v ?o ] } WHERE { ?s ex:p ?o }`},
	{name: "construct-bnode-label-shared", ds: 4, query: `CONSTRUCT { _:e ex:src ?s . _:e ex:dst ?o } WHERE { ?s ex:p ?o }`},
	{name: "construct-data-bnodes", ds: 4, query: `CONSTRUCT { ?b ex:seen ?d . ?b ex:w ?c } WHERE { ?d ex:r ?b OPTIONAL { ?b ex:w ?c } }`},
	{name: "construct-invalid-dropped", ds: 4, query: `CONSTRUCT { ?o ex:inv ?s . ?s ?o ?s . ?s ex:n ?n } WHERE { ?s ?p ?o OPTIONAL { ?s ex:name ?n } }`},
	{name: "construct-literal-subject", ds: 4, query: `CONSTRUCT { "x" ex:p ?o . ?o ex:q "x" } WHERE { ?s ex:p ?o }`},
	{name: "construct-dedup-graphs", ds: 4, query: `CONSTRUCT { ?s ex:p ?o } WHERE { GRAPH ?g { ?s ex:p ?o } }`},
	{name: "construct-order-limit", ds: 4, ordered: false, query: `CONSTRUCT { ?s ex:p ?o } WHERE { ?s ex:p ?o } ORDER BY DESC(?s) LIMIT 2`},
	{name: "construct-offset", ds: 4, query: `CONSTRUCT { ?s ex:p ?o } WHERE { ?s ex:p ?o } ORDER BY ?s OFFSET 2`},
	{name: "construct-collection", ds: 4, query: `CONSTRUCT { ?s ex:list (?o 1) } WHERE { ?s ex:p ?o FILTER(?s = ex:a) }`},
	{name: "construct-empty-template", ds: 4, query: `CONSTRUCT {} WHERE { ?s ?p ?o }`},
	{name: "construct-values-terms", query: `CONSTRUCT { ex:a ex:v ?v } WHERE { VALUES ?v { 1 "01"^^xsd:integer 1.0 "a" "a"@en "a"^^xsd:string } }`, skip: "oxigraph-canonical-constants"},
	{name: "construct-from", ds: 4, query: `CONSTRUCT { ?s ?p ?o } FROM ex:g1 FROM ex:g2 WHERE { ?s ?p ?o }`},
	{name: "construct-aggregate", ds: 4, query: `CONSTRUCT { ?s ex:count ?c } WHERE { { SELECT ?s (COUNT(*) AS ?c) WHERE { ?s ?p ?o } GROUP BY ?s } }`},
	{name: "construct-bnode-fn", ds: 4, query: `CONSTRUCT { ?b ex:of ?s } WHERE { ?s ex:p ?o BIND(BNODE(STR(?s)) AS ?b) }`, skip: "oxigraph-bnode-label-string"},
	{name: "construct-no-solution", ds: 4, query: `CONSTRUCT { ?s ex:x ?o } WHERE { ?s ex:nothing ?o }`},
	{name: "describe-iri", ds: 4, query: `DESCRIBE ex:b`},
	{name: "describe-var", ds: 4, query: `DESCRIBE ?x WHERE { ?x ex:name "Bob" }`},
	{name: "describe-bnode-closure", ds: 4, query: `DESCRIBE ex:d`},
	{name: "ask-path-cycle", ds: 4, query: `ASK { ex:a ex:p/ex:p/ex:p ex:a }`},
	{name: "ask-graph", ds: 4, query: `ASK { GRAPH ?g { ?x ex:p ?x } }`},
	// paths over a cycle, with inverses, negated sets and zero-length ends
	{name: "path-alt-inverse-plus", ds: 4, query: `SELECT ?x ?y WHERE { ?x (ex:p|^ex:q)+ ?y }`},
	{name: "path-seq-plus-cycle", ds: 4, query: `SELECT ?y WHERE { ex:a (ex:p/ex:p)+ ?y }`},
	{name: "path-inverse-of-seq", ds: 4, query: `SELECT ?x ?y WHERE { ?x ^(ex:p/ex:q) ?y }`},
	{name: "path-star-then-pred", ds: 4, query: `SELECT ?x ?y WHERE { ?x ex:p*/ex:q ?y }`},
	{name: "path-nested-closure", ds: 4, query: `SELECT ?x ?y WHERE { ?x (ex:p+)* ?y }`},
	{name: "path-nested-opt-plus", ds: 4, query: `SELECT ?x ?y WHERE { ?x (ex:p?)+ ?y FILTER(?x = ex:d || ?x = ex:a) }`},
	{name: "path-zero-same-var-all-nodes", ds: 4, query: `SELECT ?x WHERE { ?x ex:nothing* ?x }`},
	{name: "path-zero-graph-var", ds: 4, query: `SELECT ?g ?x WHERE { GRAPH ?g { ?x ex:nothing? ?x } }`},
	{name: "path-opt-in-graph", ds: 4, query: `SELECT ?x ?y WHERE { GRAPH ex:g1 { ?x ex:p? ?y } }`},
	{name: "path-alt-star-count", ds: 4, query: `SELECT (COUNT(*) AS ?c) WHERE { ?x (ex:p|ex:q)* ?y }`},
	{name: "path-nps-forward-inverse", ds: 4, query: `SELECT DISTINCT ?x ?y WHERE { ?x !(ex:p|^ex:q) ?y }`},
	{name: "path-nps-inverse-only-bound", ds: 4, query: `SELECT ?y WHERE { ex:a !(^ex:p) ?y }`},
	{name: "path-nps-mixed-bound", ds: 4, query: `SELECT ?y WHERE { ex:c !(ex:q|^ex:name) ?y }`},
	{name: "path-inverse-literal", ds: 4, query: `SELECT ?x WHERE { "Bob" ^ex:name ?x }`},
	{name: "path-zero-values-absent", ds: 4, query: `SELECT ?x ?y WHERE { VALUES ?x { ex:a ex:zz } ?x ex:p* ?y }`},
	{name: "path-zero-bind-absent", ds: 4, query: `SELECT ?x ?y WHERE { BIND(ex:zz AS ?x) ?x ex:p* ?y }`},
	{name: "path-zero-values-after", ds: 4, query: `SELECT ?x ?y WHERE { ?x ex:p? ?y VALUES ?y { ex:zz ex:a } }`},
	{name: "path-zero-join-literal", ds: 4, query: `SELECT ?n ?m WHERE { ?s ex:name ?n . ?n ex:p* ?m }`},
	{name: "path-plus-graph-var-blank", ds: 4, query: `SELECT ?g ?x ?y WHERE { GRAPH ?g { ?x ex:p+ ?y } }`},
	{name: "path-zero-filter-end-by-value", ds: 1, query: `SELECT ?b ?d WHERE { ?b ex:nothing* ?d FILTER(?b IN (2.5e0, "x")) }`, skip: "oxigraph-path-filter-by-term"},
	{name: "path-nps-filter-end-by-value", ds: 1, query: `SELECT ?a WHERE { ?a !(ex:link|^ex:date) ex:s2 FILTER(?a = 2.5e0) }`, skip: "oxigraph-path-filter-by-term"},
	{name: "path-seq-bnode-mid", ds: 4, query: `SELECT ?v WHERE { ex:d ex:r/ex:w?/ex:v ?v }`},
	// graphs and datasets
	{name: "from-named-absent", ds: 4, query: `SELECT ?g ?s FROM NAMED ex:g1 FROM NAMED ex:g9 WHERE { GRAPH ?g { ?s ?p ?o } }`},
	{name: "from-and-named", ds: 4, query: `SELECT ?s ?g ?z FROM ex:g1 FROM NAMED ex:g2 WHERE { ?s ex:p ?o GRAPH ?g { ?o ?q ?z } }`},
	{name: "from-merge-count", ds: 4, query: `SELECT (COUNT(*) AS ?c) FROM ex:g1 FROM ex:g2 WHERE { ?s ?p ?o }`, skip: "oxigraph-from-multiset"},
	{name: "from-named-empty-group", ds: 4, query: `SELECT ?g WHERE { GRAPH ?g { } }`},
	{name: "from-named-only-default", ds: 4, query: `SELECT ?g WHERE { GRAPH ?g { } } VALUES ?g { ex:g1 ex:g9 }`},
	{name: "graph-absent-iri", ds: 4, query: `SELECT (COUNT(*) AS ?c) WHERE { GRAPH ex:g9 { } }`},
	{name: "graph-values-absent", ds: 4, query: `SELECT ?g ?x WHERE { VALUES ?g { ex:g1 ex:zz } GRAPH ?g { ?x ex:q ?o } }`},
	{name: "graph-twice-same-var", ds: 4, query: `SELECT ?g ?s ?z WHERE { GRAPH ?g { ?s ex:p ?o } GRAPH ?g { ?o ?q ?z } }`},
	{name: "graph-from-named-filter", ds: 4, query: `SELECT ?g ?s FROM NAMED ex:g2 WHERE { GRAPH ?g { ?s ?p ?o FILTER(isBlank(?s)) } }`},
	{name: "graph-group-by", ds: 4, query: `SELECT ?g (COUNT(*) AS ?c) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g`},
	// nested OPTIONAL: a filter sees only the variables of its own LeftJoin (§18.2.2.5)
	{name: "optional-nested-filter-outer-outer", ds: 4, query: `SELECT ?x ?y ?z ?n WHERE { ?x ex:p ?y OPTIONAL { ?y ex:p ?z OPTIONAL { ?z ex:name ?n FILTER(?x = ex:a) } } }`},
	{name: "optional-nested-filter-mid", ds: 4, query: `SELECT ?x ?y ?z ?w WHERE { ?x ex:p ?y OPTIONAL { ?y ex:p ?z OPTIONAL { ?z ex:p ?w FILTER(?w = ?y) } } }`},
	{name: "optional-filter-lang-outer", ds: 4, query: `SELECT ?x ?n WHERE { ?x ex:p ?y OPTIONAL { ?x ex:name ?n FILTER(LANGMATCHES(LANG(?n), "*") && ?y != ex:c) } }`},
	{name: "optional-in-optional-unbound-join", ds: 4, query: `SELECT ?x ?n ?m WHERE { ?x ex:p ?y OPTIONAL { ?x ex:name ?n } OPTIONAL { ?y ex:name ?m FILTER(!BOUND(?n)) } }`},
	{name: "optional-group-filter-not-bound", ds: 4, query: `SELECT ?x ?n WHERE { ?x ex:p ?y OPTIONAL { { ?x ex:name ?n } FILTER(?y = ex:b) } }`},
	// MINUS
	{name: "minus-same-pattern-filter", ds: 4, query: `SELECT ?x ?y WHERE { ?x ex:p ?y MINUS { ?x ex:p ?y FILTER(?y = ex:b) } }`},
	{name: "minus-in-graph", ds: 4, query: `SELECT ?g ?s WHERE { GRAPH ?g { ?s ex:p ?o MINUS { ?s ex:q ?z } } }`},
	{name: "minus-no-shared-nonempty", ds: 4, query: `SELECT ?x WHERE { ?x ex:name ?n MINUS { ?a ex:q ?b } }`},
	{name: "minus-optional-right", ds: 4, query: `SELECT ?x WHERE { ?x ex:p ?y MINUS { ?x ex:q ?z OPTIONAL { ?z ex:p ?w } } }`},
	// subqueries, aggregates, HAVING
	{name: "subquery-agg-order-limit-offset", ds: 4, query: `SELECT ?x ?y ?c WHERE { ?x ex:p ?y { SELECT ?y (COUNT(*) AS ?c) WHERE { ?y ?p ?z } GROUP BY ?y ORDER BY DESC(?c) ?y LIMIT 2 OFFSET 1 } }`},
	{name: "subquery-having-sum", ds: 4, query: `SELECT (SUM(?c) AS ?t) WHERE { { SELECT ?s (COUNT(?o) AS ?c) WHERE { ?s ?p ?o } GROUP BY ?s HAVING (COUNT(?o) > 1) } }`},
	{name: "having-no-group-sum", query: `SELECT (SUM(?v) AS ?s) WHERE { VALUES ?v { 1 2 } } HAVING (SUM(?v) > 2)`},
	{name: "having-no-group-false", query: `SELECT (SUM(?v) AS ?s) WHERE { VALUES ?v { 1 2 } } HAVING (SUM(?v) > 3)`},
	{name: "having-select-alias-ref", query: `SELECT (SUM(?v) AS ?s) WHERE { VALUES ?v { 1 2 } } HAVING (?s > 2)`},
	{name: "having-two-conditions", query: `SELECT ?k WHERE { VALUES (?k ?v) { (1 1) (1 5) (2 1) (3 9) } } GROUP BY ?k HAVING (COUNT(*) > 0) (SUM(?v) < 6)`},
	{name: "having-ungrouped-var", query: `SELECT (COUNT(*) AS ?c) WHERE { VALUES ?v { 1 2 } } HAVING (?v > 1)`},
	{name: "group-concat-distinct-sep-len", ds: 4, query: `SELECT ?s (STRLEN(GROUP_CONCAT(DISTINCT ?n; SEPARATOR=" | ")) AS ?l) WHERE { { ?s ex:name ?n } UNION { ?s ex:name ?n } } GROUP BY ?s`},
	{name: "group-concat-nonbmp-sep", query: `SELECT (GROUP_CONCAT(?v; SEPARATOR="\U0001F600") AS ?g) (STRLEN(GROUP_CONCAT(?v; SEPARATOR="\U0001F600")) AS ?l) WHERE { VALUES ?v { "a" "a" } }`},
	{name: "group-concat-distinct-lang-plain", query: `SELECT (STRLEN(GROUP_CONCAT(DISTINCT ?v; separator="")) AS ?l) WHERE { VALUES ?v { "a" "a"@en "a"^^xsd:string "a"@EN } }`},
	{name: "sample-same", query: `SELECT (SAMPLE(?v) AS ?s) WHERE { VALUES ?v { 1 1 } }`},
	{name: "sample-with-unbound", query: `SELECT ?k (SAMPLE(?v) AS ?s) WHERE { VALUES (?k ?v) { (1 UNDEF) (1 2) (2 UNDEF) } } GROUP BY ?k`},
	{name: "sample-error", query: `SELECT (SAMPLE(1/?v) AS ?s) WHERE { VALUES ?v { 0 0 } }`},
	{name: "values-undef-triple", ds: 4, query: `SELECT ?x ?y WHERE { ?x ex:p ?y VALUES (?x ?y) { (UNDEF ex:b) (ex:c UNDEF) (UNDEF UNDEF) } }`},
	{name: "values-undef-in-optional", ds: 4, query: `SELECT ?x ?n WHERE { ?x ex:p ?y OPTIONAL { VALUES (?x ?n) { (ex:a "z") (UNDEF "all") } } }`},
	// strings on tagged and typed literals
	{name: "str-nonbmp-lang", query: `SELECT (STRBEFORE("a\U0001F600b\U0001F600c"@en, "\U0001F600") AS ?a) (STRAFTER("a\U0001F600b\U0001F600c"@en, "\U0001F600"@en) AS ?b) (SUBSTR("\U0001F600\U0001F600abc"@de, 2, 3) AS ?c) (STRAFTER("\U0001F600"^^xsd:string, "") AS ?d) (CONTAINS("a\U0001F600"@en, "\U0001F600"@en) AS ?e) {}`},
	{name: "str-typed-errors", query: `SELECT (SUBSTR(1, 1) AS ?a) (STRBEFORE(ex:a, "x") AS ?b) (STRSTARTS("abc"^^xsd:string, "a"@en) AS ?c) (STRAFTER("abc"@en, "b"^^xsd:string) AS ?d) (UCASE("x"^^ex:t) AS ?e) {}`},
	{name: "replace-flags-tagged", query: `SELECT (REPLACE("AbC"@fr, "b", "x", "i") AS ?a) (REPLACE("abc"^^xsd:string, "B", "x", "i") AS ?b) (REPLACE("a\nb", "^b", "X", "m") AS ?c) (REPLACE("a b c", "b c", "X", "x") AS ?d) (REPLACE("a\nb", "a.b", "X", "s") AS ?e) (REPLACE("A\nB", "a$", "x", "im") AS ?f) {}`},
	{name: "regex-flag-combos", query: `SELECT (REGEX("A\nB", "a.b", "si") AS ?a) (REGEX("A\nB", "^B$", "mi") AS ?b) (REGEX("a#b", "a#b", "x") AS ?c) (REGEX("A B", "a\\ b", "ix") AS ?d) (REGEX("aB"@en, "B"@en, "") AS ?e) {}`, skip: "oxigraph-regex-x-escaped-space"},
	{name: "langmatches-star", query: `SELECT (LANGMATCHES(LANG("a"), "*") AS ?a) (LANGMATCHES(LANG("a"@en), "*") AS ?b) (LANGMATCHES("en-US", "EN-us") AS ?c) (LANGMATCHES("en", "en-*") AS ?d) (LANGMATCHES("en-US", "*-US") AS ?e) (LANGMATCHES(LANG("a"^^xsd:string), "*") AS ?f) {}`},
	{name: "langmatches-data", ds: 4, query: `SELECT ?n WHERE { GRAPH ?g { ?x ex:name ?n } FILTER(LANGMATCHES(LANG(?n), "en")) }`},
	{name: "lang-data-filter", ds: 4, query: `SELECT ?x (LANG(?n) AS ?l) (STRLEN(?n) AS ?len) (UCASE(?n) AS ?u) (SUBSTR(?n, 2, 2) AS ?sub) WHERE { { ?x ex:name ?n } UNION { GRAPH ?g { ?x ex:name ?n } } }`},
	// numbers
	{name: "promote-datatypes", query: `SELECT (DATATYPE(1 + 1.0) AS ?a) (DATATYPE("1"^^xsd:float + 1.0) AS ?b) (DATATYPE("1"^^xsd:float + 1e0) AS ?c) (DATATYPE(2 * "2"^^xsd:decimal) AS ?d) (DATATYPE(1 / 1) AS ?e) (DATATYPE("4"^^xsd:short / "2"^^xsd:byte) AS ?f) (DATATYPE("1"^^xsd:unsignedLong - 2) AS ?g) {}`},
	{name: "int-overflow-edges", query: `SELECT (-9223372036854775808 - 1 AS ?a) (9223372036854775807 + 1 - 1 AS ?b) (-(-9223372036854775808) AS ?c) {}`, skip: "limit-integer-digits"},
	{name: "div-zero-types", query: `SELECT (0 / 0.0 AS ?a) (1 / 0.0e0 AS ?b) ("1"^^xsd:float / 0 AS ?c) (-1 / "0"^^xsd:float AS ?d) (0.0 / 0 AS ?e) {}`},
	// dates with time zones
	{name: "date-local-parts", query: `SELECT (HOURS("2024-01-02T23:30:00-05:00"^^xsd:dateTime) AS ?a) (DAY("2024-01-31T23:30:00-05:00"^^xsd:dateTime) AS ?b) (MINUTES("2024-01-02T23:30:00+05:45"^^xsd:dateTime) AS ?c) (MONTH("2024-12-31T23:59:59-14:00"^^xsd:dateTime) AS ?d) {}`},
	{name: "date-equal-tz", query: `SELECT (xsd:dateTime("2024-01-02T03:04:05.123+01:00") = "2024-01-02T02:04:05.123Z"^^xsd:dateTime AS ?a) (sameTerm("2024-01-02T03:04:05+01:00"^^xsd:dateTime, "2024-01-02T02:04:05Z"^^xsd:dateTime) AS ?b) ("2024-01-02T00:00:00+14:00"^^xsd:dateTime < "2024-01-01T10:00:01Z"^^xsd:dateTime AS ?c) {}`},
	{name: "date-distinct-tz", query: `SELECT (COUNT(DISTINCT ?d) AS ?c) WHERE { VALUES ?d { "2024-01-02T03:04:05+01:00"^^xsd:dateTime "2024-01-02T02:04:05Z"^^xsd:dateTime } }`},
	{name: "date-subtract", query: `SELECT ("2024-01-02T00:00:00Z"^^xsd:dateTime - "2024-01-01T00:00:00Z"^^xsd:dateTime AS ?a) {}`, skip: "oxigraph-datetime-arithmetic"},
	{name: "date-order-tz", ordered: true, query: `SELECT ?d WHERE { VALUES ?d { "2024-01-02T03:00:00+01:00"^^xsd:dateTime "2024-01-02T02:30:00Z"^^xsd:dateTime "2024-01-02T01:00:00-02:00"^^xsd:dateTime } } ORDER BY ?d`},
	// ORDER BY over kinds: unbound < blank node < IRI < literal (§15.1)
	{name: "order-kinds-desc", ordered: true, query: `SELECT ?x WHERE { VALUES ?i { 1 2 3 4 5 } BIND(IF(?i = 1, BNODE(), IF(?i = 2, ex:a, IF(?i = 3, 7, IF(?i = 4, ex:B, ?u)))) AS ?x) } ORDER BY DESC(?x)`},
	{name: "order-kinds-asc", ordered: true, query: `SELECT ?x WHERE { VALUES ?x { ex:b 2 ex:a UNDEF 1 } } ORDER BY ?x`},
	{name: "order-data-kinds", ds: 4, ordered: true, query: `SELECT ?k WHERE { ?s ?p ?o BIND(IF(isBlank(?o), 1, IF(isIRI(?o), 2, 3)) AS ?k) } ORDER BY ?o`},
	// batch 15: the evaluator's shortcuts — left bindings injected into groups, filters cached per
	// term, scans that skip a group, hash tables filtered while built — on data with several values
	// per subject and per object
	{name: "inject-optional-right-only-var", ds: 5, query: `SELECT ?x ?a ?n WHERE { ?x ex:k ?a { ?x ex:t ?n OPTIONAL { ?x ex:m ?a } } }`},
	{name: "inject-minus-right-only-var", ds: 5, query: `SELECT ?x ?a ?n WHERE { ?x ex:k ?a { ?x ex:t ?n MINUS { ?x ex:m ?a } } }`},
	{name: "inject-filter-in-group", ds: 5, query: `SELECT ?x ?a WHERE { ?x ex:k ?a { ?x ex:t ?n FILTER(!BOUND(?a)) } }`},
	{name: "inject-bind-in-group", ds: 5, query: `SELECT ?x ?a ?z WHERE { ?x ex:k ?a { ?x ex:t ?n BIND(COALESCE(?a, "none") AS ?z) } }`},
	{name: "inject-optional-filter-outer-in-group", ds: 5, query: `SELECT ?x ?a ?b WHERE { ?x ex:k ?a { ?x ex:t ?n OPTIONAL { ?x ex:m ?b FILTER(?b > ?a) } } }`},
	{name: "inject-union-optional", ds: 5, query: `SELECT ?x ?a ?b WHERE { ?x ex:k ?a { { ?x ex:m ?b } UNION { ?x ex:t ?n OPTIONAL { ?x ex:m ?a } } } }`},
	{name: "inject-graph-optional", ds: 5, query: `SELECT ?x ?a ?n WHERE { ?x ex:k ?a GRAPH ?g { ?x ?p ?v OPTIONAL { ?x ex:m ?a } } }`},
	{name: "inject-values-in-group", ds: 5, query: `SELECT ?x ?a WHERE { ?x ex:k ?a { ?x ex:t ?n VALUES ?a { 1 UNDEF } } }`},
	{name: "inject-exists-in-optional", ds: 5, query: `SELECT ?x ?a ?b WHERE { ?x ex:k ?a OPTIONAL { ?x ex:m ?b FILTER EXISTS { ?x ex:k ?b } } }`},
	{name: "inject-not-exists-inner-var", ds: 5, query: `SELECT ?x ?a WHERE { ?x ex:k ?a { ?x ex:t ?n FILTER NOT EXISTS { ?x ex:m ?a } } }`, skip: "oxigraph-group-sees-outer"},
	{name: "inject-optional-nested-shared", ds: 5, query: `SELECT ?x ?a ?b WHERE { ?x ex:k ?a OPTIONAL { ?x ex:t ?n OPTIONAL { ?x ex:m ?a } ?x ex:m ?b } }`},
	{name: "inject-subquery-var", ds: 5, query: `SELECT ?x ?a ?c WHERE { ?x ex:k ?a { SELECT ?x (COUNT(?a) AS ?c) WHERE { ?x ex:m ?b OPTIONAL { ?x ex:k ?a FILTER(?a = ?b) } } GROUP BY ?x } }`},
	{name: "filter-cache-exists-two-vars", ds: 5, query: `SELECT ?x ?a WHERE { ?x ex:k ?a FILTER EXISTS { ?x ex:m ?b FILTER(?b = ?a) } }`},
	{name: "filter-cache-not-exists-other-var", ds: 5, query: `SELECT ?x ?a WHERE { ?x ex:k ?a FILTER NOT EXISTS { ?y ex:m ?a FILTER(?y != ?x) } }`},
	{name: "filter-cache-exists-one-var-plus-outer", ds: 5, query: `SELECT ?x ?a WHERE { ?x ex:k ?a FILTER EXISTS { ?x ex:m ?a } }`},
	{name: "filter-cache-bind", ds: 5, query: `SELECT ?x ?a ?c WHERE { ?x ex:k ?a BIND(?a + 1 AS ?c) FILTER(?c > 2) }`},
	{name: "filter-cache-object-many-subjects", ds: 5, query: `SELECT ?x ?a WHERE { ?x ex:k ?a FILTER(?a != 1) }`},
	{name: "filter-cache-error-term", ds: 5, query: `SELECT ?x ?a WHERE { ?x ex:k ?a FILTER(?a < 3 || ?a = "x") }`},
	{name: "filter-cache-subject", ds: 5, query: `SELECT ?x ?a WHERE { ?x ex:k ?a FILTER(?x != ex:x1) }`},
	{name: "filter-cache-join-object", ds: 5, query: `SELECT ?x ?y ?b WHERE { ?x ex:m ?b . ?y ex:k ?b FILTER(?b > 1) }`},
	{name: "filter-cache-in-optional", ds: 5, query: `SELECT ?x ?n ?a WHERE { ?x ex:t ?n OPTIONAL { ?x ex:k ?a FILTER(?a > 1) } }`},
	{name: "filter-cache-lang", ds: 5, query: `SELECT ?x ?n WHERE { ?x ex:t ?n FILTER(LANG(?n) = "") }`},
	{name: "filter-cache-sameterm-values", ds: 5, query: `SELECT ?x ?a WHERE { ?x ex:k ?a FILTER(?a IN (1.0, 2e0)) }`},
	{name: "filter-two-scans-same-object", ds: 5, query: `SELECT ?x ?y WHERE { ?x ex:k ?a . ?y ex:m ?a FILTER(?a = 2) }`},
	{name: "filter-or-two-vars", ds: 5, query: `SELECT ?x ?a ?n WHERE { ?x ex:k ?a ; ex:t ?n FILTER(?a = 1 || ?n = "c") }`},
	{name: "filter-union-branches", ds: 5, query: `SELECT ?x ?v WHERE { { ?x ex:k ?v } UNION { ?x ex:m ?v } FILTER(?v >= 2) }`},
	{name: "filter-graph-var", ds: 5, query: `SELECT ?x ?v ?g WHERE { GRAPH ?g { ?x ?p ?v } FILTER(?v > 1) }`},
	{name: "hash-filter-built", ds: 5, query: `SELECT ?x ?y WHERE { ?x ex:t "a" . ?y ex:k ?a . ?x ex:k ?a FILTER(?a > 1) }`},
	{name: "count-distinct-per-group", ds: 5, query: `SELECT ?x (COUNT(DISTINCT ?a) AS ?c) (COUNT(?a) AS ?d) (SUM(?a) AS ?s) WHERE { { ?x ex:k ?a } UNION { ?x ex:m ?a } } GROUP BY ?x`},
	{name: "count-from-graphs-union", ds: 5, query: `SELECT (COUNT(*) AS ?c) WHERE { { ?x ex:k ?a } UNION { GRAPH ?g { ?x ex:k ?a } } }`},
	{name: "group-by-two-order-agg", ds: 5, ordered: true, query: `SELECT ?x (MAX(?a) AS ?m) WHERE { ?x ex:k ?a FILTER(isNumeric(?a)) } GROUP BY ?x ORDER BY DESC(?m) ?x`},
	{name: "topk-desc-ties", ds: 5, query: `SELECT ?a WHERE { ?x ex:k ?a } ORDER BY DESC(?a) LIMIT 3`},
	{name: "topk-offset", ds: 5, ordered: true, query: `SELECT DISTINCT ?a WHERE { ?x ex:k ?a FILTER(isNumeric(?a)) } ORDER BY ?a OFFSET 1 LIMIT 1`},
	{name: "distinct-order-unprojected-key", ds: 5, ordered: true, query: `SELECT DISTINCT ?x WHERE { ?x ex:k ?a FILTER(isNumeric(?a)) } ORDER BY ?x`},
	{name: "optional-then-filter-both", ds: 5, query: `SELECT ?x ?a ?b WHERE { ?x ex:k ?a OPTIONAL { ?x ex:m ?b } FILTER(!BOUND(?b) || ?b > ?a) }`},
	{name: "optional-same-var-twice", ds: 5, query: `SELECT ?x ?a WHERE { ?x ex:t ?n OPTIONAL { ?x ex:k ?a } OPTIONAL { ?x ex:m ?a } }`},
	{name: "minus-then-optional", ds: 5, query: `SELECT ?x ?a ?b WHERE { ?x ex:k ?a MINUS { ?x ex:m ?a } OPTIONAL { ?x ex:m ?b } }`},
	{name: "exists-in-bind-per-row", ds: 5, query: `SELECT ?x ?a ?e WHERE { ?x ex:k ?a BIND(EXISTS { ?x ex:m ?a } AS ?e) }`},
	{name: "exists-in-having-grouped", ds: 5, query: `SELECT ?x (COUNT(*) AS ?c) WHERE { ?x ex:k ?a } GROUP BY ?x HAVING EXISTS { ?x ex:m ?b }`},
	{name: "exists-in-order-by", ds: 5, ordered: true, query: `SELECT ?x WHERE { ?x ex:t "a" } ORDER BY DESC(EXISTS { ?x ex:m ?b }) ?x`},
	// batch 16: the parser's corners (SPARQL 1.1 §19): escapes, prefixed names, literals, scoping
	{name: "parse-codepoint-escape-anywhere", query: `SELECT ?x WHERE { BIND("a\u0062" AS ?x) }`},
	{name: "parse-pname-dots", query: `SELECT (STR(ex:a.b) AS ?x) (STR(ex:a\~b) AS ?y) (STR(ex:%41) AS ?z) (STR(ex:1a) AS ?w) (STR(ex:) AS ?v) (STR(ex::x) AS ?u) {}`},
	{name: "parse-pname-trailing-dot", ds: 4, query: `SELECT ?o WHERE { ex:a ex:p ?o.}`},
	{name: "parse-dollar-var", query: `SELECT $x ?y WHERE { BIND(1 AS ?x) BIND($x + 1 AS $y) }`},
	{name: "parse-bool-case", query: `SELECT (TRUE AS ?x) {}`, skip: "oxigraph-boolean-keyword-case"},
	{name: "parse-long-strings", query: `SELECT ("""a"b""" AS ?x) ('''c'd''' AS ?y) ("""a""\\"""" AS ?z) ('x\tb' AS ?w) {}`},
	{name: "parse-decimal-no-fraction", query: `SELECT (1. AS ?x) {}`},
	{name: "parse-double-forms", query: `SELECT (1E3 AS ?a) (.5e-1 AS ?b) (1.e2 AS ?c) (DATATYPE(1E3) AS ?d) {}`, skip: "oxigraph-canonical-constants"},
	{name: "parse-iri-uchar", query: `SELECT (STR(<http://ex.org/\u0041>) AS ?x) {}`},
	{name: "parse-iri-relative-base", query: `BASE <http://ex.org/a/b> SELECT (STR(<../c>) AS ?x) (STR(<?q>) AS ?y) (STR(<#f>) AS ?z) (STR(<>) AS ?w) (STR(<//h/p>) AS ?v) {}`},
	{name: "parse-prefix-redefined", query: `PREFIX ex: <http://a/> PREFIX ex: <http://b/> SELECT (STR(ex:x) AS ?x) {}`},
	{name: "parse-bnode-proplist-subject", ds: 4, query: `SELECT ?o WHERE { [ ex:p ?o ] }`},
	{name: "parse-bnode-proplist-nested", ds: 4, query: `SELECT ?s WHERE { ?s ex:p [ ex:p [ ex:p ?s ] ] }`},
	{name: "parse-collection-pattern", ds: 4, query: `SELECT (COUNT(*) AS ?c) WHERE { ?s ex:list (1 ?x) }`},
	{name: "parse-object-list-path", ds: 4, query: `SELECT ?x ?y ?z WHERE { ?x ex:p/ex:p ?y, ?z ; ^ex:p ?y }`},
	{name: "parse-a-in-path", query: `SELECT * WHERE { ?x a/rdf:type ?y . ?x !(a|^a) ?z }`},
	{name: "parse-inverse-negated", ds: 4, query: `SELECT ?x ?y WHERE { ?x ^!ex:p ?y FILTER(isIRI(?y)) }`},
	{name: "parse-path-precedence", ds: 4, query: `SELECT ?y WHERE { ex:a ex:p/ex:p|ex:q ?y }`},
	{name: "parse-path-unary-precedence", ds: 4, query: `SELECT ?y WHERE { ex:a ^ex:p* ?y }`},
	{name: "parse-order-asc-space", query: `SELECT ?v WHERE { VALUES ?v { 2 1 } } ORDER BY ASC (?v)`},
	{name: "parse-order-by-call", ordered: true, query: `SELECT ?v WHERE { VALUES ?v { "bb" "a" } } ORDER BY STRLEN(?v)`},
	{name: "parse-order-by-brackettless-expr", query: `SELECT ?v WHERE { VALUES ?v { 2 1 } } ORDER BY ?v + 1`},
	{name: "parse-having-no-parens", query: `SELECT (COUNT(*) AS ?c) WHERE { VALUES ?v { 1 } } HAVING COUNT(*) > 0`},
	{name: "parse-group-by-call", query: `SELECT (COUNT(*) AS ?c) WHERE { VALUES ?v { "a" "bb" "cc" } } GROUP BY STRLEN(?v)`},
	{name: "parse-group-by-builtin-project", query: `SELECT ?l WHERE { VALUES ?v { "a" "bb" } } GROUP BY (STRLEN(?v) AS ?l)`},
	{name: "parse-limit-offset-order", query: `SELECT ?v WHERE { VALUES ?v { 1 2 3 } } ORDER BY ?v OFFSET 1 LIMIT 1`},
	{name: "parse-limit-twice", query: `SELECT ?v WHERE { VALUES ?v { 1 2 3 } } LIMIT 1 LIMIT 2`},
	{name: "parse-nested-aggregate", query: `SELECT (COUNT(COUNT(*)) AS ?c) WHERE { VALUES ?v { 1 } }`, skip: "unspecified-aggregate-placement"},
	{name: "parse-aggregate-in-group-by", query: `SELECT (COUNT(*) AS ?c) WHERE { VALUES ?v { 1 } } GROUP BY (COUNT(?v))`, skip: "unspecified-aggregate-placement"},
	{name: "parse-bind-after-subquery", query: `SELECT ?x WHERE { { SELECT (1 AS ?x) {} } BIND(2 AS ?x) }`},
	{name: "parse-bind-after-optional", query: `SELECT ?x WHERE { BIND(1 AS ?y) OPTIONAL { BIND(1 AS ?x) } BIND(2 AS ?x) }`},
	{name: "parse-bind-var-from-values", query: `SELECT ?x WHERE { VALUES ?x { 1 } BIND(2 AS ?x) }`},
	{name: "parse-bind-var-in-filter-only", query: `SELECT ?x WHERE { FILTER(?x != 3) BIND(2 AS ?x) }`},
	{name: "parse-select-expr-var-used-later", query: `SELECT (1 AS ?x) WHERE { BIND(2 AS ?x) }`},
	{name: "parse-subquery-projects-expr-in-scope", query: `SELECT * WHERE { { SELECT (1 AS ?x) WHERE { BIND(2 AS ?x) } } }`},
	{name: "parse-values-in-subselect-then-bind", query: `SELECT ?x ?y WHERE { { SELECT ?x WHERE { VALUES ?x { 1 } } } BIND(?x + 1 AS ?y) }`},
	{name: "parse-count-star-distinct-spaces", query: `SELECT (COUNT( DISTINCT * ) AS ?c) WHERE { VALUES ?v { 1 1 } }`},
	{name: "parse-group-concat-separator-case", query: `SELECT (GROUP_CONCAT(?v ; SEPARATOR = "-") AS ?c) WHERE { VALUES ?v { "a" } }`},
	{name: "parse-values-lang-typed", query: `SELECT ?v WHERE { VALUES ?v { "a"@en-US "1"^^xsd:int ex:x 'b' -1 +2.5 } }`, skip: "oxigraph-canonical-constants"},
	{name: "parse-blank-node-in-values", query: `SELECT ?v WHERE { VALUES ?v { _:b } }`},
	{name: "parse-empty-group-dots", query: `SELECT * WHERE { ?s ?p ?o . . }`},
	{name: "parse-filter-between-dots", ds: 4, query: `SELECT ?o WHERE { ex:a ex:p ?o . FILTER(isIRI(?o)) . ?o ex:p ?z . }`},
	{name: "parse-optional-dot", ds: 4, query: `SELECT ?o ?z WHERE { ex:a ex:p ?o OPTIONAL { ?o ex:q ?z } . }`},
	{name: "parse-exists-keyword-case", ds: 4, query: `SELECT ?o WHERE { ex:a ex:p ?o FILTER not exists { ?o ex:q ?z } }`},
	{name: "parse-in-empty-not", query: `SELECT (1 NOT IN () AS ?a) (?u IN () AS ?b) {}`},
	{name: "parse-unary-chain", query: `SELECT (- -1 AS ?a) (!!true AS ?b) (-(+1) AS ?c) (1 - -1 AS ?d) {}`},
	{name: "parse-comparison-chain", query: `SELECT (1 < 2 = true AS ?a) {}`},
	{name: "parse-negative-literal-subtraction", query: `SELECT (3-1 AS ?a) (3 -1 AS ?b) (?v-1 AS ?c) WHERE { BIND(5 AS ?v) }`},
	{name: "parse-iri-function-names", query: `SELECT (<http://www.w3.org/2001/XMLSchema#integer>("5") AS ?a) (xsd:string(1) AS ?b) {}`},
	{name: "parse-unknown-function", query: `SELECT (ex:f(1) AS ?a) {}`},
	{name: "parse-describe-star", ds: 4, query: `DESCRIBE * WHERE { ?x ex:name "Bob" }`},
	{name: "parse-construct-where-filter", ds: 4, query: `CONSTRUCT WHERE { ?s ex:name ?n FILTER(true) }`},
	{name: "parse-construct-where-path", ds: 4, query: `CONSTRUCT WHERE { ?s ex:p/ex:p ?n }`},
	{name: "parse-construct-template-path", ds: 4, query: `CONSTRUCT { ?s ex:p/ex:p ?n } WHERE { ?s ex:p ?n }`},
	{name: "parse-construct-template-dots", ds: 4, query: `CONSTRUCT { ?s ex:r ?o . . } WHERE { ?s ex:p ?o }`},
	{name: "parse-ask-solution-modifier-order", query: `ASK { VALUES ?v { 1 } } ORDER BY ?v`},
	{name: "parse-select-distinct-reduced", query: `SELECT DISTINCT REDUCED ?v WHERE { VALUES ?v { 1 } }`},
	{name: "parse-select-no-vars", query: `SELECT WHERE { }`},
	{name: "parse-trailing-garbage", query: `SELECT * WHERE { } }`},
	{name: "parse-service-var", query: `SELECT * WHERE { SERVICE ?s { ?a ?b ?c } }`},
	// batch 17: datasets (FROM, FROM NAMED) under paths, subqueries, EXISTS, CONSTRUCT and DESCRIBE
	{name: "ds-path-across-from-graphs", ds: 4, query: `SELECT ?y FROM ex:g1 FROM ex:g2 WHERE { ex:b (ex:q/ex:p)+ ?y }`},
	{name: "ds-path-both-dirs-from", ds: 4, query: `SELECT ?x ?y FROM ex:g1 WHERE { ?x (ex:p|^ex:q)* ?y }`},
	{name: "ds-subquery-inherits-from", ds: 4, query: `SELECT ?c FROM ex:g1 WHERE { { SELECT (COUNT(*) AS ?c) WHERE { ?s ?p ?o } } }`},
	{name: "ds-subquery-in-graph-from-named", ds: 4, query: `SELECT ?g ?s FROM NAMED ex:g2 WHERE { GRAPH ?g { { SELECT ?s WHERE { ?s ex:p ?o } ORDER BY ?s LIMIT 1 } } }`, skip: "oxigraph-graph-subquery"},
	{name: "ds-exists-graph-from-named", ds: 4, query: `SELECT ?s WHERE { ?s ex:p ?o FILTER NOT EXISTS { GRAPH ?g { ?s ex:p ?o } } }`},
	{name: "ds-exists-graph-restricted", ds: 4, query: `SELECT ?s FROM ex:g1 FROM NAMED ex:g1 WHERE { ?s ?p ?o FILTER EXISTS { GRAPH ?g { ?s ?p ?o } } }`},
	{name: "ds-exists-inside-graph", ds: 4, query: `SELECT ?g ?s WHERE { GRAPH ?g { ?s ex:p ?o FILTER EXISTS { ?o ex:q ?z } } }`},
	{name: "ds-exists-inside-graph-default", ds: 4, query: `SELECT ?g ?s WHERE { GRAPH ?g { ?s ex:p ?o FILTER NOT EXISTS { ?o ex:name ?n } } }`},
	{name: "ds-from-named-only-graph-var-values", ds: 4, query: `SELECT ?g ?s FROM NAMED ex:g1 WHERE { VALUES ?g { ex:g1 ex:g2 } GRAPH ?g { ?s ?p ?o } }`},
	{name: "ds-graph-iri-not-in-from-named", ds: 4, query: `SELECT ?s FROM NAMED ex:g1 WHERE { GRAPH ex:g2 { ?s ?p ?o } }`},
	{name: "ds-graph-optional-graph-var", ds: 4, query: `SELECT ?s ?g WHERE { ?s ex:name ?n OPTIONAL { GRAPH ?g { ?s ?p ?o } } }`},
	{name: "ds-union-default-and-graph", ds: 4, query: `SELECT ?s ?g WHERE { { ?s ex:p ?o } UNION { GRAPH ?g { ?s ex:p ?o } } }`},
	{name: "ds-group-by-graph-path", ds: 4, query: `SELECT ?g (COUNT(*) AS ?c) WHERE { GRAPH ?g { ?x ex:p* ?y } } GROUP BY ?g`},
	{name: "ds-minus-graph", ds: 4, query: `SELECT ?s ?o WHERE { ?s ex:p ?o MINUS { GRAPH ?g { ?s ex:p ?o } } }`},
	{name: "ds-construct-graph-var", ds: 4, query: `CONSTRUCT { ?s ex:in ?g } WHERE { GRAPH ?g { ?s ?p ?o } }`},
	{name: "ds-construct-from-named", ds: 4, query: `CONSTRUCT { ?s ex:in ?g } FROM NAMED ex:g1 WHERE { GRAPH ?g { ?s ?p ?o } }`},
	{name: "ds-construct-distinct-order-limit", ds: 4, query: `CONSTRUCT { ?s ex:has ?p } WHERE { SELECT DISTINCT ?s ?p WHERE { ?s ?p ?o FILTER(isIRI(?s)) } ORDER BY ?s ?p LIMIT 3 }`},
	{name: "ds-describe-two", ds: 4, query: `DESCRIBE ex:a ex:b`},
	{name: "ds-describe-literal-var", ds: 4, query: `DESCRIBE ?n WHERE { ex:a ex:name ?n }`},
	{name: "ds-describe-from", ds: 4, query: `DESCRIBE ex:d FROM ex:g2`},
	{name: "ds-describe-bnode-var", ds: 4, query: `DESCRIBE ?b WHERE { ex:d ex:r ?b }`},
	{name: "ds-describe-absent", ds: 4, query: `DESCRIBE ex:zz`},
	{name: "ds-ask-from-named", ds: 4, query: `ASK FROM NAMED ex:g1 { GRAPH ?g { ?x ex:p ?x } }`},
	{name: "ds-ask-graph-default-bnode", ds: 4, query: `ASK { GRAPH ex:g2 { [] ex:p ex:a } }`},
	{name: "ds-bnode-query-var-path", ds: 4, query: `SELECT ?y WHERE { _:a ex:r/ex:w ?y }`},
	{name: "ds-bnode-query-var-star", ds: 4, query: `SELECT (COUNT(*) AS ?c) WHERE { _:a ex:w* _:b }`},
	{name: "ds-all-pairs-cycle", ds: 4, query: `SELECT (COUNT(*) AS ?c) (COUNT(DISTINCT ?x) AS ?d) WHERE { ?x (ex:p|^ex:p)* ?y }`},
	{name: "ds-path-bound-end-zero-graph-var", ds: 4, query: `SELECT ?g WHERE { GRAPH ?g { ex:d ex:p* ex:d } }`, skip: "oxigraph-zero-length-absent-term"},
	{name: "ds-path-plus-graph-var-bound-ends", ds: 4, query: `SELECT ?g WHERE { GRAPH ?g { ex:a ex:p+ ex:b } }`},
	{name: "ds-nps-graph-var", ds: 4, query: `SELECT ?g ?x ?y WHERE { GRAPH ?g { ?x !(ex:name|ex:q) ?y } }`},
	{name: "ds-seq-inverse-same-var", ds: 4, query: `SELECT ?x WHERE { ?x ex:p/^ex:p ?x }`},
	{name: "ds-opt-path-filter-unbound", ds: 4, query: `SELECT ?x ?z WHERE { ?x ex:name ?n OPTIONAL { ?x ex:p+ ?z FILTER(?z != ?x) } }`},
	// batch 18: escapes and code points at the edges of Unicode, numbers at the edges of their types
	{name: "lex-surrogate-escape", query: `SELECT ("\uD800" AS ?x) {}`},
	{name: "lex-surrogate-pair-escapes", query: `SELECT ("\uD83D\uDE00" AS ?x) {}`},
	{name: "lex-max-code-point", query: `SELECT (STRLEN("\U0010FFFF") AS ?x) {}`},
	{name: "lex-beyond-unicode", query: `SELECT ("\U00110000" AS ?x) {}`},
	{name: "lex-nul-escape", query: `SELECT (STRLEN("a\u0000b") AS ?x) (ENCODE_FOR_URI("\u0000") AS ?y) {}`},
	{name: "lex-escape-in-iri", query: `SELECT (STR(<http://ex.org/a\u0020b>) AS ?x) {}`},
	{name: "lex-escape-in-pname", query: `SELECT (STR(ex:a\u0062) AS ?x) {}`},
	{name: "lex-escape-in-var", query: `SELECT ?a\u0062 WHERE { BIND(1 AS ?ab) }`},
	{name: "lex-string-escapes", query: `SELECT ("\b\f\r\n\t\"\'\\" AS ?x) (STRLEN("\b\f\r\n\t\"\'\\") AS ?l) {}`},
	{name: "lex-bad-string-escape", query: `SELECT ("\a" AS ?x) {}`},
	{name: "lex-newline-in-short-string", query: "SELECT (\"a\nb\" AS ?x) {}"},
	{name: "lex-comment-in-string", query: `SELECT ("a # b" AS ?x) {} # trailing`},
	{name: "lex-iri-with-space", query: `SELECT (STR(<http://ex.org/a b>) AS ?x) {}`},
	{name: "lex-iri-with-braces", query: `SELECT (STR(<http://ex.org/{a}>) AS ?x) {}`},
	{name: "lex-var-unicode", query: `SELECT ?é ?_x ?x·y WHERE { BIND(1 AS ?é) BIND(2 AS ?_x) BIND(3 AS ?x·y) }`},
	{name: "lex-var-leading-digit", query: `SELECT ?1a WHERE { BIND(1 AS ?1a) }`},
	{name: "lex-pname-unicode", query: `PREFIX é: <http://ex.org/é/> SELECT (STR(é:ü) AS ?x) {}`},
	{name: "lex-lang-tag-forms", query: `SELECT ("a"@en-US-x-private AS ?x) (LANG("a"@zh-Hant-TW) AS ?y) {}`, skip: "oxigraph-canonical-constants"},
	{name: "lex-lang-tag-digits", query: `SELECT ("a"@1en AS ?x) {}`},
	// numbers at the edges
	{name: "num-long-decimal-literal", numeric: true, query: `SELECT (0.000000000000000001 * 1000000000000000000 AS ?x) (DATATYPE(0.000000000000000001) AS ?t) {}`},
	{name: "num-double-edges", numeric: true, query: `SELECT (1.7976931348623157e308 * 1 AS ?a) (2.2250738585072014e-308 / 2 AS ?b) (-0e0 * 1 AS ?c) (1e308 + 1e308 AS ?d) {}`},
	{name: "num-float-arith-type", query: `SELECT (DATATYPE("1.5"^^xsd:float * "2"^^xsd:float) AS ?a) (DATATYPE("1.5"^^xsd:float * 2) AS ?b) (DATATYPE("1.5"^^xsd:float * 2.0) AS ?c) (DATATYPE("1.5"^^xsd:float * 2e0) AS ?d) {}`},
	{name: "num-integer-div-types", query: `SELECT (DATATYPE(4 / 2) AS ?a) (4 / 2 = 2 AS ?b) (DATATYPE("4"^^xsd:long / "2"^^xsd:long) AS ?c) (DATATYPE(4 / 2e0) AS ?d) {}`},
	{name: "num-unary-minus-types", query: `SELECT (DATATYPE(-"1"^^xsd:unsignedInt) AS ?a) (DATATYPE(-"1"^^xsd:positiveInteger) AS ?b) (-"1"^^xsd:positiveInteger AS ?c) {}`},
	{name: "num-compare-across-types", query: `SELECT ("1"^^xsd:float = 1 AS ?a) ("0.1"^^xsd:float < 0.1 AS ?b) ("1"^^xsd:byte = "1"^^xsd:long AS ?c) ("1"^^xsd:unsignedByte < 2.5 AS ?d) {}`},
	{name: "num-sum-mixed-types", numeric: true, query: `SELECT (SUM(?v) AS ?s) (DATATYPE(SUM(?v)) AS ?t) WHERE { VALUES ?v { "1"^^xsd:byte "2"^^xsd:short 3 } }`},
	{name: "num-avg-decimal-type", numeric: true, query: `SELECT (AVG(?v) AS ?a) (DATATYPE(AVG(?v)) AS ?t) WHERE { VALUES ?v { 1 2.5 } }`},
	{name: "num-min-max-mixed-numeric", query: `SELECT (MIN(?v) AS ?mi) (MAX(?v) AS ?ma) WHERE { VALUES ?v { 1 1.0 "1"^^xsd:double 0.5 } }`, skip: "unspecified-min-max-ties"},
	{name: "num-round-types", numeric: true, query: `SELECT (ROUND("2.5"^^xsd:float) AS ?a) (DATATYPE(ROUND(2.5)) AS ?b) (CEIL(-0.5) AS ?c) (FLOOR("-0.5"^^xsd:decimal) AS ?d) (ROUND(-0.4) AS ?e) {}`},
	{name: "num-abs-min-long", query: `SELECT (ABS(-9223372036854775808) AS ?a) (-9223372036854775807 - 1 AS ?b) {}`, skip: "limit-integer-digits"},
	{name: "num-cast-decimal-from-double", numeric: true, query: `SELECT (xsd:decimal(0.1e0) AS ?a) (xsd:decimal("1e-5"^^xsd:double) AS ?b) (xsd:decimal("NaN"^^xsd:double) AS ?c) (xsd:decimal("INF"^^xsd:double) AS ?d) {}`},
	{name: "num-cast-integer-edges", query: `SELECT (xsd:integer("9223372036854775807") AS ?a) (xsd:integer(" -0 ") AS ?b) (xsd:integer("1_000") AS ?c) (xsd:integer("١٢") AS ?d) (xsd:integer("+") AS ?e) {}`, skip: "oxigraph-cast-whitespace"},
	{name: "num-cast-float-string", numeric: true, query: `SELECT (xsd:float("1.5") AS ?a) (xsd:float("-0") AS ?b) (xsd:float("1e") AS ?c) (xsd:double(".e1") AS ?d) (xsd:double("+INF") AS ?e) {}`},
	{name: "num-cast-boolean-double", numeric: true, query: `SELECT (xsd:boolean("0.0"^^xsd:double) AS ?a) (xsd:boolean("-0"^^xsd:float) AS ?b) (xsd:double(true) AS ?c) (xsd:float(false) AS ?d) (xsd:decimal(true) AS ?e) {}`},
	{name: "num-strings-numeric-compare", query: `SELECT ("1"^^xsd:integer = "1.0"^^xsd:decimal AS ?a) ("INF"^^xsd:float = "INF"^^xsd:double AS ?b) ("-INF"^^xsd:double < -1e308 AS ?c) {}`},
	// dates: parts, equality and order around time zones
	{name: "date-parts-negative-tz", query: `SELECT (DAY("2024-03-01T01:00:00+14:00"^^xsd:dateTime) AS ?a) (HOURS("2024-03-01T01:00:00+14:00"^^xsd:dateTime) AS ?b) (TZ("2024-03-01T01:00:00+14:00"^^xsd:dateTime) AS ?c) (TIMEZONE("2024-03-01T01:00:00-14:00"^^xsd:dateTime) AS ?d) {}`},
	{name: "date-leap-second-like", query: `SELECT (xsd:dateTime("2024-06-30T23:59:60Z") AS ?a) ("2024-06-30T23:59:60Z"^^xsd:dateTime < "2024-07-01T00:00:00Z"^^xsd:dateTime AS ?b) {}`},
	{name: "date-fraction-compare", query: `SELECT ("2024-01-01T00:00:00.5Z"^^xsd:dateTime > "2024-01-01T00:00:00.49999Z"^^xsd:dateTime AS ?a) ("2024-01-01T00:00:00.50Z"^^xsd:dateTime = "2024-01-01T00:00:00.5Z"^^xsd:dateTime AS ?b) {}`},
	{name: "date-tz-equal-across-midnight", query: `SELECT ("2024-01-01T23:00:00-02:00"^^xsd:dateTime = "2024-01-02T01:00:00Z"^^xsd:dateTime AS ?a) ("2024-01-01T23:00:00-02:00"^^xsd:dateTime > "2024-01-02T00:59:59Z"^^xsd:dateTime AS ?b) {}`},
	{name: "date-min-max-tz", query: `SELECT (MIN(?d) AS ?mi) (MAX(?d) AS ?ma) WHERE { VALUES ?d { "2024-01-01T23:00:00-02:00"^^xsd:dateTime "2024-01-02T00:30:00Z"^^xsd:dateTime "2024-01-02T03:00:00+05:00"^^xsd:dateTime } }`},
	{name: "date-group-by-instant", query: `SELECT (COUNT(*) AS ?c) WHERE { VALUES ?d { "2024-01-01T23:00:00-02:00"^^xsd:dateTime "2024-01-02T01:00:00Z"^^xsd:dateTime } } GROUP BY ?d`},
	{name: "date-year-boundaries", query: `SELECT (YEAR("9999-12-31T23:59:59Z"^^xsd:dateTime) AS ?a) (YEAR("10000-01-01T00:00:00Z"^^xsd:dateTime) AS ?b) (MONTH("-0001-02-29T00:00:00Z"^^xsd:dateTime) AS ?c) {}`},
	{name: "date-invalid-lexical", query: `SELECT (YEAR("2024-02-30T00:00:00Z"^^xsd:dateTime) AS ?a) (HOURS("2024-01-01T25:00:00Z"^^xsd:dateTime) AS ?b) (TZ("2024-01-01T00:00:00+15:00"^^xsd:dateTime) AS ?c) (DAY("2024-1-01T00:00:00Z"^^xsd:dateTime) AS ?d) {}`},
	// batch 19: grouping and aggregates over data
	{name: "agg-key-times-count", ds: 5, query: `SELECT ?a (?a * COUNT(*) AS ?x) WHERE { ?s ex:k ?a FILTER(isNumeric(?a)) } GROUP BY ?a`},
	{name: "agg-order-unprojected-limit", ds: 5, ordered: true, query: `SELECT ?s WHERE { ?s ex:k ?a } GROUP BY ?s ORDER BY DESC(COUNT(*)) ?s LIMIT 2`},
	{name: "agg-count-distinct-expr", ds: 5, query: `SELECT (COUNT(DISTINCT STR(?a)) AS ?c) (SUM(DISTINCT ?a * 0) AS ?z) (COUNT(DISTINCT ?a) AS ?d) WHERE { ?s ex:k ?a FILTER(isNumeric(?a)) }`},
	{name: "agg-group-concat-quote-sep", ds: 5, query: `SELECT ?s (GROUP_CONCAT(?n; separator='"') AS ?g) WHERE { ?s ex:t ?n FILTER(?s != ex:x1) } GROUP BY ?s`},
	{name: "agg-group-concat-distinct-one-group", ds: 5, query: `SELECT (GROUP_CONCAT(DISTINCT ?n; SEPARATOR="") AS ?g) WHERE { ?s ex:t ?n FILTER(?n = "a") }`},
	{name: "agg-having-group-alias", query: `SELECT ?k (COUNT(*) AS ?c) WHERE { VALUES ?v { 1 22 33 4 } } GROUP BY (STR(?v) AS ?k) HAVING (STRLEN(?k) > 1)`},
	{name: "agg-having-agg-not-projected", ds: 5, query: `SELECT ?s WHERE { ?s ex:k ?a } GROUP BY ?s HAVING (MAX(?a) > 2 && MIN(?a) < 5)`},
	{name: "agg-group-by-unbound-all", ds: 5, query: `SELECT (COUNT(*) AS ?c) WHERE { ?s ex:k ?a } GROUP BY ?zz`},
	{name: "agg-group-by-bnode", ds: 4, query: `SELECT (COUNT(*) AS ?c) WHERE { ?s ?p ?o FILTER(isBlank(?s)) } GROUP BY ?s`},
	{name: "agg-nested-subqueries", ds: 5, query: `SELECT (MAX(?c) AS ?m) WHERE { { SELECT ?s (COUNT(*) AS ?c) WHERE { { SELECT ?s ?a WHERE { ?s ex:k ?a } } } GROUP BY ?s } }`},
	{name: "agg-count-optional-unbound", ds: 5, query: `SELECT ?s (COUNT(?b) AS ?c) WHERE { ?s ex:t ?n OPTIONAL { ?s ex:m ?b } } GROUP BY ?s`},
	{name: "agg-sum-strings", ds: 5, query: `SELECT ?s (SUM(?a) AS ?sum) WHERE { ?s ex:k ?a FILTER(?s = ex:x4) } GROUP BY ?s`},
	{name: "agg-avg-per-group", ds: 5, numeric: true, query: `SELECT ?s (AVG(?a) AS ?avg) WHERE { ?s ex:k ?a FILTER(isNumeric(?a)) } GROUP BY ?s`},
	{name: "agg-group-two-keys-data", ds: 5, query: `SELECT ?s ?a (COUNT(*) AS ?c) WHERE { { ?s ex:k ?a } UNION { ?s ex:m ?a } } GROUP BY ?s ?a`},
	{name: "agg-select-key-expr-of-keys", query: `SELECT ((?a + ?b) AS ?s) (COUNT(*) AS ?c) WHERE { VALUES (?a ?b) { (1 2) (1 2) (2 1) } } GROUP BY ?a ?b`},
	{name: "agg-group-by-expr-no-alias-project-error", query: `SELECT (STR(?v) AS ?k) WHERE { VALUES ?v { 1 } } GROUP BY STR(?v)`},
	{name: "agg-distinct-on-aggregates", query: `SELECT DISTINCT (COUNT(*) AS ?c) WHERE { VALUES (?k ?v) { (1 1) (2 2) (3 3) (3 4) } } GROUP BY ?k`},
	{name: "agg-subquery-limit-offset-no-order", ds: 5, query: `SELECT (COUNT(*) AS ?n) WHERE { { SELECT ?s WHERE { ?s ex:k ?a } LIMIT 3 OFFSET 2 } }`},
	{name: "agg-subquery-order-by-agg-limit", ds: 5, query: `SELECT ?s ?c WHERE { { SELECT ?s (COUNT(*) AS ?c) WHERE { ?s ex:k ?a } GROUP BY ?s ORDER BY DESC(?c) ?s LIMIT 1 OFFSET 1 } }`},
	{name: "agg-sample-group-key-equal", ds: 5, query: `SELECT ?s (SAMPLE(?s) AS ?t) WHERE { ?s ex:k ?a } GROUP BY ?s`},
	{name: "agg-sample-one-distinct-value", query: `SELECT ?k (SAMPLE(?v) AS ?s) WHERE { VALUES (?k ?v) { (1 "x") (1 "x") (2 UNDEF) } } GROUP BY ?k`},
	{name: "agg-min-max-bnodes-iris", ds: 4, query: `SELECT (MIN(?s) AS ?mi) (MAX(?s) AS ?ma) WHERE { ?s ?p ?o FILTER(!isBlank(?s)) }`},
	{name: "agg-count-star-vs-var-graphs", ds: 5, query: `SELECT ?g (COUNT(*) AS ?c) (COUNT(?a) AS ?d) WHERE { GRAPH ?g { ?s ?p ?a } } GROUP BY ?g`},
	{name: "agg-having-only-constant", query: `SELECT (COUNT(*) AS ?c) WHERE { VALUES ?v { 1 2 } } HAVING (true)`},
	{name: "agg-having-error-all", query: `SELECT (COUNT(*) AS ?c) WHERE { VALUES ?v { 1 2 } } HAVING (1/0)`},
	{name: "agg-group-concat-numbers-lang-mix", query: `SELECT (GROUP_CONCAT(?v; separator="|") AS ?g) WHERE { VALUES ?v { "a"@en } }`, skip: "oxigraph-group-concat-lang"},
	// batch 20: joins, filters, groups and paths over the large dataset, where the planner chooses
	// hash joins and the scans skip groups
	{name: "large-join-two-vars", ds: 6, query: `SELECT ?x ?y ?a WHERE { ?x ex:link ?y . ?y ex:k ?a . ?x ex:k ?a }`},
	{name: "large-join-chain-count", ds: 6, query: `SELECT (COUNT(*) AS ?c) WHERE { ?x ex:link ?y . ?y ex:link ?z . ?z ex:k 3 }`},
	{name: "large-join-chain-distinct", ds: 6, query: `SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x ex:link ?y . ?y ex:link ?z . ?z ex:t "a"@en }`},
	{name: "large-filter-optional", ds: 6, query: `SELECT ?x ?a ?t WHERE { ?x ex:k ?a FILTER(?a > 7) OPTIONAL { ?x ex:t ?t FILTER(LANG(?t) = "en") } }`},
	{name: "large-filter-or-vars", ds: 6, query: `SELECT ?x ?y WHERE { ?x ex:link ?y . ?x ex:k ?a . ?y ex:k ?b FILTER(?a = ?b + 1 || ?a * ?b = 12) }`},
	{name: "large-minus", ds: 6, query: `SELECT ?x WHERE { ?x ex:t "a" MINUS { ?x ex:k 0 } }`},
	{name: "large-not-exists-link", ds: 6, query: `SELECT ?x WHERE { ?x ex:k 9 FILTER NOT EXISTS { ?x ex:link ?y . ?y ex:k 9 } }`},
	{name: "large-exists-per-value", ds: 6, query: `SELECT ?x ?a WHERE { ?x ex:k ?a FILTER EXISTS { ?x ex:link ?y . ?y ex:k ?a } }`},
	{name: "large-group-having", ds: 6, query: `SELECT ?a (COUNT(DISTINCT ?x) AS ?c) (COUNT(*) AS ?n) WHERE { ?x ex:k ?a . ?x ex:link ?y } GROUP BY ?a HAVING (COUNT(*) > 10)`},
	{name: "large-group-concat-len", ds: 6, query: `SELECT ?t (STRLEN(GROUP_CONCAT(?t; separator="")) AS ?l) WHERE { ?x ex:t ?t } GROUP BY ?t`},
	{name: "large-order-limit-total", ds: 6, ordered: true, query: `SELECT ?x ?a WHERE { ?x ex:k ?a } ORDER BY DESC(?a) ?x LIMIT 7 OFFSET 3`},
	{name: "large-order-by-count", ds: 6, ordered: true, query: `SELECT ?y (COUNT(*) AS ?c) WHERE { ?x ex:link ?y } GROUP BY ?y ORDER BY DESC(?c) ?y LIMIT 5`},
	{name: "large-path-plus-from-one", ds: 6, query: `SELECT (COUNT(*) AS ?c) WHERE { ex:n0 ex:link+ ?y }`},
	{name: "large-path-star-inverse", ds: 6, query: `SELECT (COUNT(*) AS ?c) WHERE { ex:n7 ^ex:link* ?y }`},
	{name: "large-path-cycle-two", ds: 6, query: `SELECT ?x WHERE { ?x ex:link/ex:link ?x }`},
	{name: "large-path-seq-count", ds: 6, query: `SELECT (COUNT(*) AS ?c) WHERE { ?x ex:link/ex:link/ex:k ?a }`},
	{name: "large-path-plus-bound-both", ds: 6, query: `SELECT ?x WHERE { VALUES ?x { ex:n1 ex:n2 ex:n3 ex:n399 } ?x ex:link+ ex:n5 }`},
	{name: "large-graph-join", ds: 6, query: `SELECT ?g (COUNT(*) AS ?c) WHERE { GRAPH ?g { ?x ex:link ?y } ?y ex:k ?a } GROUP BY ?g`},
	{name: "large-graph-optional-default", ds: 6, query: `SELECT (COUNT(*) AS ?c) (COUNT(?g) AS ?d) WHERE { ?x ex:link ?y OPTIONAL { GRAPH ?g { ?x ex:link ?y } } }`},
	{name: "large-values-join", ds: 6, query: `SELECT ?x ?t WHERE { VALUES (?a ?t) { (1 "a") (2 "b") (3 UNDEF) } ?x ex:k ?a ; ex:t ?t }`},
	{name: "large-union-distinct", ds: 6, query: `SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { { ?x ex:k 1 } UNION { ?x ex:t "b" } UNION { ?y ex:link ?x } }`},
	{name: "large-subquery-join", ds: 6, query: `SELECT ?x ?c WHERE { ?x ex:t "c" { SELECT ?x (COUNT(?y) AS ?c) WHERE { ?x ex:link ?y } GROUP BY ?x } }`},
	{name: "large-optional-chain", ds: 6, query: `SELECT (COUNT(*) AS ?c) (COUNT(?z) AS ?d) WHERE { ?x ex:t "d" OPTIONAL { ?x ex:link ?y OPTIONAL { ?y ex:link ?z FILTER(?z != ?x) } } }`},
	{name: "large-bind-join", ds: 6, query: `SELECT (COUNT(*) AS ?c) WHERE { ?x ex:k ?a BIND(?a + 1 AS ?b) ?y ex:k ?b . ?x ex:link ?y }`},
	{name: "large-filter-in-values", ds: 6, query: `SELECT (COUNT(*) AS ?c) WHERE { ?x ex:k ?a ; ex:t ?t FILTER(?a IN (1, 3.0, 5e0) && ?t NOT IN ("a", "b"@en)) }`},
	{name: "large-construct", ds: 6, query: `CONSTRUCT { ?y ex:from ?x } WHERE { ?x ex:link ?y . ?x ex:k 4 }`},
	{name: "large-ask", ds: 6, query: `ASK { ?x ex:link ?x }`},
	// batch 21: multi-character escapes inside character classes (XML Schema Part 2 §F.1.1)
	{name: "regex-class-multichar-escapes", query: `SELECT (REGEX("a.b-c", "^[\\w.-]+$") AS ?a) (REGEX("a b", "^[\\w]+$") AS ?b) (REGEX("x,y", "^[\\S]+$") AS ?c) (REGEX("x y", "^[\\S]+$") AS ?d) (REPLACE("a,b;c", "[\\w,]", "x") AS ?e) (REGEX("A", "^[\\wa]$", "i") AS ?f) (REGEX("x y", "^[\\S ]+$") AS ?g) {}`},
	{name: "regex-negated-class-multichar-escapes", query: `SELECT (REPLACE("a, b; c!", "[^\\w\\s]", "") AS ?a) (REGEX(".", "^[^\\w\\s]$") AS ?b) (REGEX(" ", "^[^\\S]$") AS ?c) (REGEX("B", "^[^\\Wb]$", "i") AS ?d) (REGEX("B", "^[^\\Wb]$") AS ?e) {}`},
	{name: "regex-class-subtraction", query: `SELECT (REGEX("b", "^[a-z-[aeiou]]$") AS ?a) (REGEX("a", "^[a-z-[aeiou]]$") AS ?b) (REGEX("1", "^[\\w-[\\d]]$") AS ?c) (REPLACE("banana", "[a-z-[n]]", "_") AS ?d) {}`, skip: "oxigraph-regex-class-subtraction"},
	{name: "regex-x-flag-everywhere", query: `SELECT (REGEX("aaa", "^a{2, 3}$", "x") AS ?a) (REGEX("A", "^\\p{ Lu }$", "x") AS ?b) (REGEX("ab", "^( ?: a ) b$", "x") AS ?d) (REPLACE("a b c", "b \\s c", "x", "x") AS ?e) {}`},
	{name: "regex-x-flag-escape-space", query: `SELECT (REGEX("1", "^\\ d$", "x") AS ?c) {}`, skip: "oxigraph-regex-x-escaped-space"},
	{name: "regex-xpath-escape-errors", query: `SELECT (REGEX("a", "\\p{IsNoSuchBlock}") AS ?a) (REGEX("aa", "(a\\1)") AS ?b) (REGEX("a1", "(a)[\\1]") AS ?c) (REGEX("aa", "(a)\\2") AS ?d) (REGEX("aa", "\\1(a)") AS ?e) {}`},
	{name: "regex-backreference", query: `SELECT (REGEX("abab", "^(ab)\\1$") AS ?a) (REGEX("abac", "^(ab)\\1$") AS ?b) (REGEX("b", "^(a)?b\\1$") AS ?c) (REPLACE("aabbc", "(.)\\1", "$1") AS ?d) {}`, skip: "oxigraph-regex-xpath-escapes"},
	{name: "regex-xml-name-escapes", query: `SELECT (REGEX("x:a-1", "^\\i\\c*$") AS ?a) (REGEX("1a", "^\\i") AS ?b) (REGEX(" ", "^\\C$") AS ?c) (REGEX("-", "^[\\c-[\\i]]$") AS ?d) {}`, skip: "oxigraph-regex-xpath-escapes"},
	{name: "regex-block-escapes", query: `SELECT (REGEX("\u0374", "^\\p{IsGreek}$") AS ?a) (REGEX("a", "^\\p{IsBasicLatin}$") AS ?b) (REGEX("é", "^\\P{IsBasicLatin}$") AS ?c) {}`, skip: "oxigraph-regex-xpath-escapes"},
	{name: "regex-class-w-xsd", query: `SELECT (REGEX("+", "^[\\w]$") AS ?a) (REGEX("_", "^[\\w]$") AS ?b) {}`, skip: "oxigraph-regex-classes"},
	// batch: operators bind their variables in the row they are given and unbind them before they
	// return (BGPs, paths, GRAPH ?g); after an EXISTS, an OPTIONAL or an early stop the row is as it was
	{name: "rowreuse-exists-graph-then-optional-graph", ds: 3, query: `SELECT ?x ?y ?g WHERE { { ?x ex:p ?y FILTER EXISTS { GRAPH ?g { ?x ex:p ?z OPTIONAL { ?z ex:p ?w } } } } OPTIONAL { GRAPH ?g { ?y ex:p ?x } } }`},
	{name: "rowreuse-not-exists-graph-path-optional", ds: 4, query: `SELECT ?x ?y WHERE { ?x ex:p|ex:q ?y FILTER NOT EXISTS { GRAPH ?g { ?x ex:p+ ?y OPTIONAL { ?y ex:q ?v } } } }`},
	{name: "rowreuse-path-then-bgp-same-vars", ds: 3, query: `SELECT ?x ?y WHERE { ?x ex:p+ ?y . ?y ex:q ?x }`},
	{name: "rowreuse-path-same-var-then-bgp", ds: 3, query: `SELECT ?x ?y WHERE { ?x ex:p* ?x . ?x ex:q ?y }`},
	{name: "rowreuse-graph-path-same-var", ds: 3, query: `SELECT ?g ?x WHERE { GRAPH ?g { ?x ex:p+ ?x } }`},
	{name: "rowreuse-graph-var-bound-by-values", ds: 3, query: `SELECT ?g ?x ?y WHERE { VALUES ?g { ex:g1 ex:g3 ex:a } GRAPH ?g { ?x ex:p ?y } }`},
	{name: "rowreuse-graph-var-twice", ds: 3, query: `SELECT ?g ?x ?y ?z WHERE { GRAPH ?g { ?x ex:p ?y } GRAPH ?g { ?y ex:p ?z } }`},
	{name: "rowreuse-subselect-subset-of-graph", ds: 3, query: `SELECT ?x ?y ?g WHERE { ?x ex:p ?y { SELECT ?x WHERE { GRAPH ?g { ?x ex:p ?y } } } }`},
	{name: "rowreuse-minus-graph-shared", ds: 3, query: `SELECT ?x ?y WHERE { ?x ex:p ?y MINUS { GRAPH ?g { ?x ex:p ?y } } }`},
	{name: "rowreuse-minus-graph-unshared", ds: 3, query: `SELECT ?x ?y WHERE { ?x ex:p ?y MINUS { GRAPH ?g { ?a ex:q ?b } } }`},
	{name: "rowreuse-bind-after-exists-graph", ds: 3, query: `SELECT ?x ?y ?k WHERE { ?x ex:p ?y FILTER EXISTS { GRAPH ?g { ?x ex:p ?z } } BIND(COALESCE(?g, ?z, "unbound") AS ?k) }`},
	{name: "rowreuse-values-after-exists-graph", ds: 3, query: `SELECT ?x ?y ?g WHERE { { ?x ex:p ?y FILTER EXISTS { GRAPH ?g { ?y ex:p* ?z } } } VALUES ?g { ex:g2 UNDEF } }`},
	{name: "rowreuse-exists-outer-var-in-optional", ds: 3, query: `SELECT ?x ?y ?z WHERE { ?x ex:p ?y OPTIONAL { ?y ex:p ?z FILTER EXISTS { GRAPH ?g { ?x ex:p ?z } } } }`},
	{name: "rowreuse-group-over-optional-graph-path", ds: 3, query: `SELECT ?x (COUNT(?g) AS ?n) (COUNT(*) AS ?c) WHERE { ?x ex:p ?y OPTIONAL { GRAPH ?g { ?x ex:p* ?y } } } GROUP BY ?x`},
	{name: "rowreuse-ask-after-early-exists", ds: 3, query: `ASK { ?x ex:p ?y FILTER EXISTS { GRAPH ?g { ?y ex:p+ ?w } } FILTER(!BOUND(?g) && !BOUND(?w)) }`},
	{name: "rowreuse-optional-after-exists-path", ds: 3, query: `SELECT ?x ?y ?w WHERE { { ?x ex:p ?y FILTER EXISTS { ?y ex:p* ?w } } OPTIONAL { ?x ex:q ?w } }`},
	{name: "rowreuse-exists-limit-subselect", ds: 3, query: `SELECT ?x ?y ?bz WHERE { ?x ex:p ?y FILTER EXISTS { SELECT ?y ?z WHERE { GRAPH ?g { ?y ex:p ?z } } LIMIT 1 } BIND(BOUND(?z) || BOUND(?g) AS ?bz) }`},
	{name: "rowreuse-path-both-ends-bound", ds: 3, query: `SELECT ?x ?y WHERE { VALUES (?x ?y) { (ex:a ex:a) (ex:a ex:c) (ex:x ex:x) (ex:b ex:a) } ?x ex:p* ?y }`},
	{name: "rowreuse-nested-exists-graph-outer-bound", ds: 4, query: `SELECT ?g ?x ?y WHERE { GRAPH ?g { ?x ex:p ?y } FILTER EXISTS { ?x ex:p ?y FILTER NOT EXISTS { GRAPH ?g { ?y ex:p ?x } } } }`},
	{name: "rowreuse-path-after-early-exists-path", ds: 4, query: `SELECT ?x ?y ?z WHERE { { ?x ex:p ?y FILTER EXISTS { ?y ex:p+ ?z } } ?y ex:p* ?z }`},
	{name: "rowreuse-exists-graph-then-subselect-g1", ds: 2, query: `ASK { FILTER EXISTS { GRAPH ?g { ?s ex:p ?o } { SELECT ?g WHERE { VALUES ?g { ex:g1 } } } } }`},
	{name: "rowreuse-exists-graph-then-subselect-g2", ds: 2, query: `ASK { FILTER EXISTS { GRAPH ?g { ?s ex:p ?o } { SELECT ?g WHERE { VALUES ?g { ex:g2 } } } } }`},
	{name: "rowreuse-exists-bgp-then-subselect", ds: 4, query: `SELECT ?x WHERE { ?x ex:name ?n FILTER EXISTS { ?x ex:p ?y { SELECT ?y WHERE { VALUES ?y { ex:b ex:d } } } } }`},
	{name: "rowreuse-count-limit-over-graph-path", ds: 4, query: `SELECT (COUNT(*) AS ?c) WHERE { { SELECT ?x WHERE { GRAPH ?g { ?x ex:p* ?y } } LIMIT 1 } }`},
}

func TestDifferential_OxigraphCases(t *testing.T) {
	names := map[string]bool{}
	for _, hc := range handCases {
		if names[hc.name] {
			t.Fatalf("two cases are named %s", hc.name)
		}
		names[hc.name] = true
		if hc.skip != "" && handSkips[hc.skip] == "" {
			t.Fatalf("case %s: skip %q has no reason in handSkips", hc.name, hc.skip)
		}
	}
	runHandCases(t, eval.OwnDefaultGraph, handDatasets)
}

// TestDifferential_OxigraphCasesUnion runs the hand cases with our default
// default graph, the union of the dataset's graphs (eval.UnionGraph: their
// RDF merge, GRAPH still ranging over the named graphs), and Oxigraph over
// the same dataset with every triple of a named graph also in its default
// graph, which is that merge.
func TestDifferential_OxigraphCasesUnion(t *testing.T) {
	merged := make([]string, len(handDatasets))
	for i, data := range handDatasets {
		merged[i] = mergedDefault(t, data)
	}
	runHandCases(t, eval.UnionGraph, merged)
}

// runHandCases runs the hand cases with our engine over handDatasets with
// default graph dg, in memory and in a store, and with Oxigraph over
// theirData (its own default graph).
func runHandCases(t *testing.T, dg string, theirData []string) {
	dir := oxigraphTool(t)
	cases := make([]sparqlCase, len(handCases))
	for i, hc := range handCases {
		cases[i] = sparqlCase{id: i, ds: hc.ds, data: theirData[hc.ds], query: diffQuery{text: handPrologue + hc.query}}
	}
	// runOxigraph loads a dataset when ds changes from one case to the next.
	runOxigraph(t, dir, cases)
	ctx := context.Background()
	stores := caseStores(t)
	for i := range cases {
		c, hc := &cases[i], handCases[i]
		t.Run(hc.name, func(t *testing.T) {
			qs, err := rdfio.ReadAll(strings.NewReader(handDatasets[hc.ds]), rdfio.NQuads, rdfio.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			mem := eval.NewMemDataset(qs...)
			c.ours, c.oursErr = runOursWith(ctx, c.query.text, dg, func(text string, opts sparql.Options) (*sparql.Result, error) {
				return sparql.Query(ctx, mem, text, opts)
			})
			if !nondeterministic.MatchString(hc.query) {
				checkStoreAgrees(t, ctx, stores[hc.ds], c, dg, hc.ordered)
			}
			if c.ours != nil {
				checkRoundTrip(t, c.ours)
			}
			same := false
			switch {
			case c.oursErr != nil || c.theirs == nil:
				same = c.oursErr != nil && c.theirs == nil
			default:
				same = results.Equivalent(c.ours, c.theirs, hc.ordered)
				if !same && hc.numeric && c.ours.Boolean == nil {
					kinds := map[string]colKind{}
					for _, v := range c.ours.Vars {
						kinds[v] = colNumeric
					}
					same = results.Equivalent(normalizeResult(c.ours, kinds), normalizeResult(c.theirs, kinds), hc.ordered)
				}
			}
			if same {
				if hc.skip != "" && dg == eval.OwnDefaultGraph {
					t.Errorf("skip %q is no longer needed", hc.skip)
				}
				return
			}
			if hc.skip != "" {
				t.Skipf("%s: %s", hc.skip, handSkips[hc.skip])
			}
			t.Error(describeSparqlCase(c, "differ"))
		})
	}
}

// nondeterministic finds the queries whose answer changes from one run to
// the next (beyond the labels of blank nodes).
var nondeterministic = regexp.MustCompile(`RAND\(|UUID\(|NOW\(`)

// caseStores returns a namespace of a Cortex store for each hand dataset,
// holding its quads.
func caseStores(t *testing.T) []*cortex.Namespace {
	t.Helper()
	store := cortextest.NewStore(t)
	out := make([]*cortex.Namespace, len(handDatasets))
	for i, data := range handDatasets {
		qs, err := rdfio.ReadAll(strings.NewReader(data), rdfio.NQuads, rdfio.DecodeOptions{})
		if err != nil {
			t.Fatalf("dataset %d: %v", i, err)
		}
		ns, err := store.Namespace(context.Background(), fmt.Sprintf("ds%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ns.Import(context.Background(), &cortextest.SliceSource{Quads: qs}, cortex.ImportOptions{}); err != nil {
			t.Fatalf("dataset %d: %v", i, err)
		}
		out[i] = ns
	}
	return out
}

// checkStoreAgrees runs the case's query over a Cortex store holding its
// dataset and requires the answer our engine gave over the in-memory
// dataset: the store's scans, term ids and statistics are its own.
func checkStoreAgrees(t *testing.T, ctx context.Context, ns *cortex.Namespace, c *sparqlCase, dg string, ordered bool) {
	t.Helper()
	got, err := runOursWith(ctx, c.query.text, dg, func(text string, opts sparql.Options) (*sparql.Result, error) {
		return ns.Query(ctx, text, opts)
	})
	switch {
	case err != nil || c.oursErr != nil:
		if (err == nil) != (c.oursErr == nil) {
			t.Errorf("store and memory differ: store error %v, memory error %v", err, c.oursErr)
		}
	case !results.Equivalent(got, c.ours, ordered):
		t.Errorf("store and memory results differ\nstore: %s\nmemory: %s", showResult(got), showResult(c.ours))
	}
}

// checkRoundTrip writes r in each result format that can be read back and
// requires the same result from reading it (the XML writer may refuse a
// term that XML 1.0 cannot carry).
func checkRoundTrip(t *testing.T, r *results.Result) {
	t.Helper()
	for _, name := range []string{"json", "xml", "tsv"} {
		f, err := results.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		var buf strings.Builder
		if err := f.WriteResult(&buf, r); err != nil {
			if name == "xml" && errors.Is(err, results.ErrInvalidTerm) {
				continue
			}
			t.Errorf("write %s: %v", name, err)
			continue
		}
		back, err := f.Read(strings.NewReader(buf.String()))
		if err != nil {
			t.Errorf("read back %s: %v\n%s", name, err, buf.String())
			continue
		}
		if !results.Equivalent(back, r, true) {
			t.Errorf("%s round trip changed the result\nwritten: %s\nread back: %s\n%s", name, showResult(r), showResult(back), buf.String())
		}
	}
}
