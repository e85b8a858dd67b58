package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// method is a JSON-RPC method: what it does with the namespace (access),
// and its implementation, given the namespace's manager (nil for methods
// that need none) and the params.
type method struct {
	access  access
	noTeams bool // the method needs no team manager (and no namespace)
	heavy   bool // a read-heavy listing: it waits for a turn (Options.WithMaxQueries)
	// check, if set, checks the params before the namespace is opened (or
	// created, for accessCreate): a call it refuses creates nothing.
	check func(s *Server, params json.RawMessage) error
	run   func(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error)
}

// rpcCtx is what a method call works with.
type rpcCtx struct {
	s        *Server
	ns       string
	m        *teammanager.Manager // nil for noTeams methods
	prefixes map[string]string    // m.Prefixes(), read once per call by term
	batch    *batchBudget         // the batch's share of the results; nil: not in a batch
}

// methods are the JSON-RPC methods. Params and results are the JSON shapes
// of package api (what cortexctl prints with --json); terms in params are
// read by api.ParseTerm with the namespace's prefixes.
var methods = map[string]method{
	"teams.create":           {access: accessCreate, check: checkTeamsCreate, run: teamsCreate},
	"teams.get":              {access: accessRead, run: teamsGet},
	"teams.list":             {access: accessRead, heavy: true, run: teamsList},
	"teams.delete":           {access: accessWrite, run: teamsDelete},
	"teams.pause":            {access: accessWrite, run: teamsPause},
	"teams.resume":           {access: accessWrite, run: teamsResume},
	"teams.disband":          {access: accessWrite, run: teamsDisband},
	"teams.plan.draft":       {access: accessWrite, run: plansDraft},
	"teams.plan.submit":      {access: accessWrite, run: plansSubmit},
	"teams.plan.review":      {access: accessWrite, run: plansReview},
	"teams.plan.get":         {access: accessRead, run: plansGet},
	"teams.plan.list":        {access: accessRead, run: plansList},
	"teams.snapshot.create":  {access: accessWrite, run: snapshotsCreate},
	"teams.snapshot.list":    {access: accessRead, run: snapshotsList},
	"teams.snapshot.get":     {access: accessRead, run: snapshotsGet},
	"teams.snapshot.restore": {access: accessWrite, run: snapshotsRestore},
	"teams.snapshot.delete":  {access: accessWrite, run: snapshotsDelete},
	"teams.member_status":    {access: accessWrite, run: teamsMemberStatus},
	"teams.merge":            {access: accessWrite, run: teamsMerge},
	"teams.is_complete":      {access: accessRead, run: teamsIsComplete},
	"findings.add":           {access: accessWrite, run: findingsAdd},
	"findings.add_batch":     {access: accessWrite, run: findingsAddBatch},
	"findings.list":          {access: accessRead, heavy: true, run: findingsList},
	"findings.import":        {access: accessWrite, run: findingsImport},
	"facts.list":             {access: accessRead, heavy: true, run: factsList},
	"conflicts.list":         {access: accessRead, heavy: true, run: conflictsList},
	"conflicts.resolve":      {access: accessWrite, run: conflictsResolve},
	"strategies.list":        {noTeams: true, run: strategiesList},
	"prefixes.get":           {noTeams: true, run: prefixesGet},
	"namespaces.list":        {noTeams: true, heavy: true, run: namespacesList},
	"namespaces.delete":      {noTeams: true, run: namespacesDelete},
	"graphs.list":            {noTeams: true, heavy: true, run: graphsList},
	"stats.get":              {noTeams: true, heavy: true, run: statsGet},
	"tokens.create":          {noTeams: true, run: tokensCreate},
	"tokens.list":            {noTeams: true, run: tokensList},
	"tokens.revoke":          {noTeams: true, run: tokensRevoke},
	"defs.import":            {noTeams: true, run: defsImport},
	"defs.list":              {noTeams: true, heavy: true, run: defsList},
	"defs.get":               {noTeams: true, run: defsGet},
	"defs.export":            {noTeams: true, run: defsExport},
	"defs.delete":            {noTeams: true, run: defsDelete},

	// The task board and the mailbox (methods_tasks.go).
	"teams.create_task":          {access: accessWrite, run: teamsCreateTask},
	"teams.update_task":          {access: accessWrite, run: teamsUpdateTask},
	"teams.list_tasks":           {access: accessRead, heavy: true, run: teamsListTasks},
	"teams.add_task_comment":     {access: accessWrite, run: teamsAddTaskComment},
	"teams.list_task_comments":   {access: accessRead, heavy: true, run: teamsListTaskComments},
	"teams.list_task_events":     {access: accessRead, heavy: true, run: teamsListTaskEvents},
	"teams.task.get":             {access: accessRead, run: teamsGetTask},
	"teams.task.claim":           {access: accessWrite, run: teamsTaskClaim},
	"teams.task.next":            {access: accessWrite, run: teamsTaskNext},
	"teams.task.progress":        {access: accessWrite, run: teamsTaskProgress},
	"teams.task.complete":        {access: accessWrite, run: teamsTaskComplete},
	"teams.task.review":          {access: accessWrite, run: teamsTaskReview},
	"teams.task.fail":            {access: accessWrite, run: teamsTaskFail},
	"teams.task.cancel":          {access: accessWrite, run: teamsTaskCancel},
	"teams.task.pause":           {access: accessWrite, run: teamsTaskPause},
	"teams.task.resume":          {access: accessWrite, run: teamsTaskResume},
	"teams.task.retry":           {access: accessWrite, run: teamsTaskRetry},
	"teams.task.skip":            {access: accessWrite, run: teamsTaskSkip},
	"teams.task.dispatch":        {access: accessWrite, run: teamsTaskDispatch},
	"teams.task.sweep":           {access: accessWrite, run: teamsTaskSweep},
	"teams.task.board":           {access: accessRead, run: teamsTaskBoard},
	"teams.task.configure_board": {access: accessWrite, run: teamsTaskConfigureBoard},
	"teams.task.add_findings":    {access: accessWrite, run: teamsTaskAddFindings},
	"teams.task.finish":          {access: accessWrite, run: teamsTaskFinish},
	"teams.task.apply_ops":       {access: accessWrite, run: teamsTaskApplyOps},
	"teams.chat.send":            {access: accessWrite, run: teamsChatSend},
	"teams.chat.thread":          {access: accessRead, run: teamsChatThread},
	"teams.chat.history":         {access: accessRead, heavy: true, run: teamsChatHistory},
	"teams.chat.inbox":           {access: accessRead, run: teamsChatInbox},
	"teams.chat.mark":            {access: accessWrite, run: teamsChatMark},
	"teams.chat.configure":       {access: accessWrite, run: teamsChatConfigure},
	"teams.chat.retention":       {access: accessRead, run: teamsChatRetention},

	// Workflow runs and their pull API (methods_workflows.go).
	"workflows.start":          {access: accessCreate, check: checkWorkflowsStart, run: workflowsStart},
	"workflows.get":            {access: accessRead, run: workflowsGet},
	"workflows.list":           {access: accessRead, heavy: true, run: workflowsList},
	"workflows.history":        {access: accessRead, run: workflowsHistory},
	"workflows.cancel":         {access: accessWrite, run: workflowsCancel},
	"workflows.ready":          {access: accessWrite, run: workflowsReady},
	"workflows.start_step":     {access: accessWrite, run: workflowsStartStep},
	"workflows.add_findings":   {access: accessWrite, run: workflowsAddFindings},
	"workflows.complete_step":  {access: accessWrite, run: workflowsCompleteStep},
	"workflows.fail_step":      {access: accessWrite, run: workflowsFailStep},
	"workflows.release_step":   {access: accessWrite, run: workflowsReleaseStep},
	"workflows.claim_driver":   {access: accessWrite, run: workflowsClaimDriver},
	"workflows.release_driver": {access: accessWrite, run: workflowsReleaseDriver},
}

// Methods returns the names of the JSON-RPC methods, sorted.
func Methods() []string {
	out := make([]string, 0, len(methods))
	for name := range methods {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// invoke runs method name with params in namespace ns.
func (s *Server) invoke(ctx context.Context, ns, name string, params json.RawMessage) (any, error) {
	m, ok := methods[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q (methods: %s)", errMethodNotFound, name, strings.Join(Methods(), ", "))
	}
	c := &rpcCtx{s: s, ns: ns}
	c.batch, _ = ctx.Value(batchKey{}).(*batchBudget)
	if m.check != nil {
		if err := m.check(s, params); err != nil {
			return nil, err
		}
	}
	if m.heavy {
		release, err := s.queryTurn(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		defer release()
	}
	if !m.noTeams {
		var err error
		if c.m, err = s.manager(ctx, ns, m.access); err != nil {
			return nil, err
		}
	}
	v, err := m.run(ctx, c, params)
	if ee := (emptyIDError{}); errors.As(err, &ee) {
		// An agent, task ... id not given, of a team that does not exist: the
		// Manager's error is of the team, which it looks up first.
		var p struct {
			Team string `json:"team"`
			Task string `json:"task"`
		}
		if c.m != nil && ee.param != "team" && json.Unmarshal(params, &p) == nil && p.Team != "" {
			// Of a snapshot, the Manager checks the form of the team id,
			// then of the snapshot's, before the team exists.
			if terr := c.lookTeam(ctx, p.Team); errors.Is(terr, teammanager.ErrUnknownTeam) &&
				(ee.param != "snapshot" || errors.Is(terr, teammanager.ErrInvalidID)) {
				return nil, terr
			}
			if ee.taskFirst && p.Task != "" {
				if _, terr := c.m.GetTask(ctx, p.Team, p.Task); errors.Is(terr, teammanager.ErrUnknownTask) {
					return nil, terr
				}
			}
		}
		return nil, ee.missing()
	}
	return v, err
}

// lookTeam returns the error GetTeam gives for team (the form of its id,
// then whether it exists), if any, reading only: GetTeam runs a due merge
// (a write), which a call refused for another fault must not do.
func (c *rpcCtx) lookTeam(ctx context.Context, team string) error {
	_, err := c.m.Facts(ctx, team, teammanager.FactFilter{Subject: noSubject})
	return err
}

// term reads a term param with the namespace's prefixes.
func (c *rpcCtx) term(field, s string) (quad.Value, error) {
	if c.prefixes == nil {
		c.prefixes = c.m.Prefixes() // a new map each time: once per call
	}
	v, err := api.ParseTerm(s, c.prefixes)
	if err != nil {
		return nil, fmt.Errorf("params: %s: %w", field, err)
	}
	return v, nil
}

// noSubject is the subject of a listing's filter that matches nothing, by
// which findings.list and facts.list have the Manager look the team and
// the filter's agent up before they refuse a filter term that is no term:
// the Manager looks them up before it checks a filter's terms.
const noSubject = quad.IRI("urn:cortex:server:no-subject")

// topic reads the optional subject and predicate params of a listing (nil
// when absent).
func (c *rpcCtx) topic(subject, predicate string) (s, p quad.Value, err error) {
	if subject != "" {
		if s, err = c.term("subject", subject); err != nil {
			return nil, nil, err
		}
	}
	if predicate != "" {
		if p, err = c.term("predicate", predicate); err != nil {
			return nil, nil, err
		}
	}
	return s, p, nil
}

type teamParams struct {
	Team string `json:"team"`
}

func (p *teamParams) decode(params json.RawMessage) error {
	if err := decodeParams(params, p); err != nil {
		return err
	}
	return requiredGiven(params, "team", p.Team)
}

// checkTeamsCreate checks a team's config as the namespace's manager will,
// before the namespace is created for it.
func checkTeamsCreate(s *Server, params json.RawMessage) error {
	var p api.TeamConfig
	if err := decodeParams(params, &p); err != nil {
		return err
	}
	tc, err := p.TeamConfig()
	if err != nil {
		return err
	}
	return teammanager.FromConfig(s.opts.cfg.Teams).WithPrefixes(s.opts.cfg.Prefixes).ValidateTeam(tc)
}

func teamsCreate(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p api.TeamConfig
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	tc, err := p.TeamConfig()
	if err != nil {
		return nil, err
	}
	t, err := c.m.CreateTeam(ctx, tc)
	if err != nil {
		return nil, err
	}
	return api.TeamOf(t), nil
}

// getTeam reads team with GetTeam, which runs a due merge of the team (a
// write), for a caller that may write in the namespace, and with PeekTeam,
// which never writes, for one that may not (a read token): reads never
// write for it.
func (c *rpcCtx) getTeam(ctx context.Context, team string) (teammanager.Team, error) {
	if allow(ctx, c.ns, RoleWrite, "") != nil {
		return c.m.PeekTeam(ctx, team)
	}
	return c.m.GetTeam(ctx, team)
}

func teamsGet(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p teamParams
	if err := p.decode(params); err != nil {
		return nil, err
	}
	t, err := c.getTeam(ctx, p.Team)
	if err != nil {
		return nil, err
	}
	return api.TeamOf(t), nil
}

func teamsList(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Status    string `json:"status"`
		Lifecycle string `json:"lifecycle"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	// The Manager checks the words, with its messages.
	f := teammanager.TeamFilter{Status: teammanager.Status(p.Status), Lifecycle: teammanager.Lifecycle(p.Lifecycle)}
	list := c.m.ListTeams // rebuilds a stale team table: a write
	if allow(ctx, c.ns, RoleWrite, "") != nil {
		list = c.m.PeekTeams
	}
	ts, err := list(ctx, f)
	if err != nil {
		return nil, err
	}
	if err := c.checkCount(len(ts), "teams"); err != nil {
		return nil, err
	}
	out := make([]api.Team, 0, len(ts))
	for _, t := range ts {
		out = append(out, api.TeamOf(t))
	}
	return out, nil
}

func teamsDelete(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p teamParams
	if err := p.decode(params); err != nil {
		return nil, err
	}
	if err := c.m.DeleteTeam(ctx, p.Team); err != nil {
		return nil, err
	}
	return api.TeamDeleted{Team: p.Team, Deleted: true}, nil
}

func teamsMemberStatus(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team   string `json:"team"`
		Agent  string `json:"agent"`
		Status string `json:"status"`
		Result string `json:"result"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	// An empty status is the Manager's to refuse (ErrInvalidStatus, which
	// it checks first, whatever the ids); an absent one, a missing param.
	if err := requiredGiven(params, "status", p.Status); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team, "agent", p.Agent); err != nil {
		return nil, err
	}
	// The Manager checks the word, with its message.
	up, err := c.m.UpdateMemberStatus(ctx, p.Team, p.Agent, teammanager.Status(p.Status), p.Result)
	if up.Merge != nil {
		c.s.metrics.merged(c.ns)
	}
	if err != nil {
		return nil, err
	}
	return api.MemberStatusOf(up), nil
}

func teamsMerge(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p teamParams
	if err := p.decode(params); err != nil {
		return nil, err
	}
	r, err := c.m.MergeTeamResults(ctx, p.Team)
	if err != nil {
		return nil, err
	}
	c.s.metrics.merged(c.ns)
	return api.MergeOf(r), nil
}

func teamsIsComplete(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p teamParams
	if err := p.decode(params); err != nil {
		return nil, err
	}
	t, err := c.getTeam(ctx, p.Team) // IsTeamComplete's read
	if err != nil {
		return nil, err
	}
	return api.TeamComplete{Team: p.Team, Complete: teammanager.Finished(t.Status)}, nil
}

// findingParams is a finding in params: the shape of api.Finding, without
// id and agent.
type findingParams struct {
	Subject    string     `json:"subject"`
	Predicate  string     `json:"predicate"`
	Object     string     `json:"object"`
	Confidence number     `json:"confidence"`
	AssertedAt *time.Time `json:"assertedAt"`
}

// number is a JSON number read as a float64, where one too large for a
// float64 (1e400) is ±Inf, not a value of the wrong type (invalid params,
// kind usage): the Manager then refuses it as it refuses ±Inf in process
// ("confidence +Inf not in [0, 1]", kind invalid). JSON has no NaN or Inf
// of its own. null leaves it as it is, as for a float64.
type number float64

func (n *number) UnmarshalJSON(b []byte) error {
	if k := jsonKind(b); k != "number" {
		if k == "null" {
			return nil
		}
		return &json.UnmarshalTypeError{Value: k, Type: reflect.TypeFor[float64]()}
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return &json.UnmarshalTypeError{Value: "number " + string(b), Type: reflect.TypeFor[float64]()}
	}
	*n = number(v)
	return nil
}

func (c *rpcCtx) finding(field string, p findingParams) (teammanager.Finding, error) {
	if err := required(field+"subject", p.Subject, field+"predicate", p.Predicate, field+"object", p.Object); err != nil {
		return teammanager.Finding{}, err
	}
	var f teammanager.Finding
	var err error
	if f.Subject, err = c.term(field+"subject", p.Subject); err != nil {
		return f, err
	}
	if f.Predicate, err = c.term(field+"predicate", p.Predicate); err != nil {
		return f, err
	}
	if f.Object, err = c.term(field+"object", p.Object); err != nil {
		return f, err
	}
	f.Confidence = float64(p.Confidence)
	if p.AssertedAt != nil {
		if p.AssertedAt.IsZero() {
			// A zero AssertedAt means now: a time given is not replaced
			// (nor stored: it cannot be), as in a findings import.
			return f, fmt.Errorf("%w: %sassertedAt %s is the zero time, which a finding cannot have (no assertedAt means now): give another time, or none",
				teammanager.ErrInvalidFinding, field, p.AssertedAt.Format(time.RFC3339Nano))
		}
		f.AssertedAt = *p.AssertedAt
	}
	return f, nil
}

func findingsAdd(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team  string `json:"team"`
		Agent string `json:"agent"`
		findingParams
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team, "agent", p.Agent); err != nil {
		return nil, err
	}
	f, err := c.finding("", p.findingParams)
	if err != nil {
		return nil, err
	}
	id, err := c.m.AddFinding(ctx, p.Team, p.Agent, f)
	if err != nil {
		return nil, err
	}
	return api.FindingAdded{ID: id}, nil
}

// findingsAdded is the result of findings.add_batch: the ids of the
// findings, in the order given.
type findingsAdded struct {
	IDs []string `json:"ids"`
}

func findingsAddBatch(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team     string          `json:"team"`
		Agent    string          `json:"agent"`
		Findings []findingParams `json:"findings"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team, "agent", p.Agent); err != nil {
		return nil, err
	}
	fs := make([]teammanager.Finding, 0, len(p.Findings))
	for i, fp := range p.Findings {
		f, err := c.finding(fmt.Sprintf("findings[%d].", i), fp)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	ids, err := c.m.AddFindings(ctx, p.Team, p.Agent, fs)
	if err != nil {
		return nil, err
	}
	if ids == nil {
		ids = []string{}
	}
	return findingsAdded{IDs: ids}, nil
}

func findingsList(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team      string `json:"team"`
		Agent     string `json:"agent"`
		Subject   string `json:"subject"`
		Predicate string `json:"predicate"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team); err != nil {
		return nil, err
	}
	f := teammanager.FindingFilter{Agent: p.Agent}
	var err error
	if f.Subject, f.Predicate, err = c.topic(p.Subject, p.Predicate); err != nil {
		// The Manager looks the team and the filter's agent up first.
		if _, merr := c.m.Findings(ctx, p.Team, teammanager.FindingFilter{Agent: p.Agent, Subject: noSubject}); merr != nil {
			return nil, merr
		}
		return nil, err
	}
	fs, err := c.m.Findings(ctx, p.Team, f)
	if err != nil {
		return nil, err
	}
	if err := c.checkCount(len(fs), "findings"); err != nil {
		return nil, err
	}
	return api.FindingsOf(fs), nil
}

// findingsFormat resolves the format of findings.import: json, or an RDF
// format by name or short name (ntriples, nt, turtle, ttl).
func findingsFormat(name string) (string, error) {
	f, err := teammanager.FindingsFormat(name)
	if err != nil {
		return "", fmt.Errorf("%w: params: %w", api.ErrUsage, err)
	}
	return f, nil
}

// checkTriples fails if data, in RDF format format (not JSON), holds more
// triples than the limit of results: findings.import writes all of them in
// one atomic step, and a few megabytes of Turtle collections expand to
// millions (each finding is then eight quads). Data that does not parse is
// left to the import, which says where.
func (s *Server) checkTriples(data, format string) error {
	if format == teammanager.FindingsJSON {
		return nil // a record is tens of bytes at least: the body limit bounds them
	}
	dec, err := rdfio.NewDecoder(strings.NewReader(data), format, rdfio.DecodeOptions{Base: "urn:cortex:count"})
	if err != nil {
		return nil
	}
	defer dec.Close()
	for n := int64(0); ; n++ {
		if _, err := dec.Next(); err != nil {
			return nil
		}
		if n == s.opts.maxResults {
			return fmt.Errorf("%w: params: data: more than %d triples (the server's limit of results per request; nothing was imported): split the data",
				api.ErrInvalid, s.opts.maxResults)
		}
	}
}

func findingsImport(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team   string `json:"team"`
		Agent  string `json:"agent"`
		Format string `json:"format"`
		Data   string `json:"data"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team, "agent", p.Agent); err != nil {
		return nil, err
	}
	if err := required("format", p.Format); err != nil {
		return nil, err
	}
	format, err := findingsFormat(p.Format)
	if err != nil {
		return nil, err
	}
	if err := c.s.checkTriples(p.Data, format); err != nil {
		return nil, err
	}
	n, err := c.m.ImportFindings(ctx, p.Team, p.Agent, strings.NewReader(p.Data), format)
	if err != nil {
		return nil, err
	}
	return api.FindingsImported{Team: p.Team, Agent: p.Agent, Findings: n}, nil
}

func factsList(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team      string `json:"team"`
		Subject   string `json:"subject"`
		Predicate string `json:"predicate"`
		Agent     string `json:"agent"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team); err != nil {
		return nil, err
	}
	f := teammanager.FactFilter{Agent: p.Agent}
	var err error
	if f.Subject, f.Predicate, err = c.topic(p.Subject, p.Predicate); err != nil {
		// The Manager looks the team and the filter's agent up first
		// (Facts only reads: a call refused merges nothing).
		if _, merr := c.m.Facts(ctx, p.Team, teammanager.FactFilter{Agent: p.Agent, Subject: noSubject}); merr != nil {
			return nil, merr
		}
		return nil, err
	}
	// A team whose merge is due is merged first, as cortexctl facts list
	// does (GetTeam runs the merges a read retries), for a caller that may
	// write.
	if _, err := c.getTeam(ctx, p.Team); err != nil {
		return nil, err
	}
	fs, err := c.m.Facts(ctx, p.Team, f)
	if err != nil {
		return nil, err
	}
	if err := c.checkCount(len(fs), "facts"); err != nil {
		return nil, err
	}
	return api.FactsOf(fs), nil
}

func conflictsList(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team string `json:"team"`
		Open bool   `json:"open"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team); err != nil {
		return nil, err
	}
	cs, err := c.m.Conflicts(ctx, p.Team)
	if err != nil {
		return nil, err
	}
	if err := c.checkCount(len(cs), "conflicts"); err != nil {
		return nil, err
	}
	return api.ConflictsOf(cs, p.Open), nil
}

func conflictsResolve(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Team     string    `json:"team"`
		Conflict string    `json:"conflict"`
		Objects  *[]string `json:"objects"`
		By       string    `json:"by"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	// An empty resolver is the Manager's to refuse (ErrInvalidResolution,
	// which it checks first, whatever the ids); an absent one, a missing
	// param.
	if err := requiredGiven(params, "by", p.By); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team, "conflict", p.Conflict); err != nil {
		return nil, err
	}
	if p.Objects == nil {
		return nil, fmt.Errorf(`%w: params: "objects" is required (the chosen object terms; [] keeps none)`, api.ErrUsage)
	}
	objs := []quad.Value{}
	for i, s := range *p.Objects {
		v, err := c.term(fmt.Sprintf("objects[%d]", i), s)
		if err != nil {
			return nil, err
		}
		objs = append(objs, v)
	}
	r, err := c.m.ResolveConflict(ctx, p.Team, p.Conflict, objs, p.By)
	if err != nil {
		return nil, err
	}
	c.s.metrics.merged(c.ns)
	return api.MergeOf(r), nil
}

func strategiesList(_ context.Context, _ *rpcCtx, params json.RawMessage) (any, error) {
	if err := decodeParams(params, &struct{}{}); err != nil {
		return nil, err
	}
	return merge.Names(), nil
}

// prefixesGet: {} -> {PREFIX: IRI, ...}, the prefixes the server reads
// the namespace's terms and queries with (teammanager.Prefixes of its
// config: cx and the namespace's name for its base, the built-in ones and
// the config's). A client that parses terms itself (cortexctl --server)
// uses them, so that cx:x names the same IRI in both modes. The namespace
// need not exist: its base is the config's either way.
func prefixesGet(_ context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	if err := decodeParams(params, &struct{}{}); err != nil {
		return nil, err
	}
	return c.s.prefixes(c.ns)
}

// namespacesList: {} -> the namespaces of the store with their base and
// quads; for a request with a token, only the token's namespace (scopeOf).
func namespacesList(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	if err := decodeParams(params, &struct{}{}); err != nil {
		return nil, err
	}
	names, err := c.s.store.Namespaces(ctx)
	if err != nil {
		return nil, err
	}
	names = visible(ctx, names)
	if err := c.checkCount(len(names), "namespaces"); err != nil {
		return nil, err
	}
	return api.NamespacesOf(ctx, c.s.store, names)
}

// graphsList: {} -> the graphs of the namespace with their quad counts
// (cortexctl graphs).
func graphsList(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	if err := decodeParams(params, &struct{}{}); err != nil {
		return nil, err
	}
	n, err := c.s.namespace(ctx, c.ns, accessRead)
	if err != nil {
		return nil, err
	}
	gs, err := n.Graphs(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.checkCount(len(gs), "graphs"); err != nil {
		return nil, err
	}
	return api.GraphsOf(gs), nil
}

// statsGet: {} -> the statistics of the store and the namespace
// (cortexctl stats); its namespaces, for a request with a token, are the
// token's only, as namespaces.list's (scopeOf).
func statsGet(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	if err := decodeParams(params, &struct{}{}); err != nil {
		return nil, err
	}
	n, err := c.s.namespace(ctx, c.ns, accessRead)
	if err != nil {
		return nil, err
	}
	st, err := api.ReadStats(ctx, c.s.store, c.s.store.Dir(), n)
	if err != nil {
		return nil, err
	}
	st.Namespaces = visible(ctx, st.Namespaces)
	return st, nil
}

// namespacesDelete: {"name": NS} -> NS deleted, with all its data. The
// name must be the namespace of the request (a confirmation, as
// cortexctl's --yes): the namespace is in the path, the name says it
// again.
func namespacesDelete(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Name string `json:"name"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := required("name", p.Name); err != nil {
		return nil, err
	}
	if err := namespace.ValidateName(p.Name); err != nil {
		return nil, fmt.Errorf("params: name: %w", err)
	}
	if p.Name != c.ns {
		return nil, fmt.Errorf("%w: params: name %q is not the namespace of the request, %q: send it to /ns/%s/rpc", api.ErrUsage, p.Name, c.ns, p.Name)
	}
	if _, err := c.s.namespace(ctx, c.ns, accessRead); err != nil {
		return nil, err
	}
	if err := c.s.deleteNamespace(ctx, c.ns); err != nil {
		return nil, err
	}
	return api.NamespaceDeleted{Namespace: c.ns, Deleted: true}, nil
}
