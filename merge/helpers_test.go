package merge_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/cortexgraph/cortex/merge"
)

const exNS = "http://ex/"

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// at returns t0 plus min minutes.
func at(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

func ex(local string) quad.IRI { return quad.IRI(exNS + local) }

func str(s string) quad.Value { return quad.String(s) }

func lang(s, tag string) quad.Value { return quad.LangString{Value: quad.String(s), Lang: tag} }

// fnd builds a finding on (ex:s, ex:p). asserted is in minutes after t0.
func fnd(id, agent, s, p string, o quad.Value, asserted int, conf float64) merge.Finding {
	return merge.Finding{ID: id, Agent: agent, Subject: ex(s), Predicate: ex(p), Object: o,
		Confidence: conf, AssertedAt: at(asserted)}
}

// f is fnd with asserted 0 and unspecified confidence.
func f(id, agent, s, p string, o quad.Value) merge.Finding { return fnd(id, agent, s, p, o, 0, 0) }

func done(agent string, completed int) merge.Member {
	return merge.Member{Agent: agent, Status: merge.Completed, CompletedAt: at(completed)}
}

func failed(agent string) merge.Member  { return merge.Member{Agent: agent, Status: merge.Failed} }
func running(agent string) merge.Member { return merge.Member{Agent: agent, Status: merge.Running} }
func pending(agent string) merge.Member { return merge.Member{Agent: agent, Status: merge.Pending} }

// team is alice (completed last), carol, bob (completed first), dave (failed), erin (running) and finn
// (pending).
func team() []merge.Member {
	return []merge.Member{done("alice", 30), done("bob", 10), done("carol", 20), failed("dave"), running("erin"), pending("finn")}
}

// termString renders a term compactly for expectations: ex: IRIs by local name.
func termString(v quad.Value) string {
	switch v := v.(type) {
	case quad.IRI:
		if local, ok := strings.CutPrefix(string(v), exNS); ok {
			return local
		}
		return "<" + string(v) + ">"
	case quad.BNode:
		return "_:" + string(v)
	case quad.String:
		return fmt.Sprintf("%q", string(v))
	case quad.LangString:
		return fmt.Sprintf("%q@%s", string(v.Value), v.Lang)
	case quad.TypedString:
		return fmt.Sprintf("%q^^%s", string(v.Value), termString(v.Type))
	default:
		return fmt.Sprintf("%T(%v)", v, v)
	}
}

// lines renders a result's facts and conflicts one per line, in result order, e.g.
//
//	s1 p "red" by=alice,bob ids=f1,f2
//	s1 p "red" by=alice ids=f1 resolved=lead
//	conflict s2 p no-majority: "blue"<-bob[f4] "red"<-alice[f3]
func lines(r merge.Result) []string {
	out := []string{}
	for _, fa := range r.Facts {
		l := fmt.Sprintf("%s %s %s by=%s ids=%s", termString(fa.Subject), termString(fa.Predicate),
			termString(fa.Object), strings.Join(fa.Supporters, ","), strings.Join(fa.FindingIDs, ","))
		if fa.ResolvedBy != "" {
			l += " resolved=" + fa.ResolvedBy
		}
		out = append(out, l)
	}
	for _, c := range r.Conflicts {
		l := fmt.Sprintf("conflict %s %s %s:", termString(c.Topic.Subject), termString(c.Topic.Predicate), c.Reason)
		for _, cand := range c.Candidates {
			l += fmt.Sprintf(" %s<-%s[%s]", termString(cand.Object), strings.Join(cand.Agents, ","),
				strings.Join(cand.FindingIDs, ","))
		}
		out = append(out, l)
	}
	return out
}
