package api_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/defstore"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/server"
	"github.com/cortexgraph/cortex/spec"
	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// sentinel is an exported sentinel error of a package whose errors reach
// the CLI or the server, with the exit code the README's table gives it.
type sentinel struct {
	name string // "pkg.ErrX", as the source scan finds it
	err  error
	code int
	// internal, when code is ExitInternal, says why that is right.
	internal string
	// noWireName, when set, says why the sentinel needs no name of its own
	// in api/names.go (the client restores it well enough from its kind,
	// or it never crosses the JSON-RPC boundary).
	noWireName string
	// match, if set, is the sentinel err matches (err is then an error
	// type that wraps it).
	match error
}

var sentinels = []sentinel{
	// cortex
	{name: "cortex.ErrLocked", err: cortex.ErrLocked, code: api.ExitLocked},
	{name: "cortex.ErrClosed", err: cortex.ErrClosed, code: api.ExitLocked},
	{name: "cortex.ErrBusy", err: cortex.ErrBusy, code: api.ExitTimeout},
	{name: "cortex.ErrInvalidQuad", err: cortex.ErrInvalidQuad, code: api.ExitInvalid},
	{name: "cortex.ErrNotFound", err: cortex.ErrNotFound, code: api.ExitNotFound, noWireName: "a graph not found: restored by kind not_found; namespaces have no_namespace"},
	{name: "cortex.ErrCorrupt", err: cortex.ErrCorrupt, code: api.ExitInternal, internal: "damaged store data, never caused by input"},
	{name: "cortex.ErrNoStore", err: cortex.ErrNoStore, code: api.ExitNotFound},
	{name: "cortex.ErrNoNamespace", err: cortex.ErrNoNamespace, code: api.ExitNotFound},
	{name: "cortex.ErrRecoveryNeeded", err: cortex.ErrRecoveryNeeded, code: api.ExitInternal, internal: "matches ErrCorrupt; the CLI retries read-write, which recovers", noWireName: "only a read-only Open returns it; a server opens read-write"},
	{name: "cortex.ErrResultsOpen", err: cortex.ErrResultsOpen, code: api.ExitInternal, internal: "a bug: results left open at Close", noWireName: "internal"},
	{name: "cortex.ErrCutOff", err: cortex.ErrCutOff, code: api.ExitInternal, internal: "a bug or a stuck operation: transactions still open when Close stopped waiting", noWireName: "internal"},
	{name: "cortex.ErrInvalidArgument", err: cortex.ErrInvalidArgument, code: api.ExitInvalid},
	{name: "cortex.ErrReadOnly", err: cortex.ErrReadOnly, code: api.ExitInternal, internal: "a bug: a command that writes opened the store read-only"},
	{name: "cortex.ErrBaseMismatch", err: cortex.ErrBaseMismatch, code: api.ExitInvalid},

	// cortex/rdfio
	{name: "rdfio.ErrUnknownFormat", err: rdfio.ErrUnknownFormat, code: api.ExitUsage},
	{name: "rdfio.ErrSyntax", err: rdfio.ErrSyntax, code: api.ExitSyntax},
	{name: "rdfio.ErrInvalidOption", err: rdfio.ErrInvalidOption, code: api.ExitInternal, internal: "callers check base and prefixes first (cortexctl checkBase, server graphIRI, config): left, a bug", noWireName: "internal"},
	{name: "rdfio.ErrDecoderClosed", err: rdfio.ErrDecoderClosed, code: api.ExitInternal, internal: "a bug: Next after Close", noWireName: "internal"},
	{name: "rdfio.ErrInvalidTerm", err: rdfio.ErrInvalidTerm, code: api.ExitInternal, internal: "the store refuses such terms on write (cortex.ErrInvalidQuad); the server maps RDF/XML export failures itself", noWireName: "internal"},
	{name: "rdfio.ErrInvalidQuad", err: rdfio.ErrInvalidQuad, code: api.ExitInternal, internal: "as rdfio.ErrInvalidTerm", noWireName: "internal"},
	{name: "rdfio.ErrEncoderClosed", err: rdfio.ErrEncoderClosed, code: api.ExitInternal, internal: "a bug: Encode after Close", noWireName: "internal"},

	// teammanager
	{name: "teammanager.ErrUnknownTeam", err: teammanager.ErrUnknownTeam, code: api.ExitNotFound},
	{name: "teammanager.ErrUnknownAgent", err: teammanager.ErrUnknownAgent, code: api.ExitNotFound},
	{name: "teammanager.ErrUnknownConflict", err: teammanager.ErrUnknownConflict, code: api.ExitNotFound},
	{name: "teammanager.ErrInvalidID", err: teammanager.ErrInvalidID, code: api.ExitInvalid},
	{name: "teammanager.ErrInvalidTransition", err: teammanager.ErrInvalidTransition, code: api.ExitConflict},
	{name: "teammanager.ErrTeamFinished", err: teammanager.ErrTeamFinished, code: api.ExitConflict},
	{name: "teammanager.ErrTeamPaused", err: teammanager.ErrTeamPaused, code: api.ExitConflict},
	{name: "teammanager.ErrTeamDisbanded", err: teammanager.ErrTeamDisbanded, code: api.ExitConflict},
	{name: "teammanager.ErrTeamActive", err: teammanager.ErrTeamActive, code: api.ExitConflict},
	{name: "teammanager.ErrMemberFinished", err: teammanager.ErrMemberFinished, code: api.ExitConflict},
	{name: "teammanager.ErrTeamExists", err: teammanager.ErrTeamExists, code: api.ExitConflict},
	{name: "teammanager.ErrAlreadyResolved", err: teammanager.ErrAlreadyResolved, code: api.ExitConflict},
	{name: "teammanager.ErrConcurrentMerge", err: teammanager.ErrConcurrentMerge, code: api.ExitConflict},
	{name: "teammanager.ErrStrategyPanicked", err: teammanager.ErrStrategyPanicked, code: api.ExitInternal, internal: "a bug in a custom merge strategy"},
	{name: "teammanager.ErrInvalidTeam", err: teammanager.ErrInvalidTeam, code: api.ExitInvalid},
	{name: "teammanager.ErrInvalidFinding", err: teammanager.ErrInvalidFinding, code: api.ExitInvalid},
	{name: "teammanager.ErrInvalidStatus", err: teammanager.ErrInvalidStatus, code: api.ExitInvalid},
	{name: "teammanager.ErrInvalidConfig", err: teammanager.ErrInvalidConfig, code: api.ExitInvalid},
	{name: "teammanager.ErrInvalidResolution", err: teammanager.ErrInvalidResolution, code: api.ExitInvalid},
	{name: "teammanager.ErrInvalidEventID", err: teammanager.ErrInvalidEventID, code: api.ExitInvalid},
	{name: "teammanager.ErrCorrupt", err: teammanager.ErrCorrupt, code: api.ExitInternal, internal: "team triples of a shape the manager never writes; never caused by input"},
	{name: "teammanager.ErrUnknownTask", err: teammanager.ErrUnknownTask, code: api.ExitNotFound},
	{name: "teammanager.ErrUnknownMessage", err: teammanager.ErrUnknownMessage, code: api.ExitNotFound},
	{name: "teammanager.ErrInvalidTask", err: teammanager.ErrInvalidTask, code: api.ExitInvalid},
	{name: "teammanager.ErrTaskCycle", err: teammanager.ErrTaskCycle, code: api.ExitInvalid},
	{name: "teammanager.ErrTaskState", err: teammanager.ErrTaskState, code: api.ExitConflict},
	{name: "teammanager.ErrNotAllowed", err: teammanager.ErrNotAllowed, code: api.ExitConflict},
	{name: "teammanager.ErrBlocked", err: teammanager.ErrBlocked, code: api.ExitConflict},
	{name: "teammanager.ErrNoReadyTask", err: teammanager.ErrNoReadyTask, code: api.ExitConflict},
	{name: "teammanager.ErrCircuitOpen", err: teammanager.ErrCircuitOpen, code: api.ExitConflict},
	{name: "teammanager.ErrInvalidMessage", err: teammanager.ErrInvalidMessage, code: api.ExitInvalid},
	{name: "teammanager.ErrNoPlan", err: teammanager.ErrNoPlan, code: api.ExitNotFound},
	{name: "teammanager.ErrInvalidPlan", err: teammanager.ErrInvalidPlan, code: api.ExitInvalid},
	{name: "teammanager.ErrPlanState", err: teammanager.ErrPlanState, code: api.ExitConflict},
	{name: "teammanager.ErrPlanNotApproved", err: teammanager.ErrPlanNotApproved, code: api.ExitConflict},
	{name: "teammanager.ErrUnknownSnapshot", err: teammanager.ErrUnknownSnapshot, code: api.ExitNotFound},

	// workflow
	{name: "workflow.ErrInvalidDef", err: workflow.ErrInvalidDef, code: api.ExitInvalid},
	{name: "workflow.ErrInvalidRun", err: workflow.ErrInvalidRun, code: api.ExitInvalid},
	{name: "workflow.ErrRunExists", err: workflow.ErrRunExists, code: api.ExitConflict},
	{name: "workflow.ErrUnknownRun", err: workflow.ErrUnknownRun, code: api.ExitNotFound},
	{name: "workflow.ErrUnknownStep", err: workflow.ErrUnknownStep, code: api.ExitNotFound},
	{name: "workflow.ErrRunFinished", err: workflow.ErrRunFinished, code: api.ExitConflict},
	{name: "workflow.ErrInvalidTransition", err: workflow.ErrInvalidTransition, code: api.ExitConflict},
	{name: "workflow.ErrStaleAttempt", err: &workflow.AttemptError{}, match: workflow.ErrStaleAttempt, code: api.ExitConflict}, // only ever returned as *AttemptError, which matches ErrInvalidTransition
	{name: "workflow.ErrInvalidOutput", err: workflow.ErrInvalidOutput, code: api.ExitInvalid},
	{name: "workflow.ErrDriverBusy", err: workflow.ErrDriverBusy, code: api.ExitConflict},

	// merge
	{name: "merge.ErrUnknownStrategy", err: merge.ErrUnknownStrategy, code: api.ExitInvalid},
	{name: "merge.ErrInvalidMember", err: merge.ErrInvalidMember, code: api.ExitInternal, internal: mergeInput, noWireName: "internal"},
	{name: "merge.ErrInvalidFinding", err: merge.ErrInvalidFinding, code: api.ExitInternal, internal: mergeInput, noWireName: "internal"},
	{name: "merge.ErrInvalidTerm", err: merge.ErrInvalidTerm, code: api.ExitInternal, internal: mergeInput, noWireName: "internal"},
	{name: "merge.ErrInvalidConfidence", err: merge.ErrInvalidConfidence, code: api.ExitInternal, internal: mergeInput, noWireName: "internal"},
	{name: "merge.ErrInvalidOptions", err: merge.ErrInvalidOptions, code: api.ExitInternal, internal: mergeInput, noWireName: "internal"},
	{name: "merge.ErrInvalidResolution", err: merge.ErrInvalidResolution, code: api.ExitInternal, internal: mergeInput, noWireName: "internal"},
	{name: "merge.ErrUnknownConflict", err: merge.ErrUnknownConflict, code: api.ExitInternal, internal: mergeInput, noWireName: "internal"},
	{name: "merge.ErrConflictingResolutions", err: merge.ErrConflictingResolutions, code: api.ExitInternal, internal: tiedResolutions, noWireName: "internal"},
	{name: "merge.ErrInvalidDecision", err: merge.ErrInvalidDecision, code: api.ExitInternal, internal: "a bug in a custom merge strategy (Decider)", noWireName: "internal"},

	// namespace
	{name: "namespace.ErrInvalidName", err: namespace.ErrInvalidName, code: api.ExitInvalid},
	{name: "namespace.ErrInvalidBase", err: namespace.ErrInvalidBase, code: api.ExitInvalid},
	{name: "namespace.ErrInvalidEscape", err: namespace.ErrInvalidEscape, code: api.ExitInternal, internal: "Unescape of an IRI read from the store: corrupt data", noWireName: "internal"},
	{name: "namespace.ErrForeignIRI", err: namespace.ErrForeignIRI, code: api.ExitInternal, internal: "Parse of an IRI read from the store", noWireName: "internal"},
	{name: "namespace.ErrInvalidLiteral", err: namespace.ErrInvalidLiteral, code: api.ExitInternal, internal: "a literal read from the store", noWireName: "internal"},
	{name: "namespace.ErrUnknownPrefix", err: namespace.ErrUnknownPrefix, code: api.ExitInternal, internal: "its callers (api.ParseTerm, the findings import) wrap it with api.ErrInvalid or teammanager.ErrInvalidFinding", noWireName: "always wrapped in a named error"},
	{name: "namespace.ErrUnknownIRI", err: namespace.ErrUnknownIRI, code: api.ExitInternal, internal: "Parse of an IRI read from the store", noWireName: "internal"},
	{name: "namespace.ErrInvalidID", err: namespace.ErrInvalidID, code: api.ExitInvalid},

	// spec, defstore, config
	{name: "spec.ErrInvalid", err: spec.ErrInvalid, code: api.ExitInvalid},
	{name: "spec.ErrUnknownFormat", err: spec.ErrUnknownFormat, code: api.ExitUsage},
	{name: "defstore.ErrNotFound", err: defstore.ErrNotFound, code: api.ExitNotFound},
	{name: "defstore.ErrInUse", err: defstore.ErrInUse, code: api.ExitConflict},
	{name: "defstore.ErrAmbiguous", err: defstore.ErrAmbiguous, code: api.ExitUsage},
	{name: "config.ErrInvalid", err: config.ErrInvalid, code: api.ExitInvalid},

	// server: each wraps an error of package api (or context), so the
	// client restores it by its kind.
	{name: "server.ErrTooLarge", err: server.ErrTooLarge, code: api.ExitInvalid, noWireName: "wraps api.ErrInvalid"},
	{name: "server.ErrUnsupportedMediaType", err: server.ErrUnsupportedMediaType, code: api.ExitUsage, noWireName: "wraps api.ErrUsage"},
	{name: "server.ErrNotAcceptable", err: server.ErrNotAcceptable, code: api.ExitUsage, noWireName: "wraps api.ErrUsage"},
	{name: "server.ErrUnauthorized", err: server.ErrUnauthorized, code: api.ExitDenied, noWireName: "wraps api.ErrDenied"},
	{name: "server.ErrForbidden", err: server.ErrForbidden, code: api.ExitDenied, noWireName: "wraps api.ErrDenied"},
	{name: "server.ErrInvalidRole", err: server.ErrInvalidRole, code: api.ExitInvalid, noWireName: "wraps api.ErrInvalid"},
	{name: "server.ErrTooManyResults", err: server.ErrTooManyResults, code: api.ExitInvalid, noWireName: "wraps api.ErrInvalid"},
	{name: "server.ErrRequestTimeout", err: server.ErrRequestTimeout, code: api.ExitTimeout, noWireName: "wraps context.DeadlineExceeded"},
	{name: "server.ErrUnknownToken", err: server.ErrUnknownToken, code: api.ExitNotFound, noWireName: "wraps api.ErrNotFound"},
	{name: "server.ErrUnsafeTokenFile", err: server.ErrUnsafeTokenFile, code: api.ExitInvalid, noWireName: "wraps api.ErrInvalid"},
	{name: "server.ErrNoServer", err: server.ErrNoServer, code: api.ExitInternal, internal: "cortexctl's discovery handles it: it opens the store itself", noWireName: "never sent"},
}

// sentinelPackages are the directories (from api/) whose exported Err*
// variables TestSentinels_AllListed requires in sentinels.
var sentinelPackages = map[string]string{
	"../cortex":       "cortex",
	"../cortex/rdfio": "rdfio",
	"../teammanager":  "teammanager",
	"../workflow":     "workflow",
	"../merge":        "merge",
	"../namespace":    "namespace",
	"../spec":         "spec",
	"../defstore":     "defstore",
	"../config":       "config",
	"../server":       "server",
}

// TestSentinels_AllListed fails when a package gains an exported sentinel
// error that the table above (and so the classification) does not cover.
func TestSentinels_AllListed(t *testing.T) {
	listed := map[string]bool{}
	for _, s := range sentinels {
		listed[s.name] = true
	}
	var missing []string
	for dir, pkg := range sentinelPackages {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range af.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.VAR {
					continue
				}
				for _, sp := range gd.Specs {
					for _, n := range sp.(*ast.ValueSpec).Names {
						if n.IsExported() && strings.HasPrefix(n.Name, "Err") && !listed[pkg+"."+n.Name] {
							missing = append(missing, pkg+"."+n.Name)
						}
					}
				}
			}
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("%s is not in sentinels: give it its exit code (api/errors.go) and a wire name (api/names.go), or say why it is internal", m)
	}
}

// restored is what package client makes of an error a server answered
// with: the sentinels of its names and the error of its kind.
type restored struct {
	names []string
	kind  api.Kind
}

func (r *restored) Error() string { return "restored" }
func (r *restored) Unwrap() []error {
	var out []error
	for _, n := range r.names {
		if s := api.NamedError(n); s != nil {
			out = append(out, s)
		}
	}
	if k := api.KindError(r.kind); k != nil {
		out = append(out, k)
	}
	return out
}

func overTheWire(err error) error {
	_, kind := api.Classify(err)
	return &restored{names: api.ErrorNames(err), kind: kind}
}

func TestSentinels_Classified(t *testing.T) {
	for _, s := range sentinels {
		t.Run(s.name, func(t *testing.T) {
			if s.code == api.ExitInternal && s.internal == "" {
				t.Fatalf("exit code 1 without a reason")
			}
			wrapped := map[string]error{
				"bare":       s.err,
				"%w":         fmt.Errorf("op x: %w", s.err),
				"%w twice":   fmt.Errorf("op x: %w", fmt.Errorf("sub y: %w", s.err)),
				"join":       errors.Join(errors.New("first"), s.err),
				"several %w": fmt.Errorf("%w: %w", errors.New("plain"), s.err),
			}
			for how, err := range wrapped {
				code, kind := api.Classify(err)
				if code != s.code || kind != api.KindOf(s.code) {
					t.Errorf("%s: Classify = %d, %s; want %d, %s", how, code, kind, s.code, api.KindOf(s.code))
				}
				w := overTheWire(err)
				if code := api.ExitCode(w); code != s.code {
					t.Errorf("%s: over the wire (names %q): exit code %d, want %d", how, api.ErrorNames(err), code, s.code)
				}
				match := s.err
				if s.match != nil {
					match = s.match
				}
				if s.noWireName == "" && !errors.Is(w, match) {
					t.Errorf("%s: over the wire (names %q): does not match the sentinel: it has no wire name in api/names.go", how, api.ErrorNames(err))
				}
			}
		})
	}
}

// TestSentinels_PairsOverTheWire checks that an error wrapping two
// sentinels has, once restored by a client, the exit code it has on the
// server.
func TestSentinels_PairsOverTheWire(t *testing.T) {
	for _, a := range sentinels {
		for _, b := range sentinels {
			err := fmt.Errorf("%w: %w", a.err, b.err)
			want := api.ExitCode(err)
			if got := api.ExitCode(overTheWire(err)); got != want {
				t.Errorf("%s + %s: exit code %d on the server, %d over the wire", a.name, b.name, want, got)
			}
		}
	}
}

// mergeInput is why merge's input sentinels are internal.
const mergeInput = "merge input comes from findings and resolutions the team manager validated and stored: a failure is a bug or damaged data"

// tiedResolutions is why merge.ErrConflictingResolutions is internal: the
// team manager gives merge one resolution per conflict node, whose IRI is
// built from the team and the topic's conflict id (Topic.ConflictID, a hash
// of the topic; merge refuses a resolution whose id is not its topic's), and
// resolves a node once (teammanager.ErrAlreadyResolved). Two resolutions of
// one topic, tied or not, cannot reach merge from the manager: it would be
// a bug, not a state a command could fit (exit 4).
const tiedResolutions = "two resolutions of one topic cannot come from the team manager (one conflict node per topic, resolved once: ErrAlreadyResolved): a tie is a bug"
