package defstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/defstore"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/spec"
)

var (
	specExamples = filepath.Join("..", "spec", "testdata", "examples", "spec")
	support      = filepath.Join("..", "spec", "testdata", "examples", "support")
	legacy       = filepath.Join("..", "spec", "testdata", "examples", "legacy")
	secReview    = filepath.Join("testdata", "security-review.json")
)

func newStore(t *testing.T) (*defstore.Store, *cortex.Namespace, namespace.NS) {
	t.Helper()
	n := cortextest.NewNamespace(t, "acme")
	x, err := namespace.New("acme")
	if err != nil {
		t.Fatal(err)
	}
	return defstore.New(n, x), n, x
}

// column runs a SELECT of one variable and returns its values as strings,
// sorted.
func column(t *testing.T, n *cortex.Namespace, x namespace.NS, q string, opts sparql.Options) []string {
	t.Helper()
	opts.Prefixes = map[string]string{"cx": x.Prefix()}
	res, err := n.Query(context.Background(), q, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	var out []string
	for res.Next(context.Background()) {
		v := res.Row()[0]
		if s, ok := v.(quad.String); ok {
			out = append(out, string(s))
		} else {
			out = append(out, quad.StringOf(v))
		}
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestImport_Queries: the two questions of the issue, in SPARQL through
// Namespace.Query.
func TestImport_Queries(t *testing.T) {
	s, n, x := newStore(t)
	ctx := context.Background()
	res, err := s.Import(ctx, []string{specExamples, support, secReview}, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Agents) != 20 || len(res.Teams) != 9 {
		t.Fatalf("imported %d agents, %d teams", len(res.Agents), len(res.Teams))
	}
	delegators := column(t, n, x, `SELECT DISTINCT ?name WHERE { ?a cx:def:delegatesTo ?q ; cx:def:name ?name . ?q cx:def:name ?target }`,
		sparql.Options{}.Bind("target", quad.String("qa")))
	if !reflect.DeepEqual(delegators, []string{"architect"}) {
		t.Errorf("agents that can delegate to qa: %v, want [architect]", delegators)
	}
	teams := column(t, n, x, `SELECT DISTINCT ?name WHERE { ?t a cx:TeamDef ; cx:def:agent ?a ; cx:def:name ?name . ?a cx:def:name ?agent }`,
		sparql.Options{}.Bind("agent", quad.String("security-reviewer")))
	if !reflect.DeepEqual(teams, []string{"security-review"}) {
		t.Errorf("teams using security-reviewer: %v, want [security-review]", teams)
	}
	steps := column(t, n, x, `SELECT ?name WHERE { ?t cx:def:name "security-review" ; cx:def:step ?s . ?s cx:def:dependsOn ?d . ?d cx:def:name ?name }`, sparql.Options{})
	if !reflect.DeepEqual(steps, []string{"scan"}) {
		t.Errorf("review depends on %v, want [scan]", steps)
	}
}

func allQuads(t *testing.T, n *cortex.Namespace) []string {
	t.Helper()
	qs, err := n.Quads(context.Background(), cortex.Pattern{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.String()
	}
	sort.Strings(out)
	return out
}

// TestImport_Idempotent: importing the same files again changes nothing;
// importing a changed definition replaces the old one.
func TestImport_Idempotent(t *testing.T) {
	s, n, _ := newStore(t)
	ctx := context.Background()
	dir := t.TempDir()
	agent := filepath.Join(dir, "a.md")
	write := func(desc string) {
		if err := os.WriteFile(agent, []byte("---\nname: a\ndescription: "+desc+"\ndelegation:\n  can_delegate_to: [b]\n---\nbody\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "b.md"), []byte("---\nname: b\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write("first")
	if _, err := s.Import(ctx, []string{dir}, spec.Options{}); err != nil {
		t.Fatal(err)
	}
	before := allQuads(t, n)
	if _, err := s.Import(ctx, []string{dir}, spec.Options{}); err != nil {
		t.Fatal(err)
	}
	if after := allQuads(t, n); !reflect.DeepEqual(before, after) {
		t.Fatalf("re-import changed the store:\n%v\n%v", before, after)
	}
	write("second")
	if _, err := s.Import(ctx, []string{agent}, spec.Options{}); err != nil {
		t.Fatal(err)
	}
	after := strings.Join(allQuads(t, n), "\n")
	if strings.Contains(after, "first") || !strings.Contains(after, "second") {
		t.Fatalf("re-import did not replace the definition:\n%s", after)
	}
	if len(allQuads(t, n)) != len(before) {
		t.Errorf("%d quads after replacing, %d before", len(allQuads(t, n)), len(before))
	}
}

// TestImport_InvalidWritesNothing: one bad file among good ones fails the
// import with every problem, and nothing is written.
func TestImport_InvalidWritesNothing(t *testing.T) {
	s, n, _ := newStore(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "good.md"), []byte("---\nname: good\n---\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "team.json"), []byte(`{"name": "t", "version": "1", "agents": ["good", "ghost"], "workflow": {"type": "council"}}`), 0o644)
	res, err := s.Import(context.Background(), []string{dir}, spec.Options{})
	if !errors.Is(err, spec.ErrInvalid) {
		t.Fatalf("Import = %v, want ErrInvalid", err)
	}
	if res.Report.Errors() != 2 {
		t.Errorf("problems %v, want 2 errors (ghost, council)", res.Report.Problems)
	}
	if q := allQuads(t, n); len(q) != 0 {
		t.Fatalf("invalid import wrote %d quads", len(q))
	}
}

// TestImport_StoredAgents: a team imported alone may use agents already
// stored; in an empty store the same team fails, naming file and agent.
func TestImport_StoredAgents(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newStore(t)
	_, err := s.Import(ctx, []string{filepath.Join(specExamples, "teams", "dev-team.json")}, spec.Options{})
	var ve *spec.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), `dev-team.json:4: error: /agents/0: team "dev-team" uses agent "architect", which is defined nowhere`) {
		t.Fatalf("Import = %v", err)
	}
	if _, err := s.Import(ctx, []string{filepath.Join(specExamples, "agents"), support}, spec.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Import(ctx, []string{filepath.Join(specExamples, "teams", "dev-team.json")}, spec.Options{}); err != nil {
		t.Fatalf("team over stored agents: %v", err)
	}
}

// TestGet_SameDefinition: what Get returns is what was loaded.
func TestGet_SameDefinition(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newStore(t)
	if _, err := s.Import(ctx, []string{legacy}, spec.Options{}); err != nil {
		t.Fatal(err)
	}
	set, _, err := spec.Load([]string{legacy}, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range set.Defs {
		got, err := s.Get(ctx, want.Name(), want.Kind)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Agent, want.Agent) || !reflect.DeepEqual(got.Team, want.Team) {
			t.Errorf("Get(%s) = %+v, want %+v", want.Name(), got, want)
		}
	}
	if d, err := s.Get(ctx, "unit", ""); err != nil || d.Name() != "qa/unit" {
		t.Errorf("Get(unit) = %v, %v; want qa/unit by its unqualified name", d.Name(), err)
	}
	list, err := s.List(ctx, spec.KindAgent)
	if err != nil || len(list) != 3 || list[0].Name() != "docs" || list[2].Name() != "qa/unit" {
		t.Errorf("List(agent) = %v, %v", list, err)
	}
	if _, err := s.Get(ctx, "nobody", ""); !errors.Is(err, defstore.ErrNotFound) {
		t.Errorf("Get(nobody) = %v, want ErrNotFound", err)
	}
}

// TestDelete_AgentUsedByTeam: an agent a stored team lists is not deleted;
// once the team is gone it is.
func TestDelete_AgentUsedByTeam(t *testing.T) {
	ctx := context.Background()
	s, n, _ := newStore(t)
	if _, err := s.Import(ctx, []string{legacy}, spec.Options{}); err != nil {
		t.Fatal(err)
	}
	before := allQuads(t, n)
	_, err := s.Delete(ctx, "pm", "")
	if !errors.Is(err, defstore.ErrInUse) || !strings.Contains(err.Error(), `agent "pm" is used by team [release review]`) {
		t.Fatalf("Delete(pm) = %v, want ErrInUse naming both teams", err)
	}
	if !reflect.DeepEqual(before, allQuads(t, n)) {
		t.Fatal("refused delete wrote")
	}
	for _, name := range []string{"release", "review", "pm"} {
		if _, err := s.Delete(ctx, name, ""); err != nil {
			t.Fatalf("Delete(%s): %v", name, err)
		}
	}
	if _, err := s.Delete(ctx, "pm", ""); !errors.Is(err, defstore.ErrNotFound) {
		t.Errorf("second Delete(pm) = %v, want ErrNotFound", err)
	}
	left, err := s.List(ctx, "")
	if err != nil || len(left) != 2 {
		t.Errorf("left %v, %v", left, err)
	}
}

// TestDelete_Ambiguous: a name shared by an agent and a team needs a kind.
func TestDelete_Ambiguous(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newStore(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.md"), []byte("---\nname: x\n---\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "x.json"), []byte(`{"name": "x", "version": "1", "agents": []}`), 0o644)
	if _, err := s.Import(ctx, []string{dir}, spec.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(ctx, "x", ""); !errors.Is(err, defstore.ErrAmbiguous) {
		t.Fatalf("Delete(x) = %v, want ErrAmbiguous", err)
	}
	if d, err := s.Delete(ctx, "x", spec.KindTeam); err != nil || d.Kind != spec.KindTeam {
		t.Fatalf("Delete(x, team) = %v, %v", d, err)
	}
	if d, err := s.Get(ctx, "x", ""); err != nil || d.Kind != spec.KindAgent {
		t.Fatalf("Get(x) = %v, %v", d, err)
	}
}

// TestImport_HostileNames: names with IRI-breaking characters are stored,
// listed and found.
func TestImport_HostileNames(t *testing.T) {
	ctx := context.Background()
	s, n, x := newStore(t)
	dir := t.TempDir()
	hostile := `we<ird> "name":graph:def {x}`
	os.MkdirAll(filepath.Join(dir, "n s:1"), 0o755)
	os.WriteFile(filepath.Join(dir, "n s:1", "a.md"), []byte("---\nname: '"+hostile+"'\n---\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "t.json"), []byte(`{"name": "team:def:<1>", "version": "1", "agents": ["n s:1/`+strings.ReplaceAll(hostile, `"`, `\"`)+`"], "workflow": {"steps": [{"name": "s:1 <x>", "agent": "`+strings.ReplaceAll(hostile, `"`, `\"`)+`"}]}}`), 0o644)
	if _, err := s.Import(ctx, []string{dir}, spec.Options{}); err != nil {
		t.Fatal(err)
	}
	d, err := s.Get(ctx, "n s:1/"+hostile, "")
	if err != nil || d.Agent.Name != hostile {
		t.Fatalf("Get = %+v, %v", d, err)
	}
	got := column(t, n, x, `SELECT ?name WHERE { ?t cx:def:agent ?a ; cx:def:name ?name . ?a cx:def:name ?agent }`,
		sparql.Options{}.Bind("agent", quad.String(hostile)))
	if !reflect.DeepEqual(got, []string{"s:1 <x>", "team:def:<1>"}) {
		t.Errorf("users of the hostile agent: %v", got)
	}
}

// TestGet_MalformedName: a name no definition of the kind can have is a
// *namespace.IDError, which matches namespace.ErrInvalidID (the error
// teammanager.ErrInvalidID is) and ErrNotFound, for Get and Delete; a
// well-formed one of nothing is ErrNotFound alone; Delete removes nothing.
func TestGet_MalformedName(t *testing.T) {
	ctx := context.Background()
	s, n, _ := newStore(t)
	if _, err := s.Import(ctx, []string{legacy}, spec.Options{}); err != nil {
		t.Fatal(err)
	}
	before := allQuads(t, n)
	for _, c := range []struct {
		name      string
		kind      spec.Kind
		malformed bool
	}{
		{"nope", "", false},
		{"qa//unit", "", false}, // a team may be called so
		{"qa/nope", spec.KindAgent, false},
		{" ", "", true},
		{"pm\x00", "", true},
		{"release\n", spec.KindTeam, true},
		{"qa//unit", spec.KindAgent, true},
		{"../unit", spec.KindAgent, true},
	} {
		for op, f := range map[string]func() error{
			"Get":    func() error { _, err := s.Get(ctx, c.name, c.kind); return err },
			"Delete": func() error { _, err := s.Delete(ctx, c.name, c.kind); return err },
		} {
			err := f()
			var idErr *namespace.IDError
			if !errors.Is(err, defstore.ErrNotFound) || errors.Is(err, namespace.ErrInvalidID) != c.malformed || errors.As(err, &idErr) != c.malformed {
				t.Errorf("%s(%q, %q) = %v, want ErrNotFound, malformed %v", op, c.name, c.kind, err, c.malformed)
			}
		}
	}
	if after := allQuads(t, n); !reflect.DeepEqual(after, before) {
		t.Error("refused deletes changed the store")
	}
}
