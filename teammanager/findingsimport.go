package teammanager

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/internal/ctxcause"
	"github.com/cortexgraph/cortex/internal/jsonexact"
	ns "github.com/cortexgraph/cortex/namespace"
)

// FindingsJSON is the format name of ImportFindings for findings as JSON:
// one JSON array of finding objects (what `cortexctl findings list --json`
// writes) or a sequence of finding objects, typically one per line (JSON
// Lines). See ImportFindings.
const FindingsJSON = "json"

// ImportFindings reads findings from r and records them as findings of
// member agentID of team teamID. It returns the number of findings read.
//
// With format FindingsJSON, r holds finding objects, as one JSON array or
// as a sequence of objects (JSON Lines):
//
//	{"subject": "<https://ex.org/pool.go>", "predicate": "rdfs:comment",
//	 "object": "\"leaks on cancel\"", "confidence": 0.8, "assertedAt": "2026-01-02T15:04:05Z"}
//
// subject, predicate and object are required, each an N-Triples term
// (<iri>, _:label, "text", "text"@en, "1"^^<datatype-iri>) or a prefixed
// name (prefix:local) with one of the prefixes of Manager.Prefixes.
// confidence is optional (absent or 0: unspecified, else in [0, 1]);
// assertedAt is optional, RFC 3339 (absent or "": now; the zero time,
// 0001-01-01T00:00:00Z, is refused: it cannot be stored, and a time
// given is never replaced by now). The fields id and agent,
// which `findings list --json` writes, are allowed and ignored: the
// importing member is the author, and ids are derived from the content.
// Field names are case-sensitive: any other field ("Subject" too), or a
// field given twice, is an error (jsonexact.Unmarshal), and so is input
// that is not valid UTF-8 (JSON is UTF-8; its bytes would otherwise be
// read as U+FFFD). So a listing imports back with the same terms,
// confidences and times.
//
// Any other format is an rdfio format that reads ("ntriples", "turtle",
// "nquads", or their extensions "nt", "ttl", "nq": see FindingsFormat, which
// the server uses too). Quads
// naming a graph are refused. Each triple is a finding asserted now with
// unspecified confidence, except finding descriptions, which carry their
// own: a node typed cx:Finding (cx: is the namespace's prefix, NS.Prefix)
// with exactly one rdf:subject, rdf:predicate and rdf:object, and at most
// one cx:finding:confidence (a number in [0, 1]) and cx:finding:assertedAt
// (an xsd:dateTime with time zone, not the zero time), is the finding of that triple with that
// confidence and time. This is the shape in which the store keeps findings,
// so a member's findings graph, exported, imports back losslessly: the plain
// copy of a described triple is not a second finding, and
// cx:finding:assertedBy is ignored (the importing member is the author). A
// description with a missing, repeated or unexpected property is an error.
// Blank nodes are scoped to one import, as in cortex.Namespace.Import.
//
// Every finding is validated before anything is written; a bad one fails
// the import with an error wrapping ErrInvalidFinding (malformed terms also
// wrap rdfio.ErrSyntax) that says where it is (a JSON record and its line;
// a finding's position counted from 1, "finding 3 of 1000", as AddFindings
// does), and nothing is written. The
// findings are then written in one atomic step with the membership check,
// as AddFindings does, whatever their number: all of them or none.
//
// A nil r is an error matching cortex.ErrInvalidArgument.
func (m *Manager) ImportFindings(ctx context.Context, teamID, agentID string, r io.Reader, format string) (_ int, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	if format, err = FindingsFormat(format); err != nil {
		return 0, fmt.Errorf("import findings: team %s: agent %s: %w", IDText(teamID), IDText(agentID), err)
	}
	if r == nil {
		return 0, fmt.Errorf("import findings: team %s: agent %s: %w: nil reader", IDText(teamID), IDText(agentID), cortex.ErrInvalidArgument)
	}
	blank := "i" + cortex.NewImportID() + "_"
	var raw []Finding
	if format == FindingsJSON {
		raw, err = m.readFindingsJSON(r, blank)
	} else {
		raw, err = m.readFindingsRDF(r, format, blank)
	}
	if err != nil {
		return 0, fmt.Errorf("import findings: team %s: agent %s: %w", IDText(teamID), IDText(agentID), err)
	}
	now := m.now()
	fs := make([]Finding, len(raw))
	for i, f := range raw {
		if fs[i], err = m.normFinding(teamID, f, now); err != nil {
			return 0, fmt.Errorf("import findings: team %s: agent %s: finding %d of %d (%s %s %s): %w", IDText(teamID), IDText(agentID), i+1, len(raw),
				rdfio.FormatTerm(f.Subject), rdfio.FormatTerm(f.Predicate), rdfio.FormatTerm(f.Object), err)
		}
	}
	if _, err := m.writeFindings(ctx, teamID, agentID, fs); err != nil {
		return 0, err
	}
	return len(fs), nil
}

// findingRecord is one finding of the FindingsJSON format.
type findingRecord struct {
	Subject    *string  `json:"subject"`
	Predicate  *string  `json:"predicate"`
	Object     *string  `json:"object"`
	Confidence *float64 `json:"confidence"`
	AssertedAt *string  `json:"assertedAt"`
	ID         *string  `json:"id"`    // ignored (findings list --json writes it)
	Agent      *string  `json:"agent"` // ignored (findings list --json writes it)
}

// FindingsFormat returns the name of the format ImportFindings reads for
// name: FindingsJSON ("json", in any case), or an rdfio format that reads
// triples, by its name or its extension ("ntriples" or "nt", "turtle" or
// "ttl", "nquads" or "nq"). Any other name is an error matching
// rdfio.ErrUnknownFormat that lists them.
func FindingsFormat(name string) (string, error) {
	if strings.EqualFold(name, FindingsJSON) {
		return FindingsJSON, nil
	}
	if f, err := rdfio.Lookup(name); err == nil && f.Readable() {
		return f.Name, nil
	}
	if name != "" && !strings.ContainsAny(name, "./") {
		if f, err := rdfio.ByExtension("x." + name); err == nil && f.Readable() {
			return f.Name, nil
		}
	}
	return "", fmt.Errorf("%w %q: want json, ntriples (nt), turtle (ttl) or nquads (nq)", rdfio.ErrUnknownFormat, name)
}

// readFindingsJSON reads the FindingsJSON format, each record's member
// names exactly (jsonexact). Errors name the record (1-based) and its
// line.
func (m *Manager) readFindingsJSON(r io.Reader, blank string) ([]Finding, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	// JSON is UTF-8 (RFC 8259, 8.1): encoding/json would read each byte
	// that is not as U+FFFD, and a finding would say what it was not sent.
	if !utf8.Valid(data) {
		line, col := invalidUTF8At(data)
		return nil, fmt.Errorf("%w: line %d, column %d: not valid UTF-8", ErrInvalidFinding, line, col)
	}
	// A byte order mark at the start (Windows editors write one) is
	// skipped, as the RDF readers, definitions and the config file skip
	// it; written over with blanks, so that lines and columns stay the
	// file's.
	if bytes.HasPrefix(data, []byte("\ufeff")) {
		copy(data, "   ")
	}
	prefixes := m.Prefixes()
	dec := json.NewDecoder(bytes.NewReader(data))
	lines := &lineCounter{data: data, line: 1}
	lineAt := lines.lineAt
	var out []Finding
	record := func() error {
		n := len(out) + 1
		line := lineAt(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("%w: record %d (line %d): %v", ErrInvalidFinding, n, line, err)
		}
		var rec findingRecord
		if err := jsonexact.Unmarshal(raw, &rec); err != nil {
			return fmt.Errorf("%w: record %d (line %d): %v", ErrInvalidFinding, n, line, jsonexact.TypeText(err))
		}
		f, err := m.recordFinding(rec, prefixes, blank)
		if err != nil {
			return fmt.Errorf("record %d (line %d): %w", n, line, err)
		}
		out = append(out, f)
		return nil
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("%w: line 1: %v", ErrInvalidFinding, err)
		}
		for dec.More() {
			if err := record(); err != nil {
				return nil, err
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrInvalidFinding, lineAt(dec.InputOffset()), err)
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: line %d: data after the array", ErrInvalidFinding, lineAt(dec.InputOffset()))
		}
		return out, nil
	}
	for dec.More() {
		if err := record(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// invalidUTF8At returns the line and column (from 1, in bytes) of the
// first byte of data that is not valid UTF-8.
func invalidUTF8At(data []byte) (line, col int) {
	line, start := 1, 0
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return line, i - start + 1
		}
		if data[i] == '\n' {
			line, start = line+1, i+1
		}
		i += n
	}
	return line, len(data) - start + 1
}

// lineCounter tells the lines of offsets of data that do not decrease,
// counting the newlines between one offset and the next only: reading n
// records costs one pass over data, not one pass per record.
type lineCounter struct {
	data    []byte
	off     int64 // newlines are counted up to here
	line    int   // the line of off
	scanned int64 // bytes counted, in all (tests check it is at most len(data))
}

// lineAt returns the line (from 1) of the first byte at or after off that
// is not white space or a comma: where the record at off starts. An offset
// below an earlier one is counted again from the start.
func (c *lineCounter) lineAt(off int64) int {
	for off < int64(len(c.data)) && strings.IndexByte(" \t\r\n,", c.data[off]) >= 0 {
		off++
	}
	if off < c.off {
		c.off, c.line = 0, 1
	}
	c.line += bytes.Count(c.data[c.off:off], []byte{'\n'})
	c.scanned += off - c.off
	c.off = off
	return c.line
}

// recordFinding turns a FindingsJSON record into a (not yet validated)
// finding.
func (m *Manager) recordFinding(rec findingRecord, prefixes map[string]string, blank string) (Finding, error) {
	var f Finding
	for _, t := range []struct {
		name string
		in   *string
		out  *quad.Value
	}{{"subject", rec.Subject, &f.Subject}, {"predicate", rec.Predicate, &f.Predicate}, {"object", rec.Object, &f.Object}} {
		if t.in == nil {
			return f, fmt.Errorf("%w: no %s", ErrInvalidFinding, t.name)
		}
		v, err := parseFindingTerm(*t.in, prefixes)
		if err != nil {
			return f, fmt.Errorf("%w: %s: %w", ErrInvalidFinding, t.name, err)
		}
		if b, ok := v.(quad.BNode); ok {
			v = quad.BNode(blank + string(b))
		}
		*t.out = v
	}
	if rec.Confidence != nil {
		f.Confidence = *rec.Confidence
	}
	if rec.AssertedAt != nil && *rec.AssertedAt != "" {
		at, err := time.Parse(time.RFC3339Nano, *rec.AssertedAt)
		if err != nil {
			return f, fmt.Errorf("%w: assertedAt %q is not an RFC 3339 time", ErrInvalidFinding, *rec.AssertedAt)
		}
		if err := checkGivenTime(at, strconv.Quote(*rec.AssertedAt)); err != nil {
			return f, err
		}
		f.AssertedAt = at
	}
	return f, nil
}

// checkGivenTime refuses a time given for a finding (written as it was
// written) that is the zero time, 0001-01-01T00:00:00Z: a Finding's zero
// AssertedAt means now, so the zero time cannot be stored, and a time
// that is given is never replaced.
func checkGivenTime(at time.Time, written string) error {
	if at.IsZero() {
		return fmt.Errorf("%w: assertedAt %s is the zero time, which a finding cannot have (no assertedAt means now): give another time, or none", ErrInvalidFinding, written)
	}
	return nil
}

// parseFindingTerm reads an N-Triples term (a literal's datatype may be a
// prefixed name: "1"^^xsd:integer) or a prefixed name.
func parseFindingTerm(s string, prefixes map[string]string) (quad.Value, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "<") || strings.HasPrefix(t, `"`) || strings.HasPrefix(t, "_:") {
		t, err := ns.ExpandDatatype(t, prefixes) // "1"^^xsd:integer
		if err != nil {
			return nil, err
		}
		return rdfio.ParseFormattedTerm(t)
	}
	p, local, ok := strings.Cut(t, ":")
	if !ok {
		return nil, fmt.Errorf("%q is neither an N-Triples term nor a prefixed name (write <iri> or a quoted literal such as %s)", s, strconv.Quote(s))
	}
	base, known := prefixes[p]
	if !known {
		return nil, fmt.Errorf("%q: unknown prefix %q (write a full IRI as <iri>)", s, p)
	}
	return quad.IRI(base + local), nil
}

// readFindingsRDF reads triples in an rdfio format and turns finding
// descriptions into findings with their confidence and time.
func (m *Manager) readFindingsRDF(r io.Reader, format, blank string) ([]Finding, error) {
	dec, err := rdfio.NewDecoder(r, format, rdfio.DecodeOptions{BlankPrefix: blank})
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	var triples []quad.Quad
	for {
		q, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if q.Label != nil {
			return nil, fmt.Errorf("%w: quad in graph %s (findings are triples)", ErrInvalidFinding, rdfio.FormatTerm(q.Label))
		}
		triples = append(triples, q)
	}
	return m.describedFindings(triples)
}

// description collects the properties of one finding description.
type description struct {
	node              quad.Value
	s, p, o, conf, at []quad.Value
	seen              bool // placed in the output order
}

// describedFindings returns the findings of triples: one per finding
// description (see ImportFindings) and one per other triple, except the
// plain copies of described triples, in order of first appearance.
func (m *Manager) describedFindings(triples []quad.Quad) ([]Finding, error) {
	x := m.ns
	class := x.IRI(ns.ClassFinding)
	pConf, pAt, pBy := x.IRI(ns.FindingConfidence), x.IRI(ns.FindingAssertedAt), x.IRI(ns.FindingAssertedBy)
	descs := map[quad.Value]*description{}
	for _, q := range triples {
		if q.Predicate == ns.RDFType && q.Object == class {
			descs[q.Subject] = &description{node: q.Subject}
		}
	}
	if len(descs) == 0 {
		out := make([]Finding, len(triples))
		for i, q := range triples {
			out[i] = Finding{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object}
		}
		return out, nil
	}
	type slot struct {
		d *description // nil: a plain triple
		q quad.Quad
	}
	var order []slot
	for _, q := range triples {
		d, ok := descs[q.Subject]
		if !ok {
			order = append(order, slot{q: q})
			continue
		}
		if !d.seen {
			d.seen = true
			order = append(order, slot{d: d})
		}
		switch q.Predicate {
		case ns.RDFType, pBy:
		case ns.RDFSubject:
			d.s = append(d.s, q.Object)
		case ns.RDFPredicate:
			d.p = append(d.p, q.Object)
		case ns.RDFObject:
			d.o = append(d.o, q.Object)
		case pConf:
			d.conf = append(d.conf, q.Object)
		case pAt:
			d.at = append(d.at, q.Object)
		default:
			return nil, fmt.Errorf("%w: finding description %s: unexpected property %s", ErrInvalidFinding,
				rdfio.FormatTerm(q.Subject), rdfio.FormatTerm(q.Predicate))
		}
	}
	described := map[[3]quad.Value]bool{}
	found := make([]Finding, len(order))
	for i, sl := range order {
		if sl.d == nil {
			continue
		}
		f, err := describedFinding(sl.d)
		if err != nil {
			return nil, fmt.Errorf("%w: finding description %s: %v", ErrInvalidFinding, rdfio.FormatTerm(sl.d.node), err)
		}
		described[[3]quad.Value{f.Subject, f.Predicate, f.Object}] = true
		found[i] = f
	}
	out := make([]Finding, 0, len(order))
	for i, sl := range order {
		switch {
		case sl.d != nil:
			out = append(out, found[i])
		case !described[[3]quad.Value{sl.q.Subject, sl.q.Predicate, sl.q.Object}]:
			out = append(out, Finding{Subject: sl.q.Subject, Predicate: sl.q.Predicate, Object: sl.q.Object})
		}
	}
	return out, nil
}

// describedFinding checks one description and returns its finding.
func describedFinding(d *description) (Finding, error) {
	one := func(vs []quad.Value, name string, required bool) (quad.Value, error) {
		switch {
		case len(vs) > 1:
			return nil, fmt.Errorf("%d values of %s", len(vs), name)
		case len(vs) == 0 && required:
			return nil, fmt.Errorf("no %s", name)
		case len(vs) == 0:
			return nil, nil
		}
		return vs[0], nil
	}
	var f Finding
	var err error
	if f.Subject, err = one(d.s, "rdf:subject", true); err != nil {
		return f, err
	}
	if f.Predicate, err = one(d.p, "rdf:predicate", true); err != nil {
		return f, err
	}
	if f.Object, err = one(d.o, "rdf:object", true); err != nil {
		return f, err
	}
	c, err := one(d.conf, "finding:confidence", false)
	if err != nil {
		return f, err
	}
	if c != nil {
		if f.Confidence, err = parseConfidence(c); err != nil {
			return f, err
		}
	}
	at, err := one(d.at, "finding:assertedAt", false)
	if err != nil {
		return f, err
	}
	if at != nil {
		if f.AssertedAt, err = ns.ParseDateTime(at); err != nil {
			return f, err
		}
		if err := checkGivenTime(f.AssertedAt, rdfio.FormatTerm(at)); err != nil {
			return f, err
		}
	}
	return f, nil
}

// parseConfidence reads a confidence written as xsd:decimal (what the store
// writes), xsd:integer or xsd:double.
func parseConfidence(v quad.Value) (float64, error) {
	if ts, ok := v.(quad.TypedString); ok && (ts.Type == ns.XSDInteger || ts.Type == xsdDouble) {
		c, err := strconv.ParseFloat(strings.TrimSpace(string(ts.Value)), 64)
		if err != nil || c < 0 || c > 1 {
			return 0, fmt.Errorf("confidence %s not a number in [0, 1]", rdfio.FormatTerm(v))
		}
		return c, nil
	}
	return ns.ParseConfidence(v)
}

const xsdDouble quad.IRI = "http://www.w3.org/2001/XMLSchema#double"
