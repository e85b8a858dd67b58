package merge_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/cortexgraph/cortex/merge"
)

// This file holds a reference model of the built-in strategies, written from their doc comments with
// plain maps and no shared code but CompareTerms (the documented order), and a property test that
// checks the real merge against it on random inputs.

// mKey is the model's RDF term equality: xsd:string is the plain string, language tags fold case.
type mKey struct {
	kind    int
	val, dt string
}

func modelKey(v quad.Value) mKey {
	switch v := v.(type) {
	case quad.IRI:
		return mKey{1, string(v), ""}
	case quad.BNode:
		return mKey{2, string(v), ""}
	case quad.String:
		return mKey{3, string(v), ""}
	case quad.LangString:
		return mKey{4, string(v.Value), strings.ToLower(v.Lang)}
	case quad.TypedString:
		if v.Type == xsd+"string" {
			return mKey{3, string(v.Value), ""}
		}
		return mKey{5, string(v.Value), string(v.Type)}
	}
	panic(fmt.Sprintf("model: term %T", v))
}

// modelSpell is the normal form of v: a literal typed xsd:string is the plain string.
func modelSpell(v quad.Value) quad.Value {
	if ts, ok := v.(quad.TypedString); ok && ts.Type == xsd+"string" {
		return ts.Value
	}
	return v
}

type mClaim struct {
	ids       map[string]bool
	conf      float64
	asserted  time.Time
	completed time.Time
}

type mTopic struct {
	topic  merge.Topic
	claims map[string]map[mKey]*mClaim // agent → object → claim
	spell  map[mKey]quad.Value         // first spelling by CompareTerms
	res    *merge.Resolution
}

func (t *mTopic) agentsOf(k mKey) []string {
	var out []string
	for a, objs := range t.claims {
		if objs[k] != nil {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

func (t *mTopic) keys() []mKey {
	seen := map[mKey]bool{}
	var out []mKey
	for _, objs := range t.claims {
		for k := range objs {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	slices.SortFunc(out, func(a, b mKey) int { return merge.CompareTerms(t.spell[a], t.spell[b]) })
	return out
}

func (t *mTopic) agentKeys(a string) []mKey {
	var out []mKey
	for k := range t.claims[a] {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b mKey) int { return merge.CompareTerms(t.spell[a], t.spell[b]) })
	return out
}

// mDecision is a model strategy's verdict: objects kept (with their confidence when the strategy sets
// one), or a conflict reason.
type mDecision struct {
	keep     []mKey
	conf     map[mKey]float64
	conflict string
}

type modelDecider func(t *mTopic, o merge.Options, voters int) mDecision

func modelAdditive(t *mTopic, _ merge.Options, _ int) mDecision { return mDecision{keep: t.keys()} }

func modelReplace(t *mTopic, o merge.Options, _ int) mDecision {
	var latest time.Time
	first := true
	for _, objs := range t.claims {
		for _, c := range objs {
			if first || c.completed.After(latest) {
				latest, first = c.completed, false
			}
		}
	}
	win := map[string]bool{}
	for a, objs := range t.claims {
		for _, c := range objs {
			if c.completed.Equal(latest) {
				win[a] = true
			}
		}
	}
	if win[o.TieBreaker] {
		win = map[string]bool{o.TieBreaker: true}
	}
	var d mDecision
	for _, k := range t.keys() {
		for a := range win {
			if t.claims[a][k] != nil {
				d.keep = append(d.keep, k)
				break
			}
		}
	}
	return d
}

func modelNewest(t *mTopic, o merge.Options, _ int) mDecision {
	var latest time.Time
	first := true
	for _, objs := range t.claims {
		for _, c := range objs {
			if first || c.asserted.After(latest) {
				latest, first = c.asserted, false
			}
		}
	}
	tied := map[mKey]bool{}
	byTB := map[mKey]bool{}
	for a, objs := range t.claims {
		for k, c := range objs {
			if c.asserted.Equal(latest) {
				tied[k] = true
				if a == o.TieBreaker {
					byTB[k] = true
				}
			}
		}
	}
	if len(byTB) > 0 {
		tied = byTB
	}
	for _, k := range t.keys() { // sorted: the first tied one
		if tied[k] {
			return mDecision{keep: []mKey{k}}
		}
	}
	panic("model: no newest")
}

func modelMajority(t *mTopic, o merge.Options, _ int) mDecision {
	n := len(t.claims)
	var d mDecision
	top := 0
	for _, k := range t.keys() {
		v := len(t.agentsOf(k))
		top = max(top, v)
		// More than Threshold of the speakers (exactly Threshold × speakers never passes), every
		// speaker always.
		if v == n || o.Threshold < 1 && !modelAtMost(v, o.Threshold, n) {
			d.keep = append(d.keep, k)
		}
	}
	if len(d.keep) > 0 {
		return d
	}
	var leaders []mKey
	for _, k := range t.keys() {
		if len(t.agentsOf(k)) == top {
			leaders = append(leaders, k)
		}
	}
	if len(leaders) > 1 {
		var chosen []mKey
		for _, k := range leaders {
			if t.claims[o.TieBreaker][k] != nil {
				chosen = append(chosen, k)
			}
		}
		if len(chosen) == 1 {
			return mDecision{keep: chosen}
		}
	}
	return mDecision{conflict: merge.ReasonNoMajority}
}

// modelAtMost reports whether votes ≤ threshold × n as exact decimals: the thresholds of the random
// inputs have at most two decimals.
func modelAtMost(votes int, threshold float64, n int) bool {
	cents := int(math.Round(threshold * 100))
	return votes*100 <= cents*n
}

func modelConflictFlag(t *mTopic, _ merge.Options, _ int) mDecision {
	var first []mKey
	for a := range t.claims {
		ks := t.agentKeys(a)
		if first == nil {
			first = ks
		} else if !slices.Equal(first, ks) {
			return mDecision{conflict: merge.ReasonDisagreement}
		}
	}
	return mDecision{keep: first}
}

func modelConfidence(margin float64) modelDecider {
	return func(t *mTopic, _ merge.Options, _ int) mDecision {
		// Confidences of the random inputs are multiples of 0.1: sum them as integers.
		score := map[mKey]int{}
		for _, objs := range t.claims {
			for k, c := range objs {
				score[k] += int(math.Round(c.conf * 10))
			}
		}
		ks := t.keys()
		slices.SortStableFunc(ks, func(a, b mKey) int { return score[b] - score[a] })
		runner := 0
		if len(ks) > 1 {
			runner = score[ks[1]]
		}
		if float64(score[ks[0]]-runner) > margin*10+1e-6 {
			share := min(float64(score[ks[0]])/10/float64(len(t.claims)), 1)
			return mDecision{keep: ks[:1], conf: map[mKey]float64{ks[0]: share}}
		}
		return mDecision{conflict: merge.ReasonNoClearWinner}
	}
}

func modelConsensus(t *mTopic, o merge.Options, voters int) mDecision {
	ballot := func(a string) string { return fmt.Sprint(t.agentKeys(a)) }
	count := map[string]int{}
	for a := range t.claims {
		count[ballot(a)]++
	}
	best, bestN, tie := "", 0, false
	for b, n := range count {
		switch {
		case n > bestN:
			best, bestN, tie = b, n, false
		case n == bestN:
			tie = true
		}
	}
	cents := int(math.Round(o.Threshold * 100))
	if !tie && bestN*100 >= cents*voters {
		for a := range t.claims {
			if ballot(a) == best {
				return mDecision{keep: t.agentKeys(a)}
			}
		}
	}
	if t.claims[o.TieBreaker] != nil {
		return mDecision{keep: t.agentKeys(o.TieBreaker)}
	}
	return mDecision{conflict: merge.ReasonNoConsensus}
}

var errModelClash = errors.New("model: tied resolutions choose different objects")

// modelMerge merges in as the doc comments describe, and renders the result as sorted lines
// (facts with supporters, findings, resolver and confidence; conflicts with candidates), with the
// number of topics.
func modelMerge(in merge.Input, decide modelDecider) ([]string, int, error) {
	opts := in.Options
	if opts.Threshold == 0 {
		opts.Threshold = merge.DefaultThreshold
	}
	completed := map[string]time.Time{}
	for _, m := range in.Members {
		if m.Status == merge.Completed {
			completed[m.Agent] = m.CompletedAt
		}
	}
	topics := map[string]*mTopic{}
	get := func(tp merge.Topic) *mTopic {
		t := topics[tp.Key()]
		if t == nil {
			t = &mTopic{topic: tp, claims: map[string]map[mKey]*mClaim{}, spell: map[mKey]quad.Value{}}
			topics[tp.Key()] = t
		}
		return t
	}
	for _, f := range in.Findings {
		ct, ok := completed[f.Agent]
		if !ok {
			continue
		}
		t := get(merge.Topic{Subject: f.Subject, Predicate: f.Predicate})
		k, o := modelKey(f.Object), modelSpell(f.Object)
		if old, ok := t.spell[k]; !ok || merge.CompareTerms(o, old) < 0 {
			t.spell[k] = o
		}
		if t.claims[f.Agent] == nil {
			t.claims[f.Agent] = map[mKey]*mClaim{}
		}
		c := t.claims[f.Agent][k]
		if c == nil {
			c = &mClaim{ids: map[string]bool{}, asserted: f.AssertedAt, completed: ct}
			t.claims[f.Agent][k] = c
		}
		c.ids[f.ID] = true
		conf := f.Confidence
		if conf == 0 {
			conf = 1
		}
		c.conf = max(c.conf, conf)
		if f.AssertedAt.After(c.asserted) {
			c.asserted = f.AssertedAt
		}
	}
	byID := map[string]merge.Topic{}
	for _, t := range topics {
		byID[t.topic.ConflictID()] = t.topic
	}
	// The latest resolution of each topic; at one time, the same objects or an error.
	latest := map[string][]merge.Resolution{}
	for _, r := range in.Resolutions {
		tp := r.Topic
		if tp.Subject == nil {
			tp = byID[r.ConflictID]
		}
		t := get(tp)
		rs := latest[tp.Key()]
		switch {
		case len(rs) == 0 || r.At.After(rs[0].At):
			latest[tp.Key()] = []merge.Resolution{r}
		case r.At.Equal(rs[0].At):
			latest[tp.Key()] = append(rs, r)
		}
		_ = t
	}
	resKeys := func(r merge.Resolution) []mKey {
		set := map[mKey]bool{}
		for _, o := range r.Objects {
			set[modelKey(o)] = true
		}
		var out []mKey
		for k := range set {
			out = append(out, k)
		}
		slices.SortFunc(out, func(a, b mKey) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		return out
	}
	for key, rs := range latest {
		for _, r := range rs[1:] {
			if !slices.Equal(resKeys(r), resKeys(rs[0])) {
				return nil, 0, errModelClash
			}
		}
		// Same objects: the resolver sorting first, then the spelling sorting first.
		best := rs[0]
		for _, r := range rs[1:] {
			if r.By < best.By || r.By == best.By && slices.CompareFunc(resSpelled(r), resSpelled(best), merge.CompareTerms) < 0 {
				best = r
			}
		}
		topics[key].res = &best
	}
	voters := len(completed)
	var out []string
	fact := func(t *mTopic, k mKey, o quad.Value, by string, conf float64) string {
		sup := t.agentsOf(k)
		var ids []string
		best := 0.0
		for _, a := range sup {
			c := t.claims[a][k]
			for id := range c.ids {
				ids = append(ids, id)
			}
			best = max(best, c.conf)
		}
		if len(sup) == 0 {
			best = 1
		}
		if conf != 0 {
			best = conf
		}
		slices.Sort(ids)
		ids = slices.Compact(ids)
		return fmt.Sprintf("%s %s %s by=%s ids=%s resolved=%s conf=%.6f", termString(t.topic.Subject), termString(t.topic.Predicate),
			termString(o), strings.Join(sup, ","), strings.Join(ids, ","), by, best)
	}
	for _, t := range topics {
		if t.res != nil {
			for _, o := range resSpelled(*t.res) {
				out = append(out, fact(t, modelKey(o), o, t.res.By, 0))
			}
			continue
		}
		if len(t.claims) == 0 {
			continue
		}
		d := decide(t, opts, voters)
		if d.conflict != "" {
			l := fmt.Sprintf("conflict %s %s %s %s:", t.topic.ConflictID(), termString(t.topic.Subject), termString(t.topic.Predicate), d.conflict)
			for _, k := range t.keys() {
				sup := t.agentsOf(k)
				var ids []string
				for _, a := range sup {
					for id := range t.claims[a][k].ids {
						ids = append(ids, id)
					}
				}
				slices.Sort(ids)
				l += fmt.Sprintf(" %s<-%s[%s]", termString(t.spell[k]), strings.Join(sup, ","), strings.Join(slices.Compact(ids), ","))
			}
			out = append(out, l)
			continue
		}
		for _, k := range d.keep {
			out = append(out, fact(t, k, t.spell[k], "", d.conf[k]))
		}
	}
	slices.Sort(out)
	return out, len(topics), nil
}

// resSpelled is a resolution's distinct objects, each in the spelling that sorts first, sorted.
func resSpelled(r merge.Resolution) []quad.Value {
	spell := map[mKey]quad.Value{}
	for _, o := range r.Objects {
		k, n := modelKey(o), modelSpell(o)
		if old, ok := spell[k]; !ok || merge.CompareTerms(n, old) < 0 {
			spell[k] = n
		}
	}
	var out []quad.Value
	for _, o := range spell {
		out = append(out, o)
	}
	slices.SortFunc(out, merge.CompareTerms)
	return out
}

// resultLines renders a real result as modelMerge renders the model's.
func resultLines(r merge.Result) []string {
	var out []string
	for _, fa := range r.Facts {
		out = append(out, fmt.Sprintf("%s %s %s by=%s ids=%s resolved=%s conf=%.6f", termString(fa.Subject), termString(fa.Predicate),
			termString(fa.Object), strings.Join(fa.Supporters, ","), strings.Join(fa.FindingIDs, ","), fa.ResolvedBy, fa.Confidence))
	}
	for _, c := range r.Conflicts {
		l := fmt.Sprintf("conflict %s %s %s %s:", c.ID, termString(c.Topic.Subject), termString(c.Topic.Predicate), c.Reason)
		for _, cand := range c.Candidates {
			l += fmt.Sprintf(" %s<-%s[%s]", termString(cand.Object), strings.Join(cand.Agents, ","), strings.Join(cand.FindingIDs, ","))
		}
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

func TestProperty_MatchesReferenceModel(t *testing.T) {
	models := map[string]modelDecider{
		merge.NameAdditive:           modelAdditive,
		merge.NameReplace:            modelReplace,
		merge.NameNewestWins:         modelNewest,
		merge.NameMajorityWins:       modelMajority,
		merge.NameConflictFlag:       modelConflictFlag,
		merge.NameConfidenceWeighted: modelConfidence(merge.DefaultConfidenceMargin),
		merge.NameConsensus:          modelConsensus,
	}
	strategies := map[string]merge.Strategy{"custom/margin": merge.ConfidenceWeighted{Margin: 0.3}}
	models["custom/margin"] = modelConfidence(0.3)
	for _, name := range merge.Names() {
		strategies[name], _ = merge.Lookup(name)
	}
	for name, s := range strategies {
		decide := models[name]
		if decide == nil {
			t.Fatalf("no model of %s", name)
		}
		t.Run(name, func(t *testing.T) {
			for seed := int64(1); seed <= 4*seeds(); seed++ {
				rng := rand.New(rand.NewSource(seed))
				in := randomInput(rng)
				if rng.Intn(3) == 0 { // tied resolutions, some by conflict id
					for i := range in.Resolutions {
						in.Resolutions[i].At = at(100)
						if rng.Intn(2) == 0 {
							in.Resolutions[i].ConflictID = in.Resolutions[i].Topic.ConflictID()
							in.Resolutions[i].Topic = merge.Topic{}
						}
					}
				}
				want, topics, wantErr := modelMerge(in, decide)
				got, err := s.Merge(in)
				if wantErr != nil {
					if !errors.Is(err, merge.ErrConflictingResolutions) && !errors.Is(err, merge.ErrUnknownConflict) {
						t.Fatalf("seed %d: err %v, want %v", seed, err, wantErr)
					}
					continue
				}
				if err != nil {
					if errors.Is(err, merge.ErrUnknownConflict) {
						continue // a conflict id of a topic no completed member spoke on
					}
					t.Fatalf("seed %d: %v", seed, err)
				}
				if lines := resultLines(got); !slices.Equal(lines, want) || got.Report.Topics != topics {
					t.Fatalf("seed %d: merge and model differ\nmerge (%d topics)\n\t%s\nmodel (%d topics)\n\t%s", seed,
						got.Report.Topics, join(lines), topics, join(want))
				}
			}
		})
	}
}
