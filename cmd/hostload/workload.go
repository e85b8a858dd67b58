package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// The workload generator. It must stay identical to gen_workload of the SQL
// side (shared/bench/hostload/sqlbench.py): the same seeded splitmix64
// streams give every system the same findings in the same per-agent order,
// and the digest over them proves it (TestGenWorkload_Digest).

const golden = 0x9E3779B97F4A7C15

// mix is splitmix64's finaliser of z + golden.
func mix(z uint64) uint64 {
	z += golden
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// rng is a splitmix64 stream.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += golden
	z := r.s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

var (
	predicates = []string{"severity", "owner", "status", "tag", "cwe"}
	vocab      = [][]string{
		{"low", "medium", "high", "critical"},
		{"alice", "bob", "carol", "dave"},
		{"open", "triaged", "fixed", "wontfix"},
		{"security", "performance", "style", "correctness"},
		{"CWE-79", "CWE-89", "CWE-22", "CWE-798"},
	}
)

// agreePercent is the share of findings that take their topic's consensus
// object.
const agreePercent = 70

func teamID(t int) string     { return fmt.Sprintf("team%d", t) }
func agentID(t, a int) string { return fmt.Sprintf("t%da%d", t, a) }

// strategy is the merge strategy of team t: majority-wins for even teams,
// conflict-flag for odd ones.
func strategy(t int) string {
	if t%2 == 0 {
		return "majority-wins"
	}
	return "conflict-flag"
}

// agentFails reports whether agent a of team t ends failed instead of
// completed: the last agent of every team t with t % 8 == 0.
func agentFails(t, a, agents int) bool { return t%8 == 0 && a == agents-1 }

// genFinding is one generated finding: subject and predicate IRIs, a plain
// literal object and the confidence in hundredths (50, 55, ..., 100).
type genFinding struct {
	S, P, O string
	Conf    int
}

// genWorkload returns the findings of every agent, indexed [team][agent],
// and the workload digest: the hex SHA-256 of one line per finding,
// "team<TAB>agent<TAB>k<TAB>s<TAB>p<TAB>o<TAB>conf", in generation order.
func genWorkload(p params) ([][][]genFinding, string) {
	h := sha256.New()
	seed := uint64(p.Seed)
	out := make([][][]genFinding, p.Teams)
	for t := range p.Teams {
		out[t] = make([][]genFinding, p.Agents)
		for a := range p.Agents {
			r := rng{mix(mix(mix(seed)^uint64(t)) ^ uint64(a))}
			fs := make([]genFinding, p.Findings)
			for k := range p.Findings {
				si := r.next() % uint64(p.Subjects)
				pi := r.next() % uint64(len(predicates))
				agree := r.next()%100 < agreePercent
				oi := r.next() % 4
				conf := int(50 + 5*(r.next()%11))
				if agree {
					oi = mix(mix(mix(mix(seed^0xC0FFEE)^uint64(t))^si)^pi) % 4
				}
				f := genFinding{
					S:    fmt.Sprintf("http://ex.org/team%d/file%d", t, si),
					P:    "http://ex.org/p/" + predicates[pi],
					O:    vocab[pi][oi],
					Conf: conf,
				}
				fs[k] = f
				fmt.Fprintf(h, "%d\t%d\t%d\t%s\t%s\t%s\t%d.%02d\n", t, a, k, f.S, f.P, f.O, conf/100, conf%100)
			}
			out[t][a] = fs
		}
	}
	return out, hex.EncodeToString(h.Sum(nil))
}
