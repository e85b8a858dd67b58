package teammanager_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/teammanager"
)

// running creates team id with the given members, all running.
func (f *fixture) running(t testing.TB, id string, agents ...string) {
	t.Helper()
	f.create(t, teammanager.TeamConfig{ID: id, Name: id, Members: members(agents...)})
	for _, a := range agents {
		f.status(t, id, a, teammanager.Running, "")
	}
}

// stored returns the findings of agent in team with their ids, keyed by id.
func (f *fixture) stored(t testing.TB, team, agent string) map[string]teammanager.StoredFinding {
	t.Helper()
	fs, err := f.m.Findings(ctx, team, teammanager.FindingFilter{Agent: agent})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]teammanager.StoredFinding{}
	for _, sf := range fs {
		out[sf.ID] = sf
	}
	return out
}

// content is a finding without its id and author, for comparisons.
func content(sf teammanager.StoredFinding) string {
	return fmt.Sprintf("%s %s %s conf=%v at=%s", rdfio.FormatTerm(sf.Subject), rdfio.FormatTerm(sf.Predicate),
		rdfio.FormatTerm(sf.Object), sf.Confidence, sf.AssertedAt.Format(time.RFC3339Nano))
}

func contents(m map[string]teammanager.StoredFinding) []string {
	var out []string
	for _, sf := range m {
		out = append(out, content(sf))
	}
	slices.Sort(out)
	return out
}

func TestManager_AddFindings(t *testing.T) {
	f := newFixture(t)
	f.running(t, "t", "a")
	at := time.Date(2026, 1, 2, 15, 4, 5, 123456789, time.FixedZone("x", 3600))
	in := []teammanager.Finding{
		{Subject: iri("s1"), Predicate: iri("p"), Object: quad.String("one"), Confidence: 0.25, AssertedAt: at},
		{Subject: iri("s2"), Predicate: iri("p"), Object: quad.LangString{Value: "deux", Lang: "fr"}}, // now, unspecified
		{Subject: quad.BNode("b"), Predicate: iri("p"), Object: quad.Int(3), Confidence: 1},
		{Subject: iri("s1"), Predicate: iri("p"), Object: quad.String("one"), Confidence: 0.25, AssertedAt: at}, // again
	}
	ids, err := f.m.AddFindings(ctx, "t", "a", in)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != len(in) || ids[0] != ids[3] || len(slices.Compact(slices.Sorted(slices.Values(ids)))) != 3 {
		t.Fatalf("ids %q: want one per finding, the repeated finding with the same id", ids)
	}
	got := f.stored(t, "t", "a")
	if len(got) != 3 {
		t.Fatalf("%d findings stored, want 3: %v", len(got), contents(got))
	}
	for i, want := range []struct {
		conf float64
		at   time.Time
	}{{0.25, at.UTC()}, {0, f.clock.Now()}, {1, f.clock.Now()}} {
		sf, ok := got[ids[i]]
		if !ok {
			t.Fatalf("finding %d: id %s not stored", i, ids[i])
		}
		if sf.Confidence != want.conf || !sf.AssertedAt.Equal(want.at) || sf.Predicate != in[i].Predicate {
			t.Fatalf("finding %d stored as %s, want confidence %v at %s", i, content(sf), want.conf, want.at)
		}
	}
	// AddFinding is AddFindings of one: same id for the same finding.
	id, err := f.m.AddFinding(ctx, "t", "a", in[0])
	if err != nil || id != ids[0] {
		t.Fatalf("AddFinding = %s, %v; want %s", id, err, ids[0])
	}
	// An empty batch writes nothing but checks the member.
	if ids, err := f.m.AddFindings(ctx, "t", "a", nil); err != nil || len(ids) != 0 {
		t.Fatalf("empty batch: %v, %v", ids, err)
	}
	if _, err := f.m.AddFindings(ctx, "t", "zed", nil); !errors.Is(err, teammanager.ErrUnknownAgent) {
		t.Fatalf("empty batch of a non-member: %v", err)
	}
}

// TestManager_AddFindings_Atomic checks that one bad finding among 1,000, or
// a refused member, writes none of them.
func TestManager_AddFindings_Atomic(t *testing.T) {
	f := newFixture(t)
	f.running(t, "t", "a", "b")
	batch := make([]teammanager.Finding, 1000)
	for i := range batch {
		batch[i] = teammanager.Finding{Subject: iri(fmt.Sprint("s", i)), Predicate: iri("p"), Object: quad.Int(i), Confidence: 0.5}
	}
	for _, tc := range []struct {
		name string
		bad  teammanager.Finding
		msg  string
	}{
		{"literal subject", teammanager.Finding{Subject: quad.String("s"), Predicate: iri("p"), Object: iri("o")}, "subject"},
		{"confidence", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: iri("o"), Confidence: 1.5}, "confidence 1.5"},
		{"confidence NaN", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: iri("o"), Confidence: math.NaN()}, "confidence NaN not in [0, 1]"},
		{"confidence +Inf", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: iri("o"), Confidence: math.Inf(1)}, "confidence +Inf not in [0, 1]"},
		{"confidence -Inf", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: iri("o"), Confidence: math.Inf(-1)}, "confidence -Inf not in [0, 1]"},
		// RFC 3339, in which findings are stored and listed, has years
		// 0000-9999 only: such a finding could not be read back.
		{"year 10000", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: iri("o"), AssertedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
			"assertedAt 10000-01-01T00:00:00Z: year 10000 of UTC not in 0000-9999"},
		{"year 10000 in UTC", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: iri("o"), AssertedAt: time.Date(9999, 12, 31, 23, 0, 0, 0, time.FixedZone("", -5*3600))},
			"year 10000 of UTC"},
		{"year -1", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: iri("o"), AssertedAt: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}, "year -1 of UTC"},
		{"no object", teammanager.Finding{Subject: iri("s"), Predicate: iri("p")}, "object"},
		{"finding node", teammanager.Finding{Subject: f.ns.Finding("t", "f1"), Predicate: iri("p"), Object: iri("o")}, "finding node"},
		{"invalid UTF-8", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("a\xffb")}, "not valid UTF-8"},
		{"bad language tag", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.LangString{Value: "x", Lang: "en US"}}, "bad language tag"},
		{"relative datatype", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.TypedString{Value: "x", Type: "t"}}, "datatype"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := slices.Clone(batch)
			fs[637] = tc.bad
			ids, err := f.m.AddFindings(ctx, "t", "a", fs)
			// Positions count from 1, as ImportFindings counts them.
			if !errors.Is(err, teammanager.ErrInvalidFinding) || !strings.Contains(err.Error(), "finding 638 of 1000:") || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want ErrInvalidFinding naming finding 638 of 1000 and %q", err, tc.msg)
			}
			if ids != nil {
				t.Fatalf("ids %d returned with an error", len(ids))
			}
			if got := f.stored(t, "t", "a"); len(got) != 0 {
				t.Fatalf("%d findings written", len(got))
			}
			if qs := f.graph(t, f.ns.MemberGraph("t", "a")); len(qs) != 0 {
				t.Fatalf("%d quads written to the member's graph", len(qs))
			}
		})
	}
	f.status(t, "t", "b", teammanager.Completed, "")
	if _, err := f.m.AddFindings(ctx, "t", "b", batch); !errors.Is(err, teammanager.ErrMemberFinished) {
		t.Fatalf("batch of a finished member: %v", err)
	}
	if got := f.stored(t, "t", "b"); len(got) != 0 {
		t.Fatalf("finished member: %d findings written", len(got))
	}
	ids, err := f.m.AddFindings(ctx, "t", "a", batch)
	if err != nil || len(ids) != len(batch) {
		t.Fatalf("good batch: %d ids, %v", len(ids), err)
	}
	if got := f.stored(t, "t", "a"); len(got) != len(batch) {
		t.Fatalf("good batch: %d findings stored", len(got))
	}
}

// TestManager_AddFindings_Concurrent has several agents add batches at the
// same time (run with -race): every batch is stored whole, with the ids
// returned.
func TestManager_AddFindings_Concurrent(t *testing.T) {
	f := newFixture(t)
	agents := []string{"a", "b", "c", "d"}
	f.running(t, "t", agents...)
	const batches, per = 6, 25
	ids := make([][]string, len(agents)*batches)
	var wg sync.WaitGroup
	errs := make(chan error, len(ids))
	for ai, a := range agents {
		for bi := range batches {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fs := make([]teammanager.Finding, per)
				for i := range fs {
					fs[i] = teammanager.Finding{Subject: iri(fmt.Sprintf("%s-%d-%d", a, bi, i)), Predicate: iri("p"), Object: quad.Int(i),
						Confidence: float64(i+1) / per}
				}
				got, err := f.m.AddFindings(ctx, "t", a, fs)
				if err != nil {
					errs <- err
					return
				}
				ids[ai*batches+bi] = got
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for ai, a := range agents {
		got := f.stored(t, "t", a)
		if len(got) != batches*per {
			t.Fatalf("%s: %d findings, want %d", a, len(got), batches*per)
		}
		for bi := range batches {
			for i, id := range ids[ai*batches+bi] {
				sf, ok := got[id]
				if !ok || sf.Subject != iri(fmt.Sprintf("%s-%d-%d", a, bi, i)) || sf.Confidence != float64(i+1)/per {
					t.Fatalf("%s batch %d finding %d: id %s stored as %+v", a, bi, i, id, sf)
				}
			}
		}
	}
}

// listJSON is a finding as `cortexctl findings list --json` writes it.
type listJSON struct {
	ID         string    `json:"id"`
	Agent      string    `json:"agent"`
	Subject    string    `json:"subject"`
	Predicate  string    `json:"predicate"`
	Object     string    `json:"object"`
	Confidence float64   `json:"confidence"`
	AssertedAt time.Time `json:"assertedAt"`
}

func TestManager_ImportFindings_JSON(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithPrefixes(map[string]string{"ex": "http://example.org/"}))
	f.running(t, "t", "a", "b", "c")
	at := time.Date(2026, 1, 2, 15, 4, 5, 500000000, time.UTC)
	lines := `{"subject": "<http://example.org/pool.go>", "predicate": "rdfs:comment", "object": "\"leaks on cancel\"", "confidence": 0.8, "assertedAt": "2026-01-02T15:04:05.5Z"}
{"subject": "ex:pool.go", "predicate": "ex:severity", "object": "\"high\"@en"}

{"subject": "_:x", "predicate": "cx:finding:note", "object": "\"3\"^^<http://www.w3.org/2001/XMLSchema#integer>", "confidence": 0}
`
	n, err := f.m.ImportFindings(ctx, "t", "a", strings.NewReader(lines), teammanager.FindingsJSON)
	if err != nil || n != 3 {
		t.Fatalf("JSON Lines: %d, %v", n, err)
	}
	got := f.stored(t, "t", "a")
	want := []string{
		`<http://example.org/pool.go> <http://example.org/severity> "high"@en conf=0 at=` + f.clock.Now().Format(time.RFC3339Nano),
		`<http://example.org/pool.go> <http://www.w3.org/2000/01/rdf-schema#comment> "leaks on cancel" conf=0.8 at=` + at.Format(time.RFC3339Nano),
	}
	var blank []teammanager.StoredFinding
	var rest []string
	for _, sf := range got {
		if _, ok := sf.Subject.(quad.BNode); ok {
			blank = append(blank, sf)
			continue
		}
		rest = append(rest, content(sf))
	}
	slices.Sort(rest)
	if !slices.Equal(rest, want) {
		t.Fatalf("stored\n%q\nwant\n%q", rest, want)
	}
	if len(blank) != 1 || blank[0].Predicate != f.ns.IRI("finding:note") || blank[0].Object != (quad.TypedString{Value: "3", Type: "http://www.w3.org/2001/XMLSchema#integer"}) {
		t.Fatalf("blank-node finding: %+v", blank)
	}

	// Round trip: the listing, as the CLI writes it (a JSON array), imports
	// back into another member with the same terms, confidences and times.
	var list []listJSON
	for _, sf := range got {
		list = append(list, listJSON{ID: sf.ID, Agent: sf.Agent, Subject: rdfio.FormatTerm(sf.Subject), Predicate: rdfio.FormatTerm(sf.Predicate),
			Object: rdfio.FormatTerm(sf.Object), Confidence: sf.Confidence, AssertedAt: sf.AssertedAt})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(list); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Minute) // imported times must come from the input, not the clock
	if n, err := f.m.ImportFindings(ctx, "t", "b", &buf, teammanager.FindingsJSON); err != nil || n != 3 {
		t.Fatalf("array: %d, %v", n, err)
	}
	back := f.stored(t, "t", "b")
	// Blank nodes are scoped to one import: compare them without labels.
	strip := func(m map[string]teammanager.StoredFinding) []string {
		var out []string
		for _, sf := range m {
			if _, ok := sf.Subject.(quad.BNode); ok {
				sf.Subject = quad.BNode("_")
			}
			out = append(out, content(sf))
		}
		slices.Sort(out)
		return out
	}
	if a, b := strip(got), strip(back); !slices.Equal(a, b) {
		t.Fatalf("round trip:\n%q\nwas\n%q", b, a)
	}
}

// TestManager_ImportFindings_JSON_TimesKept: an assertedAt given is kept,
// however early or late RFC 3339 lets it be; only an absent one (or "")
// means now.
func TestManager_ImportFindings_JSON_TimesKept(t *testing.T) {
	f := newFixture(t)
	f.running(t, "t", "a")
	var in strings.Builder
	times := []string{"0001-01-01T00:00:00.000000001Z", "0001-01-01T00:00:01+00:00", "0000-06-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z"}
	var want []string
	for i, at := range times {
		fmt.Fprintf(&in, `{"subject": "<http://example.org/s>", "predicate": "<http://example.org/p>", "object": "\"%d\"", "assertedAt": %q}`+"\n", i, at)
		tm, err := time.Parse(time.RFC3339Nano, at)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf(`<http://example.org/s> <http://example.org/p> "%d" conf=0 at=%s`, i, tm.UTC().Format(time.RFC3339Nano)))
	}
	in.WriteString(`{"subject": "<http://example.org/s>", "predicate": "<http://example.org/p>", "object": "\"now\"", "assertedAt": ""}` + "\n")
	want = append(want, `<http://example.org/s> <http://example.org/p> "now" conf=0 at=`+f.clock.Now().UTC().Format(time.RFC3339Nano))
	if n, err := f.m.ImportFindings(ctx, "t", "a", strings.NewReader(in.String()), teammanager.FindingsJSON); err != nil || n != len(want) {
		t.Fatalf("import: %d, %v", n, err)
	}
	got := contents(f.stored(t, "t", "a"))
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("stored\n%q\nwant\n%q", got, want)
	}
}

func TestManager_ImportFindings_JSON_Errors(t *testing.T) {
	f := newFixture(t)
	f.running(t, "t", "a")
	good := `{"subject": "<http://example.org/s>", "predicate": "<http://example.org/p>", "object": "\"o\""}` + "\n"
	for _, tc := range []struct {
		name, in string
		want     error
		msg      string
	}{
		{"unknown field", good + `{"subject": "<http://example.org/s>", "predicate": "<http://example.org/p>", "object": "\"o\"", "why": "x"}`, teammanager.ErrInvalidFinding, `record 2 (line 2): unknown field "why"`},
		{"field in another case", good + `{"Subject": "<http://example.org/s>", "predicate": "<http://example.org/p>", "object": "\"o\""}`, teammanager.ErrInvalidFinding,
			`record 2 (line 2): unknown field "Subject" (field names are case-sensitive; did you mean "subject"?)`},
		{"field in another case, in an array", `[` + good + `,` + "\n" + `{"subject": "<http://example.org/s>", "predicate": "<http://example.org/p>", "object": "\"o\"", "assertedat": "2026-01-02T15:04:05Z"}]`, teammanager.ErrInvalidFinding,
			`record 2 (line 3): unknown field "assertedat" (field names are case-sensitive; did you mean "assertedAt"?)`},
		{"field given twice", `{"subject": "<http://example.org/s>", "predicate": "<http://example.org/p>", "object": "\"o\"", "object": "\"p\""}`, teammanager.ErrInvalidFinding,
			`record 1 (line 1): duplicate key "object"`},
		{"ignored field given twice", good + `{"id": "a", "subject": "<http://example.org/s>", "predicate": "<http://example.org/p>", "object": "\"o\"", "id": "b"}`, teammanager.ErrInvalidFinding,
			`record 2 (line 2): duplicate key "id"`},
		{"bare word", good + good + `{"subject": "<http://example.org/s>", "predicate": "<http://example.org/p>", "object": "leaks"}`, teammanager.ErrInvalidFinding, `record 3 (line 3): invalid finding: object: "leaks" is neither`},
		{"unknown prefix", `[` + good + `,` + "\n" + `{"subject": "zz:s", "predicate": "<http://example.org/p>", "object": "\"o\""}]`, teammanager.ErrInvalidFinding, `record 2 (line 3): invalid finding: subject: "zz:s": unknown prefix "zz"`},
		{"bad term", `{"subject": "<http://example.org/s", "predicate": "<http://example.org/p>", "object": "\"o\""}`, rdfio.ErrSyntax, "record 1 (line 1)"},
		{"missing object", `{"subject": "<http://example.org/s>", "predicate": "<http://example.org/p>"}`, teammanager.ErrInvalidFinding, "no object"},
		{"bad time", `{"subject": "<http://example.org/s>", "predicate": "<http://example.org/p>", "object": "\"o\"", "assertedAt": "yesterday"}`, teammanager.ErrInvalidFinding, "RFC 3339"},
		// The zero time cannot be stored (a zero AssertedAt means now): a
		// time given is refused, never replaced.
		{"zero time", `{"subject": "<http://example.org/s>", "predicate": "<http://example.org/p>", "object": "\"o\"", "assertedAt": "0001-01-01T00:00:00Z"}`, teammanager.ErrInvalidFinding,
			`record 1 (line 1): invalid finding: assertedAt "0001-01-01T00:00:00Z" is the zero time, which a finding cannot have (no assertedAt means now)`},
		{"zero time, written otherwise", good + `{"subject": "<http://example.org/s>", "predicate": "<http://example.org/p>", "object": "\"o\"", "assertedAt": "0001-01-01T01:00:00.000+01:00"}`, teammanager.ErrInvalidFinding,
			`assertedAt "0001-01-01T01:00:00.000+01:00" is the zero time`},
		{"year 10000 in UTC", `{"subject": "<http://example.org/s>", "predicate": "<http://example.org/p>", "object": "\"o\"", "assertedAt": "9999-12-31T23:00:00-05:00"}`, teammanager.ErrInvalidFinding, "year 10000 of UTC not in 0000-9999"},
		{"confidence", good + `{"subject": "<http://example.org/s>", "predicate": "<http://example.org/p>", "object": "\"o\"", "confidence": 1.2}`, teammanager.ErrInvalidFinding, "finding 2 of 2 ("},
		{"literal subject", `{"subject": "\"s\"", "predicate": "<http://example.org/p>", "object": "\"o\""}`, teammanager.ErrInvalidFinding, "finding 1 of 1 ("},
		{"malformed json", good + `{"subject": `, teammanager.ErrInvalidFinding, "record 2 (line 2)"},
		{"after the array", `[` + good + `] {}`, teammanager.ErrInvalidFinding, "after the array"},
		// encoding/json would read the byte as U+FFFD, and the finding
		// would say what it was not sent.
		{"not UTF-8", good + "{\"subject\": \"<http://example.org/s>\", \"predicate\": \"<http://example.org/p>\", \"object\": \"\\\"caf\xe9\\\"\"}", teammanager.ErrInvalidFinding,
			"line 2, column 94: not valid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := f.m.ImportFindings(ctx, "t", "a", strings.NewReader(tc.in), teammanager.FindingsJSON)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) || n != 0 {
				t.Fatalf("n = %d, err = %v; want %v mentioning %q", n, err, tc.want, tc.msg)
			}
			if got := f.stored(t, "t", "a"); len(got) != 0 {
				t.Fatalf("%d findings written", len(got))
			}
		})
	}
}

// TestManager_ImportFindings_JSON_ByteOrderMark: a file that starts with a
// UTF-8 byte order mark (Windows editors write one) imports, as the RDF
// formats, definitions and the config file do; the record's line and
// column stay those of the file. A mark anywhere else is refused.
func TestManager_ImportFindings_JSON_ByteOrderMark(t *testing.T) {
	f := newFixture(t)
	f.running(t, "t", "a")
	good := `{"subject": "<http://example.org/s>", "predicate": "<http://example.org/p>", "object": "\"o\""}`
	for _, in := range []string{"\ufeff" + good + "\n", "\ufeff[" + good + "]"} {
		if n, err := f.m.ImportFindings(ctx, "t", "a", strings.NewReader(in), teammanager.FindingsJSON); err != nil || n != 1 {
			t.Fatalf("%q: %d, %v", in, n, err)
		}
	}
	for _, tc := range []struct{ in, msg string }{
		{"\ufeff" + `{"subject": 1}`, "record 1 (line 1)"},
		{good + "\n\ufeff" + good, "record 2 (line 2)"},
	} {
		n, err := f.m.ImportFindings(ctx, "t", "a", strings.NewReader(tc.in), teammanager.FindingsJSON)
		if !errors.Is(err, teammanager.ErrInvalidFinding) || !strings.Contains(err.Error(), tc.msg) || n != 0 {
			t.Fatalf("%q: n = %d, err = %v; want ErrInvalidFinding mentioning %q", tc.in, n, err, tc.msg)
		}
	}
	if got := f.stored(t, "t", "a"); len(got) != 1 {
		t.Fatalf("%d findings stored, want 1 (both imports hold the same finding)", len(got))
	}
}

// TestManager_ImportFindings_Described checks that finding descriptions in
// RDF carry their confidence and time, and that a member's findings graph,
// exported, imports back losslessly.
func TestManager_ImportFindings_Described(t *testing.T) {
	f := newFixture(t)
	f.running(t, "t", "a", "b", "c")
	ttl := `@prefix cx: <urn:cortex:acme:> .
@prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:pool.go ex:severity "high" .
[] a cx:Finding ; rdf:subject ex:pool.go ; rdf:predicate ex:severity ; rdf:object "high" ;
   cx:finding:confidence 0.75 ; cx:finding:assertedAt "2026-01-02T15:04:05Z"^^xsd:dateTime .
[] a cx:Finding ; rdf:subject ex:pool.go ; rdf:predicate ex:owner ; rdf:object ex:bob ; cx:finding:confidence 1 .
ex:main.go ex:severity "low" .
`
	ttl = "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n" + ttl
	n, err := f.m.ImportFindings(ctx, "t", "a", strings.NewReader(ttl), rdfio.Turtle)
	if err != nil || n != 3 {
		t.Fatalf("ImportFindings = %d, %v; want 3", n, err)
	}
	now := f.clock.Now().Format(time.RFC3339Nano)
	want := []string{
		`<http://example.org/main.go> <http://example.org/severity> "low" conf=0 at=` + now,
		`<http://example.org/pool.go> <http://example.org/owner> <http://example.org/bob> conf=1 at=` + now,
		`<http://example.org/pool.go> <http://example.org/severity> "high" conf=0.75 at=2026-01-02T15:04:05Z`,
	}
	got := f.stored(t, "t", "a")
	if c := contents(got); !slices.Equal(c, want) {
		t.Fatalf("stored\n%q\nwant\n%q", c, want)
	}

	// Export a's findings graph and import it as b's, in both formats.
	for _, format := range []string{rdfio.NTriples, rdfio.Turtle} {
		var buf bytes.Buffer
		if _, err := f.n.Export(ctx, &buf, format, cortex.ExportOptions{Graph: f.ns.MemberGraph("t", "a"), Scope: cortex.OneGraph}); err != nil {
			t.Fatal(err)
		}
		agent := map[string]string{rdfio.NTriples: "b", rdfio.Turtle: "c"}[format]
		f.clock.Advance(time.Minute)
		if n, err := f.m.ImportFindings(ctx, "t", agent, &buf, format); err != nil || n != 3 {
			t.Fatalf("%s: re-import = %d, %v", format, n, err)
		}
		if c := contents(f.stored(t, "t", agent)); !slices.Equal(c, want) {
			t.Fatalf("%s: re-imported\n%q\nwant\n%q", format, c, want)
		}
	}
}

func TestManager_ImportFindings_Described_Errors(t *testing.T) {
	f := newFixture(t)
	f.running(t, "t", "a")
	head := "@prefix cx: <urn:cortex:acme:> .\n@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n@prefix ex: <http://example.org/> .\n"
	for _, tc := range []struct{ name, ttl, msg string }{
		{"no object", `ex:f a cx:Finding ; rdf:subject ex:s ; rdf:predicate ex:p .`, "no rdf:object"},
		{"two confidences", `ex:f a cx:Finding ; rdf:subject ex:s ; rdf:predicate ex:p ; rdf:object 1 ; cx:finding:confidence 0.5, 0.6 .`, "2 values of finding:confidence"},
		{"unexpected property", `ex:f a cx:Finding ; rdf:subject ex:s ; rdf:predicate ex:p ; rdf:object 1 ; ex:why "x" .`, "unexpected property <http://example.org/why>"},
		{"bad confidence", `ex:f a cx:Finding ; rdf:subject ex:s ; rdf:predicate ex:p ; rdf:object 1 ; cx:finding:confidence 2 .`, "confidence"},
		{"zero time", `ex:f a cx:Finding ; rdf:subject ex:s ; rdf:predicate ex:p ; rdf:object 1 ; cx:finding:assertedAt "0001-01-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .`,
			`assertedAt "0001-01-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> is the zero time`},
		{"time without zone", `ex:f a cx:Finding ; rdf:subject ex:s ; rdf:predicate ex:p ; rdf:object 1 ; cx:finding:assertedAt "2026-01-02T15:04:05"^^<http://www.w3.org/2001/XMLSchema#dateTime> .`, "xsd:dateTime"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := head + "ex:other ex:p ex:o .\n" + tc.ttl + "\n"
			n, err := f.m.ImportFindings(ctx, "t", "a", strings.NewReader(in), rdfio.Turtle)
			if !errors.Is(err, teammanager.ErrInvalidFinding) || !strings.Contains(err.Error(), tc.msg) || n != 0 {
				t.Fatalf("n = %d, err = %v; want ErrInvalidFinding mentioning %q", n, err, tc.msg)
			}
			if got := f.stored(t, "t", "a"); len(got) != 0 {
				t.Fatalf("%d findings written", len(got))
			}
		})
	}
}

// FuzzManager_ImportFindingsJSON checks that no input makes the JSON
// findings reader panic, and that a failed import writes nothing.
func FuzzManager_ImportFindingsJSON(f *testing.F) {
	for _, seed := range []string{
		`{"subject": "<http://example.org/s>", "predicate": "rdfs:label", "object": "\"o\"@en", "confidence": 0.5, "assertedAt": "2026-01-02T15:04:05Z"}`,
		`[{"subject": "_:b", "predicate": "cx:p", "object": "<http://example.org/o>"}]`,
		`[{"id": "x", "agent": "y", "subject": "<s>", "predicate": "<p>", "object": "1"}] []`,
		"{\"subject\": \"\\u0000\"}\n{",
		`[`, `]`, ``, `null`, `{"confidence": -1}`,
	} {
		f.Add(seed)
	}
	fx := newFixture(f)
	fx.running(f, "t", "a")
	f.Fuzz(func(t *testing.T, in string) {
		before := len(fx.stored(t, "t", "a"))
		_, err := fx.m.ImportFindings(ctx, "t", "a", strings.NewReader(in), teammanager.FindingsJSON)
		if err != nil {
			if after := len(fx.stored(t, "t", "a")); after != before {
				t.Fatalf("failed import %q changed the findings: %d → %d (%v)", in, before, after, err)
			}
		}
	})
}

// TestManager_FindingsWithLongLiterals: findings whose objects are long
// texts (40 of 400 KB: more bytes than one Badger transaction holds,
// though few quads) are written in one call, and merged when the member
// completes: the store journals such a write instead of failing it.
func TestManager_FindingsWithLongLiterals(t *testing.T) {
	f := newFixture(t)
	f.running(t, "docs", "a1")
	text := strings.Repeat("a long summary. ", 25_000) // 400 KB
	fs := make([]teammanager.Finding, 40)
	for i := range fs {
		fs[i] = teammanager.Finding{
			Subject:   quad.IRI(fmt.Sprintf("http://example.org/doc%d", i)),
			Predicate: quad.IRI("http://example.org/summary"),
			Object:    quad.String(fmt.Sprint(text, i)),
		}
	}
	ids, err := f.m.AddFindings(ctx, "docs", "a1", fs)
	if err != nil {
		t.Fatalf("add findings: %v", err)
	}
	if got := f.stored(t, "docs", "a1"); len(got) != len(fs) || len(ids) != len(fs) {
		t.Fatalf("%d findings stored, %d ids, want %d", len(got), len(ids), len(fs))
	}
	f.status(t, "docs", "a1", teammanager.Completed, "")
	facts, err := f.m.Facts(ctx, "docs", teammanager.FactFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != len(fs) {
		t.Fatalf("%d facts after the merge, want %d", len(facts), len(fs))
	}
	for _, fact := range facts {
		if o, ok := fact.Object.(quad.String); !ok || !strings.HasPrefix(string(o), text) {
			t.Fatalf("fact %v: object cut or changed", fact.Subject)
		}
	}
}
