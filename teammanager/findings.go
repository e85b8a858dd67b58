package teammanager

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
	"github.com/cortexgraph/cortex/internal/ctxcause"
	"github.com/cortexgraph/cortex/merge"
	ns "github.com/cortexgraph/cortex/namespace"
)

// findingID is "f" followed by 32 hex digits of a SHA-256 over the author
// and the content of the finding: ids cannot collide between different
// findings, and asserting the very same finding twice is idempotent.
func findingID(agent string, f Finding) string {
	h := sha256.New()
	for _, s := range []string{
		agent, rdfio.FormatTerm(f.Subject), rdfio.FormatTerm(f.Predicate), rdfio.FormatTerm(f.Object),
		f.AssertedAt.UTC().Format(time.RFC3339Nano), strconv.FormatFloat(f.Confidence, 'g', -1, 64),
	} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return "f" + hex.EncodeToString(h.Sum(nil)[:16])
}

// CheckFinding returns the error AddFinding returns for f whatever the
// team, or nil: a term missing or of the wrong kind, a triple a merge
// refuses, a confidence not in [0, 1] (NaN and ±Inf too), an AssertedAt
// whose year in UTC is not in 0000–9999 (RFC 3339, in which findings are
// listed and stored, has no other). Each wraps ErrInvalidFinding, and
// reads as AddFinding's after its "team T: agent A: ". Package client
// calls it before it encodes a finding (JSON has no NaN), so that a
// finding is refused with the same error through a server.
func CheckFinding(f Finding) error {
	_, err := checkFinding(f)
	return err
}

// checkFinding is CheckFinding, and returns f's triple normalized.
func checkFinding(f Finding) (quad.Quad, error) {
	q, err := cortex.NormalizeQuad(quad.Quad{Subject: f.Subject, Predicate: f.Predicate, Object: f.Object})
	if err != nil {
		return q, fmt.Errorf("%w: %w", ErrInvalidFinding, err)
	}
	// A triple the store takes but a merge refuses (a blank node label that
	// is not valid UTF-8) would fail every later merge of the team.
	if err := merge.CheckTriple(q.Subject, q.Predicate, q.Object); err != nil {
		return q, fmt.Errorf("%w: %w", ErrInvalidFinding, err)
	}
	if math.IsNaN(f.Confidence) || f.Confidence < 0 || f.Confidence > 1 {
		return q, errorf(ErrInvalidFinding, "confidence %v not in [0, 1]", f.Confidence)
	}
	if y := f.AssertedAt.UTC().Year(); !f.AssertedAt.IsZero() && (y < 0 || y > 9999) {
		return q, errorf(ErrInvalidFinding, "assertedAt %s: year %d of UTC not in 0000-9999 (RFC 3339)", f.AssertedAt.UTC().Format(time.RFC3339Nano), y)
	}
	return q, nil
}

// normFinding validates f for team and fills its defaults.
func (m *Manager) normFinding(team string, f Finding, now time.Time) (Finding, error) {
	q, err := checkFinding(f)
	if err != nil {
		return f, err
	}
	if iri, ok := q.Subject.(quad.IRI); ok && strings.HasPrefix(string(iri), m.findingPrefix(team)) {
		return f, errorf(ErrInvalidFinding, "subject %s is a finding node of team %s", iri, team)
	}
	f.Subject, f.Predicate, f.Object = q.Subject, q.Predicate, q.Object
	if f.Confidence == 0 {
		f.Confidence = 0 // -0 is 0, unspecified: the same finding (findingID)
	}
	if f.AssertedAt.IsZero() {
		f.AssertedAt = now
	}
	f.AssertedAt = f.AssertedAt.UTC()
	return f, nil
}

func (m *Manager) findingPrefix(team string) string { return string(m.ns.Finding(team, "")) }

// findingQuads returns the quads recording f in the member's graph: the
// plain triple, and the finding node describing it (RDF reification) with
// author, time and confidence.
func (m *Manager) findingQuads(team, agent, id string, f Finding) []quad.Quad {
	x := m.ns
	g := x.MemberGraph(team, agent)
	node := x.Finding(team, id)
	out := make([]quad.Quad, 0, 8)
	add := func(s, p, o quad.Value) {
		out = append(out, quad.Quad{Subject: s, Predicate: p, Object: o, Label: g})
	}
	add(f.Subject, f.Predicate, f.Object)
	add(node, ns.RDFType, x.IRI(ns.ClassFinding))
	add(node, ns.RDFSubject, f.Subject)
	add(node, ns.RDFPredicate, f.Predicate)
	add(node, ns.RDFObject, f.Object)
	add(node, x.IRI(ns.FindingAssertedBy), x.Member(team, agent))
	add(node, x.IRI(ns.FindingAssertedAt), ns.DateTime(f.AssertedAt))
	if f.Confidence > 0 {
		c, _ := ns.Confidence(f.Confidence)
		add(node, x.IRI(ns.FindingConfidence), c)
	}
	return out
}

// workingMember returns member agent of team st if the team is working
// (neither paused nor disbanded, see checkWorking) and not finished: the
// checks a member's writes (findings, status updates) start with.
func workingMember(st *teamState, team, agent string) (*Member, error) {
	t := &st.team
	if err := checkWorking(t); err != nil {
		return nil, err
	}
	if Finished(t.Status) {
		return nil, fmt.Errorf("team %s is %s: %w", IDText(team), t.Status, ErrTeamFinished)
	}
	mb, ok := t.Member(agent)
	if !ok {
		return nil, fmt.Errorf("team %s: agent %q: %w", IDText(team), agent, unknown(ErrUnknownAgent, agent))
	}
	return mb, nil
}

// checkCanAssert returns nil if agent may add findings to the team now.
func checkCanAssert(st *teamState, team, agent string) error {
	mb, err := workingMember(st, team, agent)
	if err != nil {
		return err
	}
	if Finished(mb.Status) {
		return fmt.Errorf("team %s: member %s is %s: %w", IDText(team), IDText(agent), mb.Status, ErrMemberFinished)
	}
	return nil
}

// AddFinding records f as asserted by member agentID of team teamID and
// returns its id. It is AddFindings of one finding.
func (m *Manager) AddFinding(ctx context.Context, teamID, agentID string, f Finding) (_ string, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	nf, err := m.normFinding(teamID, f, m.now())
	if err != nil {
		return "", teamErr(teamID, "agent "+IDText(agentID), err)
	}
	ids, err := m.writeFindings(ctx, teamID, agentID, []Finding{nf})
	if err != nil {
		return "", err
	}
	return ids[0], nil
}

// AddFindings records fs as asserted by member agentID of team teamID and
// returns their ids, in the order of fs (asserting the same finding twice
// gives the same id and stores it once).
//
// Every finding is validated before anything is written: the first bad one
// fails the call with an error wrapping ErrInvalidFinding that names its
// position, counted from 1 ("finding 3 of 1000: ..."), and nothing is
// written. Each finding keeps its
// Confidence (0: unspecified) and AssertedAt (zero: the time of the call).
//
// Only a member that is pending or running, of a team that is pending or
// running, may add findings. The membership check and the write of all of fs
// are one atomic step, whatever the number of findings: readers and other
// writers see all of them or none (large batches are journaled by the store,
// see cortex.Namespace.Apply). AddFindings is safe for concurrent use:
// concurrent calls share commits (see "Concurrency" in the package
// documentation); a call whose context ends while it waits for its turn
// writes nothing, one whose write has started waits for its commit.
func (m *Manager) AddFindings(ctx context.Context, teamID, agentID string, fs []Finding) (_ []string, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	now := m.now()
	norm := make([]Finding, len(fs))
	for i, f := range fs {
		nf, err := m.normFinding(teamID, f, now)
		if err != nil {
			return nil, fmt.Errorf("team %s: agent %s: finding %d of %d: %w", IDText(teamID), IDText(agentID), i+1, len(fs), err)
		}
		norm[i] = nf
	}
	return m.writeFindings(ctx, teamID, agentID, norm)
}

// AddFindingsChecked is AddFindings whose write first runs check, in that
// same atomic write (under the namespace's write lock, after the
// membership check), with the ids the findings get: if check returns an
// error, nothing is written and AddFindingsChecked returns it. What check
// stages in tx commits with the findings. A package that runs work on a
// team (package workflow) checks with it that the work still holds what
// lets it report (its attempt of a step), and records the ids, in the
// write that adds the findings. It has AddFindings' checks of fs.
func (m *Manager) AddFindingsChecked(ctx context.Context, teamID, agentID string, fs []Finding, check func(tx *cortex.Tx, ids []string) error) (_ []string, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	if check == nil {
		return m.AddFindings(ctx, teamID, agentID, fs)
	}
	now := m.now()
	norm := make([]Finding, len(fs))
	for i, f := range fs {
		nf, err := m.normFinding(teamID, f, now)
		if err != nil {
			return nil, fmt.Errorf("team %s: agent %s: finding %d of %d: %w", teamID, agentID, i+1, len(fs), err)
		}
		norm[i] = nf
	}
	return m.writeFindingsLinked(ctx, teamID, agentID, norm, "", check)
}

// writeFindings writes normalized findings of agent in one atomic update
// with the membership check and returns their ids in order.
func (m *Manager) writeFindings(ctx context.Context, teamID, agentID string, fs []Finding) ([]string, error) {
	return m.writeFindingsLinked(ctx, teamID, agentID, fs, "", nil)
}

// writeFindingsLinked is writeFindings that also links each finding node to
// task (finding:task), if task is not empty. With check (not nil), the
// findings are written in a write of their own, only if check, run in that
// write with the findings' ids, passes: the check and the write are one
// atomic step.
func (m *Manager) writeFindingsLinked(ctx context.Context, teamID, agentID string, fs []Finding, task quad.IRI, check func(tx *cortex.Tx, ids []string) error) ([]string, error) {
	ids := make([]string, len(fs))
	qs := make([]quad.Quad, 0, 8*len(fs))
	pins := make([]quad.Value, 0, len(fs))
	found := make([]StoredFinding, len(fs))
	for i, f := range fs {
		ids[i] = findingID(agentID, f)
		qs = append(qs, m.findingQuads(teamID, agentID, ids[i], f)...)
		if task != "" {
			qs = append(qs, quad.Quad{Subject: m.ns.Finding(teamID, ids[i]), Predicate: m.ns.IRI(ns.FindingTask), Object: task, Label: m.ns.MemberGraph(teamID, agentID)})
		}
		pins = append(pins, m.ns.Finding(teamID, ids[i]))
		found[i] = StoredFinding{ID: ids[i], Agent: agentID, Finding: f}
	}
	var st *teamState
	var timedOut bool
	var err error
	if check == nil {
		st, timedOut, err = m.writeGrouped(&groupedWrite{ctx: ctx, team: teamID, agent: agentID, qs: qs, pins: pins, found: found})
	} else {
		st, timedOut, err = m.write(ctx, teamID, "-", func(st *teamState, tx *cortex.Tx, _ time.Time) error {
			if err := checkCanAssert(st, teamID, agentID); err != nil {
				return err
			}
			if wc := writeCheckOf(ctx); wc != nil {
				if err := wc(ctx, tx); err != nil {
					return err
				}
			}
			if err := check(tx, ids); err != nil {
				return err
			}
			tx.Add(qs...)
			tx.Pin(pins...)
			st.events = append(st.events, findingsEvents(teamID, agentID, found)...)
			return nil
		})
	}
	if _, _, err := m.afterWrite(ctx, teamID, st, timedOut, err); err != nil {
		return nil, err
	}
	return ids, nil
}

// Findings lists the findings of the team matching f, ordered by assertion
// time, then agent and id. It only reads: it retries no due merge, and
// never waits for one. An unknown team is ErrUnknownTeam, an agent of f
// that is not a member ErrUnknownAgent, a term of f that is not a
// well-formed RDF term (an IRI with a space, a literal that is not UTF-8)
// an error matching cortex.ErrInvalidArgument (see FilterTerms), as for
// Facts.
func (m *Manager) Findings(ctx context.Context, teamID string, f FindingFilter) (_ []StoredFinding, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	t, err := m.getTeam(ctx, teamID)
	if err != nil {
		return nil, err
	}
	if f.Agent != "" {
		if _, ok := t.Member(f.Agent); !ok {
			return nil, fmt.Errorf("team %s: agent %q: %w", IDText(teamID), f.Agent, unknown(ErrUnknownAgent, f.Agent))
		}
	}
	if f.Subject, f.Predicate, err = FilterTerms(teamID, "findings", f.Subject, f.Predicate); err != nil {
		return nil, err
	}
	var agents []string
	for _, mb := range t.Members {
		if f.Agent == "" || mb.AgentID == f.Agent {
			agents = append(agents, mb.AgentID)
		}
	}
	all, err := m.readFindingsOf(ctx, teamID, agents)
	if err != nil {
		return nil, err
	}
	out := []StoredFinding{}
	for _, fs := range all {
		for _, sf := range fs {
			if f.Subject != nil && sf.Subject != f.Subject || f.Predicate != nil && sf.Predicate != f.Predicate {
				continue
			}
			out = append(out, sf)
		}
	}
	slices.SortFunc(out, func(a, b StoredFinding) int {
		if c := a.AssertedAt.Compare(b.AssertedAt); c != 0 {
			return c
		}
		if c := strings.Compare(a.Agent, b.Agent); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// FilterTerms returns subject and predicate, the terms of a filter of
// Findings or Facts (op: "findings" or "facts"; nil: any), as those calls
// compare them (cortex.NormalizeTerm), or those calls' error for the first
// that is not a well-formed RDF term: one matching
// cortex.ErrInvalidArgument that names the team and op. They check it
// after the team and the filter's agent; a client of a server checks
// its filter with it, so that its error reads as theirs.
func FilterTerms(teamID, op string, subject, predicate quad.Value) (s, p quad.Value, err error) {
	out := [2]quad.Value{subject, predicate}
	for i, v := range out {
		if v == nil {
			continue
		}
		if out[i], err = cortex.NormalizeTerm(v); err != nil {
			// A malformed term of the caller's: an invalid argument, not
			// an internal error.
			return nil, nil, fmt.Errorf("team %s: %s: %w: %w", IDText(teamID), op, cortex.ErrInvalidArgument, err)
		}
	}
	return out[0], out[1], nil
}

// findingRow is a finding node of a member graph as term ids.
type findingRow struct {
	node, s, p, o, at, conf eval.ID
	typed                   bool
}

// The vocabulary of a finding node, as indexes into findingVocab's terms.
const (
	iType = iota
	iClass
	iS
	iP
	iO
	iAt
	iConf
	nIDs
)

// readFindingsOf reads every finding of the given members: one id-level
// scan of each member's graph (GSPO index; the graphs are scanned
// concurrently), then one batched resolution of the distinct term ids of
// all of them. The result has one slice per agent, in the order given.
func (m *Manager) readFindingsOf(ctx context.Context, team string, agents []string) (_ [][]StoredFinding, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	x := m.ns
	terms := make([]quad.Value, nIDs, nIDs+len(agents))
	terms[iType], terms[iClass] = ns.RDFType, x.IRI(ns.ClassFinding)
	terms[iS], terms[iP], terms[iO] = ns.RDFSubject, ns.RDFPredicate, ns.RDFObject
	terms[iAt], terms[iConf] = x.IRI(ns.FindingAssertedAt), x.IRI(ns.FindingConfidence)
	for _, a := range agents {
		terms = append(terms, x.MemberGraph(team, a))
	}
	ids, err := m.ds.IDs(ctx, terms)
	if err != nil {
		return nil, err
	}
	if ids[iClass] == 0 {
		return make([][]StoredFinding, len(agents)), nil
	}
	rows, err := m.scanFindingRows(ctx, team, agents, ids)
	if err != nil {
		return nil, err
	}
	return m.resolveFindings(ctx, team, agents, rows)
}

// scanFindingRows scans the graph of each member (ids[nIDs+i] for
// agents[i]; 0: none) for its finding nodes, concurrently, and returns the
// complete ones (typed, with subject, predicate, object and time) as ids.
func (m *Manager) scanFindingRows(ctx context.Context, team string, agents []string, ids []eval.ID) ([][]findingRow, error) {
	rows := make([][]findingRow, len(agents))
	errs := make([]error, len(agents))
	var wg sync.WaitGroup
	sem := make(chan struct{}, min(runtime.GOMAXPROCS(0), 4))
	for ai := range agents {
		gid := ids[nIDs+ai]
		if gid == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var cur findingRow
			flush := func() {
				if cur.typed && cur.s != 0 && cur.p != 0 && cur.o != 0 && cur.at != 0 {
					rows[ai] = append(rows[ai], cur)
				}
			}
			errs[ai] = scan(ctx, m.ds, eval.Pattern{G: gid, Scope: eval.OneGraph}, func(q eval.Quad) {
				if q.S != cur.node {
					flush()
					cur = findingRow{node: q.S}
				}
				switch q.P {
				case ids[iType]:
					cur.typed = cur.typed || q.O == ids[iClass]
				case ids[iS]:
					cur.s = q.O
				case ids[iP]:
					cur.p = q.O
				case ids[iO]:
					cur.o = q.O
				case ids[iAt]:
					cur.at = q.O
				case ids[iConf]:
					cur.conf = q.O
				}
			})
			flush()
		}()
	}
	wg.Wait()
	for ai, err := range errs {
		if err != nil {
			return nil, teamErr(team, "findings of "+IDText(agents[ai]), err)
		}
	}
	return rows, nil
}

// resolveFindings turns the rows of each member into findings: the finding
// nodes (pinned when written, see ImportFindings) and each other distinct
// id are resolved once, for all members together (they share subjects,
// predicates, objects and times). A node that is not a finding IRI of team
// is skipped; a time or confidence that does not parse is ErrCorrupt.
func (m *Manager) resolveFindings(ctx context.Context, team string, agents []string, rows [][]findingRow) ([][]StoredFinding, error) {
	index := map[eval.ID]int32{}
	var want, nodes []eval.ID
	for _, rs := range rows {
		for _, r := range rs {
			nodes = append(nodes, r.node)
			for _, id := range [...]eval.ID{r.s, r.p, r.o, r.at, r.conf} {
				if _, ok := index[id]; !ok && id != 0 {
					index[id] = int32(len(want))
					want = append(want, id)
				}
			}
		}
	}
	nodeVals, err := m.ds.PinnedTermsBatch(ctx, nodes)
	if err != nil {
		return nil, err
	}
	vals, err := m.ds.TermsBatch(ctx, want)
	if err != nil {
		return nil, err
	}
	val := func(id eval.ID) quad.Value {
		if id == 0 {
			return nil
		}
		return vals[index[id]]
	}
	prefix := m.findingPrefix(team)
	times := map[eval.ID]time.Time{}
	confs := map[eval.ID]float64{}
	out := make([][]StoredFinding, len(agents))
	for ai, rs := range rows {
		agent := agents[ai]
		fs := make([]StoredFinding, 0, len(rs))
		for _, r := range rs {
			iri, _ := nodeVals[0].(quad.IRI)
			nodeVals = nodeVals[1:]
			esc, ok := strings.CutPrefix(string(iri), prefix)
			if !ok {
				continue
			}
			fid, err := ns.Unescape(esc)
			if err != nil {
				continue
			}
			at, ok := times[r.at]
			if !ok {
				if at, err = ns.ParseDateTime(val(r.at)); err != nil {
					return nil, fmt.Errorf("team %s: finding %s: %w: %v", IDText(team), fid, ErrCorrupt, err)
				}
				times[r.at] = at
			}
			var conf float64
			if r.conf != 0 {
				if conf, ok = confs[r.conf]; !ok {
					if conf, err = ns.ParseConfidence(val(r.conf)); err != nil {
						return nil, fmt.Errorf("team %s: finding %s: %w: %v", IDText(team), fid, ErrCorrupt, err)
					}
					confs[r.conf] = conf
				}
			}
			fs = append(fs, StoredFinding{ID: fid, Agent: agent, Finding: Finding{
				Subject: val(r.s), Predicate: val(r.p), Object: val(r.o), Confidence: conf, AssertedAt: at,
			}})
		}
		out[ai] = fs
	}
	return out, nil
}
